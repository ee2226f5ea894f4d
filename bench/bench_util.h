/* bench/bench_util.h - timing helpers shared by the benchmarks (host side, C idiom).
   Every figure is the median of `reps` runs timed with CUDA events, after `warmup` untimed
   runs. A run is a callback that enqueues work on the default stream. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#define BCHECK(call)                                                                                 \
    do {                                                                                             \
        cudaError_t err_ = (call);                                                                   \
        if (err_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

typedef void (*bench_fn)(void *ctx);

/* A cheap integer hash, for inputs generated on the fly (host and device agree). */
__host__ __device__ __forceinline__ unsigned bench_hash(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

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

/* Median time of one run of each of `count` functions, timed call by call with the functions
   taking turns (f0, f1, ..., f0, f1, ...), so that drift in clocks or temperature during the
   measurement affects all of them alike. Results in ms_out[count]. */
static inline void bench_interleaved_median_ms(bench_fn *fns, void **ctxs, int count, int warmup, int reps,
                                               float *ms_out)
{
    cudaEvent_t start, stop;
    float *t = (float *)malloc((size_t)count * reps * sizeof(float));
    BCHECK(cudaEventCreate(&start));
    BCHECK(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; i++)
        for (int f = 0; f < count; f++) fns[f](ctxs[f]);
    BCHECK(cudaGetLastError());
    BCHECK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; r++)
        for (int f = 0; f < count; f++) {
            BCHECK(cudaEventRecord(start));
            fns[f](ctxs[f]);
            BCHECK(cudaEventRecord(stop));
            BCHECK(cudaEventSynchronize(stop));
            BCHECK(cudaGetLastError());
            BCHECK(cudaEventElapsedTime(&t[f * reps + r], start, stop));
        }
    for (int f = 0; f < count; f++) {
        qsort(t + f * reps, reps, sizeof(float), bench_cmp_float);
        ms_out[f] = t[f * reps + reps / 2];
    }
    BCHECK(cudaEventDestroy(start));
    BCHECK(cudaEventDestroy(stop));
    free(t);
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
