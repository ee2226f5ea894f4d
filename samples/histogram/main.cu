/* samples/histogram - a 256-bin histogram of 8-bit pixels when a few bins are hot.

   In real images most pixels often share a few values (a white background, a black border,
   saturated highlights). Every pixel of such a bin atomically increments the same counter,
   and same-address atomics are serialized: the hot bins set the speed. Compared here:

     plain atomics         atomicAdd(&hist[bin], 1) in global memory, one per pixel
     warpred aggregated    warpred_atomic_inc_agg(&hist[bin]): lanes of a warp with the same bin
                           form a group and issue one atomic for the group
     per-block bins        a shared-memory histogram per block (fast on-chip atomics), merged
                           into global memory once per block; with plain shared atomics and
                           with warpred_atomic_inc_agg on the shared bins
   and a weighted histogram (each pixel adds a weight to its bin, 64-bit sums) with plain
   atomicAdd against warpred_atomic_add_agg.

   Three inputs: uniform pixels, a skewed image-like mix (80% in four hot bins) and a single
   value everywhere (the worst case). Every histogram is checked exactly against the CPU's.

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. samples/histogram/main.cu -o histogram && ./histogram
   WARPRED_SAMPLE_QUICK=1 uses small sizes (for make test and the sanitizers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <warpred/atomic_aggregate.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_quick, su_malloc, su_timer, su_random, ... */

enum { BLOCK = 256, BINS = 256 };

#define FOR_EACH_PIXEL(i) \
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK)

/* ---- counts in global memory ---- */

__global__ void hist_plain(const unsigned char *px, size_t n, unsigned *hist)
{
    FOR_EACH_PIXEL(i) atomicAdd(&hist[px[i]], 1u);
}

__global__ void hist_warpred(const unsigned char *px, size_t n, unsigned *hist)
{
    FOR_EACH_PIXEL(i) warpred_atomic_inc_agg(&hist[px[i]]);
}

/* ---- counts in per-block shared bins, then one global atomic per non-empty bin per block ---- */

template <bool Aggregate> __global__ void hist_block_bins(const unsigned char *px, size_t n, unsigned *hist)
{
    __shared__ unsigned bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += BLOCK) bins[b] = 0;
    __syncthreads();
    FOR_EACH_PIXEL(i)
    {
        if (Aggregate) warpred_atomic_inc_agg(&bins[px[i]]);
        else
            atomicAdd(&bins[px[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += BLOCK)
        if (bins[b]) atomicAdd(&hist[b], bins[b]);
}

/* ---- weighted: each pixel adds its weight to its bin (64-bit, so that no bin overflows) ---- */

/* A weight of 1..1000 per pixel, from its index. */
__device__ __forceinline__ unsigned long long weight_of(size_t i)
{
    return 1 + (((unsigned)i * 2654435761u) >> 7) % 1000;
}

__global__ void weighted_plain(const unsigned char *px, size_t n, unsigned long long *hist)
{
    FOR_EACH_PIXEL(i) atomicAdd(&hist[px[i]], weight_of(i));
}

__global__ void weighted_warpred(const unsigned char *px, size_t n, unsigned long long *hist)
{
    FOR_EACH_PIXEL(i) warpred_atomic_add_agg(&hist[px[i]], weight_of(i));
}

/* ------------------------------------------ host ------------------------------------------ */

typedef struct job {
    const unsigned char *px;
    size_t n;
    unsigned *hist;               /* counts */
    unsigned long long *weighted; /* weighted sums */
    unsigned blocks;
} job;

static void run_plain(const job *j)
{
    CHECK(cudaMemsetAsync(j->hist, 0, BINS * sizeof(unsigned)));
    hist_plain<<<j->blocks, BLOCK>>>(j->px, j->n, j->hist);
    CHECK(cudaGetLastError());
}
static void run_warpred(const job *j)
{
    CHECK(cudaMemsetAsync(j->hist, 0, BINS * sizeof(unsigned)));
    hist_warpred<<<j->blocks, BLOCK>>>(j->px, j->n, j->hist);
    CHECK(cudaGetLastError());
}
static void run_block_plain(const job *j)
{
    CHECK(cudaMemsetAsync(j->hist, 0, BINS * sizeof(unsigned)));
    hist_block_bins<false><<<j->blocks, BLOCK>>>(j->px, j->n, j->hist);
    CHECK(cudaGetLastError());
}
static void run_block_warpred(const job *j)
{
    CHECK(cudaMemsetAsync(j->hist, 0, BINS * sizeof(unsigned)));
    hist_block_bins<true><<<j->blocks, BLOCK>>>(j->px, j->n, j->hist);
    CHECK(cudaGetLastError());
}
static void run_weighted_plain(const job *j)
{
    CHECK(cudaMemsetAsync(j->weighted, 0, BINS * sizeof(unsigned long long)));
    weighted_plain<<<j->blocks, BLOCK>>>(j->px, j->n, j->weighted);
    CHECK(cudaGetLastError());
}
static void run_weighted_warpred(const job *j)
{
    CHECK(cudaMemsetAsync(j->weighted, 0, BINS * sizeof(unsigned long long)));
    weighted_warpred<<<j->blocks, BLOCK>>>(j->px, j->n, j->weighted);
    CHECK(cudaGetLastError());
}

typedef void (*hist_fn)(const job *);
typedef struct method {
    const char *name;
    hist_fn run;
    int weighted;
} method;
static const method methods[] = {
    {"global, plain atomicAdd", run_plain, 0},
    {"global, warpred_atomic_inc_agg", run_warpred, 0},
    {"block bins, plain atomicAdd", run_block_plain, 0},
    {"block bins, warpred_atomic_inc_agg", run_block_warpred, 0},
    {"weighted, plain atomicAdd", run_weighted_plain, 1},
    {"weighted, warpred_atomic_add_agg", run_weighted_warpred, 1},
};
enum { NMETHODS = sizeof methods / sizeof methods[0] };

/* The same weight as the device's weight_of: 1..1000. */
static unsigned long long host_weight_of(size_t i) { return 1 + (((unsigned)i * 2654435761u) >> 7) % 1000; }

static unsigned long long rng_state = 1; /* su_random's state: the same pixels on every run */

enum { UNIFORM, SKEWED, ONE_VALUE, NINPUTS };
static const char *input_names[NINPUTS] = {"uniform", "skewed: 80% in 4 bins", "one value"};

static void make_pixels(unsigned char *px, size_t n, int kind)
{
    static const unsigned char hot[4] = {0, 255, 128, 17};
    for (size_t i = 0; i < n; i++) {
        const unsigned r = su_random(&rng_state);
        if (kind == UNIFORM) px[i] = (unsigned char)(r & 255);
        else if (kind == SKEWED)
            px[i] = (r % 100) < 80 ? hot[(r >> 8) & 3] : (unsigned char)((r >> 10) & 255);
        else
            px[i] = 42;
    }
}

/* Runs one method once and compares its bins with the CPU's; returns 1 when all 256 match. */
static int check_method(const method *m, const job *j, const unsigned *want_counts,
                        const unsigned long long *want_weighted)
{
    unsigned counts[BINS];
    unsigned long long sums[BINS];
    if (m->weighted) CHECK(cudaMemset(j->weighted, 0xff, sizeof sums)); /* poison: the run must reset them */
    else
        CHECK(cudaMemset(j->hist, 0xff, sizeof counts));
    m->run(j);
    if (m->weighted) CHECK(cudaMemcpy(sums, j->weighted, sizeof sums, cudaMemcpyDeviceToHost));
    else
        CHECK(cudaMemcpy(counts, j->hist, sizeof counts, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BINS; b++) {
        const int same = m->weighted ? sums[b] == want_weighted[b] : counts[b] == want_counts[b];
        if (!same) {
            printf("  %s: bin %d is %llu, the CPU counts %llu\n", m->name, b,
                   m->weighted ? sums[b] : (unsigned long long)counts[b],
                   m->weighted ? want_weighted[b] : (unsigned long long)want_counts[b]);
            return 0;
        }
    }
    return 1;
}

int main(void)
{
    const cudaDeviceProp prop = su_require_gpu("histogram");
    const int quick = su_quick(), warmups = su_warmups(quick), runs = su_runs(quick);
    const size_t n = quick ? 20011 : ((size_t)1 << 25) + 7;

    unsigned char *h_px = (unsigned char *)su_malloc(n);
    job j;
    unsigned char *d_px;
    CHECK(cudaMalloc(&d_px, n));
    CHECK(cudaMalloc(&j.hist, BINS * sizeof(unsigned)));
    CHECK(cudaMalloc(&j.weighted, BINS * sizeof(unsigned long long)));
    j.px = d_px;
    j.n = n;
    j.blocks = su_wave_blocks(&prop, BLOCK);

    printf("256-bin histograms of %zu pixels on %s, %u blocks of %d, median of %d runs\n", n, prop.name, j.blocks,
           BLOCK, runs);
    int ok = 1;
    for (int kind = 0; kind < NINPUTS; kind++) {
        make_pixels(h_px, n, kind);
        CHECK(cudaMemcpy(d_px, h_px, n, cudaMemcpyHostToDevice));
        unsigned want_counts[BINS] = {0};
        unsigned long long want_weighted[BINS] = {0};
        for (size_t i = 0; i < n; i++) {
            want_counts[h_px[i]]++;
            want_weighted[h_px[i]] += host_weight_of(i);
        }
        printf("\ninput: %s\n%-38s %10s %12s %8s  %s\n", input_names[kind], "method", "time us", "G pixels/s",
               "vs plain", "check");
        double plain_us[2] = {0, 0};
        for (int m = 0; m < NMETHODS; m++) {
            const int right = check_method(&methods[m], &j, want_counts, want_weighted);
            ok &= right;
            su_timer t = su_timer_create(warmups, runs);
            while (su_timer_next(&t)) methods[m].run(&j);
            const double us = su_timer_median_us(&t);
            if (m == 0) plain_us[0] = us;
            if (methods[m].weighted && plain_us[1] == 0) plain_us[1] = us;
            printf("%-38s %10.1f %12.2f %7.1fx  %s\n", methods[m].name, us, n / (us * 1e3),
                   plain_us[methods[m].weighted] / us, right ? "exact" : "WRONG");
        }
    }

    CHECK(cudaFree(d_px));
    CHECK(cudaFree(j.hist));
    CHECK(cudaFree(j.weighted));
    free(h_px);
    printf("\n%s\n", ok ? "every histogram matched the CPU's exactly" : "ERROR: a histogram is wrong");
    return ok ? 0 : 1;
}
