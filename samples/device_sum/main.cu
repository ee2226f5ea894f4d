/* samples/device_sum - sum 2^26 floats in one kernel launch with warpred_grid_reduce, plain and
   accurate, check both against an exact reference and print a table.
   Build and run from the repository root:  make run */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "device_sum.cuh"

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t err_ = (call);                                                                \
        if (err_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

typedef cudaError_t (*sum_fn)(const device_sum_plan *, const float *, size_t, float *, cudaStream_t);

/* Median of 21 timed calls after 3 warm-ups; leaves the last result in *result. */
static float median_us(sum_fn fn, const device_sum_plan *plan, const float *x, size_t n, float *d_out, float *result)
{
    float t[21];
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++) CHECK(fn(plan, x, n, d_out, 0));
    for (int i = 0; i < 21; i++) {
        CHECK(cudaEventRecord(a));
        CHECK(fn(plan, x, n, d_out, 0));
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&t[i], a, b));
    }
    for (int i = 1; i < 21; i++) /* insertion sort: 21 values */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            float s = t[j];
            t[j] = t[j - 1];
            t[j - 1] = s;
        }
    CHECK(cudaMemcpy(result, d_out, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return t[10] * 1000.0f;
}

int main(void)
{
    const size_t n = (size_t)1 << 26;
    float *x = (float *)malloc(n * sizeof(float));
    long long k_sum = 0; /* x[i] = k * 2^-20 with integer k: the exact sum is k_sum * 2^-20 */
    srand(7);
    for (size_t i = 0; i < n; i++) {
        long long k = rand() % (1 << 20);
        x[i] = (float)ldexp((double)k, -20);
        k_sum += k;
    }
    const float exact = (float)ldexp((double)k_sum, -20); /* correctly rounded */

    device_sum_plan plan;
    float *d_x, *d_out;
    CHECK(device_sum_plan_create(&plan));
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, sizeof(float)));
    CHECK(cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice));

    struct { const char *name; sum_fn fn; float us, result; } rows[] = {
        {"device_sum (float)", device_sum, 0, 0},
        {"device_sum_accurate (double)", device_sum_accurate, 0, 0},
    };
    int ok = 1;
    printf("sum of %zu floats in [0, 1), one launch each, median of 21 calls\n\n", n);
    printf("%-30s %16s %16s %10s %8s %8s\n", "variant", "GPU sum", "exact sum", "rel. err", "us", "GB/s");
    for (int r = 0; r < 2; r++) {
        rows[r].us = median_us(rows[r].fn, &plan, d_x, n, d_out, &rows[r].result);
        const double rel = fabs((double)rows[r].result - exact) / exact;
        printf("%-30s %16.3f %16.3f %10.2e %8.1f %8.0f\n", rows[r].name, rows[r].result, exact, rel, rows[r].us,
               n * 4.0 / (rows[r].us * 1e3));
        ok &= rel < (r == 0 ? 1e-5 : 1e-7);
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_out));
    device_sum_plan_destroy(&plan);
    free(x);
    printf("\n%s\n", ok ? "both sums within tolerance (plain 1e-5, accurate 1e-7 relative)" : "ERROR: a sum is off");
    return ok ? 0 : 1;
}
