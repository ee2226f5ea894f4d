/* bench/bench_device.h - what the device-wide benchmarks (bench_reduce.cu, bench_cub36.cu) share:
   the input buffer and its fill, the rotation that keeps calls from reading data another call
   left in L2, the read-ceiling kernel with warpred's grid, the median of three runs, the timing
   of one table row's variants, and one variant's result on the start of the buffer. */
#ifndef BENCH_DEVICE_H
#define BENCH_DEVICE_H

#include <warpred/device_reduce.cuh>
#include "bench_util.h"

static const size_t BUF_BYTES = (size_t)8 << 30;            /* 2^31 floats, 2^30 doubles */
static const size_t ROTATE_BELOW_BYTES = (size_t)256 << 20; /* five times the H100's L2 */
static const int RUNS = 3;                                  /* whole measurements, for the ratio's median */

/* x[i] = k * 2^-20 with k a 20-bit hash of i: exact in float, exactly summable in int64. The
   int view of the buffer reads these floats' bits, the double view pairs of them: finite,
   positive values either way (and the timing does not depend on them). */
__host__ __device__ __forceinline__ unsigned bench_k(size_t i)
{
    return bench_hash((unsigned)i ^ (unsigned)(i >> 32) * 0x9e3779b9u) >> 12;
}

__global__ void k_fill(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)bench_k(i) * 0x1p-20f;
}

/* The ceiling: warpred's grid and load pattern (16-byte loads, four in flight), one add per
   load, no reduction. */
__global__ void __launch_bounds__(WARPRED_DEVICE_THREADS) k_read(const float4 *__restrict__ x, size_t nv, float *sink)
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

/* Where a call on `bytes` of input reads: below ROTATE_BELOW_BYTES the calls rotate through
   the buffer, one counter for every call of every variant, so that no call reads a chunk that
   another call (of the same or another variant) read recently: a chunk comes round again only
   after (8 GiB / bytes) - 1 calls, by then long gone from L2. */
static size_t g_calls;

static const char *bench_rotated_input(const char *buf, size_t bytes)
{
    if (bytes >= ROTATE_BELOW_BYTES) return buf;
    const size_t slots = (BUF_BYTES - bytes) / bytes;
    return buf + (g_calls++ % slots) * bytes; /* offsets are multiples of 4 KiB: 16-byte aligned */
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median3(double a, double b, double c)
{
    double v[3] = {a, b, c};
    qsort(v, 3, sizeof v[0], cmp_double);
    return v[1];
}

/* One row of a device-wide sum table: variants 0..variants-1 of the case at 2^e elements, timed
   interleaved (5 warm-ups; 201 calls up to 2^24, 41 up to 2^28, 15 above), us per call into
   us_out[v]. Ctx is the program's sum_ctx (fields kase, variant, n); the copies differ only there. */
enum { BENCH_MAX_VARIANTS = 8 };

template <typename Ctx>
static void bench_time_sum_variants(const Ctx *c, int kase, int e, int variants, bench_fn once, float *us_out)
{
    Ctx ctx[BENCH_MAX_VARIANTS];
    void *ctxs[BENCH_MAX_VARIANTS];
    bench_fn fns[BENCH_MAX_VARIANTS];
    if (variants > BENCH_MAX_VARIANTS) {
        fprintf(stderr, "bench_time_sum_variants: %d variants, at most %d\n", variants, (int)BENCH_MAX_VARIANTS);
        exit(1);
    }
    for (int v = 0; v < variants; v++) {
        ctx[v] = *c;
        ctx[v].kase = kase;
        ctx[v].variant = v;
        ctx[v].n = (size_t)1 << e;
        ctxs[v] = &ctx[v];
        fns[v] = once;
    }
    const int reps = e <= 24 ? 201 : e <= 28 ? 41 : 15;
    bench_interleaved_median_ms(fns, ctxs, variants, 5, reps, us_out);
    for (int v = 0; v < variants; v++) us_out[v] *= 1000.0f;
}

/* Runs variant v of the program's sum_ctx once on x[0..n) (the start of the buffer, the rotation's
   slot 0) and copies its 8-byte result (c->out) into host; the rotation resumes where it was. */
template <typename Ctx> static void bench_result_of(const Ctx *c, int v, size_t n, bench_fn once, void *host)
{
    Ctx one = *c;
    one.variant = v;
    one.n = n;
    const size_t saved = g_calls;
    g_calls = 0;
    BCHECK(cudaMemset(one.out, 0, 8));
    once(&one);
    BCHECK(cudaGetLastError());
    BCHECK(cudaMemcpy(host, one.out, 8, cudaMemcpyDeviceToHost));
    g_calls = saved;
}

#endif /* BENCH_DEVICE_H */
