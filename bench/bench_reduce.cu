/* bench/bench_reduce.cu - warpred against CUB and the memory read ceiling, in one run.

   1. Device-wide float sum, N = 2^10, 2^12, ..., 2^30: warpred's single-launch sum
      (samples/device_sum), its accurate (double-accumulating) variant, CUB
      DeviceReduce::Sum (temp storage allocated once, outside the timed region) and a plain
      vectorized read kernel (the ceiling). Each call is timed alone with CUDA events (what a
      caller waiting for one sum sees), median of many calls after warm-up; the variants take
      turns call by call, so that clock drift during the run falls on all of them alike. Below 2^26 the
      calls rotate through a 4 GiB buffer so that no call reads data another left in L2.
      Errors of both warpred variants against the correctly rounded sum are reported too.
   2. Warp- and block-level reduce throughput (sum; float max too) for float, int, double:
      warpred reduce and allreduce against cub::WarpReduce, cg::reduce, cub::BlockReduce.

   Usage: bench_reduce [csv path]   (run by `make bench`)
          bench_reduce --profile E   (a few calls of each sum variant at N = 2^E, for ncu) */
#include <math.h>
#include <cub/cub.cuh>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <warpred/warpred.cuh>
#include "../samples/device_sum/device_sum.cuh"
#include "bench_util.h"

namespace cg = cooperative_groups;

/* ------------------------------------------------------------------------------------------
   1. device-wide sum
   ------------------------------------------------------------------------------------------ */

static const size_t MAX_N = (size_t)1 << 30;
static const size_t ROTATE_BELOW = (size_t)1 << 26; /* 256 MiB: five times the H100's L2 */

/* x[i] = k * 2^-20 with k a 20-bit hash of i: exact in float, exactly summable in int64. */
__host__ __device__ __forceinline__ unsigned bench_k(size_t i) { return bench_hash((unsigned)i ^ (unsigned)(i >> 32) * 0x9e3779b9u) >> 12; }

__global__ void k_fill(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)bench_k(i) * 0x1p-20f;
}

/* The ceiling: the same grid and load pattern as the sum, one add per vector, no reduction. */
__global__ void __launch_bounds__(DEVICE_SUM_THREADS) k_read(const float4 *__restrict__ x, size_t nv, float *sink)
{
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x, G = (size_t)gridDim.x * blockDim.x;
    float acc = 0;
    size_t i = g;
    for (; i + 3 * G < nv; i += 4 * G) {
        float4 a = __ldg(&x[i]), b = __ldg(&x[i + G]), c = __ldg(&x[i + 2 * G]), d = __ldg(&x[i + 3 * G]);
        acc += (a.x + b.y) + (c.z + d.w);
    }
    for (; i < nv; i += G) acc += __ldg(&x[i]).x;
    if (acc == -1.0f) *sink = acc; /* never true for this data; keeps the loads alive */
}

enum { SUM_WARPRED, SUM_ACCURATE, SUM_CUB, SUM_CEILING, SUM_VARIANTS };
static const char *const sum_name[] = {"warpred", "warpred accurate", "CUB DeviceReduce::Sum", "read ceiling"};

typedef struct {
    int variant;
    size_t n;
    float *x, *out;
    device_sum_plan *plan;
    void *cub_temp;
    size_t cub_temp_bytes;
} sum_ctx;

/* One counter for every call of every variant, so that no call reads a chunk that another
   call (of the same or another variant) read recently: a chunk comes round again only after
   (2^30 / n) - 1 calls, by then long gone from L2. */
static size_t g_calls;

static const float *sum_input(sum_ctx *c)
{
    if (c->n >= ROTATE_BELOW) return c->x;
    const size_t slots = (MAX_N - c->n) / c->n;
    return c->x + (g_calls++ % slots) * c->n; /* offsets are multiples of n: 16-byte aligned */
}

static void sum_once(void *p)
{
    sum_ctx *c = (sum_ctx *)p;
    const float *x = sum_input(c);
    switch (c->variant) {
    case SUM_WARPRED: BCHECK(device_sum(c->plan, x, c->n, c->out, 0)); break;
    case SUM_ACCURATE: BCHECK(device_sum_accurate(c->plan, x, c->n, c->out, 0)); break;
    case SUM_CUB: BCHECK(cub::DeviceReduce::Sum(c->cub_temp, c->cub_temp_bytes, x, c->out, c->n)); break;
    default:
        k_read<<<device_sum_blocks(c->plan, c->n, 4), DEVICE_SUM_THREADS>>>((const float4 *)x, c->n / 4, c->out);
    }
}

static long long ulps_between(float a, float b)
{
    int ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    return llabs((long long)ia - (long long)ib); /* both positive here */
}

static void bench_device_sum(FILE *csv)
{
    device_sum_plan plan;
    BCHECK(device_sum_plan_create(&plan));
    sum_ctx c;
    memset(&c, 0, sizeof c);
    c.plan = &plan;
    BCHECK(cudaMalloc(&c.x, MAX_N * sizeof(float)));
    BCHECK(cudaMalloc(&c.out, sizeof(float)));
    k_fill<<<4096, 256>>>(c.x, MAX_N);
    BCHECK(cudaGetLastError());
    for (size_t n = (size_t)1 << 10; n <= MAX_N; n <<= 2) { /* the most any size asks for */
        size_t bytes = 0;
        BCHECK(cub::DeviceReduce::Sum(NULL, bytes, c.x, c.out, n));
        if (bytes > c.cub_temp_bytes) c.cub_temp_bytes = bytes;
    }
    BCHECK(cudaMalloc(&c.cub_temp, c.cub_temp_bytes));

    /* exact sums of the prefixes x[0..n), for the error columns */
    long long exact[32];
    {
        long long k = 0;
        size_t next = (size_t)1 << 10;
        int e = 10;
        for (size_t i = 0; i < MAX_N; i++) {
            k += bench_k(i);
            if (i + 1 == next) {
                exact[e] = k;
                e += 2;
                next <<= 2;
            }
        }
    }

    printf("device-wide float sum: median per call (CUDA events around each call), GB/s = 4N / time\n\n");
    printf("| N     | warpred us | GB/s   | %% ceil | CUB us | CUB GB/s | t_CUB/t_warpred | accurate us | acc/plain BW | ceiling us | err plain (ulp) | err accurate (ulp) |\n");
    printf("|-------|-----------:|-------:|-------:|-------:|---------:|----------------:|------------:|-------------:|-----------:|----------------:|-------------------:|\n");
    for (int e = 10; e <= 30; e += 2) {
        const size_t n = (size_t)1 << e;
        float us[SUM_VARIANTS];
        sum_ctx ctx[SUM_VARIANTS];
        void *ctxs[SUM_VARIANTS];
        bench_fn fns[SUM_VARIANTS];
        for (int v = 0; v < SUM_VARIANTS; v++) {
            ctx[v] = c;
            ctx[v].variant = v;
            ctx[v].n = n;
            ctxs[v] = &ctx[v];
            fns[v] = sum_once;
        }
        const int reps = e <= 24 ? 201 : e <= 28 ? 41 : 15;
        bench_interleaved_median_ms(fns, ctxs, SUM_VARIANTS, 5, reps, us);
        for (int v = 0; v < SUM_VARIANTS; v++) {
            us[v] *= 1000.0f;
            fprintf(csv, "device_sum,float sum,%s,%zu,%.3f,%.2f,GB/s\n", sum_name[v], n, us[v], 4.0 * n / (us[v] * 1e3));
        }
        /* accuracy, on x[0..n) */
        float plain, accurate;
        BCHECK(device_sum(&plan, c.x, n, c.out, 0));
        BCHECK(cudaMemcpy(&plain, c.out, 4, cudaMemcpyDeviceToHost));
        BCHECK(device_sum_accurate(&plan, c.x, n, c.out, 0));
        BCHECK(cudaMemcpy(&accurate, c.out, 4, cudaMemcpyDeviceToHost));
        const float want = (float)ldexp((double)exact[e], -20);
        const long long ep = ulps_between(plain, want), ea = ulps_between(accurate, want);
        fprintf(csv, "device_sum,error,warpred,%zu,,%lld,ulp\ndevice_sum,error,warpred accurate,%zu,,%lld,ulp\n", n, ep, n, ea);
        printf("| 2^%-3d | %10.2f | %6.0f | %5.1f%% | %6.2f | %8.0f | %15.2f | %11.2f | %11.1f%% | %10.2f | %15lld | %18lld |\n", e,
               us[SUM_WARPRED], 4.0 * n / (us[SUM_WARPRED] * 1e3), 100.0 * us[SUM_CEILING] / us[SUM_WARPRED], us[SUM_CUB],
               4.0 * n / (us[SUM_CUB] * 1e3), us[SUM_CUB] / us[SUM_WARPRED], us[SUM_ACCURATE],
               100.0 * us[SUM_WARPRED] / us[SUM_ACCURATE], us[SUM_CEILING], ep, ea);
    }
    printf("\n");

    /* grid-size sweep below one wave: vectors per thread, warpred and the ceiling */
    printf("grid sizing: median us per call for vectors per thread = 1, 2, 4 (default), 8\n\n");
    printf("| N     | warpred 1 | 2      | 4      | 8      | ceiling 1 | 2      | 4      | 8      |\n");
    printf("|-------|----------:|-------:|-------:|-------:|----------:|-------:|-------:|-------:|\n");
    for (int e = 14; e <= 24; e += 2) {
        float t[2][4];
        for (int k = 0; k < 4; k++) {
            plan.vectors_per_thread = 1u << k;
            for (int w = 0; w < 2; w++) {
                c.variant = w ? SUM_CEILING : SUM_WARPRED;
                c.n = (size_t)1 << e;
                t[w][k] = bench_median_ms(sum_once, &c, 5, 101) * 1000.0f;
                fprintf(csv, "grid_sizing,vectors per thread %d,%s,%zu,%.3f,,us\n", 1 << k, sum_name[c.variant], c.n, t[w][k]);
            }
        }
        printf("| 2^%-3d | %9.2f | %6.2f | %6.2f | %6.2f | %9.2f | %6.2f | %6.2f | %6.2f |\n", e, t[0][0], t[0][1], t[0][2],
               t[0][3], t[1][0], t[1][1], t[1][2], t[1][3]);
    }
    plan.vectors_per_thread = DEVICE_SUM_UNROLL;
    printf("\n");
    BCHECK(cudaFree(c.x));
    BCHECK(cudaFree(c.out));
    BCHECK(cudaFree(c.cub_temp));
    device_sum_plan_destroy(&plan);
}

/* ------------------------------------------------------------------------------------------
   2. warp- and block-level reduce throughput
   ------------------------------------------------------------------------------------------ */

enum { ITERS = 2048, BLOCK = 256 };
enum { W_REDUCE, W_ALLREDUCE, W_CUB, W_CG, W_VARIANTS };
static const char *const warp_name[] = {"warpred reduce", "warpred allreduce", "cub::WarpReduce", "cg::reduce"};
enum { B_REDUCE, B_ALLREDUCE, B_REDUCE_STATIC, B_ALLREDUCE_STATIC, B_CUB, B_VARIANTS };
static const char *const block_name[] = {"warpred block_reduce", "warpred block_allreduce", "warpred block_reduce<256>",
                                         "warpred block_allreduce<256>", "cub::BlockReduce"};

/* Ops in the three vocabularies: warpred, CUB/cg. IsMax selects max instead of sum. */
template <bool IsMax> struct bench_ops;
template <> struct bench_ops<false> {
    typedef warpred_op_sum warpred;
    template <typename T> static __device__ T cub_warp(cub::WarpReduce<T> &w, T v) { return w.Sum(v); }
    template <typename T> static __device__ T cub_block(cub::BlockReduce<T, BLOCK> &b, T v) { return b.Sum(v); }
    template <typename T> static __device__ T cg_reduce(cg::thread_block_tile<32> &t, T v) { return cg::reduce(t, v, cg::plus<T>()); }
};
template <> struct bench_ops<true> {
    typedef warpred_op_max warpred;
    template <typename T> static __device__ T cub_warp(cub::WarpReduce<T> &w, T v) { return w.Reduce(v, ::cuda::maximum<>()); }
    template <typename T> static __device__ T cub_block(cub::BlockReduce<T, BLOCK> &b, T v) { return b.Reduce(v, ::cuda::maximum<>()); }
    template <typename T> static __device__ T cg_reduce(cg::thread_block_tile<32> &t, T v) { return cg::reduce(t, v, cg::greater<T>()); }
};

/* Each iteration reduces a fresh value (independent of the previous result), so the figure is
   throughput; the results feed an accumulator that is stored, so nothing is optimized away. */
template <typename T, int V, bool IsMax>
__global__ void __launch_bounds__(BLOCK) k_warp(const T *in, T *out)
{
    typedef bench_ops<IsMax> O;
    __shared__ typename cub::WarpReduce<T>::TempStorage tmp[BLOCK / 32];
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const T x = in[g];
    T acc = T();
    for (int i = 0; i < ITERS; i++) {
        const T v = x + (T)i;
        T r;
        if (V == W_REDUCE) r = warpred_warp_reduce(v, typename O::warpred());
        else if (V == W_ALLREDUCE) r = warpred_warp_allreduce(v, typename O::warpred());
        else if (V == W_CUB) { cub::WarpReduce<T> w(tmp[threadIdx.x / 32]); r = O::cub_warp(w, v); }
        else r = O::cg_reduce(tile, v);
        acc += r;
    }
    out[g] = acc;
}

template <typename T, int V, bool IsMax>
__global__ void __launch_bounds__(BLOCK) k_block(const T *in, T *out)
{
    typedef bench_ops<IsMax> O;
    __shared__ typename cub::BlockReduce<T, BLOCK>::TempStorage tmp;
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const T x = in[g];
    T acc = T();
    for (int i = 0; i < ITERS / 8; i++) {
        const T v = x + (T)i;
        T r;
        if (V == B_REDUCE) r = warpred_block_reduce(v, typename O::warpred());
        else if (V == B_ALLREDUCE) r = warpred_block_allreduce(v, typename O::warpred());
        else if (V == B_REDUCE_STATIC) r = warpred_block_reduce<BLOCK>(v, typename O::warpred());
        else if (V == B_ALLREDUCE_STATIC) r = warpred_block_allreduce<BLOCK>(v, typename O::warpred());
        else {
            cub::BlockReduce<T, BLOCK> b(tmp);
            r = O::cub_block(b, v);
            __syncthreads(); /* CUB's rule before reusing its temp storage */
        }
        acc += r;
    }
    out[g] = acc;
}

typedef struct {
    void (*launch)(unsigned blocks, const void *in, void *out);
    unsigned blocks;
    void *in, *out;
} level_ctx;

static void level_once(void *p)
{
    level_ctx *c = (level_ctx *)p;
    c->launch(c->blocks, c->in, c->out);
}

template <typename T, int V, bool IsMax> static void launch_warp(unsigned blocks, const void *in, void *out)
{
    k_warp<T, V, IsMax><<<blocks, BLOCK>>>((const T *)in, (T *)out);
}
template <typename T, int V, bool IsMax> static void launch_block(unsigned blocks, const void *in, void *out)
{
    k_block<T, V, IsMax><<<blocks, BLOCK>>>((const T *)in, (T *)out);
}

typedef struct {
    const char *type, *op;
    double rate[B_VARIANTS];
} block_row;
static block_row block_rows[8];
static int block_row_count;

/* reductions per second, in G: one per warp (warp level) or per block (block level) per iteration */
template <typename T, bool IsMax>
static void bench_levels(FILE *csv, const char *type, level_ctx *c)
{
    void (*warp_launch[W_VARIANTS])(unsigned, const void *, void *) = {
        launch_warp<T, W_REDUCE, IsMax>, launch_warp<T, W_ALLREDUCE, IsMax>, launch_warp<T, W_CUB, IsMax>, launch_warp<T, W_CG, IsMax>};
    void (*block_launch[B_VARIANTS])(unsigned, const void *, void *) = {
        launch_block<T, B_REDUCE, IsMax>, launch_block<T, B_ALLREDUCE, IsMax>, launch_block<T, B_REDUCE_STATIC, IsMax>,
        launch_block<T, B_ALLREDUCE_STATIC, IsMax>, launch_block<T, B_CUB, IsMax>};
    const char *op = IsMax ? "max" : "sum";
    double rate[W_VARIANTS];
    for (int v = 0; v < W_VARIANTS; v++) {
        c->launch = warp_launch[v];
        const float ms = bench_median_ms(level_once, c, 3, 15);
        rate[v] = (double)c->blocks * (BLOCK / 32) * ITERS / (ms * 1e-3) / 1e9;
        fprintf(csv, "warp_reduce,%s %s,%s,%u,%.3f,%.3f,G reductions/s\n", type, op, warp_name[v], c->blocks * BLOCK, ms * 1e3, rate[v]);
    }
    printf("| warp  | %-6s %-3s | %8.1f | %8.1f | %8.1f | %8.1f | %5.2f | %5.2f | %5.2f | %5.2f |\n", type, op, rate[0], rate[1],
           rate[2], rate[3], rate[0] / rate[2], rate[0] / rate[3], rate[1] / rate[2], rate[1] / rate[3]);
    double brate[B_VARIANTS];
    for (int v = 0; v < B_VARIANTS; v++) {
        c->launch = block_launch[v];
        const float ms = bench_median_ms(level_once, c, 3, 15);
        brate[v] = (double)c->blocks * (ITERS / 8) / (ms * 1e-3) / 1e9;
        fprintf(csv, "block_reduce,%s %s,%s,%u,%.3f,%.4f,G reductions/s\n", type, op, block_name[v], c->blocks * BLOCK, ms * 1e3, brate[v]);
    }
    block_rows[block_row_count++] = (block_row){type, op, {brate[0], brate[1], brate[2], brate[3], brate[4]}};
}

static void print_block_rows(void)
{
    printf("| block level, 256 threads | run-time size: reduce | allreduce | compile-time <256>: reduce | allreduce | cub::BlockReduce | reduce/cub (run-time, <256>) | allreduce/cub (run-time, <256>) |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < block_row_count; i++) {
        const double *r = block_rows[i].rate;
        printf("| %-6s %-3s | %8.3f | %8.3f | %8.3f | %8.3f | %8.3f | %4.2f, %4.2f | %4.2f, %4.2f |\n", block_rows[i].type, block_rows[i].op,
               r[0], r[1], r[2], r[3], r[4], r[0] / r[4], r[2] / r[4], r[1] / r[4], r[3] / r[4]);
    }
    printf("\n");
}

static void bench_warp_block(FILE *csv)
{
    int sms;
    BCHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    level_ctx c;
    c.blocks = (unsigned)sms * 8; /* 2048 threads per SM: full occupancy at 256 threads */
    const size_t n = (size_t)c.blocks * BLOCK;
    BCHECK(cudaMalloc(&c.in, n * sizeof(double)));
    BCHECK(cudaMalloc(&c.out, n * sizeof(double)));
    BCHECK(cudaMemset(c.in, 0x3c, n * sizeof(double))); /* small positive values in every type */
    printf("warp and block reduce throughput, G reductions/s (one per warp or per block of %d), %d iterations per thread\n\n", BLOCK, ITERS);
    printf("| level | type       | warpred  | warpred  | cub      | cg       | red/  | red/  | all/  | all/  |\n");
    printf("|       |            | reduce   | allred.  |          | reduce   | cub   | cg    | cub   | cg    |\n");
    printf("|-------|------------|---------:|---------:|---------:|---------:|------:|------:|------:|------:|\n");
    bench_levels<float, false>(csv, "float", &c);
    bench_levels<int, false>(csv, "int", &c);
    bench_levels<double, false>(csv, "double", &c);
    bench_levels<float, true>(csv, "float", &c);
    printf("(max: warpred's IEEE maximum (NaN wins, -0 < +0) against CUB's and cg's a < b ? b : a)\n\n");
    print_block_rows();
    BCHECK(cudaFree(c.in));
    BCHECK(cudaFree(c.out));
}

/* --profile E: a few calls of each sum variant at N = 2^E and nothing else, for ncu. */
static int profile_sum(int e)
{
    device_sum_plan plan;
    BCHECK(device_sum_plan_create(&plan));
    sum_ctx c;
    memset(&c, 0, sizeof c);
    c.plan = &plan;
    c.n = (size_t)1 << e;
    BCHECK(cudaMalloc(&c.x, MAX_N * sizeof(float)));
    BCHECK(cudaMalloc(&c.out, sizeof(float)));
    k_fill<<<4096, 256>>>(c.x, MAX_N);
    BCHECK(cub::DeviceReduce::Sum(NULL, c.cub_temp_bytes, c.x, c.out, c.n));
    BCHECK(cudaMalloc(&c.cub_temp, c.cub_temp_bytes));
    for (int r = 0; r < 3; r++)
        for (c.variant = 0; c.variant < SUM_VARIANTS; c.variant++) sum_once(&c);
    BCHECK(cudaDeviceSynchronize());
    printf("profiled N = 2^%d\n", e);
    BCHECK(cudaFree(c.x));
    BCHECK(cudaFree(c.out));
    BCHECK(cudaFree(c.cub_temp));
    device_sum_plan_destroy(&plan);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--profile") == 0) return profile_sum(atoi(argv[2]));
    FILE *csv = bench_csv_open(argc > 1 ? argv[1] : "bench_reduce.csv");
    cudaDeviceProp prop;
    BCHECK(cudaGetDeviceProperties(&prop, 0));
    printf("warpred vs CUB %d.%d.%d on %s (%d SMs, %.0f MB L2)\n\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION,
           prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6);
    bench_device_sum(csv);
    bench_warp_block(csv);
    fclose(csv);
    return 0;
}
