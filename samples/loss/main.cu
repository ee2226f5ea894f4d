/* samples/loss - two training losses over a batch, each in ONE kernel launch:

     mean squared error   MSE = (1/n) sum_i (y_i - t_i)^2
     cross-entropy        CE  = (1/B) sum_r (log sum_c exp(x_rc) - x_r,label_r)   (B rows of C logits)

   Each thread accumulates its own terms in a register, then every thread of the grid calls
   warpred_grid_reduce once: the last block to finish folds the per-block partials and writes the
   sum, and the one thread that gets `true` back turns the sum into a mean. The comparison is the
   usual two-kernel version (per-block partial sums, then a one-block kernel for the mean).
   Both are checked against a double-precision CPU reference with an error bound argued below.

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. samples/loss/main.cu -o loss && ./loss
   WARPRED_SAMPLE_QUICK=1 uses small sizes (for make test and the sanitizers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <warpred/warp_reduce.cuh>
#include <warpred/block_reduce.cuh>
#include <warpred/grid_reduce.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_quick, su_malloc, su_timer, ... */

enum { BLOCK = 256, WARPS_PER_BLOCK = BLOCK / 32 };

/* ---------------------------------- mean squared error ---------------------------------- */

__device__ __forceinline__ float squared_error_terms(const float *y, const float *t, size_t n)
{
    float acc = 0.0f;
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK) {
        const float d = y[i] - t[i];
        acc += d * d;
    }
    return acc;
}

/* One launch: terms, grid-wide sum, and the division by n by the one thread that holds the sum. */
__global__ void mse_one_launch(const float *y, const float *t, size_t n, warpred_grid_scratch scratch, float *out)
{
    const float acc = squared_error_terms(y, t, n);
    if (warpred_grid_reduce<BLOCK>(acc, warpred_op_sum(), scratch, out)) *out = (float)((double)*out / (double)n);
}

/* Two kernels, first half: one partial sum per block. */
__global__ void mse_partials(const float *y, const float *t, size_t n, float *partials)
{
    const float acc = warpred_block_reduce<BLOCK>(squared_error_terms(y, t, n), warpred_op_sum());
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

/* Two kernels, second half (shared by both losses): one block sums the partials, divides by count. */
__global__ void mean_of_partials(const float *partials, unsigned nparts, size_t count, float *out)
{
    float acc = 0.0f;
    for (unsigned i = threadIdx.x; i < nparts; i += BLOCK) acc += partials[i];
    acc = warpred_block_reduce<BLOCK>(acc, warpred_op_sum());
    if (threadIdx.x == 0) *out = (float)((double)acc / (double)count);
}

/* ------------------------------------- cross-entropy ------------------------------------- */

/* One warp per row: the max of the row (every lane needs it), then the sum of exp(x - max) (lane
   0 needs it), then lane 0 forms log-sum-exp minus the labelled logit. Subtracting the max first
   keeps exp from overflowing. The loop over rows is the same for every lane of a warp, so the
   warp reductions are called by whole, converged warps as they require. Returns the row's loss
   in lane 0 and 0 in the other lanes. */
__device__ __forceinline__ float row_cross_entropy(const float *row, int cols, int label, unsigned lane)
{
    const warpred_op_max max_op = warpred_op_max();
    float m = -INFINITY;
    for (int c = (int)lane; c < cols; c += 32) m = max_op(m, row[c]);
    m = warpred_warp_allreduce(m, warpred_op_max());
    float s = 0.0f;
    for (int c = (int)lane; c < cols; c += 32) s += expf(row[c] - m);
    s = warpred_warp_reduce(s, warpred_op_sum());
    return lane == 0 ? m + logf(s) - row[label] : 0.0f;
}

/* The sum of the row losses this thread's warp covers (rows r, r + warps, ...). */
__device__ __forceinline__ float cross_entropy_terms(const float *logits, const int *labels, int rows, int cols)
{
    const unsigned lane = threadIdx.x % 32;
    const size_t first = ((size_t)blockIdx.x * BLOCK + threadIdx.x) / 32, warps = (size_t)gridDim.x * WARPS_PER_BLOCK;
    float acc = 0.0f;
    for (size_t r = first; r < (size_t)rows; r += warps)
        acc += row_cross_entropy(logits + r * cols, cols, labels[r], lane);
    return acc;
}

__global__ void ce_one_launch(const float *logits, const int *labels, int rows, int cols, warpred_grid_scratch scratch,
                              float *out)
{
    const float acc = cross_entropy_terms(logits, labels, rows, cols);
    if (warpred_grid_reduce<BLOCK>(acc, warpred_op_sum(), scratch, out)) *out = (float)((double)*out / (double)rows);
}

__global__ void ce_partials(const float *logits, const int *labels, int rows, int cols, float *partials)
{
    const float acc = warpred_block_reduce<BLOCK>(cross_entropy_terms(logits, labels, rows, cols), warpred_op_sum());
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

/* ----------------------------------------- host ----------------------------------------- */

typedef struct problem {
    size_t n;              /* MSE: number of elements */
    int rows, cols;        /* CE: batch rows and classes */
    const float *y, *t;    /* device */
    const float *logits;   /* device */
    const int *labels;     /* device */
    float *partials, *out; /* device */
    warpred_grid_scratch scratch;
    unsigned wave_blocks; /* blocks resident at once: the grid of every launch is at most this */
} problem;

static unsigned blocks_for(size_t threads_wanted, unsigned wave_blocks)
{
    const size_t b = (threads_wanted + BLOCK - 1) / BLOCK;
    return b < wave_blocks ? (unsigned)(b ? b : 1) : wave_blocks;
}

static unsigned mse_blocks(const problem *p) { return blocks_for(p->n, p->wave_blocks); }
static unsigned ce_blocks(const problem *p) { return blocks_for((size_t)p->rows * 32, p->wave_blocks); }

static void mse_one(const problem *p)
{
    mse_one_launch<<<mse_blocks(p), BLOCK>>>(p->y, p->t, p->n, p->scratch, p->out);
    CHECK(cudaGetLastError());
}
static void mse_two(const problem *p)
{
    const unsigned blocks = mse_blocks(p);
    mse_partials<<<blocks, BLOCK>>>(p->y, p->t, p->n, p->partials);
    CHECK(cudaGetLastError());
    mean_of_partials<<<1, BLOCK>>>(p->partials, blocks, p->n, p->out);
    CHECK(cudaGetLastError());
}
static void ce_one(const problem *p)
{
    ce_one_launch<<<ce_blocks(p), BLOCK>>>(p->logits, p->labels, p->rows, p->cols, p->scratch, p->out);
    CHECK(cudaGetLastError());
}
static void ce_two(const problem *p)
{
    const unsigned blocks = ce_blocks(p);
    ce_partials<<<blocks, BLOCK>>>(p->logits, p->labels, p->rows, p->cols, p->partials);
    CHECK(cudaGetLastError());
    mean_of_partials<<<1, BLOCK>>>(p->partials, blocks, (size_t)p->rows, p->out);
    CHECK(cudaGetLastError());
}

typedef void (*loss_fn)(const problem *);

static float run_once(loss_fn fn, const problem *p)
{
    float r;
    CHECK(cudaMemset(p->out, 0xff, sizeof(float))); /* NaN: a missing write shows */
    fn(p);
    CHECK(cudaMemcpy(&r, p->out, sizeof r, cudaMemcpyDeviceToHost));
    return r;
}

/* A small deterministic generator (xorshift64*), uniform in [lo, hi). */
static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return lo + (hi - lo) * (double)((rng_state * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* WHY THE TOLERANCES (u = 2^-24, the unit roundoff of float; first-order bounds, doubled for the
   second-order terms we drop).
   Accumulation: every term of both losses is >= 0 (a squared difference; log-sum-exp is at
   least every logit), and a float sum of non-negative terms formed along a tree whose longest
   leaf-to-root chain has L additions is within L*u*(sum) of the exact sum of those terms. Here
   L <= (terms per thread) + 32: a thread adds its own terms in a chain, then the block tree
   (8 levels for 256 threads) and the fold of at most a few thousand block partials (8 loads
   per lane then a tree, or 5 per thread then a tree) add fewer than 32 more.
   MSE terms: y - t and its square are each rounded once: |term error| <= 3u * term.
   CE terms (per row, m = the row max, exact): x - m is rounded (absolute u*|x - m|, which exp
   turns into a relative error of u*|x - m|), expf is within 2 ulp (4u relative): each exp within
   (|x - m| + 4)u; their sum adds (cols/32 + 5)u more (lane chains, then 5 shuffle levels); logf
   is within 1 ulp of its result (2u*|log s|) and passes the sum's relative error on as an
   absolute one; m + log s and the subtraction of the labelled logit round once each (u*|lse|,
   u*|term|). The row's bound is the sum of these; the batch's is the sum over rows plus the
   accumulation bound; the final division by n (or B) adds u. */
static double mse_bound(double ref_mean, size_t n, unsigned blocks)
{
    const double u = ldexp(1.0, -24);
    const double chain = ceil((double)n / ((double)blocks * BLOCK)) + 32;
    return 2.0 * (chain + 3 + 1) * u * ref_mean;
}

static int check_close(const char *what, float got, double ref, double bound)
{
    const double err = fabs((double)got - ref);
    const int ok = err <= bound; /* NaN fails */
    if (!ok) printf("  %s: %.9g against %.9g, error %.3g above the bound %.3g: WRONG\n", what, got, ref, err, bound);
    return ok;
}

int main(void)
{
    const cudaDeviceProp prop = su_require_gpu("loss");
    const int quick = su_quick(), warmups = su_warmups(quick), runs = su_runs(quick);

    problem p;
    p.n = quick ? 20011 : ((size_t)1 << 24) - 3; /* sizes that are not powers of two, on purpose */
    p.rows = quick ? 67 : 16381;
    p.cols = quick ? 100 : 1000;
    const double logit_range = 4.0; /* logits uniform in [-4, 4) */
    p.wave_blocks = su_wave_blocks(&prop, BLOCK);

    /* inputs and the double-precision references */
    float *y = (float *)su_malloc(p.n * sizeof(float)), *t = (float *)su_malloc(p.n * sizeof(float));
    float *logits = (float *)su_malloc((size_t)p.rows * p.cols * sizeof(float));
    int *labels = (int *)su_malloc((size_t)p.rows * sizeof(int));
    double mse_ref = 0.0;
    for (size_t i = 0; i < p.n; i++) {
        y[i] = (float)uniform(-1.0, 1.0);
        t[i] = (float)uniform(-1.0, 1.0);
        const double d = (double)y[i] - (double)t[i];
        mse_ref += d * d;
    }
    mse_ref /= (double)p.n;

    const double u = ldexp(1.0, -24);
    double ce_ref = 0.0, ce_row_bounds = 0.0;
    for (int r = 0; r < p.rows; r++) {
        const float *x = logits + (size_t)r * p.cols;
        double m = -INFINITY, s = 0.0;
        for (int c = 0; c < p.cols; c++) {
            logits[(size_t)r * p.cols + c] = (float)uniform(-logit_range, logit_range);
            m = fmax(m, (double)x[c]);
        }
        labels[r] = (int)(uniform(0.0, 1.0) * p.cols);
        for (int c = 0; c < p.cols; c++) s += exp((double)x[c] - m);
        const double lse = m + log(s), term = lse - (double)x[labels[r]];
        ce_ref += term;
        ce_row_bounds += u * ((2 * logit_range + 4) + (p.cols / 32.0 + 5) + 2 * fabs(log(s)) + fabs(lse) + fabs(term));
    }
    ce_ref /= (double)p.rows;

    /* device buffers */
    float *d_y, *d_t, *d_logits;
    int *d_labels;
    CHECK(cudaMalloc(&d_y, p.n * sizeof(float)));
    CHECK(cudaMalloc(&d_t, p.n * sizeof(float)));
    CHECK(cudaMalloc(&d_logits, (size_t)p.rows * p.cols * sizeof(float)));
    CHECK(cudaMalloc(&d_labels, (size_t)p.rows * sizeof(int)));
    CHECK(cudaMalloc(&p.partials, p.wave_blocks * sizeof(float)));
    CHECK(cudaMalloc(&p.out, sizeof(float)));
    CHECK(cudaMemcpy(d_y, y, p.n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_t, t, p.n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_logits, logits, (size_t)p.rows * p.cols * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_labels, labels, (size_t)p.rows * sizeof(int), cudaMemcpyHostToDevice));
    p.y = d_y;
    p.t = d_t;
    p.logits = d_logits;
    p.labels = d_labels;
    const char *why;
    if (warpred_grid_scratch_create(&p.scratch, p.wave_blocks, sizeof(float), &why) != cudaSuccess) {
        fprintf(stderr, "grid scratch: %s\n", why);
        return 1;
    }

    const double mse_tol = mse_bound(mse_ref, p.n, mse_blocks(&p));
    const double ce_chain = ceil((double)p.rows / ((double)ce_blocks(&p) * WARPS_PER_BLOCK)) + 32;
    const double ce_tol = 2.0 * (ce_row_bounds / p.rows + (ce_chain + 1) * u * ce_ref);

    struct {
        const char *loss;
        char shape[40];
        loss_fn one, two;
        double ref, tol;
        float got_one, got_two;
        double us_one, us_two;
    } rows[2] = {
        {"mean squared error", "", mse_one, mse_two, mse_ref, mse_tol, 0, 0, 0, 0},
        {"cross-entropy", "", ce_one, ce_two, ce_ref, ce_tol, 0, 0, 0, 0},
    };
    snprintf(rows[0].shape, sizeof rows[0].shape, "n = %zu", p.n);
    snprintf(rows[1].shape, sizeof rows[1].shape, "%d x %d", p.rows, p.cols);

    int ok = 1;
    printf("losses on %s, median of %d runs; reference in double, tolerance = argued error bound\n\n", prop.name, runs);
    printf("%-19s %-16s %14s %14s %14s %10s %10s %8s\n", "loss", "shape", "one launch", "two kernels", "CPU (double)",
           "1 launch", "2 kernels", "speedup");
    printf("%-19s %-16s %14s %14s %14s %10s %10s %8s\n", "", "", "", "", "", "us", "us", "");
    for (int k = 0; k < 2; k++) {
        rows[k].got_one = run_once(rows[k].one, &p);
        rows[k].got_two = run_once(rows[k].two, &p);
        ok &= check_close(rows[k].loss, rows[k].got_one, rows[k].ref, rows[k].tol);
        ok &= check_close(rows[k].loss, rows[k].got_two, rows[k].ref, rows[k].tol);
        su_timer one = su_timer_create(warmups, runs), two = su_timer_create(warmups, runs);
        while (su_timer_next(&one)) rows[k].one(&p);
        rows[k].us_one = su_timer_median_us(&one);
        while (su_timer_next(&two)) rows[k].two(&p);
        rows[k].us_two = su_timer_median_us(&two);
        printf("%-19s %-16s %14.8f %14.8f %14.8f %10.1f %10.1f %7.2fx\n", rows[k].loss, rows[k].shape, rows[k].got_one,
               rows[k].got_two, rows[k].ref, rows[k].us_one, rows[k].us_two, rows[k].us_two / rows[k].us_one);
    }
    /* one launch again, after the timing loops: the scratch counter must have reset itself */
    ok &= check_close("mse, repeated launch", run_once(mse_one, &p), mse_ref, mse_tol);
    ok &= check_close("cross-entropy, repeated launch", run_once(ce_one, &p), ce_ref, ce_tol);
    printf("\nerror bounds: MSE %.3g, cross-entropy %.3g (absolute)\n", mse_tol, ce_tol);

    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_t));
    CHECK(cudaFree(d_logits));
    CHECK(cudaFree(d_labels));
    CHECK(cudaFree(p.partials));
    CHECK(cudaFree(p.out));
    CHECK(warpred_grid_scratch_destroy(&p.scratch));
    free(y);
    free(t);
    free(logits);
    free(labels);
    printf("%s\n", ok ? "both losses, both versions, within their error bounds" : "ERROR: a loss is off");
    return ok ? 0 : 1;
}
