/* bench/bench_reduce.cu - warpred against CUB and the memory read ceiling, in one run.

   1. Device-wide reduce (warpred_device_reduce, warpred/device_reduce.cuh), N = 2^10, 2^12, ...,
      2^30, for float sum, int sum, float max and double sum: warpred against
      cub::DeviceReduce::Sum / ::Max (temp storage allocated once, outside the timed region) and
      a plain vectorized read kernel with warpred's grid (the ceiling). Each call is timed alone
      with CUDA events (what a caller waiting for one result sees), median of many calls after
      warm-up; the variants take turns call by call, so that clock drift falls on all of them
      alike. The whole measurement runs three times: the tables give the median of the three
      medians and the median (and range) of the three CUB/warpred ratios. Below 256 MiB of input
      the calls rotate through an 8 GiB buffer so that no call reads data another left in L2.
      The float sum table adds the double-accumulating variant and both variants' errors
      against the correctly rounded sum.
   2. Warp- and block-level reduce throughput (sum; float max too) for float, int, double:
      warpred reduce and allreduce against cub::WarpReduce, cg::reduce, cub::BlockReduce.
   (CUB 3.6's DeviceReduce rows, run_to_run and gpu_to_gpu, are in bench_cub36.cu: CUB 3.6 and
   the toolkit's CUB cannot share a translation unit.)

   Usage: bench_reduce [csv path]   (run by `make bench`)
          bench_reduce --profile E   (a few calls of each device-wide variant at N = 2^E, for ncu) */
#include <math.h>
#include <cub/cub.cuh>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <warpred/warpred.cuh>
#include <warpred/device_reduce.cuh>
#include "../tests/wt_ulp.h"
#include "bench_util.h"
#include "bench_device.h"

namespace cg = cooperative_groups;

/* ------------------------------------------------------------------------------------------
   1. device-wide reduce
   ------------------------------------------------------------------------------------------ */

enum { CASE_FLOAT_SUM, CASE_INT_SUM, CASE_FLOAT_MAX, CASE_DOUBLE_SUM, CASES };
static const char *const case_name[] = {"float sum", "int sum", "float max", "double sum"};
static const size_t case_elem[] = {4, 4, 4, 8};

enum { V_WARPRED, V_CUB, V_CEILING, V_ACCURATE, VARIANTS }; /* V_ACCURATE: float sum only */
static const char *variant_name(int kase, int v)
{
    switch (v) {
    case V_WARPRED: return "warpred";
    case V_CUB: return kase == CASE_FLOAT_MAX ? "CUB DeviceReduce::Max" : "CUB DeviceReduce::Sum";
    case V_CEILING: return "read ceiling";
    default: return "warpred accurate";
    }
}

typedef struct {
    int kase, variant;
    size_t n;
    char *buf;
    void *out; /* 8 bytes of device memory */
    const warpred_device_plan *plan;
    void *cub_temp;
    size_t cub_temp_bytes;
} sum_ctx;

static void sum_once(void *p)
{
    sum_ctx *c = (sum_ctx *)p;
    const void *x = bench_rotated_input(c->buf, c->n * case_elem[c->kase]);
    const size_t n = c->n;
    if (c->variant == V_CEILING) {
        k_read<<<warpred_device_blocks(c->plan, n, case_elem[c->kase]), WARPRED_DEVICE_THREADS>>>(
            (const float4 *)x, n * case_elem[c->kase] / 16, (float *)c->out);
        return;
    }
    const bool cub = c->variant == V_CUB;
    switch (c->kase) {
    case CASE_FLOAT_SUM:
        if (cub) BCHECK(cub::DeviceReduce::Sum(c->cub_temp, c->cub_temp_bytes, (const float *)x, (float *)c->out, n));
        else if (c->variant == V_ACCURATE)
            BCHECK(warpred_device_transform_reduce(c->plan, (const float *)x, n, (double *)c->out, warpred_op_sum(),
                                                   warpred_xf_to<double>()));
        else
            BCHECK(warpred_device_sum(c->plan, (const float *)x, n, (float *)c->out));
        break;
    case CASE_INT_SUM:
        if (cub) BCHECK(cub::DeviceReduce::Sum(c->cub_temp, c->cub_temp_bytes, (const int *)x, (int *)c->out, n));
        else
            BCHECK(warpred_device_sum(c->plan, (const int *)x, n, (int *)c->out));
        break;
    case CASE_FLOAT_MAX:
        if (cub) BCHECK(cub::DeviceReduce::Max(c->cub_temp, c->cub_temp_bytes, (const float *)x, (float *)c->out, n));
        else
            BCHECK(warpred_device_reduce(c->plan, (const float *)x, n, (float *)c->out, warpred_op_max()));
        break;
    default:
        if (cub) BCHECK(cub::DeviceReduce::Sum(c->cub_temp, c->cub_temp_bytes, (const double *)x, (double *)c->out, n));
        else
            BCHECK(warpred_device_sum(c->plan, (const double *)x, n, (double *)c->out));
    }
}

/* The largest temp storage CUB asks for over every case and size. */
static size_t cub_temp_bytes_needed(char *buf, void *out)
{
    size_t most = 0, bytes;
    for (size_t n = (size_t)1 << 10; n <= ((size_t)1 << 30); n <<= 2) {
        BCHECK(cub::DeviceReduce::Sum(NULL, bytes = 0, (const float *)buf, (float *)out, n));
        most = bytes > most ? bytes : most;
        BCHECK(cub::DeviceReduce::Sum(NULL, bytes = 0, (const int *)buf, (int *)out, n));
        most = bytes > most ? bytes : most;
        BCHECK(cub::DeviceReduce::Max(NULL, bytes = 0, (const float *)buf, (float *)out, n));
        most = bytes > most ? bytes : most;
        BCHECK(cub::DeviceReduce::Sum(NULL, bytes = 0, (const double *)buf, (double *)out, n));
        most = bytes > most ? bytes : most;
    }
    return most;
}

/* Runs variant v once on x[0..n) (the start of the buffer) and copies the 8-byte result back. */
static void result_of(sum_ctx *c, int v, size_t n, void *host) { bench_result_of(c, v, n, sum_once, host); }

/* warpred's result against CUB's on the same data: "equal" (bits), or their relative difference. */
static void compare_with_cub(sum_ctx *c, int kase, size_t n, char *text, size_t len)
{
    unsigned char a[8], b[8];
    sum_ctx k = *c;
    k.kase = kase;
    result_of(&k, V_WARPRED, n, a);
    result_of(&k, V_CUB, n, b);
    if (memcmp(a, b, case_elem[kase]) == 0) {
        snprintf(text, len, "equal");
        return;
    }
    double x, y;
    if (kase == CASE_DOUBLE_SUM) {
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
    } else if (kase == CASE_INT_SUM) {
        int i, j;
        memcpy(&i, a, 4);
        memcpy(&j, b, 4);
        snprintf(text, len, "DIFFERENT (%d, %d)", i, j);
        return;
    } else {
        float f, g;
        memcpy(&f, a, 4);
        memcpy(&g, b, 4);
        x = f;
        y = g;
    }
    const double rel = fabs(x - y) / fabs(y);
    snprintf(text, len, kase == CASE_FLOAT_MAX || rel > 1e-5 ? "DIFFERENT (rel. %.1e)" : "rel. %.1e", rel);
}

static void bench_device_reduce(FILE *csv)
{
    warpred_device_plan plan;
    const char *why;
    if (warpred_device_plan_create(&plan, 0, &why) != cudaSuccess) {
        fprintf(stderr, "warpred_device_plan_create: %s\n", why);
        exit(1);
    }
    sum_ctx c;
    memset(&c, 0, sizeof c);
    c.plan = &plan;
    BCHECK(cudaMalloc(&c.buf, BUF_BYTES));
    BCHECK(cudaMalloc(&c.out, 8));
    k_fill<<<4096, 256>>>((float *)c.buf, BUF_BYTES / 4);
    BCHECK(cudaGetLastError());
    c.cub_temp_bytes = cub_temp_bytes_needed(c.buf, c.out);
    BCHECK(cudaMalloc(&c.cub_temp, c.cub_temp_bytes));

    /* exact sums of the float prefixes x[0..n), for the error columns */
    long long exact[32];
    {
        long long k = 0;
        size_t next = (size_t)1 << 10;
        int e = 10;
        for (size_t i = 0; i < ((size_t)1 << 30); i++) {
            k += bench_k(i);
            if (i + 1 == next) {
                exact[e] = k;
                e += 2;
                next <<= 2;
            }
        }
    }

    /* us[case][e][run][variant] */
    static float us[CASES][31][RUNS][VARIANTS];
    for (int run = 0; run < RUNS; run++)
        for (int kase = 0; kase < CASES; kase++)
            for (int e = 10; e <= 30; e += 2) {
                const size_t n = (size_t)1 << e;
                const int variants = kase == CASE_FLOAT_SUM ? VARIANTS : V_ACCURATE;
                bench_time_sum_variants(&c, kase, e, variants, sum_once, us[kase][e][run]);
                for (int v = 0; v < variants; v++) {
                    const double bytes = (double)n * case_elem[kase];
                    fprintf(csv, "device_sum,\"%s\",\"%s\",%zu,%.3f,%.2f,GB/s\n", case_name[kase],
                            variant_name(kase, v), n, us[kase][e][run][v], bytes / (us[kase][e][run][v] * 1e3));
                }
            }

    /* the float sum, as the README's headline table */
    printf("device-wide float sum: median per call (CUDA events around each call; median of %d runs), GB/s = 4N / "
           "time\n\n",
           RUNS);
    printf("| N     | warpred us | GB/s   | %% ceil | CUB us | CUB GB/s | t_CUB/t_warpred | accurate us | acc/plain BW "
           "| ceiling us | err plain (ulp) | err accurate (ulp) |\n");
    printf("|-------|-----------:|-------:|-------:|-------:|---------:|----------------:|------------:|-------------:|"
           "-----------:|----------------:|-------------------:|\n");
    for (int e = 10; e <= 30; e += 2) {
        const size_t n = (size_t)1 << e;
        float(*u)[VARIANTS] = us[CASE_FLOAT_SUM][e];
        double m[VARIANTS];
        for (int v = 0; v < VARIANTS; v++) m[v] = median3(u[0][v], u[1][v], u[2][v]);
        const double ratio =
            median3(u[0][V_CUB] / u[0][V_WARPRED], u[1][V_CUB] / u[1][V_WARPRED], u[2][V_CUB] / u[2][V_WARPRED]);
        float plain;
        double accurate;
        result_of(&c, V_WARPRED, n, &plain);
        result_of(&c, V_ACCURATE, n, &accurate);
        const float want = (float)ldexp((double)exact[e], -20);
        const long long ep = wt_ulp_distance(plain, want), ea = wt_ulp_distance((float)accurate, want);
        fprintf(csv, "device_sum,error,warpred,%zu,,%lld,ulp\ndevice_sum,error,warpred accurate,%zu,,%lld,ulp\n", n, ep,
                n, ea);
        printf("| 2^%-3d | %10.2f | %6.0f | %5.1f%% | %6.2f | %8.0f | %15.2f | %11.2f | %11.1f%% | %10.2f | %15lld | "
               "%18lld |\n",
               e, m[V_WARPRED], 4.0 * n / (m[V_WARPRED] * 1e3), 100.0 * m[V_CEILING] / m[V_WARPRED], m[V_CUB],
               4.0 * n / (m[V_CUB] * 1e3), ratio, m[V_ACCURATE], 100.0 * m[V_WARPRED] / m[V_ACCURATE], m[V_CEILING], ep,
               ea);
    }
    printf("\n");

    /* every case against CUB 3.0.1 and the ceiling */
    printf("device-wide reduce, warpred_device_reduce vs cub::DeviceReduce %d.%d.%d: median us per call (median of %d "
           "runs);\n"
           "ratio = t_CUB / t_warpred, the median of the %d runs' ratios (their range in brackets); %% ceil = "
           "t_ceiling / t_warpred\n\n",
           CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, RUNS, RUNS);
    printf(
        "| case       | N     | warpred us | CUB us  | ratio | (range)     | ceiling us | %% ceil | result vs CUB |\n");
    printf(
        "|------------|-------|-----------:|--------:|------:|-------------|-----------:|-------:|---------------|\n");
    for (int kase = 0; kase < CASES; kase++)
        for (int e = 10; e <= 30; e += 2) {
            const size_t n = (size_t)1 << e;
            float(*u)[VARIANTS] = us[kase][e];
            double m[V_ACCURATE], r[RUNS];
            for (int v = 0; v < V_ACCURATE; v++) m[v] = median3(u[0][v], u[1][v], u[2][v]);
            for (int run = 0; run < RUNS; run++) r[run] = u[run][V_CUB] / u[run][V_WARPRED];
            const double ratio = median3(r[0], r[1], r[2]);
            qsort(r, RUNS, sizeof r[0], cmp_double);
            char check[64];
            compare_with_cub(&c, kase, n, check, sizeof check);
            fprintf(csv, "device_sum_ratio,\"%s\",CUB/warpred median of %d,%zu,,%.4f,ratio\n", case_name[kase], RUNS, n,
                    ratio);
            printf("| %-10s | 2^%-3d | %10.2f | %7.2f | %5.2f | %4.2f..%4.2f  | %10.2f | %5.1f%% | %-13s |\n",
                   case_name[kase], e, m[V_WARPRED], m[V_CUB], ratio, r[0], r[RUNS - 1], m[V_CEILING],
                   100.0 * m[V_CEILING] / m[V_WARPRED], check);
        }
    printf("\n(ratio above 1.0: warpred is faster than CUB, most at 2^14..2^22 where it makes one launch to CUB's two; "
           "%% ceil: how\n"
           " close warpred comes to a plain read of the input)\n\n");
    BCHECK(cudaFree(c.buf));
    BCHECK(cudaFree(c.out));
    BCHECK(cudaFree(c.cub_temp));
    BCHECK(warpred_device_plan_destroy(&plan));
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
    template <typename T> static __device__ T cg_reduce(cg::thread_block_tile<32> &t, T v)
    {
        return cg::reduce(t, v, cg::plus<T>());
    }
};
template <> struct bench_ops<true> {
    typedef warpred_op_max warpred;
    template <typename T> static __device__ T cub_warp(cub::WarpReduce<T> &w, T v)
    {
        return w.Reduce(v, ::cuda::maximum<>());
    }
    template <typename T> static __device__ T cub_block(cub::BlockReduce<T, BLOCK> &b, T v)
    {
        return b.Reduce(v, ::cuda::maximum<>());
    }
    template <typename T> static __device__ T cg_reduce(cg::thread_block_tile<32> &t, T v)
    {
        return cg::reduce(t, v, cg::greater<T>());
    }
};

/* Each iteration reduces a fresh value (independent of the previous result), so the figure is
   throughput; the results feed an accumulator that is stored, so nothing is optimized away. */
template <typename T, int V, bool IsMax> __global__ void __launch_bounds__(BLOCK) k_warp(const T *in, T *out)
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
        else if (V == W_ALLREDUCE)
            r = warpred_warp_allreduce(v, typename O::warpred());
        else if (V == W_CUB) {
            cub::WarpReduce<T> w(tmp[threadIdx.x / 32]);
            r = O::cub_warp(w, v);
        } else
            r = O::cg_reduce(tile, v);
        acc += r;
    }
    out[g] = acc;
}

template <typename T, int V, bool IsMax> __global__ void __launch_bounds__(BLOCK) k_block(const T *in, T *out)
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
        else if (V == B_ALLREDUCE)
            r = warpred_block_allreduce(v, typename O::warpred());
        else if (V == B_REDUCE_STATIC)
            r = warpred_block_reduce<BLOCK>(v, typename O::warpred());
        else if (V == B_ALLREDUCE_STATIC)
            r = warpred_block_allreduce<BLOCK>(v, typename O::warpred());
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
template <typename T, bool IsMax> static void bench_levels(FILE *csv, const char *type, level_ctx *c)
{
    void (*warp_launch[W_VARIANTS])(unsigned, const void *,
                                    void *) = {launch_warp<T, W_REDUCE, IsMax>, launch_warp<T, W_ALLREDUCE, IsMax>,
                                               launch_warp<T, W_CUB, IsMax>, launch_warp<T, W_CG, IsMax>};
    void (*block_launch[B_VARIANTS])(unsigned, const void *, void *) = {
        launch_block<T, B_REDUCE, IsMax>, launch_block<T, B_ALLREDUCE, IsMax>, launch_block<T, B_REDUCE_STATIC, IsMax>,
        launch_block<T, B_ALLREDUCE_STATIC, IsMax>, launch_block<T, B_CUB, IsMax>};
    const char *op = IsMax ? "max" : "sum";
    double rate[W_VARIANTS];
    for (int v = 0; v < W_VARIANTS; v++) {
        c->launch = warp_launch[v];
        const float ms = bench_median_ms(level_once, c, 3, 15);
        rate[v] = (double)c->blocks * (BLOCK / 32) * ITERS / (ms * 1e-3) / 1e9;
        fprintf(csv, "warp_reduce,\"%s %s\",\"%s\",%u,%.3f,%.3f,G reductions/s\n", type, op, warp_name[v],
                c->blocks * BLOCK, ms * 1e3, rate[v]);
    }
    printf("| warp  | %-6s %-3s | %8.1f | %8.1f | %8.1f | %8.1f | %5.2f | %5.2f | %5.2f | %5.2f |\n", type, op, rate[0],
           rate[1], rate[2], rate[3], rate[0] / rate[2], rate[0] / rate[3], rate[1] / rate[2], rate[1] / rate[3]);
    double brate[B_VARIANTS];
    for (int v = 0; v < B_VARIANTS; v++) {
        c->launch = block_launch[v];
        const float ms = bench_median_ms(level_once, c, 3, 15);
        brate[v] = (double)c->blocks * (ITERS / 8) / (ms * 1e-3) / 1e9;
        fprintf(csv, "block_reduce,\"%s %s\",\"%s\",%u,%.3f,%.4f,G reductions/s\n", type, op, block_name[v],
                c->blocks * BLOCK, ms * 1e3, brate[v]);
    }
    block_rows[block_row_count++] = (block_row){type, op, {brate[0], brate[1], brate[2], brate[3], brate[4]}};
}

static void print_block_rows(void)
{
    printf("| block level, 256 threads | run-time size: reduce | allreduce | compile-time <256>: reduce | allreduce | "
           "cub::BlockReduce | reduce/cub (run-time, <256>) | allreduce/cub (run-time, <256>) |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < block_row_count; i++) {
        const double *r = block_rows[i].rate;
        printf("| %-6s %-3s | %8.3f | %8.3f | %8.3f | %8.3f | %8.3f | %4.2f, %4.2f | %4.2f, %4.2f |\n",
               block_rows[i].type, block_rows[i].op, r[0], r[1], r[2], r[3], r[4], r[0] / r[4], r[2] / r[4],
               r[1] / r[4], r[3] / r[4]);
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
    printf("warp and block reduce throughput, G reductions/s (one per warp or per block of %d), %d iterations per "
           "thread\n\n",
           BLOCK, ITERS);
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

/* --profile E: a few calls of each device-wide variant at N = 2^E and nothing else, for ncu. */
static int profile_sum(int e)
{
    warpred_device_plan plan;
    BCHECK(warpred_device_plan_create(&plan, 0, NULL));
    sum_ctx c;
    memset(&c, 0, sizeof c);
    c.plan = &plan;
    c.n = (size_t)1 << e;
    BCHECK(cudaMalloc(&c.buf, BUF_BYTES));
    BCHECK(cudaMalloc(&c.out, 8));
    k_fill<<<4096, 256>>>((float *)c.buf, BUF_BYTES / 4);
    c.cub_temp_bytes = cub_temp_bytes_needed(c.buf, c.out);
    BCHECK(cudaMalloc(&c.cub_temp, c.cub_temp_bytes));
    for (int r = 0; r < 3; r++)
        for (c.kase = 0; c.kase < CASES; c.kase++)
            for (c.variant = 0; c.variant < (c.kase == CASE_FLOAT_SUM ? VARIANTS : V_ACCURATE); c.variant++)
                sum_once(&c);
    BCHECK(cudaDeviceSynchronize());
    printf("profiled N = 2^%d\n", e);
    BCHECK(cudaFree(c.buf));
    BCHECK(cudaFree(c.out));
    BCHECK(cudaFree(c.cub_temp));
    BCHECK(warpred_device_plan_destroy(&plan));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--profile") == 0) return profile_sum(atoi(argv[2]));
    FILE *csv = bench_csv_open(argc > 1 ? argv[1] : "bench_reduce.csv");
    cudaDeviceProp prop;
    BCHECK(cudaGetDeviceProperties(&prop, 0));
    printf("warpred vs CUB %d.%d.%d on %s (%d SMs, %.0f MB L2)\n\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
           CUB_SUBMINOR_VERSION, prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6);
    bench_device_reduce(csv);
    bench_warp_block(csv);
    fclose(csv);
    return 0;
}
