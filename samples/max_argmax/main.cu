/* samples/max_argmax - the float atomicMax exercise done right.

   CUDA has atomicMax for integers only, and a well-known answer to "how do I take the max of
   floats atomically" is to reinterpret the float's bits as an integer:
       atomicMax((int *)addr, __float_as_int(v));
   That is right only while every value is >= +0. Part 1 runs it, two common repairs, and
   warpred_atomic_fmaximum on small inputs with negative values, -0 and NaN, prints what each
   leaves in memory next to the IEEE 754 maximum (numpy.max: NaN wins, -0 < +0), then times all
   of them on a large all-negative array. Only warpred's results decide the exit status; the
   others are shown being wrong.

   Part 2 asks WHERE the maximum is: argmax over 2^24 floats with ties, -0/+0 and NaNs planted,
   three ways (one launch with warpred_grid_reduce over value-index pairs; a block reduction then
   one 64-bit atomic per block into a warpred_atomic_argmax slot; the host call
   warpred_device_reduce with warpred_xf_arg), for warpred_op_argmax (numpy.argmax: the first
   NaN wins) and warpred_op_argmax_num (numpy.nanargmax: NaN ignored). Ties go to the lowest
   index; -0 < +0. Each result must equal the CPU's index and value.

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. samples/max_argmax/main.cu -o max_argmax && ./max_argmax
   WARPRED_SAMPLE_QUICK=1 uses small sizes (for make test and the sanitizers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <warpred/atomic_minmax.cuh>
#include <warpred/op_argminmax.cuh>
#include <warpred/atomic_argminmax.cuh>
#include <warpred/grid_reduce.cuh>
#include <warpred/device_reduce.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_timer, su_float_bits, su_bits_float, ... */

/* ------------------------------ part 1: four atomic float max ------------------------------ */

/* 1. The bits as a signed int. For v >= +0 the integer order of the bits is the float order.
   A negative float has its sign bit set, so it is a negative int, but the larger its
   magnitude the larger the int: the order of negative values is reversed (-2 "beats" -1), and
   -inf (0xff800000) beats every finite negative value. */
__device__ void max_int_bits(float *p, float v) { atomicMax((int *)p, __float_as_int(v)); }

/* 2. The sign trick: signed max for v >= 0, unsigned min for v < 0 (for negatives, a smaller
   unsigned pattern is a smaller magnitude, hence a larger value). Right for ordinary numbers,
   but -0 >= 0 is true, so -0 takes the signed-max branch with the bits 0x80000000 (INT_MIN) and
   never replaces a negative value; a NaN is neither >= 0 nor orderable, and lands wherever its
   sign bit sends it (a +NaN is dropped against a positive value, kept against a negative). */
__device__ void max_sign_trick(float *p, float v)
{
    if (v >= 0.0f) atomicMax((int *)p, __float_as_int(v));
    else
        atomicMin((unsigned *)p, __float_as_uint(v));
}

/* 3. A compare-and-swap loop around fmaxf. Orders every number correctly (the loop compares
   bits, so it never spins on NaN != NaN), but fmaxf is IEEE maxNum: a NaN argument is
   ignored, and fmaxf(-0, +0) may return either zero, so the sign of a zero result depends on
   the order of the updates. It also always writes, which is slow under contention. */
__device__ void max_cas_fmaxf(float *p, float v)
{
    int *word = (int *)p;
    int old = *word, assumed;
    do {
        assumed = old;
        old = atomicCAS(word, assumed, __float_as_int(fmaxf(__int_as_float(assumed), v)));
    } while (old != assumed);
}

/* 4. warpred_atomic_fmaximum (warpred/atomic_minmax.cuh): IEEE 754-2019 maximum, as numpy.max:
   a NaN wins and is stored as the canonical 0x7fffffff, -0 < +0, every other value in float
   order. It reads first and issues no atomic when the update would not change memory; else
   one integer atomicMax or atomicMin on the bits, chosen by the sign bit of v (not by v >= 0). */
__device__ void max_warpred(float *p, float v) { warpred_atomic_fmaximum(p, v); }

enum { INT_BITS, SIGN_TRICK, CAS_FMAXF, WARPRED, NMETHODS };
static const char *method_names[NMETHODS] = {"int bits", "sign trick", "CAS + fmaxf", "warpred"};

template <int Method> __device__ __forceinline__ void atomic_max_by(float *p, float v)
{
    if (Method == INT_BITS) max_int_bits(p, v);
    if (Method == SIGN_TRICK) max_sign_trick(p, v);
    if (Method == CAS_FMAXF) max_cas_fmaxf(p, v);
    if (Method == WARPRED) max_warpred(p, v);
}

/* One thread applies the updates in array order: the results are reproducible, so the table
   shows each method's rule rather than a race. */
template <int Method> __global__ void max_in_order(const float *v, int count, float *slot)
{
    for (int i = 0; i < count; i++) atomic_max_by<Method>(slot, v[i]);
}

/* One atomic per element, every thread of the grid, all on one address. */
template <int Method> __global__ void max_parallel(const float *v, size_t n, float *slot)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomic_max_by<Method>(slot, v[i]);
}

typedef void (*in_order_fn)(const float *, int, float *);
typedef void (*parallel_fn)(const float *, size_t, float *);
static const in_order_fn in_order_kernels[NMETHODS] = {max_in_order<INT_BITS>, max_in_order<SIGN_TRICK>,
                                                       max_in_order<CAS_FMAXF>, max_in_order<WARPRED>};
static const parallel_fn parallel_kernels[NMETHODS] = {max_parallel<INT_BITS>, max_parallel<SIGN_TRICK>,
                                                       max_parallel<CAS_FMAXF>, max_parallel<WARPRED>};

/* --------------------------------- part 2: argmax, three ways --------------------------------- */

typedef warpred_arg<float, int> arg_t;

/* Each thread keeps the best (value, index) pair of its elements, with the op itself: the pair
   that starts it is the op's identity (index -1, a value that loses to everything). */
template <typename Op> __device__ __forceinline__ arg_t thread_best(const float *x, int n, Op op)
{
    arg_t best = Op::template identity<arg_t>();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        best = op(best, warpred_make_arg(x[i], i));
    return best;
}

/* (a) One launch: the pairs go through warpred_grid_reduce like numbers would. */
template <typename Op> __global__ void argmax_grid(const float *x, int n, warpred_grid_scratch scratch, arg_t *out)
{
    warpred_grid_reduce<256>(thread_best(x, n, Op()), Op(), scratch, out);
}

/* (b) A block reduction, then one 64-bit atomicMax per block on a packed (key, inverted index)
   slot: order-independent, so the result is the same whatever order the blocks arrive in. */
template <typename Op, bool Num> __global__ void argmax_slot(const float *x, int n, unsigned long long *slot)
{
    const arg_t best = warpred_block_reduce<256>(thread_best(x, n, Op()), Op());
    if (threadIdx.x == 0 && best.index >= 0) {
        if (Num) warpred_atomic_argmax_num(slot, best.value, (unsigned)best.index);
        else
            warpred_atomic_argmax(slot, best.value, (unsigned)best.index);
    }
}

/* ------------------------------------------ host ------------------------------------------ */

/* IEEE 754-2019 maximum of two floats, on the host: the reference. */
static float ieee_maximum(float a, float b)
{
    if (isnan(a) || isnan(b)) return su_bits_float(0x7fffffffu);
    if (a == 0.0f && b == 0.0f) return signbit(a) ? b : a; /* +0 if either is +0 */
    return a > b ? a : b;
}

/* "-0", "+0", "NaN(7fffffff)", "-inf" or %g: zeros and NaNs show what they are. */
static const char *show(float x, char *buf, size_t size)
{
    if (isnan(x)) snprintf(buf, size, "NaN(%08x)", su_float_bits(x));
    else if (x == 0.0f)
        snprintf(buf, size, "%s0", signbit(x) ? "-" : "+");
    else
        snprintf(buf, size, "%g", x);
    return buf;
}

enum { MAX_CASE = 4 };
typedef struct special_case {
    const char *what;
    int count;
    float v[MAX_CASE];
} special_case;

/* Memory starts at -inf, the identity of max; each case then receives its values in order. */
static int part1_special_cases(void)
{
    const float nan = su_bits_float(0x7fc00000u), neg_nan = su_bits_float(0xffc00000u);
    const special_case cases[] = {
        {"negatives", 3, {-3.0f, -1.0f, -2.0f}},     {"negative, then -0", 2, {-1.0f, -0.0f}},
        {"-0, then +0", 2, {-0.0f, 0.0f}},           {"+0, then -0", 2, {0.0f, -0.0f}},
        {"NaN among numbers", 3, {1.0f, nan, 2.0f}}, {"-NaN among negatives", 3, {-5.0f, neg_nan, -4.0f}},
        {"NaN against -inf", 2, {-INFINITY, nan}},   {"+inf, positives", 3, {7.0f, INFINITY, 9.0f}},
    };
    const int ncases = sizeof cases / sizeof cases[0];
    float *d_v, *d_slot;
    CHECK(cudaMalloc(&d_v, MAX_CASE * sizeof(float)));
    CHECK(cudaMalloc(&d_slot, sizeof(float)));

    printf("Part 1a: one thread applies the values in order to memory that starts at -inf\n\n");
    printf("%-22s %-14s", "values", "IEEE maximum");
    for (int m = 0; m < NMETHODS; m++) printf(" %-19s", method_names[m]);
    printf("\n");
    int ok = 1;
    for (int c = 0; c < ncases; c++) {
        char buf[32];
        float want = -INFINITY;
        for (int i = 0; i < cases[c].count; i++) want = ieee_maximum(want, cases[c].v[i]);
        printf("%-22s %-14s", cases[c].what, show(want, buf, sizeof buf));
        CHECK(cudaMemcpy(d_v, cases[c].v, cases[c].count * sizeof(float), cudaMemcpyHostToDevice));
        for (int m = 0; m < NMETHODS; m++) {
            const float start = -INFINITY;
            float got;
            CHECK(cudaMemcpy(d_slot, &start, sizeof start, cudaMemcpyHostToDevice));
            in_order_kernels[m]<<<1, 1>>>(d_v, cases[c].count, d_slot);
            CHECK(cudaGetLastError());
            CHECK(cudaMemcpy(&got, d_slot, sizeof got, cudaMemcpyDeviceToHost));
            /* the others are called wrong only for a wrong value (any NaN counts as NaN); warpred must
               match the reference bit for bit */
            const int right = su_float_bits(got) == su_float_bits(want) || (isnan(got) && isnan(want));
            char cell[40];
            snprintf(cell, sizeof cell, "%s%s", show(got, buf, sizeof buf), right ? "" : " WRONG");
            printf(" %-19s", cell);
            if (m == WARPRED) ok &= su_float_bits(got) == su_float_bits(want);
        }
        printf("\n");
    }
    printf("  (inputs: NaN = 0x7fc00000, -NaN = 0xffc00000; the IEEE maximum of anything with a NaN is the\n"
           "   canonical NaN 0x7fffffff, and of -0 and +0 it is +0)\n");
    CHECK(cudaFree(d_v));
    CHECK(cudaFree(d_slot));
    return ok;
}

/* Part 1b: every element of a large array that holds only negative values, one atomic per
   element on a single address, with each method; results and median times. */
static int part1_parallel(size_t n, int warmups, int runs, unsigned blocks)
{
    float *h = (float *)su_malloc(n * sizeof(float));
    unsigned long long s = 0x243f6a8885a308d3ull;
    float want = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        h[i] = -1.0f - (float)((su_lcg_next(&s) >> 40) % 1000000u) / 1000.0f; /* in (-1001, -1] */
        want = ieee_maximum(want, h[i]);
    }
    float *d_v, *d_slot;
    CHECK(cudaMalloc(&d_v, n * sizeof(float)));
    CHECK(cudaMalloc(&d_slot, sizeof(float)));
    CHECK(cudaMemcpy(d_v, h, n * sizeof(float), cudaMemcpyHostToDevice));

    printf("\nPart 1b: max of %zu values in (-1001, -1], one atomic per element on one address, %u blocks of 256\n\n",
           n, blocks);
    printf("%-14s %14s %14s %12s %10s\n", "method", "result", "CPU", "time us", "G upd/s");
    int ok = 1;
    for (int m = 0; m < NMETHODS; m++) {
        const float neg_inf = -INFINITY;
        float got;
        /* every run starts from -inf; reading its result and resetting the slot stay out of the time */
        CHECK(cudaMemcpy(d_slot, &neg_inf, sizeof neg_inf, cudaMemcpyHostToDevice));
        su_timer t = su_timer_create(warmups, runs);
        while (su_timer_next(&t)) {
            parallel_kernels[m]<<<blocks, 256>>>(d_v, n, d_slot);
            CHECK(cudaGetLastError());
            su_timer_stop(&t);
            CHECK(cudaMemcpy(&got, d_slot, sizeof got, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(d_slot, &neg_inf, sizeof neg_inf, cudaMemcpyHostToDevice));
        }
        const double us = su_timer_median_us(&t);
        const int right = su_float_bits(got) == su_float_bits(want);
        char a[32], b[32];
        printf("%-14s %14s %14s %12.1f %10.2f%s\n", method_names[m], show(got, a, sizeof a), show(want, b, sizeof b),
               us, n / (us * 1e3), right ? "" : "  WRONG");
        if (m == WARPRED) ok &= right;
    }
    CHECK(cudaFree(d_v));
    CHECK(cudaFree(d_slot));
    free(h);
    return ok;
}

/* ---- part 2, host side ---- */

/* Unsigned order of this key = float order with -0 < +0 (NaN handled apart). */
static unsigned order_key(float x)
{
    const unsigned b = su_float_bits(x);
    return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}

/* numpy.argmax (num = 0: the first NaN wins) or numpy.nanargmax (num = 1: NaN ignored; all NaN:
   the first NaN). Ties: the lowest index, as the loop keeps the first of equal keys. */
static int cpu_argmax(const float *x, int n, int num)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (isnan(x[i])) {
            if (!num) return i;
            if (best < 0) best = i;
            continue;
        }
        if (best < 0 || isnan(x[best]) || order_key(x[i]) > order_key(x[best])) best = i;
    }
    return best;
}

typedef struct arg_job {
    const float *x;
    int n;
    warpred_grid_scratch scratch;
    warpred_device_plan plan;
    arg_t *pair;                              /* (a) */
    unsigned long long *slot;                 /* (b) */
    warpred_arg<float, long long> *wide_pair; /* (c) */
    unsigned blocks;
} arg_job;

/* One way, one op: runs it and returns the pair it found (value as bits, index). */
template <typename Op, bool Num> static void run_grid(const arg_job *j)
{
    argmax_grid<Op><<<j->blocks, 256>>>(j->x, j->n, j->scratch, j->pair);
    CHECK(cudaGetLastError());
}
template <typename Op, bool Num> static void run_slot(const arg_job *j)
{
    CHECK(cudaMemsetAsync(j->slot, 0, sizeof *j->slot)); /* WARPRED_ARG_SLOT_EMPTY */
    argmax_slot<Op, Num><<<j->blocks, 256>>>(j->x, j->n, j->slot);
    CHECK(cudaGetLastError());
}
template <typename Op, bool Num> static void run_device(const arg_job *j)
{
    CHECK(warpred_device_transform_reduce(&j->plan, j->x, (size_t)j->n, j->wide_pair, Op(), warpred_xf_arg()));
}

template <typename Op, bool Num> static void fetch_grid(const arg_job *j, float *value, long long *index)
{
    arg_t a;
    CHECK(cudaMemcpy(&a, j->pair, sizeof a, cudaMemcpyDeviceToHost));
    *value = a.value;
    *index = a.index;
}
template <typename Op, bool Num> static void fetch_slot(const arg_job *j, float *value, long long *index)
{
    unsigned long long slot;
    CHECK(cudaMemcpy(&slot, j->slot, sizeof slot, cudaMemcpyDeviceToHost));
    const warpred_arg<float, long long> a = warpred_arg_slot_decode<Op, float>(slot);
    *value = a.value;
    *index = a.index;
}
template <typename Op, bool Num> static void fetch_device(const arg_job *j, float *value, long long *index)
{
    warpred_arg<float, long long> a;
    CHECK(cudaMemcpy(&a, j->wide_pair, sizeof a, cudaMemcpyDeviceToHost));
    *value = a.value;
    *index = a.index;
}

typedef void (*arg_run_fn)(const arg_job *);
typedef void (*arg_fetch_fn)(const arg_job *, float *, long long *);
typedef struct arg_way {
    const char *name;
    int num; /* 0: warpred_op_argmax, 1: warpred_op_argmax_num */
    arg_run_fn run;
    arg_fetch_fn fetch;
} arg_way;

static const arg_way arg_ways[] = {
    {"grid_reduce, argmax", 0, run_grid<warpred_op_argmax, false>, fetch_grid<warpred_op_argmax, false>},
    {"atomic slot, argmax", 0, run_slot<warpred_op_argmax, false>, fetch_slot<warpred_op_argmax, false>},
    {"device_reduce, argmax", 0, run_device<warpred_op_argmax, false>, fetch_device<warpred_op_argmax, false>},
    {"grid_reduce, argmax_num", 1, run_grid<warpred_op_argmax_num, true>, fetch_grid<warpred_op_argmax_num, true>},
    {"atomic slot, argmax_num", 1, run_slot<warpred_op_argmax_num, true>, fetch_slot<warpred_op_argmax_num, true>},
    {"device_reduce, argmax_num", 1, run_device<warpred_op_argmax_num, true>,
     fetch_device<warpred_op_argmax_num, true>},
};
enum { NWAYS = sizeof arg_ways / sizeof arg_ways[0] };

/* Negative values with planted special cases: the largest number appears three times, as -0
   at n/7 and as +0 at n/2 and n - 1 (so the answer is n/2: +0 beats -0, the lowest of the
   equal +0s wins); the NaN input adds NaNs at 2n/3 and n/4 (argmax: n/4, the first NaN;
   argmax_num: still n/2). */
static int part2_argmax(int n, int warmups, int runs, unsigned blocks)
{
    float *h = (float *)su_malloc((size_t)n * sizeof(float));
    unsigned long long s = 0x13198a2e03707344ull;
    for (int i = 0; i < n; i++) {
        h[i] = -1.0f - (float)((su_lcg_next(&s) >> 40) % 1000000u) / 1000.0f;
    }
    h[n / 7] = -0.0f;
    h[n / 2] = 0.0f;
    h[n - 1] = 0.0f;

    arg_job j;
    float *d_x;
    const char *why;
    CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&j.pair, sizeof *j.pair));
    CHECK(cudaMalloc(&j.slot, sizeof *j.slot));
    CHECK(cudaMalloc(&j.wide_pair, sizeof *j.wide_pair));
    j.x = d_x;
    j.n = n;
    j.blocks = blocks;
    if (warpred_grid_scratch_create(&j.scratch, blocks, sizeof(arg_t), &why) != cudaSuccess ||
        warpred_device_plan_create(&j.plan, 0, &why) != cudaSuccess) {
        fprintf(stderr, "scratch / plan: %s\n", why);
        exit(1);
    }

    printf("\nPart 2: argmax of %d floats (negative, with -0, +0 twice, and in the second input two NaNs)\n\n", n);
    printf("%-12s %-28s %10s %14s %10s %10s  %s\n", "input", "way", "index", "value", "CPU index", "time us", "check");
    int ok = 1;
    for (int with_nan = 0; with_nan < 2; with_nan++) {
        if (with_nan) {
            h[2 * (n / 3)] = su_bits_float(0x7fc00001u); /* a NaN with a payload */
            h[n / 4] = su_bits_float(0xffc00002u);       /* a negative NaN, the first one */
        }
        CHECK(cudaMemcpy(d_x, h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
        for (int w = 0; w < NWAYS; w++) {
            const int want = cpu_argmax(h, n, arg_ways[w].num);
            float value;
            long long index;
            CHECK(cudaMemset(j.pair, 0xff, sizeof *j.pair)); /* poison every output */
            CHECK(cudaMemset(j.wide_pair, 0xff, sizeof *j.wide_pair));
            arg_ways[w].run(&j);
            arg_ways[w].fetch(&j, &value, &index);
            /* the pair must be the input's: same index, same value (a slot keeps no NaN payload) */
            const int right =
                index == want && (isnan(h[want]) ? isnan(value) : su_float_bits(value) == su_float_bits(h[want]));
            ok &= right;
            su_timer t = su_timer_create(warmups, runs);
            while (su_timer_next(&t)) arg_ways[w].run(&j);
            const double us = su_timer_median_us(&t);
            char buf[32];
            printf("%-12s %-28s %10lld %14s %10d %10.1f  %s\n", with_nan ? "with NaNs" : "numbers", arg_ways[w].name,
                   index, show(value, buf, sizeof buf), want, us, right ? "ok" : "WRONG");
        }
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(j.pair));
    CHECK(cudaFree(j.slot));
    CHECK(cudaFree(j.wide_pair));
    CHECK(warpred_grid_scratch_destroy(&j.scratch));
    CHECK(warpred_device_plan_destroy(&j.plan));
    free(h);
    return ok;
}

int main(void)
{
    const cudaDeviceProp prop = su_require_gpu("max_argmax");
    const int quick = su_quick(), warmups = su_warmups(quick), runs = su_runs(quick);
    const unsigned wave_blocks = su_wave_blocks(&prop, 256);
    printf("max and argmax on %s\n\n", prop.name);

    int ok = part1_special_cases();
    ok &= part1_parallel(quick ? (size_t)1 << 14 : (size_t)1 << 24, warmups, runs, quick ? 64 : wave_blocks);
    ok &= part2_argmax(quick ? 20011 : (1 << 24) + 1, warmups, runs, quick ? 16 : wave_blocks);

    printf("\n%s\n", ok ? "warpred matched the reference in every case (the WRONG marks belong to the other methods)"
                        : "ERROR: warpred disagreed with the reference");
    return ok ? 0 : 1;
}
