/* samples/device_sum - one array of 2^26 floats reduced four ways by warpred_device_reduce
   (warpred/device_reduce.cuh), one kernel launch each: the sum in float, the sum accumulated in
   double (rounded once, on the host), the maximum, and the sum of squares through a transform.
   Each result is checked against an exact (or long double) CPU reference and timed.
   Build and run from the repository root:  make run-device_sum */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <warpred/device_reduce.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_quick, su_malloc, su_timer */

/* A transform: element x at index i becomes x^2, in double (exact for these values). */
struct square_in_double {
    __device__ double operator()(float x, size_t) const { return (double)x * (double)x; }
};

enum { VARIANT_SUM, VARIANT_SUM_DOUBLE, VARIANT_MAX, VARIANT_SQUARES, VARIANTS };
static const char *const variant_name[] = {"sum (float)", "sum (in double)", "max", "sum of squares (transform)"};

/* One call of a variant; the double results go to d_out_d, the float ones to d_out_f. */
static void call(int variant, const warpred_device_plan *plan, const float *x, size_t n, float *d_out_f,
                 double *d_out_d)
{
    const char *why = NULL;
    cudaError_t err;
    switch (variant) {
    case VARIANT_SUM: err = warpred_device_sum(plan, x, n, d_out_f, 0, &why); break;
    case VARIANT_SUM_DOUBLE:
        err = warpred_device_transform_reduce(plan, x, n, d_out_d, warpred_op_sum(), warpred_xf_to<double>(), 0, &why);
        break;
    case VARIANT_MAX: err = warpred_device_reduce(plan, x, n, d_out_f, warpred_op_max(), 0, &why); break;
    default: err = warpred_device_transform_reduce(plan, x, n, d_out_d, warpred_op_sum(), square_in_double(), 0, &why);
    }
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", variant_name[variant], why);
        exit(1);
    }
}

int main(void)
{
    su_require_gpu("device_sum");
    const size_t n = su_quick() ? ((size_t)1 << 20) + 3 : (size_t)1 << 26;

    /* x[i] = k * 2^-20 with integer k in [0, 2^20): exact in float; the sum is exact in a long
       long count of 2^-20 units, and also in double (below 2^53 units). */
    float *x = (float *)su_malloc(n * sizeof(float)), top = 0;
    long long k_sum = 0, sq_hi = 0, sq_lo = 0; /* sum of k^2 = sq_hi * 2^20 + sq_lo, exactly */
    srand(7);
    for (size_t i = 0; i < n; i++) {
        const long long k = rand() % (1 << 20);
        x[i] = (float)ldexp((double)k, -20);
        k_sum += k;
        sq_hi += (k * k) >> 20;
        sq_lo += (k * k) & ((1 << 20) - 1);
        top = x[i] > top ? x[i] : top;
    }
    const double exact_sum = ldexp((double)k_sum, -20);
    const long double squares = ldexpl((long double)sq_hi, -20) + ldexpl((long double)sq_lo, -40); /* one rounding */

    warpred_device_plan plan;
    const char *why;
    if (warpred_device_plan_create(&plan, 0, &why) != cudaSuccess) { /* once per device */
        fprintf(stderr, "warpred_device_plan_create: %s\n", why);
        return 1;
    }
    float *d_x, *d_out_f;
    double *d_out_d;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out_f, sizeof(float)));
    CHECK(cudaMalloc(&d_out_d, sizeof(double)));
    CHECK(cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice));

    /* Tolerances, relative to the exact value. The float sum: every value is positive, so the
       error is at most u = 2^-24 times the sum for each rounding on the longest chain: the
       pairing in a 16-byte load (2), the thread's running sum (one per load it takes), the block
       tree (8), the fold of the block partials (blocks / 32 + 1) and the tree after it (8). The
       double sum is exact (below 2^53 units of 2^-20); the max is one of the inputs; the sum of
       squares rounds each partial sum in double. */
    const size_t threads = (size_t)warpred_device_blocks(&plan, n, sizeof(float)) * WARPRED_DEVICE_THREADS;
    const double chain =
        2 + (double)((n / 4 + threads - 1) / threads) + 8 + (double)(threads / WARPRED_DEVICE_THREADS / 32 + 1) + 8;
    const double want[VARIANTS] = {exact_sum, exact_sum, (double)top, (double)squares};
    const double tol[VARIANTS] = {chain * 0x1p-24, 0, 0,
                                  (chain + 1) * 0x1p-53}; /* +1: the reference, rounded to double */
    int ok = 1;
    printf("%zu floats in [0, 1), one launch per call, median of 21 calls\n\n", n);
    printf("%-28s %20s %20s %10s %8s %8s  %s\n", "variant", "GPU", "exact", "rel. err", "us", "GB/s", "check");
    for (int v = 0; v < VARIANTS; v++) {
        su_timer t = su_timer_create(3, 21); /* the median of 21 calls after 3 warm-up calls, quick or not */
        while (su_timer_next(&t)) call(v, &plan, d_x, n, d_out_f, d_out_d);
        const double us = su_timer_median_us(&t);
        double got;
        if (v == VARIANT_SUM || v == VARIANT_MAX) {
            float f;
            CHECK(cudaMemcpy(&f, d_out_f, sizeof f, cudaMemcpyDeviceToHost));
            got = f;
        } else {
            CHECK(cudaMemcpy(&got, d_out_d, sizeof got, cudaMemcpyDeviceToHost));
        }
        const double rel = fabs(got - want[v]) / want[v];
        const int row_ok = rel <= tol[v];
        printf("%-28s %20.6f %20.6f %10.2e %8.1f %8.0f  %s\n", variant_name[v], got, want[v], rel, us,
               n * 4.0 / (us * 1e3), row_ok ? "ok" : "WRONG");
        ok &= row_ok;
    }
    /* the double sum rounded once: the correctly rounded float sum */
    double sum_d; /* d_out_d holds the sum of squares now: sum again */
    call(VARIANT_SUM_DOUBLE, &plan, d_x, n, d_out_f, d_out_d);
    CHECK(cudaMemcpy(&sum_d, d_out_d, sizeof sum_d, cudaMemcpyDeviceToHost));
    const int rounded_ok = (float)sum_d == (float)exact_sum;
    printf("\nsum in double, rounded once to float: %.7g (correctly rounded: %.7g) %s\n", (double)(float)sum_d,
           (double)(float)exact_sum, rounded_ok ? "ok" : "WRONG");
    ok &= rounded_ok;

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_out_f));
    CHECK(cudaFree(d_out_d));
    CHECK(warpred_device_plan_destroy(&plan));
    free(x);
    printf("%s\n", ok ? "all results within tolerance" : "ERROR: a result is off");
    return ok ? 0 : 1;
}
