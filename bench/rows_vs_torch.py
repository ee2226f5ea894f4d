#!/usr/bin/env python3
"""warpred's row-wise kernels beside PyTorch and a Triton fused softmax, same tensors, same run.

    python3 bench/rows_vs_torch.py [CSV path] [--quick]

Loads samples/common/row_kernels.cuh into PyTorch with torch.utils.cpp_extension.load_inline (the
repository root on the include path), then for float32 and bfloat16 and rows of
L = 32 .. 2^20 (2^26 elements each) times, with CUDA events (median of 51 runs after 5 warm-ups; the
runs are queued back to back, so host overhead is not counted, see median_us):

    softmax        warpred rk_softmax       torch.softmax(x, -1)         Triton fused softmax (L <= 16384)
    layer_norm     warpred rk_layernorm     F.layer_norm(x, (L,), w, b)
    rms_norm       warpred rk_rmsnorm       F.rms_norm(x, (L,), w)
    cross_entropy  warpred rk_cross_entropy (per-row loss and argmax, then the deterministic mean)
                                            F.cross_entropy(x, t) (mean; int64 targets, as torch wants)

GB/s counts the bytes a perfect kernel moves (read x + write y; cross-entropy: read the logits).
Before timing, each warpred output is compared with torch's (the script stops on a mismatch).
Needs PyTorch with CUDA (and Triton for its column; without it that column is empty).
--quick: 2^22 elements and 5 runs (a smoke test).
"""
import csv
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

try:
    import triton
    import triton.language as tl
except ImportError:  # the Triton column stays empty
    triton = None

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LENS = [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536, 262144, 1 << 20]

CUDA_SRC = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include "samples/common/row_kernels.cuh"

#define RK_TORCH_CHECK(call)                                                   \
    do {                                                                       \
        const cudaError_t e_ = (call);                                         \
        TORCH_CHECK(e_ == cudaSuccess, #call ": ", cudaGetErrorString(e_));     \
    } while (0)

static void check_input(const torch::Tensor &x)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.is_contiguous(), "x: a contiguous 2D CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kBFloat16, "x: float32 or bfloat16");
    TORCH_CHECK(x.size(1) <= 0x7fffffff, "rows of at most 2^31 - 1 elements");
}

template <typename T> static T *ptr(const torch::Tensor &t) { return reinterpret_cast<T *>(t.data_ptr()); }

torch::Tensor softmax(torch::Tensor x)
{
    check_input(x);
    auto y = torch::empty_like(x);
    cudaStream_t s = at::cuda::getCurrentCUDAStream();
    if (x.scalar_type() == torch::kFloat)
        RK_TORCH_CHECK(rk_softmax(ptr<float>(x), ptr<float>(y), x.size(0), (int)x.size(1), s));
    else
        RK_TORCH_CHECK(rk_softmax(ptr<__nv_bfloat16>(x), ptr<__nv_bfloat16>(y), x.size(0), (int)x.size(1), s));
    return y;
}

torch::Tensor layer_norm(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps)
{
    check_input(x);
    TORCH_CHECK(w.scalar_type() == x.scalar_type() && b.scalar_type() == x.scalar_type(), "w, b: x's dtype");
    auto y = torch::empty_like(x);
    cudaStream_t s = at::cuda::getCurrentCUDAStream();
    if (x.scalar_type() == torch::kFloat)
        RK_TORCH_CHECK(rk_layernorm(ptr<float>(x), ptr<float>(w), ptr<float>(b), ptr<float>(y), x.size(0),
                                    (int)x.size(1), (float)eps, s));
    else
        RK_TORCH_CHECK(rk_layernorm(ptr<__nv_bfloat16>(x), ptr<__nv_bfloat16>(w), ptr<__nv_bfloat16>(b),
                                    ptr<__nv_bfloat16>(y), x.size(0), (int)x.size(1), (float)eps, s));
    return y;
}

torch::Tensor rms_norm(torch::Tensor x, torch::Tensor w, double eps)
{
    check_input(x);
    TORCH_CHECK(w.scalar_type() == x.scalar_type(), "w: x's dtype");
    auto y = torch::empty_like(x);
    cudaStream_t s = at::cuda::getCurrentCUDAStream();
    if (x.scalar_type() == torch::kFloat)
        RK_TORCH_CHECK(rk_rmsnorm(ptr<float>(x), ptr<float>(w), ptr<float>(y), x.size(0), (int)x.size(1), (float)eps, s));
    else
        RK_TORCH_CHECK(rk_rmsnorm(ptr<__nv_bfloat16>(x), ptr<__nv_bfloat16>(w), ptr<__nv_bfloat16>(y), x.size(0),
                                  (int)x.size(1), (float)eps, s));
    return y;
}

static const warpred_device_plan *plan(void)
{
    static warpred_device_plan p;
    static int made = 0;
    if (!made) {
        const char *why = "";
        TORCH_CHECK(warpred_device_plan_create(&p, 0, &why) == cudaSuccess, "warpred_device_plan_create: ", why);
        made = 1;
    }
    return &p;
}

/* (mean loss, per-row loss, per-row argmax); targets int32 */
std::vector<torch::Tensor> cross_entropy(torch::Tensor x, torch::Tensor t)
{
    check_input(x);
    TORCH_CHECK(t.is_cuda() && t.scalar_type() == torch::kInt && t.numel() == x.size(0), "t: int32, one per row");
    auto opts = x.options().dtype(torch::kFloat);
    auto loss = torch::empty({x.size(0)}, opts);
    auto mean = torch::empty({}, opts);
    auto arg = torch::empty({x.size(0)}, opts.dtype(torch::kInt));
    cudaStream_t s = at::cuda::getCurrentCUDAStream();
    if (x.scalar_type() == torch::kFloat)
        RK_TORCH_CHECK(rk_cross_entropy(ptr<float>(x), ptr<int>(t), ptr<float>(loss), ptr<int>(arg), x.size(0),
                                        (int)x.size(1), plan(), ptr<float>(mean), s));
    else
        RK_TORCH_CHECK(rk_cross_entropy(ptr<__nv_bfloat16>(x), ptr<int>(t), ptr<float>(loss), ptr<int>(arg), x.size(0),
                                        (int)x.size(1), plan(), ptr<float>(mean), s));
    return {mean, loss, arg};
}
"""

CPP_SRC = r"""
#include <torch/extension.h>
torch::Tensor softmax(torch::Tensor x);
torch::Tensor layer_norm(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps);
torch::Tensor rms_norm(torch::Tensor x, torch::Tensor w, double eps);
std::vector<torch::Tensor> cross_entropy(torch::Tensor x, torch::Tensor t);
"""

if triton is not None:

    @triton.jit
    def triton_softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        y = e / tl.sum(e, axis=0)
        tl.store(out_ptr + row * n_cols + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def triton_softmax(x):
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)
    warps = 4 if block <= 1024 else 8 if block <= 4096 else 16
    y = torch.empty_like(x)
    triton_softmax_kernel[(rows,)](y, x, cols, BLOCK=block, num_warps=warps)
    return y


def median_us(fn, warmup, reps):
    """Median GPU time of one call. The calls are queued back to back, each between its own pair of
    events, with one synchronization at the end: the GPU never waits for the host, so the host's
    per-call work (Python, the binding, the allocator: more for an extension than for torch's own
    operators) stays out of every figure, torch's and warpred's alike."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, stop in events:
        start.record()
        fn()
        stop.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(stop) * 1e3 for start, stop in events)


def check(name, got, want, atol, rtol):
    got, want = got.float(), want.float()
    finite = torch.isfinite(want)
    bad = ~torch.isclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        raise SystemExit(f"{name}: {int(bad.sum())} values differ from torch, first at {i}: "
                         f"{got.flatten()[i].item()} vs {want.flatten()[i].item()} (all finite: {bool(finite.all())})")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    csv_path = args[0] if args else "rows_vs_torch.csv"
    if not torch.cuda.is_available():
        print("rows_vs_torch: no CUDA GPU for torch, nothing measured")
        return 1
    n = 1 << (22 if quick else 26)
    warmup, reps = (2, 5) if quick else (5, 51)
    print(f"compiling warpred's row kernels (load_inline, include path {REPO}) ...", flush=True)
    ext = load_inline(
        name="warpred_rows",
        cpp_sources=[CPP_SRC],
        cuda_sources=[CUDA_SRC],
        functions=["softmax", "layer_norm", "rms_norm", "cross_entropy"],
        extra_include_paths=[REPO],
        extra_cuda_cflags=["-O3", "-std=c++17", "-lineinfo", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
                           "-U__CUDA_NO_BFLOAT16_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
                           "-U__CUDA_NO_HALF_OPERATORS__"],
        verbose=False,
    )
    gpu = torch.cuda.get_device_name()
    print(f"{gpu}; torch {torch.__version__}; triton {triton.__version__ if triton else 'not installed'}; "
          f"{n} elements per row length, median of {reps} runs")
    rows_out, ratios = [], []
    header = ("| op | dtype | L | warpred us | warpred GB/s | torch us | torch GB/s | torch/warpred time "
              "| triton us | triton GB/s | triton/warpred time |")
    print(header)
    print("|" + "---|" * 11)
    eps = 1e-5
    for dtype in (torch.float32, torch.bfloat16):
        esize = torch.finfo(dtype).bits // 8
        for L in LENS:
            if L > n:
                continue
            rows = n // L
            gen = torch.Generator(device="cuda").manual_seed(L)
            x = (torch.rand(rows, L, device="cuda", generator=gen) * 8 - 4).to(dtype)
            w = (torch.rand(L, device="cuda", generator=gen) + 0.5).to(dtype)
            b = (torch.rand(L, device="cuda", generator=gen) - 0.5).to(dtype)
            t64 = torch.randint(0, L, (rows,), device="cuda", generator=gen)
            t32 = t64.to(torch.int32)
            tol = (2e-6, 1e-4) if dtype == torch.float32 else (1e-2, 2e-2)
            # correctness beside torch first
            check(f"softmax {dtype} L={L}", ext.softmax(x), torch.softmax(x, -1), *tol)
            check(f"layer_norm {dtype} L={L}", ext.layer_norm(x, w, b, eps), F.layer_norm(x, (L,), w, b, eps),
                  tol[0] * 10, tol[1] * 10)
            check(f"rms_norm {dtype} L={L}", ext.rms_norm(x, w, eps), F.rms_norm(x, (L,), w, eps), tol[0] * 10,
                  tol[1] * 10)
            mean, loss, arg = ext.cross_entropy(x, t32)
            check(f"cross_entropy {dtype} L={L}", mean, F.cross_entropy(x.float(), t64), 1e-4, 1e-4)
            check(f"argmax {dtype} L={L}", arg, x.float().argmax(-1).to(torch.int32), 0, 0)
            io = 2.0 * rows * L * esize
            cases = [
                ("softmax", lambda: ext.softmax(x), lambda: torch.softmax(x, -1),
                 (lambda: triton_softmax(x)) if triton is not None and L <= 16384 else None, io),
                ("layer_norm", lambda: ext.layer_norm(x, w, b, eps), lambda: F.layer_norm(x, (L,), w, b, eps), None,
                 io),
                ("rms_norm", lambda: ext.rms_norm(x, w, eps), lambda: F.rms_norm(x, (L,), w, eps), None, io),
                ("cross_entropy", lambda: ext.cross_entropy(x, t32), lambda: F.cross_entropy(x, t64), None, io / 2),
            ]
            if triton is not None and L <= 16384:
                check(f"triton softmax {dtype} L={L}", triton_softmax(x), torch.softmax(x, -1), *tol)
            for name, ours, theirs, tri, nbytes in cases:
                us_w = median_us(ours, warmup, reps)
                us_t = median_us(theirs, warmup, reps)
                us_x = median_us(tri, warmup, reps) if tri else math.nan
                gbs = lambda us: nbytes / (us * 1e3)
                dt = str(dtype).replace("torch.", "")
                print(f"| {name} | {dt} | {L} | {us_w:.1f} | {gbs(us_w):.0f} | {us_t:.1f} | {gbs(us_t):.0f} | "
                      f"{us_t / us_w:.2f} | " + (f"{us_x:.1f} | {gbs(us_x):.0f} | {us_x / us_w:.2f} |" if tri else
                                                 "- | - | - |"), flush=True)
                case = f"{name} {dt}"
                rows_out.append(["rows_torch", case, "warpred", L, f"{us_w:.3f}", f"{gbs(us_w):.1f}", "GB/s"])
                rows_out.append(["rows_torch", case, f"torch {torch.__version__.split('+')[0]}", L, f"{us_t:.3f}",
                                 f"{gbs(us_t):.1f}", "GB/s"])
                if tri:
                    rows_out.append(["rows_torch", case, "Triton fused softmax", L, f"{us_x:.3f}", f"{gbs(us_x):.1f}",
                                     "GB/s"])
                ratios.append(["rows_torch_ratio", case, "torch / warpred time", L, "", f"{us_t / us_w:.4f}", "ratio"])
                if tri:
                    ratios.append(["rows_torch_ratio", case, "Triton / warpred time", L, "", f"{us_x / us_w:.4f}",
                                   "ratio"])
            del x, w, b, t64, t32
            torch.cuda.empty_cache()
    with open(csv_path, "w", newline="") as f:
        out = csv.writer(f)
        # the bench CSV columns (docs/BENCHMARKS.md and the README figure blocks read them)
        out.writerow(["bench", "case", "variant", "n", "time_us", "value", "unit"])
        out.writerow(["rows_torch_gpu", "GPU", gpu, 0, "", 0, "-"])
        out.writerows(rows_out + ratios)
    print(f"CSV: {csv_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
