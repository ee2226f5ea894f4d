/* bench/bench_compound.cu - warpred's compound operations against CUB and against
   doing the same work with plain warpred calls, in one run.

   1. Device-wide float argmax (the value and its index out), N = 2^10, 2^12, ..., 2^28:
      warpred_device_reduce with warpred_op_argmax + warpred_xf_arg against
      cub::DeviceReduce::ArgMax (the overload writing the maximum and the index to separate
      outputs; temp storage allocated once, outside the timed region) and a plain vectorized
      read kernel with warpred's grid (the read ceiling). Each call is timed alone with CUDA
      events, median after warm-up, the variants taking turns call by call; below 2^26 the calls
      rotate through a 1 GiB buffer so that no call reads data a recent call left in L2.
      Checked first, on x[0..N) against a host scan: values 0..65535 (ties everywhere at large N),
      then with two equal planted maxima (the lower index must win).
   2. Block argmax, 256 threads, full occupancy: a loop of independent block reductions of
      warpred_arg<float, int> with warpred_block_reduce (run-time size and <256>) and a reducer
      (block_reducer.cuh) against cub::BlockReduce<cub::KeyValuePair<int, float>, 256> with
      cub::ArgMax(), with one storage and a __syncthreads() per call, and with two alternating.
   3. sum + min + max of floats in one pass (warpred_tuple3, warpred_op_tuple3<sum, min, max>)
      against three separate warpred calls, warp level (reduce, allreduce), block level (<256>)
      and with reducers (block_reducer.cuh: one for the tuple, one for the three calls): throughput (independent reductions) and latency (each reduction's input depends
      on the previous result; one warp or one block per SM).
   4. Welford mean/variance against the naive (sum, sum of squares) tuple, on 2^26 floats of
      1e4 + uniform noise in [-0.5, 0.5): block per row of 4096 (warpred_block_reduce<256>) and
      the whole array (warpred_device_reduce): time, GB/s, and the relative error of the
      variance against a double two-pass host reference.

   Every kernel stores a value that depends on every reduction it made, and every section checks
   its results against a host reference before it prints a time (a failed check: FAILED, exit 1).
   Sections 2 and 3 make their inputs from a hash of the thread index: integers 128..255 as
   floats, so every sum is exact and the host can predict each result bit for bit.

   Usage: bench_compound [csv path] [--quick]   (run by `make bench` with the CSV path)
          --quick or WARPRED_SAMPLE_QUICK=1: tiny sizes and few repetitions (a smoke run). */
#include <math.h>
#include <cub/cub.cuh>
#include <warpred/warpred.cuh>
#include <warpred/device_reduce.cuh>
#include <warpred/block_reducer.cuh>
#include "bench_util.h"

enum { BLOCK = 256 };
static int g_quick;
static int g_sms;

static void fail(const char *what)
{
    fprintf(stderr, "FAILED: %s\n", what);
    printf("FAILED: %s\n", what);
    exit(1);
}

__host__ __device__ __forceinline__ unsigned float_bits(float f)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
#endif
}

__host__ __device__ __forceinline__ float bits_float(unsigned u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, 4);
    return f;
#endif
}

/* An integer 128..255 as a float, from the top 7 bits: built with bit operations only (no
   conversion instruction in the timed loops); sums of up to 2^16 of them are exact. */
__host__ __device__ __forceinline__ float small_value(unsigned bits)
{
    return bits_float(0x43000000u | (bits >> 25) << 16);
}

/* Folds a result into a thread's running check value (the host folds its reference alike). */
__host__ __device__ __forceinline__ unsigned mix(unsigned acc, unsigned x) { return (acc ^ x) * 0x01000193u; }

static int reps_for(int full) { return g_quick ? 5 : full; }

/* ------------------------------------------------------------------------------------------
   1. device-wide argmax
   ------------------------------------------------------------------------------------------ */

static size_t g_buf_n;                              /* floats in the argmax input buffer */
static const size_t ROTATE_BELOW = (size_t)1 << 26; /* 256 MiB: five times the H100's L2 */

/* 0..65535 as floats: at large N the maximum occurs many times (the first must win). */
__host__ __device__ __forceinline__ float argmax_value(size_t i)
{
    return (float)(bench_hash((unsigned)i ^ 0x5bd1e995u) >> 16);
}

__global__ void k_fill_argmax(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = argmax_value(i);
}

/* The ceiling: warpred's grid and load pattern (4 loads of 16 bytes in flight), no reduction. */
__global__ void __launch_bounds__(WARPRED_DEVICE_THREADS) k_read(const float4 *__restrict__ x, size_t nv, float *sink)
{
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x, G = (size_t)gridDim.x * blockDim.x;
    float acc = 0;
    size_t i = g;
    for (; i + 3 * G < nv; i += 4 * G) {
        const float4 a = __ldg(&x[i]), b = __ldg(&x[i + G]), c = __ldg(&x[i + 2 * G]), d = __ldg(&x[i + 3 * G]);
        acc += (a.x + b.y) + (c.z + d.w);
    }
    for (; i < nv; i += G) acc += __ldg(&x[i]).x;
    if (acc == -1.0f) *sink = acc; /* never true for this data (all >= 0); keeps the loads alive */
}

enum { AM_WARPRED, AM_CUB, AM_CEILING, AM_VARIANTS };
static const char *const am_name[] = {"warpred", "CUB DeviceReduce::ArgMax", "read ceiling"};

typedef warpred_arg<float, long long> arg64;

typedef struct {
    int variant;
    size_t n;
    float *x;
    warpred_device_plan *plan;
    arg64 *w_out;
    float *c_value;
    long long *c_index;
    void *cub_temp;
    size_t cub_temp_bytes;
} am_ctx;

/* One counter for every call of every variant: a chunk comes round again only after
   (buffer / n) - 1 calls, long gone from L2 by then. */
static size_t g_am_calls;

static const float *am_input(const am_ctx *c)
{
    const size_t slots = g_buf_n / c->n;
    if (c->n >= ROTATE_BELOW || slots < 2) return c->x;
    return c->x + (g_am_calls++ % slots) * c->n; /* multiples of n: 16-byte aligned */
}

static void am_run(const am_ctx *c, const float *x)
{
    switch (c->variant) {
    case AM_WARPRED:
        BCHECK(warpred_device_transform_reduce(c->plan, x, c->n, c->w_out, warpred_op_argmax(), warpred_xf_arg()));
        break;
    case AM_CUB: {
        size_t bytes = c->cub_temp_bytes;
        BCHECK(cub::DeviceReduce::ArgMax(c->cub_temp, bytes, x, c->c_value, c->c_index, (long long)c->n));
        break;
    }
    default:
        k_read<<<warpred_device_blocks(c->plan, c->n, sizeof(float)), WARPRED_DEVICE_THREADS>>>((const float4 *)x,
                                                                                                c->n / 4, c->c_value);
    }
}

static void am_once(void *p)
{
    am_ctx *c = (am_ctx *)p;
    am_run(c, am_input(c));
}

/* Both variants on x[0..n) must give (want_value, want_index). */
static void am_check(am_ctx *c, float want_value, long long want_index, const char *data)
{
    arg64 w;
    float cv;
    long long ci;
    BCHECK(cudaMemset(c->w_out, 0xff, sizeof(arg64)));
    BCHECK(cudaMemset(c->c_value, 0xff, sizeof(float)));
    BCHECK(cudaMemset(c->c_index, 0xff, sizeof(long long)));
    am_ctx t = *c;
    t.variant = AM_WARPRED;
    am_run(&t, c->x);
    t.variant = AM_CUB;
    am_run(&t, c->x);
    BCHECK(cudaMemcpy(&w, c->w_out, sizeof w, cudaMemcpyDeviceToHost));
    BCHECK(cudaMemcpy(&cv, c->c_value, sizeof cv, cudaMemcpyDeviceToHost));
    BCHECK(cudaMemcpy(&ci, c->c_index, sizeof ci, cudaMemcpyDeviceToHost));
    if (w.index != want_index || float_bits(w.value) != float_bits(want_value) || ci != want_index ||
        float_bits(cv) != float_bits(want_value)) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "device argmax, N = %zu, %s: want (%g at %lld), warpred (%g at %lld), CUB (%g at %lld)", c->n, data,
                 want_value, want_index, w.value, w.index, cv, ci);
        fail(msg);
    }
}

/* Two equal maxima planted at i1 < i2 (i2 the last element): i1 must win. Restores the data. */
static void am_check_planted(am_ctx *c)
{
    const size_t i1 = c->n / 2 + 3, i2 = c->n - 1;
    const float big = 70000.0f, old1 = argmax_value(i1), old2 = argmax_value(i2);
    BCHECK(cudaMemcpy(c->x + i1, &big, 4, cudaMemcpyHostToDevice));
    BCHECK(cudaMemcpy(c->x + i2, &big, 4, cudaMemcpyHostToDevice));
    am_check(c, big, (long long)i1, "two planted maxima");
    BCHECK(cudaMemcpy(c->x + i1, &old1, 4, cudaMemcpyHostToDevice));
    BCHECK(cudaMemcpy(c->x + i2, &old2, 4, cudaMemcpyHostToDevice));
}

static void bench_device_argmax(FILE *csv)
{
    const int e_max = g_quick ? 16 : 28;
    g_buf_n = g_quick ? (size_t)1 << 20 : (size_t)1 << 28;
    warpred_device_plan plan;
    const char *why;
    if (warpred_device_plan_create(&plan, 0, &why) != cudaSuccess) fail(why);
    am_ctx c;
    memset(&c, 0, sizeof c);
    c.plan = &plan;
    BCHECK(cudaMalloc(&c.x, g_buf_n * sizeof(float)));
    BCHECK(cudaMalloc(&c.w_out, sizeof(arg64)));
    BCHECK(cudaMalloc(&c.c_value, sizeof(float)));
    BCHECK(cudaMalloc(&c.c_index, sizeof(long long)));
    k_fill_argmax<<<4096, 256>>>(c.x, g_buf_n);
    BCHECK(cudaGetLastError());
    for (int e = 10; e <= e_max; e += 2) { /* the most any size asks for */
        size_t bytes = 0;
        BCHECK(cub::DeviceReduce::ArgMax(NULL, bytes, (const float *)c.x, c.c_value, c.c_index, (long long)1 << e));
        if (bytes > c.cub_temp_bytes) c.cub_temp_bytes = bytes;
    }
    BCHECK(cudaMalloc(&c.cub_temp, c.cub_temp_bytes));

    /* the first maximum of each prefix x[0..2^e), from a host scan */
    float best_value[32];
    long long best_index[32];
    {
        float v = -1.0f;
        long long at = -1;
        int e = 10;
        for (size_t i = 0; i < ((size_t)1 << e_max); i++) {
            const float x = argmax_value(i);
            if (x > v) {
                v = x;
                at = (long long)i;
            }
            if (i + 1 == (size_t)1 << e) {
                best_value[e] = v;
                best_index[e] = at;
                e += 2;
            }
        }
    }

    printf("1. device-wide float argmax (value + index out): median per call (CUDA events around each call), GB/s = 4N "
           "/ time\n\n");
    printf("| N     | warpred us | GB/s   | %% ceil | CUB us | CUB GB/s | t_CUB/t_warpred | check  | ceiling us |\n");
    printf("|-------|-----------:|-------:|-------:|-------:|---------:|----------------:|-------:|-----------:|\n");
    double worst_all = 1e30, worst_mid = 1e30, ceil_top = 0;
    int worst_all_e = 0, worst_mid_e = 0;
    for (int e = 10; e <= e_max; e += 2) {
        const size_t n = (size_t)1 << e;
        c.n = n;
        am_check(&c, best_value[e], best_index[e], "random values 0..65535");
        am_check_planted(&c);

        float us[AM_VARIANTS];
        am_ctx ctx[AM_VARIANTS];
        void *ctxs[AM_VARIANTS];
        bench_fn fns[AM_VARIANTS];
        for (int v = 0; v < AM_VARIANTS; v++) {
            ctx[v] = c;
            ctx[v].variant = v;
            ctxs[v] = &ctx[v];
            fns[v] = am_once;
        }
        bench_interleaved_median_ms(fns, ctxs, AM_VARIANTS, 5, reps_for(e <= 24 ? 201 : 41), us);
        for (int v = 0; v < AM_VARIANTS; v++) {
            us[v] *= 1000.0f;
            fprintf(csv, "device_argmax,float argmax,\"%s\",%zu,%.3f,%.2f,GB/s\n", am_name[v], n, us[v],
                    4.0 * n / (us[v] * 1e3));
        }
        const double ratio = us[AM_CUB] / us[AM_WARPRED];
        const int mid = e >= 14 && e <= 22;
        const double level = mid ? 1.2 : 1.0;
        if (ratio < worst_all) worst_all = ratio, worst_all_e = e;
        if (mid && ratio < worst_mid) worst_mid = ratio, worst_mid_e = e;
        if (e == 28) ceil_top = us[AM_CEILING] / us[AM_WARPRED];
        fprintf(csv, "device_argmax,float argmax,t_CUB/t_warpred,%zu,,%.3f,ratio\n", n, ratio);
        printf("| 2^%-3d | %10.2f | %6.0f | %5.1f%% | %6.2f | %8.0f | %15.2f | %s%3.1f%s | %10.2f |\n", e,
               us[AM_WARPRED], 4.0 * n / (us[AM_WARPRED] * 1e3), 100.0 * us[AM_CEILING] / us[AM_WARPRED], us[AM_CUB],
               4.0 * n / (us[AM_CUB] * 1e3), ratio, ratio >= level ? ">=" : "< ", level, ratio >= level ? "  " : " !",
               us[AM_CEILING]);
    }
    printf("\nchecks: t_CUB/t_warpred >= 1.0 at every N: %s (lowest %.2f at 2^%d)", worst_all >= 1.0 ? "yes" : "NO",
           worst_all, worst_all_e);
    if (worst_mid_e)
        printf("; >= 1.2 at 2^14..2^22 (one launch against CUB's two): %s (lowest %.2f at 2^%d)",
               worst_mid >= 1.2 ? "yes" : "NO", worst_mid, worst_mid_e);
    if (e_max >= 28)
        printf("; >= 90%% of the read ceiling at 2^28: %s (%.1f%%)", ceil_top >= 0.9 ? "yes" : "NO", 100.0 * ceil_top);
    printf("\nchecked before timing at every N: warpred and CUB equal a host scan (value and first index), and two "
           "planted equal maxima give the lower index\n\n");
    BCHECK(cudaFree(c.x));
    BCHECK(cudaFree(c.w_out));
    BCHECK(cudaFree(c.c_value));
    BCHECK(cudaFree(c.c_index));
    BCHECK(cudaFree(c.cub_temp));
    warpred_device_plan_destroy(&plan);
}

/* ------------------------------------------------------------------------------------------
   Shared by sections 2 and 3: launching kernels of the shape k(out, iters), timing them
   interleaved, and the host's view of the inputs.
   ------------------------------------------------------------------------------------------ */

typedef void (*launch_fn)(unsigned blocks, unsigned threads, unsigned *out, int iters);

typedef struct {
    launch_fn launch;
    unsigned blocks, threads;
    unsigned *out;
    int iters;
} loop_ctx;

static void loop_once(void *p)
{
    const loop_ctx *c = (const loop_ctx *)p;
    c->launch(c->blocks, c->threads, c->out, c->iters);
}

/* Runs each kernel once into a poisoned buffer and leaves its output in host[v] (checked by
   the caller), then times them all, interleaved. ms[v]: median milliseconds per launch. */
static void run_and_time(loop_ctx *ctx, int count, unsigned **host, float *ms)
{
    void *ctxs[8];
    bench_fn fns[8];
    for (int v = 0; v < count; v++) {
        const size_t bytes = (size_t)ctx[v].blocks * ctx[v].threads * sizeof(unsigned);
        BCHECK(cudaMemset(ctx[v].out, 0xa5, bytes));
        loop_once(&ctx[v]);
        BCHECK(cudaGetLastError());
        BCHECK(cudaMemcpy(host[v], ctx[v].out, bytes, cudaMemcpyDeviceToHost));
        ctxs[v] = &ctx[v];
        fns[v] = loop_once;
    }
    bench_interleaved_median_ms(fns, ctxs, count, 3, reps_for(21), ms);
}

/* The inputs of iteration i (key = i * 0x9e3779b9): small_value(bench_hash(thread) ^ key). */
static const unsigned KEY_STEP = 0x9e3779b9u;

/* Groups (warps or blocks) whose results the host predicts: a spread sample and the last. */
static int checked_group(unsigned g, unsigned groups) { return g % 53 == 0 || g + 1 == groups; }

/* ------------------------------------------------------------------------------------------
   2. block argmax
   ------------------------------------------------------------------------------------------ */

enum { BA_RUNTIME, BA_STATIC, BA_REDUCER, BA_CUB, BA_CUB2, BA_VARIANTS };
static const char *const ba_name[] = {"warpred block_reduce", "warpred block_reduce<256>", "warpred reducer<256>",
                                      "cub::BlockReduce ArgMax", "cub::BlockReduce ArgMax, two storages"};

typedef cub::KeyValuePair<int, float> cub_pair;

template <int V> __global__ void __launch_bounds__(BLOCK) k_block_argmax(unsigned *out, int iters)
{
    typedef cub::BlockReduce<cub_pair, BLOCK> cub_reduce;
    __shared__ typename cub_reduce::TempStorage tmp[V == BA_CUB2 ? 2 : 1];
    typedef warpred_arg<float, int> arg;
    WARPRED_BLOCK_REDUCER(argmax, arg, BLOCK);
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x, h = bench_hash(g);
    unsigned key = 0, acc = 0;
    for (int i = 0; i < iters; i++, key += KEY_STEP) {
        const float v = small_value(h ^ key);
        float value;
        int index;
        if constexpr (V == BA_CUB || V == BA_CUB2) {
            const cub_pair r = cub_reduce(tmp[i & (V == BA_CUB2)]).Reduce(cub_pair((int)threadIdx.x, v), cub::ArgMax());
            if constexpr (V == BA_CUB) __syncthreads(); /* CUB's rule before reusing its one storage */
            value = r.value;
            index = r.key;
        } else {
            const warpred_arg<float, int> a = warpred_make_arg(v, (int)threadIdx.x);
            warpred_arg<float, int> r;
            if constexpr (V == BA_STATIC) r = warpred_block_reduce<BLOCK>(a, warpred_op_argmax());
            else if constexpr (V == BA_REDUCER)
                r = argmax.reduce(a, warpred_op_argmax());
            else
                r = warpred_block_reduce(a, warpred_op_argmax());
            value = r.value;
            index = r.index;
        }
        acc = mix(mix(acc, float_bits(value)), (unsigned)index);
    }
    out[g] = acc; /* meaningful in thread 0 */
}

template <int V> static void launch_block_argmax(unsigned blocks, unsigned threads, unsigned *out, int iters)
{
    k_block_argmax<V><<<blocks, threads>>>(out, iters);
}

/* Thread 0's check value of block b: the first (lowest thread) maximum of every iteration. */
static unsigned host_block_argmax(unsigned b, int iters)
{
    unsigned h[BLOCK], key = 0, acc = 0;
    for (int t = 0; t < BLOCK; t++) h[t] = bench_hash(b * BLOCK + t);
    for (int i = 0; i < iters; i++, key += KEY_STEP) {
        float best = -1.0f;
        int at = -1;
        for (int t = 0; t < BLOCK; t++) {
            const float v = small_value(h[t] ^ key);
            if (v > best) best = v, at = t;
        }
        acc = mix(mix(acc, float_bits(best)), (unsigned)at);
    }
    return acc;
}

static void bench_block_argmax(FILE *csv)
{
    const unsigned blocks = (unsigned)g_sms * (g_quick ? 1 : 8); /* 8 x 256 = 2048 threads per SM: full occupancy */
    const int iters = g_quick ? 16 : 512;
    const size_t threads = (size_t)blocks * BLOCK;
    launch_fn launch[BA_VARIANTS] = {launch_block_argmax<BA_RUNTIME>, launch_block_argmax<BA_STATIC>,
                                     launch_block_argmax<BA_REDUCER>, launch_block_argmax<BA_CUB>,
                                     launch_block_argmax<BA_CUB2>};
    loop_ctx ctx[BA_VARIANTS];
    unsigned *host[BA_VARIANTS], *out;
    BCHECK(cudaMalloc(&out, BA_VARIANTS * threads * sizeof(unsigned)));
    for (int v = 0; v < BA_VARIANTS; v++) {
        ctx[v] = (loop_ctx){launch[v], blocks, BLOCK, out + v * threads, iters};
        host[v] = (unsigned *)malloc(threads * sizeof(unsigned));
    }
    float ms[BA_VARIANTS];
    run_and_time(ctx, BA_VARIANTS, host, ms);
    for (unsigned b = 0; b < blocks; b++) {
        if (!checked_group(b, blocks)) continue;
        const unsigned want = host_block_argmax(b, iters);
        for (int v = 0; v < BA_VARIANTS; v++)
            if (host[v][(size_t)b * BLOCK] != want) {
                char msg[160];
                snprintf(msg, sizeof msg, "block argmax, %s: block %u gives check value %08x, want %08x", ba_name[v], b,
                         host[v][(size_t)b * BLOCK], want);
                fail(msg);
            }
    }
    double rate[BA_VARIANTS];
    for (int v = 0; v < BA_VARIANTS; v++) {
        rate[v] = (double)blocks * iters / (ms[v] * 1e-3) / 1e9;
        fprintf(csv, "block_argmax,float int argmax,\"%s\",%zu,%.3f,%.4f,G reductions/s\n", ba_name[v], threads,
                ms[v] * 1e3, rate[v]);
    }
    /* The targets: the reducer against CUB at its fastest (two storages), the stateless calls
       against CUB with its one storage and a barrier per call. */
    const double r_red = rate[BA_REDUCER] / rate[BA_CUB2], r_ct = rate[BA_STATIC] / rate[BA_CUB],
                 r_rt = rate[BA_RUNTIME] / rate[BA_CUB];
    fprintf(csv, "block_argmax,float int argmax,warpred/cub (run-time),%zu,,%.3f,ratio\n", threads, r_rt);
    fprintf(csv, "block_argmax,float int argmax,warpred/cub (<256>),%zu,,%.3f,ratio\n", threads, r_ct);
    fprintf(csv, "block_argmax,float int argmax,reducer/cub two storages,%zu,,%.3f,ratio\n", threads, r_red);
    printf("2. block argmax (warpred_arg<float, int> vs cub::KeyValuePair<int, float> + cub::ArgMax), %d threads, %u "
           "blocks, %d independent reductions per block: G reductions/s\n\n",
           BLOCK, blocks, iters);
    printf(
        "| block_reduce (run-time) | block_reduce<256> | reducer<256> | CUB, one storage + sync | CUB, two storages | "
        "run-time/CUB | <256>/CUB | reducer/CUB two |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    printf("| %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f%s |\n\n", rate[BA_RUNTIME], rate[BA_STATIC],
           rate[BA_REDUCER], rate[BA_CUB], rate[BA_CUB2], r_rt, r_ct, r_red, r_red >= 1.0 ? "" : " !");
    printf("checked: thread 0's results in every 53rd block and the last (values 128..255: ties, the lowest thread "
           "wins) against a host scan\n\n");
    BCHECK(cudaFree(out));
    for (int v = 0; v < BA_VARIANTS; v++) free(host[v]);
}

/* ------------------------------------------------------------------------------------------
   3. sum + min + max in one pass vs three calls
   ------------------------------------------------------------------------------------------ */

typedef warpred_tuple3<float, float, float> smm;
typedef warpred_op_tuple3<warpred_op_sum, warpred_op_min, warpred_op_max> smm_op;
enum { LEVEL_WARP, LEVEL_BLOCK, LEVEL_REDUCER };
static const char *const level_name[] = {"warp", "block<256>", "reducer<256>"};

template <int Level, bool All, bool Tuple> __device__ __forceinline__ smm smm_reduce_stateless(float v)
{
    if constexpr (Tuple) {
        const smm t = warpred_make_tuple(v, v, v);
        const smm_op op = smm_op();
        if constexpr (Level == LEVEL_WARP && All) return warpred_warp_allreduce(t, op);
        else if constexpr (Level == LEVEL_WARP)
            return warpred_warp_reduce(t, op);
        else if constexpr (All)
            return warpred_block_allreduce<BLOCK>(t, op);
        else
            return warpred_block_reduce<BLOCK>(t, op);
    } else {
        if constexpr (Level == LEVEL_WARP && All)
            return warpred_make_tuple(warpred_warp_allreduce(v, warpred_op_sum()),
                                      warpred_warp_allreduce(v, warpred_op_min()),
                                      warpred_warp_allreduce(v, warpred_op_max()));
        else if constexpr (Level == LEVEL_WARP)
            return warpred_make_tuple(warpred_warp_reduce(v, warpred_op_sum()),
                                      warpred_warp_reduce(v, warpred_op_min()),
                                      warpred_warp_reduce(v, warpred_op_max()));
        else if constexpr (All)
            return warpred_make_tuple(warpred_block_allreduce<BLOCK>(v, warpred_op_sum()),
                                      warpred_block_allreduce<BLOCK>(v, warpred_op_min()),
                                      warpred_block_allreduce<BLOCK>(v, warpred_op_max()));
        else
            return warpred_make_tuple(warpred_block_reduce<BLOCK>(v, warpred_op_sum()),
                                      warpred_block_reduce<BLOCK>(v, warpred_op_min()),
                                      warpred_block_reduce<BLOCK>(v, warpred_op_max()));
    }
}

/* The reducers of LEVEL_REDUCER (block_reducer.cuh), declared once per kernel: one for the tuple,
   one for the three float calls; nothing for the stateless levels. */
template <int Level> struct smm_state {
    template <typename A, typename B> __device__ __forceinline__ smm_state(A &, B &) {}
};
template <> struct smm_state<LEVEL_REDUCER> {
    warpred_block_reducer<smm, BLOCK> tuple;
    warpred_block_reducer<float, BLOCK> scalar;
    __device__ __forceinline__ smm_state(warpred_block_storage<smm, BLOCK> &t, warpred_block_storage<float, BLOCK> &f)
        : tuple(t), scalar(f)
    {}
};
#define SMM_STATE(Level)                                     \
    __shared__ warpred_block_storage<smm, BLOCK> smm_st_t;   \
    __shared__ warpred_block_storage<float, BLOCK> smm_st_f; \
    smm_state<Level> st(smm_st_t, smm_st_f)

template <int Level, bool All, bool Tuple> __device__ __forceinline__ smm smm_reduce(smm_state<Level> &st, float v)
{
    if constexpr (Level == LEVEL_REDUCER) {
        if constexpr (Tuple) {
            const smm t = warpred_make_tuple(v, v, v);
            return All ? st.tuple.allreduce(t, smm_op()) : st.tuple.reduce(t, smm_op());
        } else if constexpr (All) {
            return warpred_make_tuple(st.scalar.allreduce(v, warpred_op_sum()),
                                      st.scalar.allreduce(v, warpred_op_min()),
                                      st.scalar.allreduce(v, warpred_op_max()));
        } else {
            return warpred_make_tuple(st.scalar.reduce(v, warpred_op_sum()), st.scalar.reduce(v, warpred_op_min()),
                                      st.scalar.reduce(v, warpred_op_max()));
        }
    } else {
        (void)st;
        return smm_reduce_stateless<Level, All, Tuple>(v);
    }
}

__host__ __device__ __forceinline__ unsigned mix_smm(unsigned acc, float s, float mn, float mx)
{
    return mix(mix(mix(acc, float_bits(s)), float_bits(mn)), float_bits(mx));
}

/* Throughput: iteration i reduces inputs that do not depend on earlier results. */
template <int Level, bool All, bool Tuple>
__global__ void __launch_bounds__(BLOCK) k_smm_throughput(unsigned *out, int iters)
{
    SMM_STATE(Level);
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x, h = bench_hash(g);
    unsigned key = 0, acc = 0;
    for (int i = 0; i < iters; i++, key += KEY_STEP) {
        const smm r = smm_reduce<Level, All, Tuple>(st, small_value(h ^ key));
        acc = mix_smm(acc, r.v0, r.v1, r.v2);
    }
    out[g] = acc;
}

/* Latency: the key of the next iteration is made from this iteration's result (allreduce, so
   every thread has it). */
__host__ __device__ __forceinline__ unsigned next_key(unsigned key, float s, float mn, float mx)
{
    return mix_smm(key, s, mn, mx) + KEY_STEP;
}

template <int Level, bool Tuple> __global__ void __launch_bounds__(BLOCK) k_smm_latency(unsigned *out, int iters)
{
    SMM_STATE(Level);
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x, h = bench_hash(g);
    unsigned key = 0;
    for (int i = 0; i < iters; i++) {
        const smm r = smm_reduce<Level, true, Tuple>(st, small_value(h ^ key));
        key = next_key(key, r.v0, r.v1, r.v2);
    }
    out[g] = key;
}

template <int Level, bool All, bool Tuple>
static void launch_smm_throughput(unsigned blocks, unsigned threads, unsigned *out, int iters)
{
    k_smm_throughput<Level, All, Tuple><<<blocks, threads>>>(out, iters);
}
template <int Level, bool Tuple>
static void launch_smm_latency(unsigned blocks, unsigned threads, unsigned *out, int iters)
{
    k_smm_latency<Level, Tuple><<<blocks, threads>>>(out, iters);
}

/* The host's check value of group g (size threads, first thread g * size), as the device forms
   it: the throughput loop (latency = 0) or the latency chain (latency = 1). */
static unsigned host_smm(unsigned group, unsigned size, int iters, int latency)
{
    unsigned *h = (unsigned *)malloc(size * sizeof(unsigned)), key = 0, acc = 0;
    for (unsigned t = 0; t < size; t++) h[t] = bench_hash(group * size + t);
    for (int i = 0; i < iters; i++) {
        double s = 0;
        float mn = 1e30f, mx = -1e30f;
        for (unsigned t = 0; t < size; t++) {
            const float v = small_value(h[t] ^ key);
            s += v;
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
        }
        if (latency) key = next_key(key, (float)s, mn, mx);
        else {
            acc = mix_smm(acc, (float)s, mn, mx);
            key += KEY_STEP;
        }
    }
    free(h);
    return latency ? key : acc;
}

/* The results of groups of `size` threads; every thread's value when `all`, else the group's
   first thread's. */
static void check_smm(const unsigned *got, unsigned threads, unsigned size, int iters, int latency, int all,
                      const char *what)
{
    const unsigned groups = threads / size;
    for (unsigned g = 0; g < groups; g++) {
        if (!latency && !checked_group(g, groups)) continue;
        const unsigned want = host_smm(g, size, iters, latency);
        for (unsigned t = 0; t < (all ? size : 1); t++)
            if (got[(size_t)g * size + t] != want) {
                char msg[200];
                snprintf(msg, sizeof msg, "sum+min+max, %s: group %u thread %u gives check value %08x, want %08x", what,
                         g, t, got[(size_t)g * size + t], want);
                fail(msg);
            }
    }
}

enum { SMM_TUPLE_REDUCE, SMM_SEP_REDUCE, SMM_TUPLE_ALL, SMM_SEP_ALL, SMM_VARIANTS };
static const char *const smm_name[] = {"tuple reduce", "3 calls reduce", "tuple allreduce", "3 calls allreduce"};

template <int Level> static void smm_throughput(FILE *csv, unsigned blocks, int iters, double *speedup)
{
    const unsigned threads = blocks * BLOCK, size = Level == LEVEL_WARP ? 32 : BLOCK;
    const char *level = level_name[Level];
    launch_fn launch[SMM_VARIANTS] = {
        launch_smm_throughput<Level, false, true>, launch_smm_throughput<Level, false, false>,
        launch_smm_throughput<Level, true, true>, launch_smm_throughput<Level, true, false>};
    loop_ctx ctx[SMM_VARIANTS];
    unsigned *host[SMM_VARIANTS], *out;
    BCHECK(cudaMalloc(&out, (size_t)SMM_VARIANTS * threads * sizeof(unsigned)));
    for (int v = 0; v < SMM_VARIANTS; v++) {
        ctx[v] = (loop_ctx){launch[v], blocks, BLOCK, out + (size_t)v * threads, iters};
        host[v] = (unsigned *)malloc(threads * sizeof(unsigned));
    }
    float ms[SMM_VARIANTS];
    run_and_time(ctx, SMM_VARIANTS, host, ms);
    for (int v = 0; v < SMM_VARIANTS; v++) check_smm(host[v], threads, size, iters, 0, v >= SMM_TUPLE_ALL, smm_name[v]);
    double rate[SMM_VARIANTS];
    for (int v = 0; v < SMM_VARIANTS; v++) {
        rate[v] = (double)(threads / size) * iters / (ms[v] * 1e-3) / 1e9;
        fprintf(csv, "sum_min_max,\"%s throughput\",\"%s\",%u,%.3f,%.4f,G reductions/s\n", level, smm_name[v], threads,
                ms[v] * 1e3, rate[v]);
    }
    speedup[0] = rate[SMM_TUPLE_REDUCE] / rate[SMM_SEP_REDUCE];
    speedup[1] = rate[SMM_TUPLE_ALL] / rate[SMM_SEP_ALL];
    fprintf(csv, "sum_min_max,\"%s throughput\",reduce tuple/3 calls,%u,,%.3f,speedup\n", level, threads, speedup[0]);
    fprintf(csv, "sum_min_max,\"%s throughput\",allreduce tuple/3 calls,%u,,%.3f,speedup\n", level, threads,
            speedup[1]);
    printf("| %-10s | throughput | %9.3f | %9.3f | %5.2fx %s | %9.3f | %9.3f | %5.2fx %s |\n", level,
           rate[SMM_TUPLE_REDUCE], rate[SMM_SEP_REDUCE], speedup[0], speedup[0] >= 1.1 ? "  " : " !",
           rate[SMM_TUPLE_ALL], rate[SMM_SEP_ALL], speedup[1], speedup[1] >= 1.1 ? "  " : " !");
    BCHECK(cudaFree(out));
    for (int v = 0; v < SMM_VARIANTS; v++) free(host[v]);
}

/* One warp (or one block) per SM, each running one dependent chain: ns per allreduce. */
template <int Level> static void smm_latency(FILE *csv, int iters, double *speedup)
{
    const unsigned size = Level == LEVEL_WARP ? 32 : BLOCK, blocks = (unsigned)g_sms, threads = blocks * size;
    const char *level = level_name[Level];
    launch_fn launch[2] = {launch_smm_latency<Level, true>, launch_smm_latency<Level, false>};
    loop_ctx ctx[2];
    unsigned *host[2], *out;
    BCHECK(cudaMalloc(&out, 2 * (size_t)threads * sizeof(unsigned)));
    for (int v = 0; v < 2; v++) {
        ctx[v] = (loop_ctx){launch[v], blocks, size, out + (size_t)v * threads, iters};
        host[v] = (unsigned *)malloc(threads * sizeof(unsigned));
    }
    float ms[2];
    run_and_time(ctx, 2, host, ms);
    check_smm(host[0], threads, size, iters, 1, 1, "latency, tuple allreduce");
    check_smm(host[1], threads, size, iters, 1, 1, "latency, 3 calls allreduce");
    double ns[2];
    for (int v = 0; v < 2; v++) {
        ns[v] = ms[v] * 1e6 / iters;
        fprintf(csv, "sum_min_max,\"%s allreduce latency\",\"%s\",%u,%.3f,%.2f,ns per reduction\n", level,
                v ? "3 calls" : "tuple", threads, ms[v] * 1e3, ns[v]);
    }
    *speedup = ns[1] / ns[0];
    fprintf(csv, "sum_min_max,\"%s allreduce latency\",3 calls/tuple,%u,,%.3f,speedup\n", level, threads, *speedup);
    printf("| %-10s | latency    |           |           |            | %6.0f ns | %6.0f ns | %5.2fx %s |\n", level,
           ns[0], ns[1], *speedup, *speedup >= 1.5 ? "  " : " !");
    BCHECK(cudaFree(out));
    for (int v = 0; v < 2; v++) free(host[v]);
}

static void bench_sum_min_max(FILE *csv)
{
    const unsigned blocks = (unsigned)g_sms * (g_quick ? 1 : 8);
    const int warp_iters = g_quick ? 32 : 2048, block_iters = g_quick ? 8 : 512;
    const int warp_latency_iters = g_quick ? 32 : 8192, block_latency_iters = g_quick ? 8 : 2048;
    printf("3. sum + min + max of floats: one warpred_tuple3 reduction (warpred_op_tuple3<sum, min, max>) vs three "
           "warpred calls\n");
    printf("   throughput: G reductions/s (one per warp or per block of 256), %u blocks of 256, %d (warp) / %d (block) "
           "iterations;\n",
           blocks, warp_iters, block_iters);
    printf("   latency: one warp or one block per SM, each reduction's input depends on the previous result: ns per "
           "reduction\n\n");
    printf("| level      | loop       | tuple red | 3 calls   | speedup    | tuple all | 3 calls   | speedup    |\n");
    printf("|------------|------------|----------:|----------:|-----------:|----------:|----------:|-----------:|\n");
    double warp_tp[2], block_tp[2], red_tp[2], warp_lat, block_lat, red_lat;
    smm_throughput<LEVEL_WARP>(csv, blocks, warp_iters, warp_tp);
    smm_throughput<LEVEL_BLOCK>(csv, blocks, block_iters, block_tp);
    smm_throughput<LEVEL_REDUCER>(csv, blocks, block_iters, red_tp);
    smm_latency<LEVEL_WARP>(csv, warp_latency_iters, &warp_lat);
    smm_latency<LEVEL_BLOCK>(csv, block_latency_iters, &block_lat);
    smm_latency<LEVEL_REDUCER>(csv, block_latency_iters, &red_lat);
    printf("\none tuple vs three calls: throughput (target >= 1.1x) warp %.2fx / %.2fx, block %.2fx / %.2fx, reducer "
           "%.2fx / %.2fx (reduce / allreduce); latency (target >= 1.5x) warp %.2fx, block %.2fx, reducer %.2fx\n",
           warp_tp[0], warp_tp[1], block_tp[0], block_tp[1], red_tp[0], red_tp[1], warp_lat, block_lat, red_lat);
    printf("checked: every variant's results (exact: inputs are integers 128..255) against a host model, sampled "
           "warps/blocks "
           "(throughput) and every chain (latency), every lane for allreduce\n\n");
}

/* ------------------------------------------------------------------------------------------
   4. Welford vs naive (sum, sum of squares)
   ------------------------------------------------------------------------------------------ */

enum { ROW = 4096 }; /* floats per row: 256 threads x 4 loads of float4 */

__global__ void k_fill_stats(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = 1e4f + ((float)(bench_hash((unsigned)i ^ 0x27d4eb2fu) >> 8) * 0x1p-24f - 0.5f);
}

typedef warpred_tuple2<float, float> sum_sq;
typedef warpred_op_tuple2<warpred_op_sum, warpred_op_sum> sum_sq_op;

/* For the naive whole-array variant: x -> (x, x^2). */
struct xf_sum_sq {
    __device__ sum_sq operator()(float x, size_t) const { return warpred_make_tuple(x, x * x); }
};

/* Mean and population variance of each row of ROW floats, one block of 256 per row. */
template <bool Welford>
__global__ void __launch_bounds__(BLOCK) k_row_stats(const float4 *__restrict__ x, float *mean, float *var)
{
    const float4 *row = x + (size_t)blockIdx.x * (ROW / 4);
    float4 q[ROW / 4 / BLOCK];
#pragma unroll
    for (int k = 0; k < ROW / 4 / BLOCK; k++) q[k] = __ldg(&row[threadIdx.x + k * BLOCK]);
    if constexpr (Welford) {
        const warpred_op_welford op = warpred_op_welford();
        warpred_welford<float> w = warpred_op_welford::identity<warpred_welford<float>>();
#pragma unroll
        for (int k = 0; k < ROW / 4 / BLOCK; k++) {
            w = op(w, warpred_make_welford(q[k].x));
            w = op(w, warpred_make_welford(q[k].y));
            w = op(w, warpred_make_welford(q[k].z));
            w = op(w, warpred_make_welford(q[k].w));
        }
        w = warpred_block_reduce<BLOCK>(w, op);
        if (threadIdx.x == 0) {
            mean[blockIdx.x] = warpred_welford_mean(w);
            var[blockIdx.x] = warpred_welford_var_pop(w);
        }
    } else {
        sum_sq t = warpred_make_tuple(0.0f, 0.0f);
#pragma unroll
        for (int k = 0; k < ROW / 4 / BLOCK; k++) {
            t.v0 += (q[k].x + q[k].y) + (q[k].z + q[k].w);
            t.v1 += (q[k].x * q[k].x + q[k].y * q[k].y) + (q[k].z * q[k].z + q[k].w * q[k].w);
        }
        t = warpred_block_reduce<BLOCK>(t, sum_sq_op());
        if (threadIdx.x == 0) {
            const float m = t.v0 / ROW;
            mean[blockIdx.x] = m;
            var[blockIdx.x] = t.v1 / ROW - m * m;
        }
    }
}

enum { ST_ROW_WELFORD, ST_ROW_NAIVE, ST_ALL_WELFORD, ST_ALL_NAIVE, ST_VARIANTS };
static const char *const st_name[] = {"Welford", "naive sum+sumsq", "Welford", "naive sum+sumsq"};

typedef struct {
    int variant;
    size_t n;
    const float *x;
    float *mean, *var;
    warpred_device_plan *plan;
    warpred_welford<float> *w_out;
    sum_sq *n_out;
} st_ctx;

static void st_once(void *p)
{
    const st_ctx *c = (const st_ctx *)p;
    const unsigned rows = (unsigned)(c->n / ROW);
    switch (c->variant) {
    case ST_ROW_WELFORD: k_row_stats<true><<<rows, BLOCK>>>((const float4 *)c->x, c->mean, c->var); break;
    case ST_ROW_NAIVE: k_row_stats<false><<<rows, BLOCK>>>((const float4 *)c->x, c->mean, c->var); break;
    case ST_ALL_WELFORD:
        BCHECK(warpred_device_transform_reduce(c->plan, c->x, c->n, c->w_out, warpred_op_welford(),
                                               warpred_xf_welford<>()));
        break;
    default: BCHECK(warpred_device_transform_reduce(c->plan, c->x, c->n, c->n_out, sum_sq_op(), xf_sum_sq()));
    }
}

static double rel_err(double got, double want) { return fabs(got - want) / fabs(want); }

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Two-pass double mean and population variance of x[0..n). */
static void two_pass(const float *x, size_t n, double *mean, double *var)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    const double m = s / (double)n;
    for (size_t i = 0; i < n; i++) q += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = q / (double)n;
}

static void bench_welford(FILE *csv)
{
    const size_t n = g_quick ? (size_t)1 << 20 : (size_t)1 << 26, rows = n / ROW;
    warpred_device_plan plan;
    const char *why;
    if (warpred_device_plan_create(&plan, 0, &why) != cudaSuccess) fail(why);
    st_ctx c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.plan = &plan;
    float *x, *mean, *var;
    BCHECK(cudaMalloc(&x, n * sizeof(float)));
    BCHECK(cudaMalloc(&mean, 2 * rows * sizeof(float)));
    BCHECK(cudaMalloc(&var, 2 * rows * sizeof(float)));
    BCHECK(cudaMalloc(&c.w_out, sizeof(warpred_welford<float>)));
    BCHECK(cudaMalloc(&c.n_out, sizeof(sum_sq)));
    k_fill_stats<<<4096, 256>>>(x, n);
    BCHECK(cudaGetLastError());
    c.x = x;

    /* host references, from the data as the GPU holds it */
    float *hx = (float *)malloc(n * sizeof(float));
    double *ref_mean = (double *)malloc(rows * sizeof(double)), *ref_var = (double *)malloc(rows * sizeof(double));
    BCHECK(cudaMemcpy(hx, x, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < rows; r++) two_pass(hx + r * ROW, ROW, &ref_mean[r], &ref_var[r]);
    double all_mean, all_var;
    two_pass(hx, n, &all_mean, &all_var);
    free(hx);

    /* one run of each into poisoned outputs, then the checks, then the timing */
    st_ctx ctx[ST_VARIANTS];
    void *ctxs[ST_VARIANTS];
    bench_fn fns[ST_VARIANTS];
    for (int v = 0; v < ST_VARIANTS; v++) {
        ctx[v] = c;
        ctx[v].variant = v;
        ctx[v].mean = mean + (v == ST_ROW_NAIVE ? rows : 0);
        ctx[v].var = var + (v == ST_ROW_NAIVE ? rows : 0);
        ctxs[v] = &ctx[v];
        fns[v] = st_once;
    }
    BCHECK(cudaMemset(mean, 0xff, 2 * rows * sizeof(float)));
    BCHECK(cudaMemset(var, 0xff, 2 * rows * sizeof(float)));
    BCHECK(cudaMemset(c.w_out, 0xff, sizeof(warpred_welford<float>)));
    BCHECK(cudaMemset(c.n_out, 0xff, sizeof(sum_sq)));
    for (int v = 0; v < ST_VARIANTS; v++) st_once(&ctx[v]);
    BCHECK(cudaGetLastError());
    float *hmean = (float *)malloc(2 * rows * sizeof(float)), *hvar = (float *)malloc(2 * rows * sizeof(float));
    warpred_welford<float> w_all;
    sum_sq n_all;
    BCHECK(cudaMemcpy(hmean, mean, 2 * rows * sizeof(float), cudaMemcpyDeviceToHost));
    BCHECK(cudaMemcpy(hvar, var, 2 * rows * sizeof(float), cudaMemcpyDeviceToHost));
    BCHECK(cudaMemcpy(&w_all, c.w_out, sizeof w_all, cudaMemcpyDeviceToHost));
    BCHECK(cudaMemcpy(&n_all, c.n_out, sizeof n_all, cudaMemcpyDeviceToHost));

    /* errors of the variance per row: median and largest; the means must be right in both */
    double *err = (double *)malloc(rows * sizeof(double)), row_median[2], row_max[2];
    for (int k = 0; k < 2; k++) {
        for (size_t r = 0; r < rows; r++) {
            if (!(rel_err(hmean[k * rows + r], ref_mean[r]) < 1e-5)) {
                char msg[160];
                snprintf(msg, sizeof msg, "row statistics, %s: row %zu mean %.9g, want %.9g", st_name[k], r,
                         hmean[k * rows + r], ref_mean[r]);
                fail(msg);
            }
            err[r] = rel_err(hvar[k * rows + r], ref_var[r]);
            if (err[r] != err[r]) err[r] = INFINITY; /* a NaN variance: worst */
        }
        qsort(err, rows, sizeof(double), cmp_double);
        row_median[k] = err[rows / 2];
        row_max[k] = err[rows - 1];
    }
    if (!(row_max[0] < 1e-2))
        fail("row statistics: a Welford variance is off by more than 1% (data 1e4 + noise of 0.29)");
    const double w_all_var = warpred_welford_var_pop(w_all), n_all_mean = (double)n_all.v0 / (double)n;
    /* the naive variance as a float program would form it */
    const float n_all_mean_f = n_all.v0 / (float)n, n_all_var_f = n_all.v1 / (float)n - n_all_mean_f * n_all_mean_f;
    if (w_all.count != (long long)n || !(rel_err(w_all.mean, all_mean) < 1e-5) || !(rel_err(w_all_var, all_var) < 1e-2))
        fail("whole-array Welford: count, mean or variance wrong");
    if (!(rel_err(n_all_mean, all_mean) < 1e-4)) fail("whole-array naive: the mean from the sum is wrong");

    float ms[ST_VARIANTS];
    bench_interleaved_median_ms(fns, ctxs, ST_VARIANTS, 3, reps_for(41), ms);
    const double all_err[2] = {rel_err(w_all_var, all_var), rel_err(n_all_var_f, all_var)};
    for (int v = 0; v < ST_VARIANTS; v++) {
        const char *which = v < ST_ALL_WELFORD ? "rows of 4096" : "whole array";
        fprintf(csv, "welford,\"float %s\",\"%s\",%zu,%.3f,%.2f,GB/s\n", which, st_name[v], n, ms[v] * 1e3,
                4.0 * n / (ms[v] * 1e6));
        if (v < ST_ALL_WELFORD) {
            fprintf(csv, "welford,float rows of 4096 variance error (median),\"%s\",%zu,,%.3e,relative\n", st_name[v],
                    n, row_median[v]);
            fprintf(csv, "welford,float rows of 4096 variance error (max),\"%s\",%zu,,%.3e,relative\n", st_name[v], n,
                    row_max[v]);
        } else
            fprintf(csv, "welford,float whole array variance error,\"%s\",%zu,,%.3e,relative\n", st_name[v], n,
                    all_err[v - ST_ALL_WELFORD]);
    }
    printf("4. mean + variance of %zu floats (1e4 + uniform noise in [-0.5, 0.5), variance %.5f): Welford vs naive "
           "(sum, sum of squares) "
           "as a warpred_tuple2, float throughout\n\n",
           n, all_var);
    printf("| layout | method | us | GB/s | time vs naive | variance rel. error (median row) | (worst row / whole "
           "array) |\n");
    printf("|---|---|---:|---:|---:|---:|---:|\n");
    for (int v = 0; v < ST_VARIANTS; v++) {
        const int row = v < ST_ALL_WELFORD;
        const double vs = ms[v] / ms[row ? ST_ROW_NAIVE : ST_ALL_NAIVE];
        if (row)
            printf("| block per row of %d (block_reduce<256>) | %s | %.2f | %.0f | %.2fx | %.2e | %.2e |\n", ROW,
                   st_name[v], ms[v] * 1e3, 4.0 * n / (ms[v] * 1e6), vs, row_median[v], row_max[v]);
        else
            printf("| whole array (warpred_device_reduce) | %s | %.2f | %.0f | %.2fx | | %.2e |\n", st_name[v],
                   ms[v] * 1e3, 4.0 * n / (ms[v] * 1e6), vs, all_err[v - ST_ALL_WELFORD]);
    }
    printf("\nreference: double two-pass on the host over the same floats; checked: every row's mean (both methods) "
           "within 1e-5, "
           "Welford's variances within 1e-2, the whole-array count, mean and variance\n\n");
    free(err);
    free(hmean);
    free(hvar);
    free(ref_mean);
    free(ref_var);
    BCHECK(cudaFree(x));
    BCHECK(cudaFree(mean));
    BCHECK(cudaFree(var));
    BCHECK(cudaFree(c.w_out));
    BCHECK(cudaFree(c.n_out));
    warpred_device_plan_destroy(&plan);
}

int main(int argc, char **argv)
{
    const char *csv_path = "bench_compound.csv";
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--quick") == 0) g_quick = 1;
        else
            csv_path = argv[a];
    }
    const char *q = getenv("WARPRED_SAMPLE_QUICK");
    if (q && *q && strcmp(q, "0") != 0) g_quick = 1;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIPPED: no usable GPU\n");
        return 0;
    }
    FILE *csv = bench_csv_open(csv_path);
    cudaDeviceProp prop;
    BCHECK(cudaGetDeviceProperties(&prop, 0));
    g_sms = prop.multiProcessorCount;
    printf("warpred compound operations vs CUB %d.%d.%d on %s (%d SMs, %.0f MB L2)%s\n\n", CUB_MAJOR_VERSION,
           CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6,
           g_quick ? " -- QUICK RUN, tiny sizes" : "");
    bench_device_argmax(csv);
    bench_block_argmax(csv);
    bench_sum_min_max(csv);
    bench_welford(csv);
    fclose(csv);
    return 0;
}
