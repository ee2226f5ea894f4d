/* bench/bench_rows.cu - the row-wise kernels of samples/common/row_kernels.cuh (softmax, LayerNorm,
   RMSNorm, cross-entropy; float32 and bfloat16) on 2^26 elements in rows of L = 32 .. 2^20, against
   the bandwidth of a copy kernel (a read kernel for cross-entropy, which only reads) timed in the
   same run on the same number of bytes.

   GB/s counts the bytes a perfect kernel moves: read x and write y (softmax, norms; the weights and
   biases, L elements, are not counted), the logits only (cross-entropy; its targets and per-row
   outputs are rows * 12 bytes, not counted). "of ceiling" is that over the copy (read) kernel's GB/s:
   the copy kernel's of the type's first table, timed beside the read kernel; for cross-entropy the
   read kernel's timed beside its calls at each length (after kernels that write, the read kernel
   also pays for their dirty lines leaving the L2: timed after the copy kernel it took 10-19% longer
   on an H200).
   Rows longer than a cluster's registers hold (L > 262144) are spread over the whole GPU where
   they are 2 MB or more (the norms) or 4 MB or more (softmax), and read once; else streamed, read
   twice where shared memory does not keep them, and still credited with the ideal bytes only.
   cross-entropy is timed alone (loss and argmax per row) and with the deterministic mean over rows
   (its own kernel, a programmatic dependent launch on sm_90+); rows_ce_mean_forms puts beside the
   latter the same kernel launched plainly and warpred_device_transform_reduce over the losses, each
   as its time and its time over cross-entropy alone.

   Every time is the median of 51 CUDA-event timed runs after 5 warm-ups, the variants of one row
   length taking turns: softmax and the norms, then cross-entropy's four with the read kernel.

   Usage: bench_rows [csv path]   (run by `make bench`; CSV columns: bench,case,variant,n,time_us,value,unit;
          one row names the GPU) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "bench_util.h"
#include "samples/common/row_kernels.cuh"

static const size_t N = (size_t)1 << 26;
static const int LENS[] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536, 262144, 1 << 20};
enum { NLENS = sizeof LENS / sizeof LENS[0], WARMUP = 5, REPS = 51 };

/* ---- the ceilings: a 16-byte copy and a 16-byte read (grid-stride, a full wave of blocks) ---- */

__global__ void __launch_bounds__(256) copy_kernel(const uint4 *in, uint4 *out, size_t n16)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

__global__ void __launch_bounds__(256) read_kernel(const uint4 *in, size_t n16, unsigned *sink)
{
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = in[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc; /* never, but the loads cannot be dropped */
}

__global__ void fill_kernel(float *x, size_t n, unsigned seed, int as_bf16)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const float v = (float)(bench_hash((unsigned)i ^ seed) >> 8) * 0x1p-24f * 8.0f - 4.0f;
        if (as_bf16) reinterpret_cast<__nv_bfloat16 *>(x)[i] = __float2bfloat16_rn(v);
        else
            x[i] = v;
    }
}

__global__ void fill_targets(int *t, size_t rows, int len)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows; i += (size_t)gridDim.x * blockDim.x)
        t[i] = (int)(bench_hash((unsigned)i * 7919u) % (unsigned)len);
}

/* ---- one call ---- */

enum { OP_SOFTMAX, OP_LAYERNORM, OP_RMSNORM, OP_CE, OP_CE_MEAN, OP_COPY, OP_READ, NOPS };
static const char *const op_name[NOPS] = {"softmax", "layernorm", "rmsnorm", "cross_entropy", "cross_entropy_mean",
                                          "copy",    "read"};

typedef struct call {
    int op, bf16, len;
    long long rows;
    void *x, *y, *w, *b;
    int *t, *arg;
    float *loss, *mean;
    unsigned *sink;
    const warpred_device_plan *plan;
    unsigned grid;
    int mean_mode; /* rk_mean_mode for the call */
} call;

template <typename T> static cudaError_t run_typed(const call *c)
{
    const T *x = (const T *)c->x;
    rk_mean_mode = c->mean_mode;
    switch (c->op) {
    case OP_SOFTMAX: return rk_softmax(x, (T *)c->y, c->rows, c->len, 0);
    case OP_LAYERNORM: return rk_layernorm(x, (const T *)c->w, (const T *)c->b, (T *)c->y, c->rows, c->len, 1e-5f, 0);
    case OP_RMSNORM: return rk_rmsnorm(x, (const T *)c->w, (T *)c->y, c->rows, c->len, 1e-5f, 0);
    case OP_CE: return rk_cross_entropy(x, c->t, c->loss, c->arg, c->rows, c->len, c->plan, (float *)NULL, 0);
    default: return rk_cross_entropy(x, c->t, c->loss, c->arg, c->rows, c->len, c->plan, c->mean, 0);
    }
}

static void run_call(void *p)
{
    const call *c = (const call *)p;
    const size_t bytes = N * (c->bf16 ? 2 : 4);
    if (c->op == OP_COPY) copy_kernel<<<c->grid, 256>>>((const uint4 *)c->x, (uint4 *)c->y, bytes / 16);
    else if (c->op == OP_READ)
        read_kernel<<<c->grid, 256>>>((const uint4 *)c->x, bytes / 16, c->sink);
    else
        BCHECK(c->bf16 ? run_typed<__nv_bfloat16>(c) : run_typed<float>(c));
}

int main(int argc, char **argv)
{
    const char *csv_path = argc > 1 ? argv[1] : "bench_rows.csv";
    int device = 0, count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("bench_rows: no usable CUDA GPU, nothing measured\n");
        return 1;
    }
    cudaDeviceProp prop;
    BCHECK(cudaGetDevice(&device));
    BCHECK(cudaGetDeviceProperties(&prop, device));
    FILE *csv = bench_csv_open(csv_path);
    fprintf(csv, "rows_gpu,\"GPU\",\"%s\",%d,,%d,SMs\n", prop.name, prop.major * 10 + prop.minor,
            prop.multiProcessorCount);
    printf("bench_rows on %s (%d SMs): 2^26 elements per row length, median of %d runs\n", prop.name,
           prop.multiProcessorCount, REPS);

    const size_t max_rows = N / 32;
    call base;
    memset(&base, 0, sizeof base);
    BCHECK(cudaMalloc(&base.x, N * 4));
    BCHECK(cudaMalloc(&base.y, N * 4));
    BCHECK(cudaMalloc(&base.w, (size_t)4 << 20));
    BCHECK(cudaMalloc(&base.b, (size_t)4 << 20));
    BCHECK(cudaMalloc(&base.t, max_rows * sizeof(int)));
    BCHECK(cudaMalloc(&base.arg, max_rows * sizeof(int)));
    BCHECK(cudaMalloc(&base.loss, max_rows * sizeof(float)));
    BCHECK(cudaMalloc(&base.mean, sizeof(float)));
    BCHECK(cudaMalloc(&base.sink, sizeof(unsigned)));
    warpred_device_plan plan;
    const char *why = NULL;
    if (warpred_device_plan_create(&plan, 0, &why) != cudaSuccess) {
        fprintf(stderr, "warpred_device_plan_create: %s\n", why);
        return 1;
    }
    base.plan = &plan;
    base.grid = (unsigned)(prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / 256));

    for (int bf16 = 0; bf16 < 2; bf16++) {
        const char *type = bf16 ? "bfloat16" : "float32";
        const size_t esize = bf16 ? 2 : 4;
        fill_kernel<<<1024, 256>>>((float *)base.x, N, 12345u, bf16);
        fill_kernel<<<1024, 256>>>((float *)base.w, (size_t)1 << 20, 777u, bf16);
        fill_kernel<<<1024, 256>>>((float *)base.b, (size_t)1 << 20, 999u, bf16);
        BCHECK(cudaGetLastError());
        BCHECK(cudaDeviceSynchronize());
        /* the ceilings for this element size */
        call ceil_calls[2] = {base, base};
        ceil_calls[0].op = OP_COPY;
        ceil_calls[1].op = OP_READ;
        ceil_calls[0].bf16 = ceil_calls[1].bf16 = bf16;
        void *ctx[NOPS];
        bench_fn fns[NOPS];
        float ms[NOPS];
        for (int i = 0; i < 2; i++) ctx[i] = &ceil_calls[i], fns[i] = run_call;
        bench_interleaved_median_ms(fns, ctx, 2, WARMUP, REPS, ms);
        const double copy_gbs = 2.0 * N * esize / (ms[0] * 1e6), read_gbs = (double)N * esize / (ms[1] * 1e6);
        fprintf(csv, "rows_ceiling,\"%s\",\"copy kernel\",%zu,%.3f,%.2f,GB/s\n", type, N, ms[0] * 1e3, copy_gbs);
        fprintf(csv, "rows_ceiling,\"%s\",\"read kernel\",%zu,%.3f,%.2f,GB/s\n", type, N, ms[1] * 1e3, read_gbs);
        printf("\n%s: copy kernel %.0f GB/s (read + write: the ceiling of softmax and the norms), read kernel %.0f "
               "GB/s beside it (cross-entropy's ceiling is the read kernel timed beside its calls at each length)\n\n",
               type, copy_gbs, read_gbs);
        printf("| %-8s | %7s | %-22s | %-18s | %8s | %8s | %8s |\n", "type", "L", "op", "where", "us", "GB/s",
               "ceiling");
        printf("|---|---|---|---|---|---|---|\n");
        for (int li = 0; li < NLENS; li++) {
            const int len = LENS[li];
            const long long rows = (long long)(N / (size_t)len);
            fill_targets<<<256, 256>>>(base.t, (size_t)rows, len);
            BCHECK(cudaGetLastError());
            call calls[5];
            char where[5][sizeof rk_last_where];
            for (int o = 0; o < 5; o++) {
                calls[o] = base;
                calls[o].op = o;
                calls[o].bf16 = bf16;
                calls[o].len = len;
                calls[o].rows = rows;
                run_call(&calls[o]); /* one launch to learn where the rows live */
                memcpy(where[o], rk_last_where, sizeof where[o]);
                ctx[o] = &calls[o];
                fns[o] = run_call;
            }
            BCHECK(cudaDeviceSynchronize());
            /* the writers take turns, then the readers with the read kernel: a read kernel timed
               after writers would pay for their dirty lines leaving the L2, which cross-entropy's
               calls (after each other) do not */
            bench_interleaved_median_ms(fns, ctx, OP_CE, WARMUP, REPS, ms);
            /* the mean's other forms (rk_mean_mode 1, 2) beside the one taken */
            call forms[2] = {calls[OP_CE_MEAN], calls[OP_CE_MEAN]};
            forms[0].mean_mode = 1;
            forms[1].mean_mode = 2;
            float rms[5];
            void *rctx[5] = {&ceil_calls[1], &calls[OP_CE], &calls[OP_CE_MEAN], &forms[0], &forms[1]};
            bench_fn rfns[5] = {run_call, run_call, run_call, run_call, run_call};
            bench_interleaved_median_ms(rfns, rctx, 5, WARMUP, REPS, rms);
            ms[OP_CE] = rms[1];
            ms[OP_CE_MEAN] = rms[2];
            const double read_beside = (double)N * esize / (rms[0] * 1e6);
            fprintf(csv, "rows_ceiling,\"%s L=%d\",\"read kernel beside cross-entropy\",%d,%.3f,%.2f,GB/s\n", type, len,
                    len, rms[0] * 1e3, read_beside);
            static const char *const form_name[3] = {"its own kernel, a programmatic dependent launch",
                                                     "its own kernel, a plain launch",
                                                     "warpred_device_transform_reduce over the losses"};
            for (int f = 0; f < 3; f++)
                fprintf(csv, "rows_ce_mean_forms,\"%s L=%d\",\"%s\",%d,%.3f,%.3f,us over cross_entropy\n", type, len,
                        form_name[f], len, rms[2 + f] * 1e3, (rms[2 + f] - rms[1]) * 1e3);
            for (int o = 0; o < 5; o++) {
                const int reads_only = o == OP_CE || o == OP_CE_MEAN;
                const double bytes = (double)N * esize * (reads_only ? 1 : 2);
                const double gbs = bytes / (ms[o] * 1e6), frac = gbs / (reads_only ? read_beside : copy_gbs);
                printf("| %-8s | %7d | %-22s | %-18s | %8.1f | %8.0f | %7.1f%% |\n", type, len, op_name[o], where[o],
                       ms[o] * 1e3, gbs, 100.0 * frac);
                fprintf(csv, "rows_%s,\"%s L=%d\",\"warpred (%s)\",%d,%.3f,%.2f,GB/s\n", op_name[o], type, len,
                        where[o], len, ms[o] * 1e3, gbs);
                fprintf(csv, "rows_%s,\"%s L=%d\",\"of %s ceiling\",%d,,%.4f,ratio\n", op_name[o], type, len,
                        reads_only ? "read" : "copy", len, frac);
            }
        }
    }
    BCHECK(warpred_device_plan_destroy(&plan));
    BCHECK(cudaFree(base.sink));
    BCHECK(cudaFree(base.mean));
    BCHECK(cudaFree(base.loss));
    BCHECK(cudaFree(base.arg));
    BCHECK(cudaFree(base.t));
    BCHECK(cudaFree(base.b));
    BCHECK(cudaFree(base.w));
    BCHECK(cudaFree(base.y));
    BCHECK(cudaFree(base.x));
    fclose(csv);
    printf("\nCSV: %s\n", csv_path);
    return 0;
}
