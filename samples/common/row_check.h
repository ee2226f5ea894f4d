/* samples/common/row_check.h - the driver that samples/softmax, samples/layernorm and
   samples/cross_entropy share: inputs, double-precision host references with stated error bounds,
   the checks, the timings and the table. Host code; needs row_kernels.cuh and sample_util.h included
   first. Names start with rc_.

   For each row length of the list (lengths that are not multiples of 4 or 32 included, and rows whose
   start is not 16-byte aligned as a result) and for float and bfloat16: about 2^23 elements (quick:
   2^16) of x = uniform(-4, 4) + an offset per row (0, 30 or -60), every 7th row a third -inf (softmax,
   cross-entropy; never the target), row 1 all -inf (softmax); the kernel runs on the GPU, every
   output element is compared with the reference computed in double from the same (rounded) inputs,
   then the kernel is timed (median of CUDA-event timed runs).

   ERROR BOUNDS (u = 2^-24; k = 64 + len / 256, which covers the longest chain of float additions a
   thread and the tree above it make; o = 2^-8 for bfloat16 outputs, their rounding, else 0)
     softmax        |y - r| <= r * (u * (k + 2 * (|m| + |x - m|)) + o)       m the row max
     layernorm      |y - r| <= 4 k u (|w| rstd (|x| + |mean| + 4 std) + |b|) + o |r|
     rmsnorm        |y - r| <= 2 k u |r| + o |r|
     cross-entropy  |loss - r| <= k u (2 + |m| + |lse| + |x_t|); argmax exact (the first largest);
                    the mean: |mean - r| <= max row bound + (rows / 1024 + 64) u mean|loss|,
                    and the same bits again from a second launch, from a graph and from a
                    plain launch of the mean's kernel; the mean by a second reduction over the
                    losses (the form taken where the launch's cells cannot serve) within the
                    same bound
   Special rows of cross-entropy, checked exactly: all -inf (loss +inf, argmax 0), target logit
   -inf (+inf), target out of range (NaN). */
#ifndef RC_ROW_CHECK_H
#define RC_ROW_CHECK_H

#include <math.h>

enum { RC_SOFTMAX, RC_LAYERNORM, RC_RMSNORM, RC_CROSS_ENTROPY };
static const char *const rc_op_name[] = {"softmax", "layernorm", "rmsnorm", "cross-entropy"};
#define RC_EPS 1e-5f
#define RC_U 0x1p-24

static inline float rc_to_float(float x) { return x; }
static inline float rc_to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> static inline T rc_from_float(float x);
template <> inline float rc_from_float<float>(float x) { return x; }
template <> inline __nv_bfloat16 rc_from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <typename T> static const char *rc_type_name(void) { return sizeof(T) == 4 ? "float32" : "bfloat16"; }

/* The inputs of one run, on the host (x, w, b, targets) and the device. */
template <typename T> struct rc_data {
    long long rows;
    int len;
    T *x, *w, *b, *y;
    int *t;
    T *d_x, *d_w, *d_b, *d_y;
    int *d_t, *d_arg;
    float *d_loss, *d_mean;
};

template <typename T> static void rc_fill(rc_data<T> *d, int op, unsigned long long seed)
{
    const long long n = d->rows * d->len;
    for (long long r = 0; r < d->rows; r++) {
        const float offset = r % 3 == 0 ? 0.0f : r % 3 == 1 ? 30.0f : -60.0f;
        const int target = (int)(su_random(&seed) % (unsigned)d->len);
        d->t[r] = target;
        for (int c = 0; c < d->len; c++) {
            float v = offset + (float)(su_random_unit(&seed) * 8.0 - 4.0);
            if (op == RC_SOFTMAX || op == RC_CROSS_ENTROPY) {
                if (r % 7 == 5 && su_random(&seed) % 3 == 0 && c != target) v = -INFINITY;
                if (op == RC_SOFTMAX && r == 1) v = -INFINITY;
            }
            d->x[r * d->len + c] = rc_from_float<T>(v);
        }
    }
    for (int c = 0; c < d->len; c++) {
        d->w[c] = rc_from_float<T>((float)(0.5 + su_random_unit(&seed)));
        d->b[c] = rc_from_float<T>((float)(su_random_unit(&seed) - 0.5));
    }
    (void)n;
}

/* Checks the outputs of one run against the double reference; returns the number of bad values
   (the first few printed) and the largest error / bound in *worst. */
template <typename T> static long long rc_check(rc_data<T> *d, int op, double *worst)
{
    const int len = d->len;
    const double k = 64.0 + len / 256.0, o = sizeof(T) == 2 ? 0x1p-8 : 0.0;
    long long bad = 0;
    double ratio = 0.0;
    double *row = (double *)su_malloc((size_t)len * sizeof(double));
    float *loss = NULL;
    int *arg = NULL;
    if (op == RC_CROSS_ENTROPY) {
        loss = (float *)su_malloc((size_t)d->rows * sizeof(float));
        arg = (int *)su_malloc((size_t)d->rows * sizeof(int));
        CHECK(cudaMemcpy(loss, d->d_loss, (size_t)d->rows * sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(arg, d->d_arg, (size_t)d->rows * sizeof(int), cudaMemcpyDeviceToHost));
    } else {
        CHECK(cudaMemcpy(d->y, d->d_y, (size_t)(d->rows * len) * sizeof(T), cudaMemcpyDeviceToHost));
    }
    double loss_sum = 0.0, loss_abs = 0.0, loss_tol = 0.0;
    for (long long r = 0; r < d->rows; r++) {
        double m = -INFINITY, sum = 0.0, sq = 0.0;
        int am = 0;
        for (int c = 0; c < len; c++) {
            row[c] = (double)rc_to_float(d->x[r * len + c]);
            if (row[c] > m) m = row[c], am = c;
            sum += row[c];
        }
        const double mean = sum / len;
        for (int c = 0; c < len; c++) sq += op == RC_RMSNORM ? row[c] * row[c] : (row[c] - mean) * (row[c] - mean);
        const double var = sq / len, rstd = 1.0 / sqrt(var + (double)RC_EPS);
        double se = 0.0;
        if (m != -INFINITY)
            for (int c = 0; c < len; c++) se += exp(row[c] - m);
        if (op == RC_CROSS_ENTROPY) {
            const double xt = row[d->t[r]], lse = m + log(se);
            const double want = xt == -INFINITY ? INFINITY : lse - xt;
            const double tol = k * RC_U * (2.0 + fabs(m) + fabs(lse) + fabs(xt));
            const double err = fabs((double)loss[r] - want);
            loss_sum += want;
            loss_abs += fabs(want);
            if (tol > loss_tol) loss_tol = tol;
            if (err / tol > ratio) ratio = err / tol;
            if (!(err <= tol) || arg[r] != am) {
                if (bad++ < 5)
                    printf("  %s len %d row %lld: loss %.9g argmax %d, expected %.9g argmax %d (bound %.3g)\n",
                           rc_type_name<T>(), len, r, loss[r], arg[r], want, am, tol);
            }
            continue;
        }
        for (int c = 0; c < len; c++) {
            const double got = (double)rc_to_float(d->y[r * len + c]);
            const double w = (double)rc_to_float(d->w[c]), b = (double)rc_to_float(d->b[c]);
            double want, tol;
            if (op == RC_SOFTMAX) {
                want = m == -INFINITY ? 0.0 : exp(row[c] - m) / se;
                /* a row of only -inf: zeros, exactly (0 * inf would make the bound a NaN) */
                tol = m == -INFINITY
                          ? 0.0
                          : want * (RC_U * (k + 2.0 * (fabs(m) + (row[c] == -INFINITY ? 0.0 : fabs(row[c] - m)))) + o);
            } else if (op == RC_LAYERNORM) {
                want = (row[c] - mean) * rstd * w + b;
                tol = 4.0 * k * RC_U * (fabs(w) * rstd * (fabs(row[c]) + fabs(mean) + 4.0 * sqrt(var)) + fabs(b)) +
                      o * fabs(want);
            } else {
                want = row[c] * rstd * w;
                tol = (2.0 * k * RC_U + o) * fabs(want);
            }
            const double err = fabs(got - want);
            if (tol > 0 && err / tol > ratio) ratio = err / tol;
            if (!(err <= tol)) {
                if (bad++ < 5)
                    printf("  %s %s len %d row %lld col %d: %.9g, expected %.9g (bound %.3g)\n", rc_type_name<T>(),
                           rc_op_name[op], len, r, c, got, want, tol);
            }
        }
    }
    if (op == RC_CROSS_ENTROPY) { /* the deterministic mean */
        float mean;
        CHECK(cudaMemcpy(&mean, d->d_mean, sizeof mean, cudaMemcpyDeviceToHost));
        const double want = loss_sum / (double)d->rows;
        const double tol = loss_tol + ((double)d->rows / 1024.0 + 64.0) * RC_U * loss_abs / (double)d->rows;
        if (!(fabs(mean - want) <= tol)) {
            bad++;
            printf("  %s len %d: mean loss %.9g, expected %.9g (bound %.3g)\n", rc_type_name<T>(), len, mean, want,
                   tol);
        }
        free(arg);
        free(loss);
    }
    free(row);
    *worst = ratio;
    return bad;
}

/* (a template over the op, so that a sample compiles only its own op's kernels) */
template <int Op, typename T> static cudaError_t rc_launch(rc_data<T> *d, const warpred_device_plan *plan)
{
    if constexpr (Op == RC_SOFTMAX) return rk_softmax(d->d_x, d->d_y, d->rows, d->len, 0);
    else if constexpr (Op == RC_LAYERNORM)
        return rk_layernorm(d->d_x, d->d_w, d->d_b, d->d_y, d->rows, d->len, RC_EPS, 0);
    else if constexpr (Op == RC_RMSNORM)
        return rk_rmsnorm(d->d_x, d->d_w, d->d_y, d->rows, d->len, RC_EPS, 0);
    else
        return rk_cross_entropy(d->d_x, d->d_t, d->d_loss, d->d_arg, d->rows, d->len, plan, d->d_mean, 0);
}

/* Cross-entropy's mean again, after rc_check: the same bits from a second launch and from a launch
   captured in a graph (deterministic, whichever way it is launched). Returns the failures. */
template <typename T> static long long rc_ce_mean_again(rc_data<T> *d, const warpred_device_plan *plan)
{
    float first, again, graphed;
    CHECK(cudaMemcpy(&first, d->d_mean, sizeof first, cudaMemcpyDeviceToHost));
    CHECK(cudaMemset(d->d_mean, 0xff, sizeof(float)));
    CHECK(rc_launch<RC_CROSS_ENTROPY>(d, plan));
    CHECK(cudaMemcpy(&again, d->d_mean, sizeof again, cudaMemcpyDeviceToHost));
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t e;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMemset(d->d_mean, 0xff, sizeof(float)));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(rk_cross_entropy(d->d_x, d->d_t, d->d_loss, d->d_arg, d->rows, d->len, plan, d->d_mean, s));
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(&graphed, d->d_mean, sizeof graphed, cudaMemcpyDeviceToHost));
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
    long long bad = 0;
    if (memcmp(&first, &again, sizeof first) != 0 || memcmp(&first, &graphed, sizeof first) != 0) {
        bad++;
        printf("  %s len %d: mean loss %.9g, then %.9g, in a graph %.9g (not the same bits)\n", rc_type_name<T>(),
               d->len, first, again, graphed);
    }
    return bad;
}

/* Cross-entropy's mean in its other forms (rk_mean_mode 1: the same cells, a plain launch, so the
   same bits; 2: a second reduction over the losses, checked against the reference like the
   first), then back to the default. Returns the failures. */
template <typename T> static long long rc_ce_mean_forms(rc_data<T> *d, const warpred_device_plan *plan)
{
    float first, plain;
    double worst = 0.0;
    long long bad = 0;
    CHECK(cudaMemcpy(&first, d->d_mean, sizeof first, cudaMemcpyDeviceToHost));
    rk_mean_mode = 1;
    CHECK(cudaMemset(d->d_mean, 0xff, sizeof(float)));
    CHECK(rc_launch<RC_CROSS_ENTROPY>(d, plan));
    CHECK(cudaMemcpy(&plain, d->d_mean, sizeof plain, cudaMemcpyDeviceToHost));
    if (memcmp(&first, &plain, sizeof first) != 0) {
        bad++;
        printf("  %s len %d: mean loss %.9g, launched plainly %.9g (not the same bits)\n", rc_type_name<T>(), d->len,
               first, plain);
    }
    rk_mean_mode = 2;
    CHECK(cudaMemset(d->d_mean, 0xff, sizeof(float)));
    CHECK(rc_launch<RC_CROSS_ENTROPY>(d, plan));
    CHECK(cudaDeviceSynchronize());
    rk_mean_mode = 0;
    bad += rc_check(d, RC_CROSS_ENTROPY, &worst);
    return bad;
}

/* One length, one type: fill, run, check, time, one table line. Returns the failures. */
template <int Op, typename T>
static long long rc_run(int len, long long budget, int quick, const warpred_device_plan *plan)
{
    const int op = Op;
    rc_data<T> d;
    memset(&d, 0, sizeof d);
    d.len = len;
    d.rows = budget / len < 3 ? 3 : budget / len;
    const long long n = d.rows * len;
    d.x = (T *)su_malloc((size_t)n * sizeof(T));
    d.y = (T *)su_malloc((size_t)n * sizeof(T));
    d.w = (T *)su_malloc((size_t)len * sizeof(T));
    d.b = (T *)su_malloc((size_t)len * sizeof(T));
    d.t = (int *)su_malloc((size_t)d.rows * sizeof(int));
    rc_fill(&d, op, 0x5eed0000ull + (unsigned long long)len);
    CHECK(cudaMalloc(&d.d_x, (size_t)n * sizeof(T)));
    CHECK(cudaMalloc(&d.d_y, (size_t)n * sizeof(T)));
    CHECK(cudaMalloc(&d.d_w, (size_t)len * sizeof(T)));
    CHECK(cudaMalloc(&d.d_b, (size_t)len * sizeof(T)));
    CHECK(cudaMalloc(&d.d_t, (size_t)d.rows * sizeof(int)));
    CHECK(cudaMalloc(&d.d_arg, (size_t)d.rows * sizeof(int)));
    CHECK(cudaMalloc(&d.d_loss, (size_t)d.rows * sizeof(float)));
    CHECK(cudaMalloc(&d.d_mean, sizeof(float)));
    CHECK(cudaMemcpy(d.d_x, d.x, (size_t)n * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d.d_w, d.w, (size_t)len * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d.d_b, d.b, (size_t)len * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d.d_t, d.t, (size_t)d.rows * sizeof(int), cudaMemcpyHostToDevice));
    /* poisoned outputs: an element the kernel does not write fails the check */
    CHECK(cudaMemset(d.d_y, 0xff, (size_t)n * sizeof(T)));
    CHECK(cudaMemset(d.d_loss, 0xff, (size_t)d.rows * sizeof(float)));
    CHECK(cudaMemset(d.d_arg, 0xff, (size_t)d.rows * sizeof(int)));
    CHECK(cudaMemset(d.d_mean, 0xff, sizeof(float)));
    CHECK(rc_launch<Op>(&d, plan));
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    char where[sizeof rk_last_where];
    memcpy(where, rk_last_where, sizeof where);
    double worst = 0.0;
    long long bad = rc_check(&d, op, &worst);
    if constexpr (Op == RC_CROSS_ENTROPY) bad += rc_ce_mean_again(&d, plan) + rc_ce_mean_forms(&d, plan);
    su_timer t = su_timer_create(su_warmups(quick), su_runs(quick));
    while (su_timer_next(&t)) CHECK(rc_launch<Op>(&d, plan));
    const double us = su_timer_median_us(&t);
    CHECK(cudaGetLastError());
    const double bytes = op == RC_CROSS_ENTROPY ? (double)n * sizeof(T) : 2.0 * (double)n * sizeof(T);
    printf("| %-8s | %7d | %8lld | %-26s | %9.1f | %7.0f | %9.3f | %s |\n", rc_type_name<T>(), len, d.rows, where, us,
           bytes / us * 1e-3, worst, bad ? "FAILED" : "ok");
    CHECK(cudaFree(d.d_mean));
    CHECK(cudaFree(d.d_loss));
    CHECK(cudaFree(d.d_arg));
    CHECK(cudaFree(d.d_t));
    CHECK(cudaFree(d.d_b));
    CHECK(cudaFree(d.d_w));
    CHECK(cudaFree(d.d_y));
    CHECK(cudaFree(d.d_x));
    free(d.t);
    free(d.b);
    free(d.w);
    free(d.y);
    free(d.x);
    return bad;
}

/* Cross-entropy's special rows, exactly: all -inf, target logit -inf, target out of range. */
template <typename T> static long long rc_ce_special(int len, const warpred_device_plan *plan)
{
    const int rows = 4;
    T *x = (T *)su_malloc((size_t)rows * len * sizeof(T));
    int t[rows] = {len / 2, len - 1, len, 0};
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < len; c++)
            x[r * len + c] = rc_from_float<T>(r == 0 || (r == 1 && c == len - 1) ? -INFINITY : (float)(c % 5));
    T *d_x;
    int *d_t, *d_arg, arg[rows];
    float *d_loss, loss[rows];
    CHECK(cudaMalloc(&d_x, (size_t)rows * len * sizeof(T)));
    CHECK(cudaMalloc(&d_t, sizeof t));
    CHECK(cudaMalloc(&d_arg, sizeof arg));
    CHECK(cudaMalloc(&d_loss, sizeof loss));
    CHECK(cudaMemcpy(d_x, x, (size_t)rows * len * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_t, t, sizeof t, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_arg, 0xff, sizeof arg));
    CHECK(cudaMemset(d_loss, 0xff, sizeof loss));
    CHECK(rk_cross_entropy(d_x, d_t, d_loss, d_arg, rows, len, plan, (float *)NULL, 0));
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(loss, d_loss, sizeof loss, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(arg, d_arg, sizeof arg, cudaMemcpyDeviceToHost));
    int want[rows]; /* the first largest; a row of only -inf: 0 */
    for (int r = 0; r < rows; r++) {
        want[r] = 0;
        for (int c = 1; c < len; c++)
            if (rc_to_float(x[r * len + c]) > rc_to_float(x[r * len + want[r]])) want[r] = c;
    }
    long long bad = 0;
    if (!(isinf(loss[0]) && loss[0] > 0) || arg[0] != want[0]) bad++;
    if (!(isinf(loss[1]) && loss[1] > 0) || arg[1] != want[1]) bad++;
    if (!isnan(loss[2]) || arg[2] != want[2]) bad++;
    if (!isfinite(loss[3]) || arg[3] != want[3]) bad++;
    if (bad)
        printf("  %s len %d special rows: loss %g %g %g %g argmax %d %d %d %d (expected inf inf nan finite, %d %d %d "
               "%d)\n",
               rc_type_name<T>(), len, loss[0], loss[1], loss[2], loss[3], arg[0], arg[1], arg[2], arg[3], want[0],
               want[1], want[2], want[3]);
    CHECK(cudaFree(d_loss));
    CHECK(cudaFree(d_arg));
    CHECK(cudaFree(d_t));
    CHECK(cudaFree(d_x));
    free(x);
    return bad;
}

/* The lengths: every layout of the table, its edges, lengths not a multiple of 4 or 32, clusters,
   streamed rows. */
static const int rc_lengths[] = {1,    3,    32,   37,   64,   100,   128,   255,   256,    512,    1000,   1001,
                                 1024, 2048, 3001, 4096, 8192, 16384, 16385, 65536, 100003, 262144, 262147, 1048576};
static const int rc_lengths_quick[] = {1, 3, 37, 100, 255, 1000, 1001, 3001, 16384, 16385, 70001, 262147};

/* A sample's session: rc_begin, rc_op<OP> for each op it shows, rc_end (the exit status). */
typedef struct rc_session {
    const char *sample;
    int quick;
    long long budget, bad;
    warpred_device_plan plan;
} rc_session;

static void rc_begin(rc_session *s, const char *sample)
{
    const cudaDeviceProp prop = su_require_gpu(sample);
    s->sample = sample;
    s->quick = su_quick();
    s->budget = s->quick ? 1 << 16 : 1 << 23;
    s->bad = 0;
    const char *why = NULL;
    if (warpred_device_plan_create(&s->plan, 0, &why) != cudaSuccess) {
        printf("%s: warpred_device_plan_create: %s\n", sample, why);
        exit(1);
    }
    printf("%s on %s: about %lld elements per length%s; err/bound: the largest error over the bound, every "
           "output\n",
           sample, prop.name, s->budget, s->quick ? " (quick)" : "");
}

template <int Op> static void rc_op(rc_session *s)
{
    printf("\n%s (GB/s: the bytes a perfect kernel moves%s)\n\n", rc_op_name[Op],
           Op == RC_CROSS_ENTROPY ? ": the logits read once; the time includes the mean" : ": read x, write y");
    printf("| type     |     len |     rows | where the row lives         |        us |    GB/s | err/bound | check "
           "|\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    const int *lens = s->quick ? rc_lengths_quick : rc_lengths;
    const int nlens = s->quick ? (int)(sizeof rc_lengths_quick / sizeof(int)) : (int)(sizeof rc_lengths / sizeof(int));
    for (int i = 0; i < nlens; i++) s->bad += rc_run<Op, float>(lens[i], s->budget, s->quick, &s->plan);
    for (int i = 0; i < nlens; i++) s->bad += rc_run<Op, __nv_bfloat16>(lens[i], s->budget, s->quick, &s->plan);
    if constexpr (Op != RC_CROSS_ENTROPY) {
        /* norms: more rows than the clusters the GPU runs at once, for the persistent clusters'
           loop over rows (rk_norm_cluster_rows), 2 to 4 rows a cluster, and the same count off
           16-byte boundaries (rk_norm_rows); softmax: the same rows in its clusters */
        const int longer[] = {16392, 16387};
        for (int i = 0; i < 2; i++) {
            const long long many = (2LL * rk_sm_count() + 5) * longer[i];
            s->bad += rc_run<Op, float>(longer[i], many, s->quick, &s->plan);
            s->bad += rc_run<Op, __nv_bfloat16>(longer[i], many, s->quick, &s->plan);
        }
        /* rows across the whole GPU (rk_grid_rows: rows of 2 MB or more, softmax 4 MB): more of them
           than its ring holds (the norms 2 rows a step, 21 of them: the last step has one), and fewer
           than it holds */
        if constexpr (Op == RC_SOFTMAX) s->bad += rc_run<Op, float>(1048584, 12LL * 1048584, s->quick, &s->plan);
        else {
            s->bad += rc_run<Op, float>(524296, 21LL * 524296, s->quick, &s->plan);
            s->bad += rc_run<Op, float>(524296, 3LL * 524296, s->quick, &s->plan);
            s->bad += rc_run<Op, __nv_bfloat16>(1048584, 21LL * 1048584, s->quick, &s->plan);
        }
    }
    if constexpr (Op == RC_CROSS_ENTROPY) {
        /* rows longer than a block holds, enough of them to give every SM 4 blocks: the streamed
           kernel in blocks of 256 (rk_ce_run::go), whole vectors and element loads */
        const int longer[] = {16392, 16387};
        for (int i = 0; i < 2; i++) {
            const long long many = (4LL * rk_sm_count() + 5) * longer[i];
            s->bad += rc_run<Op, float>(longer[i], many, s->quick, &s->plan);
            s->bad += rc_run<Op, __nv_bfloat16>(longer[i], many, s->quick, &s->plan);
        }
        const int special[] = {1, 5, 100, 3001, 70001};
        long long bad = 0;
        for (int i = 0; i < 5; i++) bad += rc_ce_special<float>(special[i], &s->plan);
        for (int i = 0; i < 5; i++) bad += rc_ce_special<__nv_bfloat16>(special[i], &s->plan);
        printf("\nspecial rows (all -inf, target logit -inf, target out of range): %s\n", bad ? "FAILED" : "ok");
        s->bad += bad;
    }
}

static int rc_end(rc_session *s)
{
    CHECK(warpred_device_plan_destroy(&s->plan));
    printf("\n%s: %s\n", s->sample, s->bad ? "FAILED" : "every output within its bound");
    return s->bad ? 1 : 0;
}

#endif /* RC_ROW_CHECK_H */
