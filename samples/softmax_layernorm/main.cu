/* samples/softmax_layernorm - the two row-wise kernels of every transformer, one block per row.

   softmax   y = exp(x - max) / sum exp(x - max)            (subtracting the max avoids overflow)
   layernorm y = (x - mean) / sqrt(var + 1e-5)              (population variance, as torch)

   Each row needs statistics of the whole row in every thread before any output is written,
   which is what warpred_block_allreduce gives: the result in every thread of the block. Two
   ways for each kernel:
     softmax, two reductions    the max (warpred_op_max), then the sum of exp (warpred_op_sum)
     softmax, online            one reduction of (max, sum of exp) pairs (warpred_op_softmax)
     layernorm, two reductions  the mean, then the sum of squared deviations (two-pass, exact-ish)
     layernorm, Welford         one reduction of (mean, m2, count) summaries (warpred_op_welford)
   Back-to-back allreduce calls need no __syncthreads() of ours: the library places its own.

   Rows of 1024 to 8192 floats (and 3001, not a multiple of the block or of 32), about 2^23
   elements per matrix; every output element is checked against a double-precision CPU
   reference with an error bound argued in tolerance_*().

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. samples/softmax_layernorm/main.cu -o softmax_layernorm && ./softmax_layernorm
   WARPRED_SAMPLE_QUICK=1 uses small sizes (for make test and the sanitizers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <warpred/block_reduce.cuh>
#include <warpred/op_softmax.cuh>
#include <warpred/op_welford.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_quick, su_malloc, su_timer, su_random_unit, ... */

enum { BLOCK = 256 };
#define LN_EPS 1e-5f

/* ------------------------------------------ softmax ------------------------------------------ */

__global__ void softmax_two_reductions(const float *x, int cols, float *y)
{
    const float *row = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    const warpred_op_max max_op = warpred_op_max();
    float m = warpred_op_max::identity<float>(); /* -inf */
    for (int c = threadIdx.x; c < cols; c += BLOCK) m = max_op(m, row[c]);
    m = warpred_block_allreduce<BLOCK>(m, warpred_op_max()); /* every thread needs it */
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) s += expf(row[c] - m);
    s = warpred_block_allreduce<BLOCK>(s, warpred_op_sum());
    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += BLOCK) out[c] = expf(row[c] - m) * inv;
}

/* Online: each thread keeps (max, sum of exp(x - max)) of its elements, rescaling its sum when
   its max grows; one reduction merges the pairs. One pass over the row instead of two before
   the output pass, and one block reduction instead of two. */
__global__ void softmax_online(const float *x, int cols, float *y)
{
    const float *row = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    const warpred_op_softmax op = warpred_op_softmax();
    warpred_softmax<float> p = warpred_op_softmax::identity<warpred_softmax<float>>(); /* {-inf, 0} */
    for (int c = threadIdx.x; c < cols; c += BLOCK) p = op(p, warpred_make_softmax(row[c]));
    p = warpred_block_allreduce<BLOCK>(p, op);
    const float inv = 1.0f / p.sum;
    for (int c = threadIdx.x; c < cols; c += BLOCK) out[c] = expf(row[c] - p.max) * inv;
}

/* ----------------------------------------- layernorm ----------------------------------------- */

/* Two reductions: the mean first, then the squared deviations from it. Never forms sum x^2, so
   no cancellation; costs a second pass over the row (from cache) and a second reduction. */
__global__ void layernorm_two_reductions(const float *x, int cols, float *y)
{
    const float *row = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) s += row[c];
    const float mean = warpred_block_allreduce<BLOCK>(s, warpred_op_sum()) / cols;
    float d2 = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        const float d = row[c] - mean;
        d2 += d * d;
    }
    const float var = warpred_block_allreduce<BLOCK>(d2, warpred_op_sum()) / cols;
    const float rstd = rsqrtf(var + LN_EPS);
    for (int c = threadIdx.x; c < cols; c += BLOCK) out[c] = (row[c] - mean) * rstd;
}

/* Welford: each thread summarizes its elements as (mean, m2, count); one reduction merges the
   summaries (Chan's formula) into the row's mean and variance, stably. */
__global__ void layernorm_welford(const float *x, int cols, float *y)
{
    const float *row = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    const warpred_op_welford op = warpred_op_welford();
    warpred_welford<float> w = warpred_op_welford::identity<warpred_welford<float>>();
    for (int c = threadIdx.x; c < cols; c += BLOCK) w = op(w, warpred_make_welford(row[c]));
    w = warpred_block_allreduce<BLOCK>(w, op);
    const float mean = warpred_welford_mean(w), rstd = rsqrtf(warpred_welford_var_pop(w) + LN_EPS);
    for (int c = threadIdx.x; c < cols; c += BLOCK) out[c] = (row[c] - mean) * rstd;
}

/* ------------------------------------------- host ------------------------------------------- */

typedef void (*row_kernel)(const float *, int, float *);
typedef struct variant {
    const char *name;
    row_kernel kernel;
    int is_softmax;
} variant;
static const variant variants[] = {
    {"softmax, two reductions", softmax_two_reductions, 1},
    {"softmax, online (op_softmax)", softmax_online, 1},
    {"layernorm, two reductions", layernorm_two_reductions, 0},
    {"layernorm, Welford (op_welford)", layernorm_welford, 0},
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

static const double U = 1.0 / 16777216.0; /* 2^-24, the unit roundoff of float */
static const double X_RANGE = 4.0;        /* x = row offset + uniform(-4, 4) */

/* The longest chain of float operations any element's statistic goes through: a thread's
   elements in sequence, then the block tree (5 warp levels, 8 warps folded in order). */
static double chain_length(int cols) { return ceil((double)cols / BLOCK) + 5 + 8; }

/* WHY THE SOFTMAX BOUND (relative, per element): x - m is rounded (absolute u|x - m|, which exp
   turns into a relative u|x - m| <= 2*4u with |x - m| <= 8), expf is within 2 ulp (4u); so each
   exp is within (8 + 4)u. The sum of exps adds its chain's roundings (chain u; the online form
   also rescales its sum once per new maximum, each rescale an expf and a multiply, 5u, at most
   once per element of the thread). 1/s and the final multiply add 2u. Doubled for the
   second-order terms. */
static double tolerance_softmax(int cols)
{
    const double per_thread = ceil((double)cols / BLOCK);
    return 2.0 * (2 * (2 * X_RANGE + 4) + chain_length(cols) + 5 * per_thread + 2) * U;
}

/* WHY THE LAYERNORM BOUND (absolute, per element): y = (x - mean) * rstd. The mean is a float
   sum along the chain (error <= chain u * max|x|), which shifts y by that over sigma; the
   variance (a sum of non-negative terms, or Welford merges of a few roundings each) is within
   (chain + 3)u relative, so rstd within half that plus rsqrtf's 2 ulp (4u); the subtraction
   and multiply add 2u of |y|. Doubled. */
static double tolerance_layernorm(int cols, double y_ref, double max_abs_x, double sigma)
{
    const double chain = chain_length(cols);
    return 2.0 * (chain * U * max_abs_x / sigma + ((chain + 3) / 2 + 4 + 2) * U * fabs(y_ref) + U);
}

/* The double-precision references for one matrix, with what the bounds need per row. */
typedef struct reference {
    double *softmax, *layernorm; /* rows * cols */
    double *max_abs_x, *sigma;   /* rows */
} reference;

static void make_reference(const float *x, int rows, int cols, reference *r)
{
    for (int i = 0; i < rows; i++) {
        const float *row = x + (size_t)i * cols;
        double m = -INFINITY, s = 0, mean = 0, var = 0, max_abs = 0;
        for (int c = 0; c < cols; c++) {
            m = fmax(m, row[c]);
            mean += row[c];
            max_abs = fmax(max_abs, fabs(row[c]));
        }
        mean /= cols;
        for (int c = 0; c < cols; c++) {
            s += exp(row[c] - m);
            var += (row[c] - mean) * (row[c] - mean);
        }
        var /= cols;
        const double rstd = 1.0 / sqrt(var + (double)LN_EPS);
        for (int c = 0; c < cols; c++) {
            r->softmax[(size_t)i * cols + c] = exp(row[c] - m) / s;
            r->layernorm[(size_t)i * cols + c] = (row[c] - mean) * rstd;
        }
        r->max_abs_x[i] = max_abs;
        r->sigma[i] = sqrt(var + (double)LN_EPS);
    }
}

/* Every element within its bound; prints the worst one and returns 1 when all pass. */
static int check_output(const variant *v, const float *y, const reference *r, int rows, int cols, double *worst)
{
    int ok = 1;
    *worst = 0;
    for (int i = 0; i < rows; i++)
        for (int c = 0; c < cols; c++) {
            const size_t k = (size_t)i * cols + c;
            double err, bound;
            if (v->is_softmax) {
                err = fabs(y[k] - r->softmax[k]) / r->softmax[k];
                bound = tolerance_softmax(cols);
            } else {
                err = fabs(y[k] - r->layernorm[k]);
                bound = tolerance_layernorm(cols, r->layernorm[k], r->max_abs_x[i], r->sigma[i]);
            }
            if (!(err <= bound) && ok) { /* NaN fails too; report the first */
                printf("  %s, %d columns: row %d col %d: %.9g against %.9g, error %.3g above the bound %.3g\n", v->name,
                       cols, i, c, y[k], v->is_softmax ? r->softmax[k] : r->layernorm[k], err, bound);
                ok = 0;
            }
            if (err / bound > *worst) *worst = err / bound;
        }
    return ok;
}

int main(void)
{
    const cudaDeviceProp prop = su_require_gpu("softmax_layernorm");
    const int quick = su_quick(), warmups = su_warmups(quick), runs = su_runs(quick);
    const int all_cols[] = {1024, 2048, 3001, 4096, 8192}, quick_cols[] = {1024, 3001, 8192};
    const int *col_sizes = quick ? quick_cols : all_cols;
    const int nsizes = quick ? 3 : 5;
    const size_t elements = quick ? 3 * 8192 : (size_t)1 << 23; /* per matrix, about */

    printf("row-wise softmax and layernorm on %s, one block of %d threads per row, median of %d runs\n", prop.name,
           BLOCK, runs);
    printf("(GB/s counts one read of x and one write of y; the error column is the worst element's error\n"
           " as a fraction of its bound)\n");

    const size_t max_elems = elements + 8192; /* rows * cols <= this for every size */
    float *h_x = (float *)su_malloc(max_elems * sizeof(float)), *h_y = (float *)su_malloc(max_elems * sizeof(float));
    reference r;
    r.softmax = (double *)su_malloc(max_elems * sizeof(double));
    r.layernorm = (double *)su_malloc(max_elems * sizeof(double));
    r.max_abs_x = (double *)su_malloc(max_elems / 1024 * sizeof(double) + 64);
    r.sigma = (double *)su_malloc(max_elems / 1024 * sizeof(double) + 64);
    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, max_elems * sizeof(float)));
    CHECK(cudaMalloc(&d_y, max_elems * sizeof(float)));

    unsigned long long s = 0x082efa98ec4e6c89ull;
    int ok = 1;
    for (int si = 0; si < nsizes; si++) {
        const int cols = col_sizes[si];
        const int rows = quick ? 3 : (int)(elements / cols);
        for (int i = 0; i < rows; i++) {
            const double offset = (double)(su_lcg_next(&s) >> 40) / (1 << 24) * 8.0; /* a row offset in [0, 8) */
            for (int c = 0; c < cols; c++)
                h_x[(size_t)i * cols + c] = (float)(offset + (su_random_unit(&s) * 2 - 1) * X_RANGE);
        }
        make_reference(h_x, rows, cols, &r);
        CHECK(cudaMemcpy(d_x, h_x, (size_t)rows * cols * sizeof(float), cudaMemcpyHostToDevice));
        printf("\n%d rows x %d columns\n%-34s %10s %8s %12s  %s\n", rows, cols, "kernel", "time us", "GB/s",
               "error/bound", "check");
        for (int v = 0; v < NVARIANTS; v++) {
            CHECK(cudaMemset(d_y, 0xff, (size_t)rows * cols * sizeof(float))); /* NaN: unwritten outputs fail */
            variants[v].kernel<<<rows, BLOCK>>>(d_x, cols, d_y);
            CHECK(cudaGetLastError());
            CHECK(cudaMemcpy(h_y, d_y, (size_t)rows * cols * sizeof(float), cudaMemcpyDeviceToHost));
            double worst;
            const int right = check_output(&variants[v], h_y, &r, rows, cols, &worst);
            ok &= right;
            su_timer t = su_timer_create(warmups, runs);
            while (su_timer_next(&t)) {
                variants[v].kernel<<<rows, BLOCK>>>(d_x, cols, d_y);
                CHECK(cudaGetLastError());
            }
            const double us = su_timer_median_us(&t);
            printf("%-34s %10.1f %8.0f %12.3f  %s\n", variants[v].name, us,
                   2.0 * rows * cols * sizeof(float) / (us * 1e3), worst, right ? "ok" : "WRONG");
        }
    }

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    free(h_x);
    free(h_y);
    free(r.softmax);
    free(r.layernorm);
    free(r.max_abs_x);
    free(r.sigma);
    printf("\n%s\n", ok ? "every output element within its bound" : "ERROR: an output element is off");
    return ok ? 0 : 1;
}
