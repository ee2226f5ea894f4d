#!/usr/bin/env python3
"""samples/python - warpred from Python, without writing a C++ extension project.

The include folder comes from the Python package (pip install --no-build-isolation . in the
repository root): warpred.get_include(). Without the package installed, the sample imports it from
the checkout's python/ folder, whose get_include() is then the repository root.

Three routes to warpred reductions:

  CuPy    cupy.RawModule compiles CUDA source at run time with NVRTC. The source includes the
          warpred headers; the options pass '-I' + get_include(), and name_expressions names the
          template instance to compile ('sum_max<256>').
  PyTorch torch.utils.cpp_extension.load_inline builds a small extension from a string (nvcc
          plus the host compiler, about 30 s the first time; cached afterwards), with
          extra_include_paths=[get_include()].
  numba   numba-cuda cannot include C++ headers in a Python kernel; it links CUDA sources. A
          shim file (NUMBA_SHIM below) defines extern "C" __device__ functions that call
          warpred_block_reduce<256>; numba compiles it with NVRTC (@cuda.jit(link=[path])), with
          NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS = get_include() so that its #include resolves, and
          the kernel calls the shim through cuda.declare_device. Numba's calling convention: the
          function returns an int status (0) and writes its result through the first pointer.

The CuPy and PyTorch kernels sum an array and take its maximum in one pass; each result is
compared with the library's own (cupy.sum / cupy.max, torch.sum / torch.max) and a float64
reference, and the times are printed side by side (CUDA events, median after warm-up). The numba
kernel computes per-block sums and maxima, checked against numpy per block.

Run from anywhere:  python3 samples/python/main.py
WARPRED_SAMPLE_QUICK=1 uses a small array (the PyTorch build still takes ~30 s, once per machine:
torch caches the extension).
Where CuPy, PyTorch or numba-cuda is missing, the sample says so ("SKIPPED: ...") and skips that
part; with none of them it checks nothing and ends with a line starting "SKIPPED:" (exit status 0:
make run counts it as skipped, not passed). Without a usable GPU it says so and exits 1.
"""
import os
import statistics
import sys
import tempfile

try:
    import warpred
except ImportError:  # not installed: the package in the checkout
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import warpred
INCLUDE = warpred.get_include()
QUICK = os.environ.get("WARPRED_SAMPLE_QUICK", "0") not in ("", "0")
BLOCK = 256

# The device code both routes compile. Each thread sums its elements and keeps their maximum;
# warpred_block_reduce combines the threads of a block (result in thread 0), which then adds
# the block's sum to *sum with atomicAdd and folds its max into *mx with
# warpred_atomic_fmaximum (an exact float atomic max: -0 < +0, NaN wins). The caller sets
# *sum = 0 and *mx = -inf first. Under NVRTC there is no <math.h>: -inf is spelled in bits.
KERNEL_SOURCE = r"""
#include <warpred/block_reduce.cuh>
#include <warpred/atomic_minmax.cuh>

template <int Block>
__global__ void sum_max(const float *x, long long n, float *sum, float *mx)
{
    const warpred_op_max max_op = warpred_op_max();
    float s = 0.0f, m = __int_as_float(0xff800000);
    for (long long i = (long long)blockIdx.x * Block + threadIdx.x; i < n; i += (long long)gridDim.x * Block) {
        s += x[i];
        m = max_op(m, x[i]);
    }
    s = warpred_block_reduce<Block>(s, warpred_op_sum());
    m = warpred_block_reduce<Block>(m, warpred_op_max());
    if (threadIdx.x == 0) {
        atomicAdd(sum, s);
        warpred_atomic_fmaximum(mx, m);
    }
}
"""

# The PyTorch route needs a host function that launches the kernel; load_inline generates the
# Python binding from the declaration in TORCH_CPP.
TORCH_CUDA = KERNEL_SOURCE + r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

std::vector<torch::Tensor> warpred_sum_max(torch::Tensor x, int64_t blocks)
{
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "warpred_sum_max: a contiguous float32 CUDA tensor");
    auto sum = torch::zeros({1}, x.options());
    auto mx = torch::full({1}, -INFINITY, x.options());
    sum_max<256><<<(unsigned)blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), x.numel(), sum.data_ptr<float>(), mx.data_ptr<float>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return {sum, mx};
}
"""
TORCH_CPP = "std::vector<torch::Tensor> warpred_sum_max(torch::Tensor x, int64_t blocks);"


def sum_tolerance(n, blocks):
    """Error bound for the float sum of n values in [0, 1) (all non-negative), relative to the
    sum. A float sum of non-negative terms along a chain of L additions is within L * 2^-24 of
    the exact sum (first order). The longest chain here: a thread's own elements
    (ceil(n / threads)), the block tree (8 levels for 256 threads), then the block partials
    arriving one atomicAdd after another (up to `blocks` of them). Doubled for the second-order
    terms. cupy.sum / torch.sum stay within the same kind of bound (they sum in float too)."""
    chain = -(-n // (blocks * BLOCK)) + 8 + blocks
    return 2.0 * chain * 2.0 ** -24


def median_ms(fn, new_event, elapsed_ms, warmups, runs):
    """Median milliseconds of fn() between two CUDA events, after warm-up calls."""
    for _ in range(warmups):
        fn()
    times = []
    for _ in range(runs):
        start, stop = new_event(), new_event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(elapsed_ms(start, stop))
    return statistics.median(times)


def check(label, got_sum, got_max, ref_sum, ref_max, tol):
    """Sum within the relative bound of the float64 reference; max bit-exact (a max never rounds)."""
    rel = abs(got_sum - ref_sum) / ref_sum
    ok = rel <= tol and got_max == ref_max
    print(f"  {label:<28} sum {got_sum:16.6f} (rel. err {rel:.1e})   max {got_max:.9g}   {'ok' if ok else 'WRONG'}")
    return ok


def run_cupy(n, warmups, runs):
    """Returns (ok, rows of timing) or None when CuPy is missing."""
    try:
        import cupy as cp
    except ImportError:
        print("SKIPPED: CuPy is not installed (pip install cupy-cuda13x): the CuPy part checked nothing.")
        return None
    try:
        device = cp.cuda.Device(0)
        props = cp.cuda.runtime.getDeviceProperties(device.id)
    except Exception as err:  # CUDARuntimeError without a driver or a device
        print(f"python sample: no usable CUDA GPU ({err}), so nothing was run.")
        sys.exit(1)
    blocks = min(-(-n // BLOCK), props["multiProcessorCount"] * (props["maxThreadsPerMultiProcessor"] // BLOCK))
    print(f"CuPy {cp.__version__} on {props['name'].decode()}: compiling with NVRTC, -I {INCLUDE}")

    module = cp.RawModule(code=KERNEL_SOURCE, options=("-std=c++17", "-I" + INCLUDE),
                          name_expressions=("sum_max<256>",))
    kernel = module.get_function("sum_max<256>")

    rng = cp.random.default_rng(2024)
    x = rng.random(n, dtype=cp.float32)  # [0, 1)
    out_sum = cp.empty(1, dtype=cp.float32)
    out_max = cp.empty(1, dtype=cp.float32)

    def warpred_call():
        out_sum.fill(0.0)
        out_max.fill(-cp.inf)
        kernel((blocks,), (BLOCK,), (x, cp.int64(n), out_sum, out_max))

    def cupy_call():
        return cp.sum(x), cp.max(x)

    warpred_call()
    ref_sum = float(x.astype(cp.float64).sum())
    ref_max = float(x.max())
    cs, cm = cupy_call()
    tol = sum_tolerance(n, blocks)
    print(f"  n = {n}, float64 reference sum {ref_sum:.6f}, tolerance {tol:.1e} relative")
    ok = check("warpred kernel (CuPy)", float(out_sum[0]), float(out_max[0]), ref_sum, ref_max, tol)
    ok &= check("cupy.sum / cupy.max", float(cs), float(cm), ref_sum, ref_max, tol)

    t_warpred = median_ms(warpred_call, cp.cuda.Event, cp.cuda.get_elapsed_time, warmups, runs)
    t_cupy = median_ms(cupy_call, cp.cuda.Event, cp.cuda.get_elapsed_time, warmups, runs)
    return ok, [("warpred sum+max, one kernel (CuPy)", t_warpred), ("cupy.sum + cupy.max", t_cupy)]


def run_torch(n, warmups, runs):
    """Returns (ok, rows of timing) or None when PyTorch is missing or skipped."""
    try:
        import torch
        from torch.utils.cpp_extension import load_inline
    except ImportError:
        print("SKIPPED: PyTorch is not installed: the PyTorch part checked nothing.")
        return None
    if not torch.cuda.is_available():
        print("python sample: PyTorch sees no usable CUDA GPU, so nothing was run.")
        sys.exit(1)
    props = torch.cuda.get_device_properties(0)
    per_sm = getattr(props, "max_threads_per_multi_processor", 2048) // BLOCK
    blocks = min(-(-n // BLOCK), props.multi_processor_count * per_sm)
    print(f"\nPyTorch {torch.__version__} on {props.name}: building with load_inline (about 30 s the first time)")
    ext = load_inline(name="warpred_sample_sum_max", cpp_sources=[TORCH_CPP], cuda_sources=[TORCH_CUDA],
                      functions=["warpred_sum_max"], extra_include_paths=[INCLUDE],
                      extra_cuda_cflags=["-O2"], verbose=False)  # the C++ standard: PyTorch's own

    gen = torch.Generator(device="cuda").manual_seed(2024)
    x = torch.rand(n, dtype=torch.float32, device="cuda", generator=gen)

    def warpred_call():
        return ext.warpred_sum_max(x, blocks)

    def torch_call():
        return torch.sum(x), torch.max(x)

    s, m = warpred_call()
    ref_sum = float(x.double().sum())
    ref_max = float(x.max())
    ts, tm = torch_call()
    tol = sum_tolerance(n, blocks)
    print(f"  n = {n}, float64 reference sum {ref_sum:.6f}, tolerance {tol:.1e} relative")
    ok = check("warpred kernel (load_inline)", float(s), float(m), ref_sum, ref_max, tol)
    ok &= check("torch.sum / torch.max", float(ts), float(tm), ref_sum, ref_max, tol)

    def new_event():
        return torch.cuda.Event(enable_timing=True)

    def elapsed_ms(start, stop):
        return start.elapsed_time(stop)

    t_warpred = median_ms(warpred_call, new_event, elapsed_ms, warmups, runs)
    t_torch = median_ms(torch_call, new_event, elapsed_ms, warmups, runs)
    return ok, [("warpred sum+max, one kernel (torch)", t_warpred), ("torch.sum + torch.max", t_torch)]


# The numba route's shim: extern "C" __device__ functions in numba's calling convention (int
# status, result through the first pointer), each a block reduction of 256 threads. numba compiles
# this file with NVRTC and links it with the Python kernel; every thread of the block calls them.
NUMBA_SHIM = r"""
#include <warpred/block_reduce.cuh>

extern "C" __device__ int warpred_numba_block_sum(float *result, float v)
{
    *result = warpred_block_allreduce<256>(v, warpred_op_sum());
    return 0;
}

extern "C" __device__ int warpred_numba_block_max(float *result, float v)
{
    *result = warpred_block_allreduce<256>(v, warpred_op_max());   /* IEEE maximum: NaN wins, -0 < +0 */
    return 0;
}
"""


def run_numba(n):
    """Returns (ok, []) or None when numba-cuda is missing. Per-block sums and maxima of a float32
    array from a numba kernel that calls warpred through the shim, checked against numpy."""
    os.environ["NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS"] = INCLUDE  # read when numba-cuda loads NVRTC
    try:
        import numpy as np

        if not hasattr(np, "row_stack"):  # removed in numpy 2; numba-cuda's fp16 typing still calls it
            np.row_stack = np.vstack
        from numba import cuda
    except ImportError:
        print("SKIPPED: numba-cuda is not installed (pip install numba-cuda[cu13]): the numba part checked nothing.")
        return None
    try:
        from numba.cuda import config as numba_config
    except ImportError:
        from numba import config as numba_config
    if hasattr(numba_config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS"):  # when numba was imported earlier
        numba_config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = INCLUDE
    if not cuda.is_available():
        print("python sample: numba sees no usable CUDA GPU, so nothing was run.")
        sys.exit(1)
    shim = os.path.join(tempfile.mkdtemp(prefix="warpred_numba_"), "warpred_shim.cu")
    with open(shim, "w", encoding="utf-8") as f:
        f.write(NUMBA_SHIM)
    block_sum = cuda.declare_device("warpred_numba_block_sum", "float32(float32)")
    block_max = cuda.declare_device("warpred_numba_block_max", "float32(float32)")

    @cuda.jit(link=[shim])
    def sums_and_maxima(x, sums, maxima):
        i = cuda.grid(1)
        v_sum = x[i] if i < x.size else np.float32(0)
        v_max = x[i] if i < x.size else np.float32(-np.inf)
        s = block_sum(v_sum)
        m = block_max(v_max)
        if cuda.threadIdx.x == 0:
            sums[cuda.blockIdx.x] = s
            maxima[cuda.blockIdx.x] = m

    name = cuda.get_current_device().name
    name = name.decode() if isinstance(name, bytes) else name
    print(f"\nnumba-cuda on {name}: linking a shim compiled by NVRTC, -I {INCLUDE}")
    rng = np.random.default_rng(2024)
    x = rng.random(n, dtype=np.float32)
    x[n // 3] = np.float32(-0.0)
    blocks = -(-n // BLOCK)
    d_x = cuda.to_device(x)
    d_sums = cuda.device_array(blocks, dtype=np.float32)
    d_maxima = cuda.device_array(blocks, dtype=np.float32)
    sums_and_maxima[blocks, BLOCK](d_x, d_sums, d_maxima)
    sums, maxima = d_sums.copy_to_host(), d_maxima.copy_to_host()
    padded = np.zeros(blocks * BLOCK, dtype=np.float64)
    padded[:n] = x
    ref_sums = padded.reshape(blocks, BLOCK).sum(axis=1)
    padded_max = np.full(blocks * BLOCK, -np.inf, dtype=np.float32)
    padded_max[:n] = x
    ref_max = padded_max.reshape(blocks, BLOCK).max(axis=1)
    # a float sum of 256 non-negative values: within 2 * 256 * 2^-24 of the exact sum (relative)
    tol = 2.0 * BLOCK * 2.0 ** -24
    sum_err = float(np.max(np.abs(sums - ref_sums) / np.maximum(ref_sums, 1e-30)))
    ok = sum_err <= tol and bool(np.array_equal(maxima, ref_max))
    print(f"  n = {n}, {blocks} blocks of {BLOCK}: largest relative error of a block sum {sum_err:.1e} "
          f"(bound {tol:.1e}), block maxima {'exact' if np.array_equal(maxima, ref_max) else 'WRONG'}   "
          f"{'ok' if ok else 'WRONG'}")
    return ok, []


def main():
    n = (1 << 14) + 3 if QUICK else (1 << 26) + 3
    warmups, runs = (1, 3) if QUICK else (3, 21)
    results = [r for r in (run_cupy(n, warmups, runs), run_torch(n, warmups, runs), run_numba(n)) if r is not None]
    if not results:
        print("SKIPPED: none of CuPy, PyTorch and numba-cuda ran here, so nothing was checked (this is not a pass).")
        return 0
    if any(rows for _, rows in results):
        print(f"\n{'n = ' + str(n) + ' floats, median of ' + str(runs) + ' runs':<40} {'time us':>10} {'GB/s':>8}")
    for ok, rows in results:
        for name, ms in rows:
            print(f"{name:<40} {ms * 1000:10.1f} {n * 4 / (ms * 1e6):8.0f}")
    ok = all(ok for ok, _ in results)
    print("\n" + ("every result within its bound; maxima exact" if ok else "ERROR: a result is off"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
