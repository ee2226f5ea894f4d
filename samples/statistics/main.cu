/* samples/statistics - count, mean, variance, min and max of an array in ONE pass, and why the
   textbook variance formula is the wrong one to use for it.

   The data sit at a large offset with a small spread (sensor readings around 10000 with a
   spread of +-1). The naive one-pass formula var = E[x^2] - E[x]^2 subtracts two numbers near
   1e8 that agree in almost all their digits: in float (24 bits, a unit in the last place of 8
   at 1e8) nothing of the variance (about 0.33) survives. Welford's summary (count, mean, sum of
   squared deviations), merged with Chan's formula, never forms those large numbers and keeps
   the digits. Four one-launch kernels, all reducing a tuple with warpred_grid_reduce:

     naive, float     (sum x, sum x^2, min, max)  op: warpred_make_op_tuple(sum, sum, min, max)
     naive, double    the same with double sums
     Welford, float   (warpred_welford<float>, min, max)  op: (warpred_op_welford, min, max)
     Welford, double  the same with warpred_welford<double>

   Checked against a two-pass reference in long double: count, min and max exactly; the mean and
   variance of the Welford kernels within bounds argued in check_results. The naive kernels are
   shown, not checked: their error is the point.

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. samples/statistics/main.cu -o statistics && ./statistics
   WARPRED_SAMPLE_QUICK=1 uses small sizes (for make test and the sanitizers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <warpred/op_tuple.cuh>
#include <warpred/op_welford.cuh>
#include <warpred/grid_reduce.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_quick, su_malloc, su_timer, su_random_unit, ... */

enum { BLOCK = 256 };

template <typename F> using naive_t = warpred_tuple4<F, F, float, float>;                 /* sum, sum sq, min, max */
template <typename F> using welford_t = warpred_tuple3<warpred_welford<F>, float, float>; /* summary, min, max */

/* The naive way: running sums of x and x^2 (and min, max) in F, one tuple per thread, then
   the tuple reduced over the grid. The op's identity starts each thread: (0, 0, +inf, -inf). */
template <typename F> __global__ void stats_naive(const float *x, int n, warpred_grid_scratch scratch, naive_t<F> *out)
{
    const auto op = warpred_make_op_tuple(warpred_op_sum(), warpred_op_sum(), warpred_op_min(), warpred_op_max());
    naive_t<F> acc = decltype(op)::template identity<naive_t<F>>();
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) {
        const F v = x[i];
        acc = op(acc, warpred_make_tuple(v, v * v, x[i], x[i]));
    }
    warpred_grid_reduce<BLOCK>(acc, op, scratch, out);
}

/* Welford: each element becomes the summary of one value, {x, 0, 1}, merged into the thread's
   running summary (for a one-value side Chan's merge is Welford's update: mean += d / count,
   m2 += d^2 * (count - 1) / count with d = x - mean); then the summaries of all threads are
   merged over the grid, which is the same formula on larger counts. */
template <typename F>
__global__ void stats_welford(const float *x, int n, warpred_grid_scratch scratch, welford_t<F> *out)
{
    const auto op = warpred_make_op_tuple(warpred_op_welford(), warpred_op_min(), warpred_op_max());
    welford_t<F> acc = decltype(op)::template identity<welford_t<F>>();
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        acc = op(acc, warpred_make_tuple(warpred_make_welford((F)x[i]), x[i], x[i]));
    warpred_grid_reduce<BLOCK>(acc, op, scratch, out);
}

/* ------------------------------------------ host ------------------------------------------ */

typedef struct stats {
    long long count;
    double mean, var; /* population variance */
    float min, max;
} stats;

typedef struct job {
    const float *x;
    int n;
    warpred_grid_scratch scratch;
    void *out; /* room for the largest result tuple */
    unsigned blocks;
} job;

template <typename F> static void run_naive(const job *j)
{
    stats_naive<F><<<j->blocks, BLOCK>>>(j->x, j->n, j->scratch, (naive_t<F> *)j->out);
    CHECK(cudaGetLastError());
}
template <typename F> static void run_welford(const job *j)
{
    stats_welford<F><<<j->blocks, BLOCK>>>(j->x, j->n, j->scratch, (welford_t<F> *)j->out);
    CHECK(cudaGetLastError());
}

/* The naive result, finished as the formula says, in F. */
template <typename F> static stats fetch_naive(const job *j)
{
    naive_t<F> r;
    CHECK(cudaMemcpy(&r, j->out, sizeof r, cudaMemcpyDeviceToHost));
    const F mean = r.v0 / (F)j->n;
    const stats s = {j->n, (double)mean, (double)(r.v1 / (F)j->n - mean * mean), r.v2, r.v3};
    return s;
}
template <typename F> static stats fetch_welford(const job *j)
{
    welford_t<F> r;
    CHECK(cudaMemcpy(&r, j->out, sizeof r, cudaMemcpyDeviceToHost));
    const stats s = {r.v0.count, (double)warpred_welford_mean(r.v0), (double)warpred_welford_var_pop(r.v0), r.v1, r.v2};
    return s;
}

typedef void (*run_fn)(const job *);
typedef stats (*fetch_fn)(const job *);
typedef struct method {
    const char *name;
    run_fn run;
    fetch_fn fetch;
    int checked;              /* 0: shown only */
    double mean_tol, var_tol; /* relative; see check_results */
} method;

/* WHY THESE TOLERANCES (relative to the long double two-pass reference)
   Welford, double: every merge errs by a few units of 2^-53 in mean and m2, and a value passes
   through at most a few hundred merges (its thread's elements, then the trees): far below
   1e-9, the bound we check (the header's documented accuracy).
   Welford, float: the running mean, about 1e4, is held only to its float spacing 2^-10
   (about 1e-3), so each deviation x - mean carries a rounding error of up to 5e-4, about 0.1%
   of the standard deviation (0.58); those errors have no preferred sign and largely cancel over
   many elements. A host emulation of these merges in float (62 elements per thread, then a
   tree) gave a variance error of 1.5e-5 and a mean error of 2e-9, relative: 1e-3 and 1e-5 are
   checked, wide margins that still fail any real defect. (No float method holds the mean of
   this data more finely than 2^-10, 1e-7 relative.)
   The naive float formula, by contrast, gave 8 instead of 0.333 in the same emulation: the
   spacing of float numbers near E[x^2] = 1e8 is 8. */
static const method methods[] = {
    {"naive E[x^2]-E[x]^2, float", run_naive<float>, fetch_naive<float>, 0, 0, 0},
    {"naive E[x^2]-E[x]^2, double", run_naive<double>, fetch_naive<double>, 0, 0, 0},
    {"Welford, float", run_welford<float>, fetch_welford<float>, 1, 1e-5, 1e-3},
    {"Welford, double", run_welford<double>, fetch_welford<double>, 1, 1e-12, 1e-9},
};
enum { NMETHODS = sizeof methods / sizeof methods[0] };

static int check_results(const method *m, const stats *got, const stats *ref)
{
    if (!m->checked) return 1;
    const double mean_err = fabs(got->mean - ref->mean) / fabs(ref->mean);
    const double var_err = fabs(got->var - ref->var) / ref->var;
    const int ok = got->count == ref->count && got->min == ref->min && got->max == ref->max &&
                   mean_err <= m->mean_tol && var_err <= m->var_tol; /* NaN fails */
    if (!ok)
        printf("  %s: count %lld/%lld, min %.9g/%.9g, max %.9g/%.9g, mean error %.2g (bound %.0e), "
               "variance error %.2g (bound %.0e): WRONG\n",
               m->name, got->count, ref->count, got->min, ref->min, got->max, ref->max, mean_err, m->mean_tol, var_err,
               m->var_tol);
    return ok;
}

int main(void)
{
    const cudaDeviceProp prop = su_require_gpu("statistics");
    const int quick = su_quick(), warmups = su_warmups(quick), runs = su_runs(quick);
    const int n = quick ? 20011 : (1 << 24) + 3;
    const double offset = 10000.0;

    /* x = 10000 + uniform(-1, 1), rounded to float: the reference is that of the floats */
    float *h = (float *)su_malloc((size_t)n * sizeof(float));
    unsigned long long s = 0xa4093822299f31d0ull;
    stats ref = {n, 0, 0, INFINITY, -INFINITY};
    long double sum = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (float)(offset + (su_random_unit(&s) * 2.0 - 1.0));
        sum += h[i];
        ref.min = fminf(ref.min, h[i]);
        ref.max = fmaxf(ref.max, h[i]);
    }
    const long double mean = sum / n;
    long double m2 = 0;
    for (int i = 0; i < n; i++) m2 += (h[i] - mean) * (h[i] - mean); /* second pass: deviations */
    ref.mean = (double)mean;
    ref.var = (double)(m2 / n);

    job j;
    float *d_x;
    const char *why;
    j.n = n;
    j.blocks = su_wave_blocks(&prop, BLOCK);
    if (j.blocks > (unsigned)(n + BLOCK - 1) / BLOCK) j.blocks = (unsigned)(n + BLOCK - 1) / BLOCK;
    const size_t result_bytes =
        sizeof(welford_t<double>) > sizeof(naive_t<double>) ? sizeof(welford_t<double>) : sizeof(naive_t<double>);
    CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&j.out, result_bytes));
    CHECK(cudaMemcpy(d_x, h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    j.x = d_x;
    if (warpred_grid_scratch_create(&j.scratch, j.blocks, result_bytes, &why) != cudaSuccess) {
        fprintf(stderr, "grid scratch: %s\n", why);
        return 1;
    }

    printf("one-pass statistics of %d floats = 10000 + uniform(-1, 1) on %s, one launch each, median of %d runs\n\n", n,
           prop.name, runs);
    printf("%-30s %10s %16s %14s %10s %10s %10s %9s  %s\n", "method", "count", "mean", "variance", "var error", "min",
           "max", "time us", "check");
    printf("%-30s %10lld %16.9f %14.9f %10s %10.4f %10.4f %9s\n", "reference (long double, 2 pass)", ref.count,
           ref.mean, ref.var, "", ref.min, ref.max, "");
    int ok = 1;
    for (int m = 0; m < NMETHODS; m++) {
        CHECK(cudaMemset(j.out, 0xff, result_bytes)); /* poison */
        methods[m].run(&j);
        const stats got = methods[m].fetch(&j);
        const int right = check_results(&methods[m], &got, &ref);
        ok &= right;
        su_timer t = su_timer_create(warmups, runs);
        while (su_timer_next(&t)) methods[m].run(&j);
        const double us = su_timer_median_us(&t);
        printf("%-30s %10lld %16.9f %14.9f %9.1e%% %10.4f %10.4f %9.1f  %s\n", methods[m].name, got.count, got.mean,
               got.var, 100.0 * fabs(got.var - ref.var) / ref.var, got.min, got.max, us,
               methods[m].checked ? (right ? "ok" : "WRONG") : "(shown, not checked)");
    }

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(j.out));
    CHECK(warpred_grid_scratch_destroy(&j.scratch));
    free(h);
    printf("\n%s\n", ok ? "Welford (float and double) within its bounds; count, min and max exact"
                        : "ERROR: a Welford result is off");
    return ok ? 0 : 1;
}
