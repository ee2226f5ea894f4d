/* bench/bench_util.h - timing helpers shared by the benchmarks (host side, C idiom).
   Every figure is the median of `reps` runs timed with CUDA events, after `warmup` untimed
   runs. A run is a callback that enqueues work on the default stream. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#define BCHECK(call)                                                                              \
    do {                                                                                          \
        cudaError_t err_ = (call);                                                                \
        if (err_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

typedef void (*bench_fn)(void *ctx);

static int bench_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Median time of one run of fn, in milliseconds. */
static inline float bench_median_ms(bench_fn fn, void *ctx, int warmup, int reps)
{
    cudaEvent_t start, stop;
    float *t = (float *)malloc(reps * sizeof(float)), median;
    BCHECK(cudaEventCreate(&start));
    BCHECK(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; i++) fn(ctx);
    BCHECK(cudaGetLastError());
    BCHECK(cudaDeviceSynchronize());
    for (int i = 0; i < reps; i++) {
        BCHECK(cudaEventRecord(start));
        fn(ctx);
        BCHECK(cudaEventRecord(stop));
        BCHECK(cudaEventSynchronize(stop));
        BCHECK(cudaGetLastError());
        BCHECK(cudaEventElapsedTime(&t[i], start, stop));
    }
    qsort(t, reps, sizeof(float), bench_cmp_float);
    median = t[reps / 2];
    BCHECK(cudaEventDestroy(start));
    BCHECK(cudaEventDestroy(stop));
    free(t);
    return median;
}

/* Median time of one run of fn when runs are back to back: a batch of `batch` runs is timed
   as one, `reps` times, and the median batch time is divided by `batch`. Use for runs that
   last microseconds, where the event resolution and launch gaps would dominate. */
static inline float bench_median_batched_ms(bench_fn fn, void *ctx, int batch, int reps)
{
    cudaEvent_t start, stop;
    float *t = (float *)malloc(reps * sizeof(float)), median;
    BCHECK(cudaEventCreate(&start));
    BCHECK(cudaEventCreate(&stop));
    for (int i = 0; i < batch; i++) fn(ctx);
    BCHECK(cudaGetLastError());
    BCHECK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; r++) {
        BCHECK(cudaEventRecord(start));
        for (int i = 0; i < batch; i++) fn(ctx);
        BCHECK(cudaEventRecord(stop));
        BCHECK(cudaEventSynchronize(stop));
        BCHECK(cudaGetLastError());
        BCHECK(cudaEventElapsedTime(&t[r], start, stop));
    }
    qsort(t, reps, sizeof(float), bench_cmp_float);
    median = t[reps / 2] / batch;
    BCHECK(cudaEventDestroy(start));
    BCHECK(cudaEventDestroy(stop));
    free(t);
    return median;
}

/* A CSV file the benchmarks append rows to: bench,case,variant,n,time_us,value,unit */
static FILE *bench_csv_open(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fprintf(f, "bench,case,variant,n,time_us,value,unit\n");
    return f;
}

#endif /* BENCH_UTIL_H */
