/* samples/row_statistics - which strategy of warpred/device_rows.cuh wins at which row length, on
   two everyday jobs, each in one launch per call.

   Part 1: the mean and variance of every row of a row-major matrix of 2^26 floats, for row
   lengths L = 4, 8, ..., 2^20 (2^26 / L rows, ld = L; quick: 2^20 floats, L = 4, 64, 1024,
   16384, 2^20). One call of
   warpred_device_transform_reduce_rows takes each element into a Welford summary
   (warpred_xf_welford, op_welford.cuh), merges the summaries with warpred_op_welford and, through
   the per-row finish, stores {mean, population variance} straight into out[r]: no second kernel.
   For each L it prints the strategy AUTO picked, the time and GB/s of AUTO and of each forced
   strategy that applies (plan.strategy = LANES, BLOCK, SPLIT, CLUSTER), and the read ceiling:
   a plain float4 read of the same 2^26 floats, timed in the same run.

   Part 2: per-sequence argmax over ragged sequences given as CSR offsets (size_t; sequence k is
   [o[k], o[k + 1])), as in a per-token argmax over a batch of variable-length sequences: empty
   sequences, short and long ones, one very long one, ties, NaNs and all -inf sequences. One call
   of warpred_device_transform_reduce_ranges with warpred_op_argmax stores each sequence's index
   of its maximum (the finish keeps the index of the value-index pair).

   Every result is checked against a host reference in double precision: the mean and variance
   within the bound stated at stats_error below, the argmax index exactly (op_argminmax.cuh's
   rule: the lowest index among equal maxima, the first NaN when there is one, -1 for an empty
   sequence). Timings: CUDA events, the median of 21 runs after 3 warm-ups (a call slower than
   20 ms: the median of 3 after 1).

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. samples/row_statistics/main.cu -o row_statistics && ./row_statistics
   WARPRED_SAMPLE_QUICK=1 uses 2^20 elements and fewer runs (for make test and the sanitizers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <warpred/device_rows.cuh>
#include <warpred/op_welford.cuh>
#include <warpred/op_argminmax.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_quick, su_malloc, su_timer, su_random */

/* ------------------------------------------------------------------ the finishes */

/* What part 1 stores per row. */
typedef struct {
    float mean;
    float var;
} mean_var;

/* The per-row finish g(r, k): the row's Welford summary r becomes {mean, population variance}. */
struct finish_mean_var {
    __device__ mean_var operator()(warpred_welford<float> w, size_t) const
    {
        mean_var r;
        r.mean = warpred_welford_mean(w);
        r.var = warpred_welford_var_pop(w);
        return r;
    }
};

/* The per-sequence finish of part 2: only the index of the winning value-index pair (-1 for an
   empty sequence, whose result is the identity of warpred_op_argmax). */
struct finish_index {
    __device__ long long operator()(warpred_arg<float, long long> a, size_t) const { return a.index; }
};

/* ------------------------------------------------------------------ the read ceiling */

/* Reads n4 float4 with the whole grid, four loads in flight per thread. The sum is stored only
   when it equals -1 (never for these inputs), which keeps the loads without a write per thread. */
__global__ void read_ceiling(const float4 *x, size_t n4, float *sink)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 a = __ldg(x + i), b = __ldg(x + i + stride), c = __ldg(x + i + 2 * stride),
                     d = __ldg(x + i + 3 * stride);
        acc += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
    }
    for (; i < n4; i += stride) {
        const float4 a = __ldg(x + i);
        acc += a.x + a.y + a.z + a.w;
    }
    if (acc == -1.0f) *sink = acc;
}

/* ------------------------------------------------------------------ calls and timing */

enum { S_AUTO, S_LANES, S_BLOCK, S_SPLIT, S_CLUSTER, STRATEGIES };
static const char *const strategy_name[STRATEGIES] = {"AUTO", "LANES", "BLOCK", "SPLIT", "CLUSTER"};
static const int strategy_value[STRATEGIES] = {WARPRED_ROWS_AUTO, WARPRED_ROWS_LANES, WARPRED_ROWS_BLOCK,
                                               WARPRED_ROWS_SPLIT, WARPRED_ROWS_CLUSTER};

/* One call of part 1 or part 2: the plan (with its strategy and lanes set) and the arguments. */
typedef struct {
    warpred_rows_plan plan;
    const float *x;
    size_t rows, cols;     /* part 1 */
    mean_var *stats;       /* part 1: rows results */
    const size_t *offsets; /* part 2: count + 1 CSR offsets */
    size_t count;          /* part 2: sequences */
    long long *index;      /* part 2: count results */
    const float4 *x4;      /* the read ceiling: n4 float4, read_blocks blocks of 256 */
    size_t n4;
    unsigned read_blocks;
    float *sink;
} job;

typedef void (*job_fn)(const job *);

static void call_row_stats(const job *j)
{
    const char *why = NULL;
    const cudaError_t err =
        warpred_device_transform_reduce_rows(&j->plan, j->x, j->rows, j->cols, j->cols, j->stats, warpred_op_welford(),
                                             warpred_xf_welford<float>(), finish_mean_var(), 0, &why);
    if (err != cudaSuccess) {
        fprintf(stderr, "warpred_device_transform_reduce_rows: %s\n", why);
        exit(1);
    }
}

static void call_seq_argmax(const job *j)
{
    const char *why = NULL;
    const cudaError_t err =
        warpred_device_transform_reduce_ranges(&j->plan, j->x, j->offsets, j->offsets + 1, j->count, j->index,
                                               warpred_op_argmax(), warpred_xf_arg(), finish_index(), 0, &why);
    if (err != cudaSuccess) {
        fprintf(stderr, "warpred_device_transform_reduce_ranges: %s\n", why);
        exit(1);
    }
}

static void call_read(const job *j)
{
    read_ceiling<<<j->read_blocks, 256>>>(j->x4, j->n4, j->sink);
    CHECK(cudaGetLastError());
}

/* One call alone, timed (the call whose results are checked): its time decides the runs below. */
static double time_once(job_fn fn, const job *j)
{
    su_timer t = su_timer_create(0, 1);
    while (su_timer_next(&t)) fn(j);
    return su_timer_median_us(&t);
}

/* The median time of fn(j) in microseconds; first_us: one call's time (slow calls run fewer times). */
static double time_median(job_fn fn, const job *j, double first_us, int quick)
{
    const int slow = first_us > 20000.0;
    su_timer t = su_timer_create(slow ? 1 : su_warmups(quick), slow ? 3 : su_runs(quick));
    while (su_timer_next(&t)) fn(j);
    return su_timer_median_us(&t);
}

/* ------------------------------------------------------------------ part 1: row statistics */

/* The tolerance of part 1, for both errors below (2^-12, about 2.4e-4).
   Each Welford merge rounds the mean and M2 by a few units in the last place (u = 2^-24), and in
   every strategy the longest chain of merges one element's summary goes through is a thread's
   sequential pass over its loads (at most L / 128 merges: a warp per row of 2^20 floats, forced
   LANES), then trees of at most 8 + 3 + 8 levels. The mean's error is damped along a chain (the
   step-j rounding is scaled by j / n), so even rounding errors that all pointed the same way
   (they do not) would stay below about (L / 256 + 40) u of the row's scale, 2.5e-6 for L = 2^16
   and 2.1e-4 for forced LANES at L = 2^20. The variance's own scale: a float mean carries an error
   of a few units of |mean|'s last place, which shifts every deviation, so the variance errs in
   proportion to var + |mean| sd (the row's rounding scale), not to var alone (a short row can
   hold four nearly equal values). The data keep |mean| <= 2 and sd about 0.58 (condition
   number sqrt(1 + mean^2 / var) <= 4). The largest errors seen are printed per L. */
#define STATS_TOL 0x1p-12

/* The mean's error relative to |mean| + sd, and the variance's relative to var + |mean| sd. */
static void stats_error(mean_var got, double mean, double var, double *err_mean, double *err_var)
{
    const double sd = sqrt(var), scale_m = fabs(mean) + sd, scale_v = var + fabs(mean) * sd;
    *err_mean = fabs((double)got.mean - mean) / (scale_m > 0 ? scale_m : 1.0);
    *err_var = fabs((double)got.var - var) / (scale_v > 0 ? scale_v : 1.0);
    if (isnan(got.mean) || isnan(got.var)) *err_mean = *err_var = INFINITY;
}

/* Row r: its own mean mu_r uniform in [-2, 2), plus uniform(-1, 1) noise per element. */
static void fill_rows(float *x, size_t rows, size_t cols, unsigned long long seed)
{
    for (size_t r = 0; r < rows; r++) {
        const double mu = 4.0 * su_random_unit(&seed) - 2.0;
        for (size_t c = 0; c < cols; c++) x[r * cols + c] = (float)(mu + 2.0 * su_random_unit(&seed) - 1.0);
    }
}

/* The reference of every row in double: two passes (mean, then the mean squared deviation). */
static void reference_rows(const float *x, size_t rows, size_t cols, double *mean, double *var)
{
    for (size_t r = 0; r < rows; r++) {
        const float *row = x + r * cols;
        double s = 0, q = 0;
        for (size_t c = 0; c < cols; c++) s += row[c];
        const double m = s / (double)cols;
        for (size_t c = 0; c < cols; c++) q += (row[c] - m) * (row[c] - m);
        mean[r] = m;
        var[r] = q / (double)cols;
    }
}

/* Whether a forced strategy is timed at this length: where it is a plausible choice, so that the
   table shows the crossovers without minutes of hopeless calls (a block or cluster of blocks per
   row of 4 floats leaves nearly every thread idle). AUTO and LANES: every L. BLOCK: rows of at
   least 64 floats (16 loads). SPLIT and CLUSTER: rows of at least 1024 floats; SPLIT serves at
   most WARPRED_ROWS_TICKETS rows, CLUSTER needs a GPU with clusters (sm_90 and newer). */
static int strategy_applies(int s, const warpred_rows_plan *plan, size_t rows, size_t cols)
{
    switch (s) {
    case S_BLOCK: return cols >= 64;
    case S_SPLIT: return cols >= 1024 && rows <= WARPRED_ROWS_TICKETS;
    case S_CLUSTER: return cols >= 1024 && plan->clusters;
    default: return 1;
    }
}

/* Runs strategy s once, checks every row, keeps the results in got; returns the rows out of bounds. */
static size_t run_and_check(int s, job *j, mean_var *got, const double *mean, const double *var, double *first_us,
                            double *worst_mean, double *worst_var)
{
    j->plan.strategy = strategy_value[s];
    j->plan.lanes = 0; /* LANES: the lanes per row chosen from the length, as AUTO does */
    *first_us = time_once(call_row_stats, j);
    CHECK(cudaMemcpy(got, j->stats, j->rows * sizeof(mean_var), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t r = 0; r < j->rows; r++) {
        double em, ev;
        stats_error(got[r], mean[r], var[r], &em, &ev);
        if (em > *worst_mean) *worst_mean = em;
        if (ev > *worst_var) *worst_var = ev;
        if (!(em <= STATS_TOL && ev <= STATS_TOL)) {
            if (bad == 0)
                printf("  WRONG (%s, L = %zu): row %zu: mean %.9g var %.9g, reference %.9g %.9g\n", strategy_name[s],
                       j->cols, r, (double)got[r].mean, (double)got[r].var, mean[r], var[r]);
            bad++;
        }
    }
    return bad;
}

static int part1(const cudaDeviceProp *prop, const warpred_rows_plan *plan, int quick)
{
    const size_t n = quick ? (size_t)1 << 20 : (size_t)1 << 26, max_rows = n / 4;
    float *x = (float *)su_malloc(n * sizeof(float));
    double *mean = (double *)su_malloc(max_rows * sizeof(double)),
           *var = (double *)su_malloc(max_rows * sizeof(double));
    mean_var *auto_got = (mean_var *)su_malloc(max_rows * sizeof(mean_var));
    mean_var *got = (mean_var *)su_malloc(max_rows * sizeof(mean_var));
    float *d_x, *d_sink;
    mean_var *d_stats;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_stats, max_rows * sizeof(mean_var)));
    CHECK(cudaMalloc(&d_sink, sizeof(float)));
    job j;
    memset(&j, 0, sizeof j);
    j.plan = *plan;
    j.x = d_x;
    j.stats = d_stats;
    j.x4 = (const float4 *)d_x;
    j.n4 = n / 4;
    j.read_blocks = su_wave_blocks(prop, 256);
    j.sink = d_sink;

    printf("Part 1: mean and variance of each row (Welford), %zu floats in rows of L, one launch per call\n", n);
    printf("time in us and GB/s (input read + {mean, var} written); - : not timed at this L (strategy_applies)\n");
    printf("ceil: a float4 read of the same %zu floats; %%ceil: its time / AUTO's (100%%: as fast as reading the "
           "input)\n\n",
           n);
    printf("%8s %9s %-8s %14s %14s %14s %14s %14s %14s %6s %-7s %5s %8s  %s\n", "L", "rows", "AUTO is", "AUTO us GB/s",
           "LANES us GB/s", "BLOCK us GB/s", "SPLIT us GB/s", "CLUST us GB/s", "ceil us GB/s", "%ceil", "wins", "A/win",
           "max err", "check");
    int ok = 1;
    for (size_t cols = 4; cols <= ((size_t)1 << 20); cols *= quick ? 16 : 2) {
        const size_t rows = n / cols;
        j.rows = rows;
        j.cols = cols;
        fill_rows(x, rows, cols, 0x5eedull + cols);
        reference_rows(x, rows, cols, mean, var);
        CHECK(cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice));

        double us[STRATEGIES], first[STRATEGIES], worst_mean = 0, worst_var = 0;
        int ran[STRATEGIES], same[STRATEGIES];
        size_t bad = 0;
        for (int s = 0; s < STRATEGIES; s++) {
            ran[s] = s == S_AUTO || strategy_applies(s, plan, rows, cols);
            same[s] = 0;
            if (!ran[s]) continue;
            bad += run_and_check(s, &j, s == S_AUTO ? auto_got : got, mean, var, &first[s], &worst_mean, &worst_var);
            /* AUTO runs one of the strategies with the same threads on the same elements, so its
               bits equal those of the strategy it picked (device_rows.cuh, DETERMINISM) */
            if (s != S_AUTO) same[s] = memcmp(auto_got, got, rows * sizeof(mean_var)) == 0;
            us[s] = time_median(call_row_stats, &j, first[s], quick);
        }
        /* AUTO picked a strategy not timed here: run the others once, only to name it */
        int named = 0;
        for (int s = 1; s < STRATEGIES; s++) named |= same[s];
        for (int s = 1; s < STRATEGIES && !named; s++) {
            if (ran[s] || (s == S_SPLIT && rows > WARPRED_ROWS_TICKETS) || (s == S_CLUSTER && !plan->clusters))
                continue;
            double f, wm = 0, wv = 0;
            bad += run_and_check(s, &j, got, mean, var, &f, &wm, &wv);
            same[s] = memcmp(auto_got, got, rows * sizeof(mean_var)) == 0;
            named |= same[s];
        }
        char picked[48] = "";
        for (int s = 1; s < STRATEGIES; s++)
            if (same[s]) {
                if (picked[0]) strcat(picked, "=");
                strcat(picked, strategy_name[s]);
            }
        if (!picked[0]) strcpy(picked, "?");

        const double ceil_first = time_once(call_read, &j);
        const double ceil_us = time_median(call_read, &j, ceil_first, quick);
        const double bytes = (double)n * sizeof(float) + (double)rows * sizeof(mean_var);
        const double ceil_gbs = (double)n * sizeof(float) / (ceil_us * 1e3);
        int win = S_LANES; /* the fastest forced strategy (LANES is timed at every L) */
        for (int s = S_LANES + 1; s < STRATEGIES; s++)
            if (ran[s] && us[s] < us[win]) win = s;

        printf("%8zu %9zu %-8s", cols, rows, picked);
        for (int s = 0; s < STRATEGIES; s++) {
            if (ran[s]) printf(" %8.1f %5.0f", us[s], bytes / (us[s] * 1e3));
            else
                printf(" %14s", "-");
        }
        printf(" %8.1f %5.0f %5.0f%% %-7s %5.2f %8.1e  %s\n", ceil_us, ceil_gbs, 100.0 * ceil_us / us[S_AUTO],
               strategy_name[win], us[S_AUTO] / us[win], worst_mean > worst_var ? worst_mean : worst_var,
               bad ? "WRONG" : "ok");
        if (bad) {
            printf("  %zu rows out of bounds at L = %zu\n", bad, cols);
            ok = 0;
        }
        if (!named) {
            printf("  AUTO's results equal those of no forced strategy at L = %zu\n", cols);
            ok = 0;
        }
    }
    printf("\nAUTO is: the forced strategy whose results AUTO's equal bit for bit (several names: they gave the same "
           "bits).\nwins: the fastest forced strategy; A/win: AUTO's time / its time (1.00: AUTO took the\nwinner; "
           "within a few %% is timing noise); max err: the largest of the mean's and the variance's scaled\nerrors "
           "over every row and strategy (bound %.1e).\n",
           STATS_TOL);
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_stats));
    CHECK(cudaFree(d_sink));
    free(x);
    free(mean);
    free(var);
    free(auto_got);
    free(got);
    return ok;
}

/* ------------------------------------------------------------------ part 2: argmax per sequence */

/* The host reference with op_argminmax.cuh's rule for warpred_op_argmax: the first NaN if there
   is one, else the lowest index of the largest value (-inf included: a sequence of only -inf
   gives 0); -1 for an empty sequence. Exact: no arithmetic, only compares. */
static long long reference_argmax(const float *v, size_t len)
{
    long long best = -1;
    for (size_t i = 0; i < len; i++) {
        if (isnan(v[i])) return (long long)i;
        if (best < 0 || v[i] > v[best]) best = (long long)i;
    }
    return best;
}

/* Sequence lengths until n elements: 10% empty, 60% 1..64, 25% 65..4096, 5% 4097..65536, and
   sequence 100 of n / 8 (longer than a chunk: idle groups help with it). Values: integers
   0..999 as floats (many equal maxima: the tie rule decides); every 97th sequence holds two NaNs,
   every 89th is all -inf. Returns the count; o gets count + 1 offsets. */
static size_t make_sequences(float *v, size_t n, size_t *o, size_t max_count, unsigned long long seed)
{
    size_t count = 0, at = 0;
    o[0] = 0;
    while (at < n && count < max_count) {
        const unsigned kind = su_random(&seed) % 100;
        size_t len = kind < 10   ? 0
                     : kind < 70 ? 1 + su_random(&seed) % 64
                     : kind < 95 ? 65 + su_random(&seed) % 4032
                                 : 4097 + su_random(&seed) % 61440;
        if (count == 100) len = n / 8;
        if (len > n - at) len = n - at;
        for (size_t i = 0; i < len; i++) v[at + i] = (float)(su_random(&seed) % 1000);
        if (count % 89 == 5)
            for (size_t i = 0; i < len; i++) v[at + i] = -INFINITY;
        if (count % 97 == 3 && len > 0) {
            v[at + su_random(&seed) % len] = NAN;
            v[at + su_random(&seed) % len] = NAN;
        }
        at += len;
        o[++count] = at;
    }
    return count;
}

static int part2(const cudaDeviceProp *prop, const warpred_rows_plan *plan, int quick)
{
    const size_t n = quick ? (size_t)1 << 20 : (size_t)1 << 26, max_count = n / 64; /* about n / 2300 are made */
    float *v = (float *)su_malloc(n * sizeof(float));
    size_t *o = (size_t *)su_malloc((max_count + 1) * sizeof(size_t));
    const size_t count = make_sequences(v, n, o, max_count, 0xa11ce5ull);
    const size_t total = o[count];
    long long *want = (long long *)su_malloc(count * sizeof(long long));
    long long *got = (long long *)su_malloc(count * sizeof(long long));
    size_t empty = 0, longest = 0;
    for (size_t k = 0; k < count; k++) {
        want[k] = reference_argmax(v + o[k], o[k + 1] - o[k]);
        empty += o[k + 1] == o[k];
        if (o[k + 1] - o[k] > longest) longest = o[k + 1] - o[k];
    }
    float *d_v, *d_sink;
    size_t *d_o;
    long long *d_index;
    CHECK(cudaMalloc(&d_v, n * sizeof(float)));
    CHECK(cudaMalloc(&d_o, (count + 1) * sizeof(size_t)));
    CHECK(cudaMalloc(&d_index, count * sizeof(long long)));
    CHECK(cudaMalloc(&d_sink, sizeof(float)));
    CHECK(cudaMemset(d_v, 0, n * sizeof(float))); /* the tail past the last sequence, read by the ceiling */
    CHECK(cudaMemcpy(d_v, v, total * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_o, o, (count + 1) * sizeof(size_t), cudaMemcpyHostToDevice));
    job j;
    memset(&j, 0, sizeof j);
    j.plan = *plan;
    j.x = d_v;
    j.offsets = d_o;
    j.count = count;
    j.index = d_index;
    j.x4 = (const float4 *)d_v;
    j.n4 = n / 4;
    j.read_blocks = su_wave_blocks(prop, 256);
    j.sink = d_sink;

    printf("\nPart 2: argmax of each of %zu sequences (CSR size_t offsets) over %zu floats: %zu empty, the longest "
           "%zu\n",
           count, total, empty, longest);
    printf("GB/s: values + offsets read, one 8-byte index written per sequence; %%ceil: the ceiling's time / the "
           "call's\n\n");
    printf("%-22s %10s %8s %6s  %s\n", "call", "us", "GB/s", "%ceil", "check");
    const double ceil_us = time_median(call_read, &j, time_once(call_read, &j), quick);
    const double ceil_gbs = (double)n * sizeof(float) / (ceil_us * 1e3);
    const double bytes = (double)total * sizeof(float) + (double)(count + 1) * sizeof(size_t) + (double)count * 8;
    /* ranges take one strategy (AUTO): each range's length decides how it is read */
    j.plan.strategy = WARPRED_ROWS_AUTO;
    const double first = time_once(call_seq_argmax, &j);
    CHECK(cudaMemcpy(got, d_index, count * sizeof(long long), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t k = 0; k < count; k++)
        if (got[k] != want[k]) {
            if (bad == 0)
                printf("  WRONG: sequence %zu (%zu elements): index %lld, reference %lld\n", k, o[k + 1] - o[k], got[k],
                       want[k]);
            bad++;
        }
    const double us = time_median(call_seq_argmax, &j, first, quick);
    printf("%-22s %10.1f %8.0f %5.0f%%  %s\n", "AUTO", us, bytes / (us * 1e3), 100.0 * ceil_us / us,
           bad ? "WRONG" : "exact");
    const int ok = bad == 0;
    printf("%-22s %10.1f %8.0f %5s\n", "ceiling (float4 read)", ceil_us, ceil_gbs, "");
    printf("\nempty sequences give -1 (the identity of warpred_op_argmax: index -1, value -inf); all -inf gives 0;\n"
           "equal maxima give the lowest index; a NaN gives the index of the first NaN\n");
    CHECK(cudaFree(d_v));
    CHECK(cudaFree(d_o));
    CHECK(cudaFree(d_index));
    CHECK(cudaFree(d_sink));
    free(v);
    free(o);
    free(want);
    free(got);
    return ok;
}

int main(void)
{
    const cudaDeviceProp prop = su_require_gpu("row_statistics");
    const int quick = su_quick();
    warpred_rows_plan plan;
    const char *why;
    if (warpred_rows_plan_create(&plan, 0, &why) != cudaSuccess) { /* once per device */
        fprintf(stderr, "warpred_rows_plan_create: %s\n", why);
        return 1;
    }
    printf("row statistics on %s (%d SMs, sm_%d%d)%s\n\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor,
           quick ? ", quick sizes" : "");
    int ok = part1(&prop, &plan, quick);
    ok &= part2(&prop, &plan, quick);
    CHECK(warpred_rows_plan_destroy(&plan));
    printf("\n%s\n", ok ? "every result matched the host reference" : "ERROR: a result is off");
    return ok ? 0 : 1;
}
