/* samples/segmented_sums - sums per key inside a warp, when equal keys are scattered over the lanes.

   A group-by ("sum the values of each key") over a large array ends in one atomic add per
   element into a table of per-key sums. When a few keys are hot, many lanes of a warp hold the
   same key and their atomics to one address are serialized. warpred_warp_reduce_by_key sums
   the values of the lanes that hold equal keys, wherever they sit in the warp (keys need not
   be contiguous or sorted), so that one lane per distinct key issues the atomic.

   Part 1 shows one warp: each lane's key, value, and what warpred_warp_allreduce_by_key
   returns to it (its group's sum, in every lane of the group).
   Part 2 times a group-by over 2^24 elements with a few hot keys and with uniform keys:
     plain atomics          atomicAdd(&sums[key], v) per element
     reduce_by_key          warpred_warp_reduce_by_key, then one atomicAdd per group, by the
                            group's lowest lane (warpred_warp_key_group says which lanes)
     atomic_add_agg         warpred_atomic_add_agg(&sums[key], v): the same grouping, done by
                            the atomic helper itself (by address rather than by key)
   Values are small integers stored as floats, and every key's total stays below 2^24, so every
   float addition is exact in any order: each table must equal the CPU's exactly.

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. samples/segmented_sums/main.cu -o segmented_sums && ./segmented_sums
   WARPRED_SAMPLE_QUICK=1 uses small sizes (for make test and the sanitizers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <warpred/warp_segmented.cuh>
#include <warpred/atomic_aggregate.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_quick, su_malloc, su_timer, su_random, ... */

enum { BLOCK = 256, NKEYS = 4096, NO_KEY = -1 };

/* ---------------------------------------- part 1 ---------------------------------------- */

/* One warp: every lane gets the sum of the values of the lanes that hold its key, and the mask
   of those lanes. */
__global__ void one_warp(const int *keys, const float *vals, float *group_sums, unsigned *groups)
{
    const int lane = threadIdx.x;
    group_sums[lane] = warpred_warp_allreduce_by_key(vals[lane], keys[lane], warpred_op_sum());
    groups[lane] = warpred_warp_key_group(keys[lane]);
}

/* ---------------------------------------- part 2 ---------------------------------------- */

/* The three group-by kernels walk the array a warp-width at a time with a loop whose trip count
   is the same for all 32 lanes of a warp (base is the warp's first element), so the whole warp
   is converged at every call; lanes past the end take a key no element has (NO_KEY) and skip
   the atomic. */
__global__ void groupby_plain(const int *keys, const float *vals, size_t n, float *sums)
{
    const size_t lane = threadIdx.x % 32, stride = (size_t)gridDim.x * BLOCK;
    for (size_t base = (size_t)blockIdx.x * BLOCK + threadIdx.x - lane; base < n; base += stride) {
        const size_t i = base + lane;
        if (i < n) atomicAdd(&sums[keys[i]], vals[i]);
    }
}

__global__ void groupby_reduce_by_key(const int *keys, const float *vals, size_t n, float *sums)
{
    const size_t lane = threadIdx.x % 32, stride = (size_t)gridDim.x * BLOCK;
    for (size_t base = (size_t)blockIdx.x * BLOCK + threadIdx.x - lane; base < n; base += stride) {
        const size_t i = base + lane;
        const bool valid = i < n;
        const int key = valid ? keys[i] : NO_KEY;
        const float v = valid ? vals[i] : 0.0f;
        /* the sum of the lanes holding `key`, in the lowest of them */
        const float group_sum = warpred_warp_reduce_by_key(v, key, warpred_op_sum());
        const unsigned group = warpred_warp_key_group(key);
        if (valid && lane == (size_t)(__ffs(group) - 1)) atomicAdd(&sums[key], group_sum);
    }
}

__global__ void groupby_atomic_add_agg(const int *keys, const float *vals, size_t n, float *sums)
{
    const size_t lane = threadIdx.x % 32, stride = (size_t)gridDim.x * BLOCK;
    for (size_t base = (size_t)blockIdx.x * BLOCK + threadIdx.x - lane; base < n; base += stride) {
        const size_t i = base + lane;
        if (i < n) warpred_atomic_add_agg(&sums[keys[i]], vals[i]);
    }
}

/* ------------------------------------------ host ------------------------------------------ */

typedef void (*groupby_kernel)(const int *, const float *, size_t, float *);
typedef struct method {
    const char *name;
    groupby_kernel kernel;
} method;
static const method methods[] = {
    {"plain atomicAdd per element", groupby_plain},
    {"warpred_warp_reduce_by_key + atomic", groupby_reduce_by_key},
    {"warpred_atomic_add_agg", groupby_atomic_add_agg},
};
enum { NMETHODS = sizeof methods / sizeof methods[0] };

static unsigned long long rng_state = 0x452821e638d01377ull; /* su_random's state: the same keys on every run */

/* Part 1: keys drawn from {3, 7, 11, 42} so that equal keys are scattered over the warp. */
static int part1(void)
{
    static const int choices[4] = {3, 7, 11, 42};
    int keys[32];
    float vals[32], got[32];
    unsigned groups[32];
    for (int l = 0; l < 32; l++) {
        keys[l] = choices[su_random(&rng_state) % 4];
        vals[l] = (float)(1 + su_random(&rng_state) % 9);
    }
    int *d_keys;
    float *d_vals, *d_sums;
    unsigned *d_groups;
    CHECK(cudaMalloc(&d_keys, sizeof keys));
    CHECK(cudaMalloc(&d_vals, sizeof vals));
    CHECK(cudaMalloc(&d_sums, sizeof got));
    CHECK(cudaMalloc(&d_groups, sizeof groups));
    CHECK(cudaMemcpy(d_keys, keys, sizeof keys, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_vals, vals, sizeof vals, cudaMemcpyHostToDevice));
    one_warp<<<1, 32>>>(d_keys, d_vals, d_sums, d_groups);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d_sums, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(groups, d_groups, sizeof groups, cudaMemcpyDeviceToHost));

    int ok = 1;
    printf("Part 1: one warp, warpred_warp_allreduce_by_key(value, key, warpred_op_sum())\n\n");
    printf("%-10s", "lane");
    for (int l = 0; l < 32; l++) printf("%4d", l);
    printf("\n%-10s", "key");
    for (int l = 0; l < 32; l++) printf("%4d", keys[l]);
    printf("\n%-10s", "value");
    for (int l = 0; l < 32; l++) printf("%4.0f", vals[l]);
    printf("\n%-10s", "group sum");
    for (int l = 0; l < 32; l++) printf("%4.0f", got[l]);
    printf("\n");
    for (int l = 0; l < 32; l++) {
        float want = 0;
        unsigned want_group = 0;
        for (int m = 0; m < 32; m++)
            if (keys[m] == keys[l]) {
                want += vals[m];
                want_group |= 1u << m;
            }
        if (got[l] != want || groups[l] != want_group) {
            printf("  lane %d: sum %.0f (CPU %.0f), group %08x (CPU %08x): WRONG\n", l, got[l], want, groups[l],
                   want_group);
            ok = 0;
        }
    }
    for (int c = 0; c < 4; c++)
        for (int l = 0; l < 32; l++)
            if (keys[l] == choices[c]) {
                printf("  key %2d: lanes %08x (warpred_warp_key_group), sum %.0f\n", choices[c], groups[l], got[l]);
                break;
            }
    CHECK(cudaFree(d_keys));
    CHECK(cudaFree(d_vals));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFree(d_groups));
    return ok;
}

enum { HOT_KEYS, UNIFORM_KEYS, NINPUTS };
static const char *input_names[NINPUTS] = {"8 hot keys hold 60% of the elements", "uniform over 4096 keys"};

/* Hot keys are spread over the key space (k * 509 % 4096), so they are not neighbours either. */
static void make_input(int *keys, float *vals, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned r = su_random(&rng_state);
        if (kind == HOT_KEYS && r % 100 < 60) keys[i] = (int)((r >> 8) % 8 * 509 % NKEYS);
        else
            keys[i] = (int)((r >> 8) % NKEYS);
        vals[i] = (float)(su_random(&rng_state) % 3); /* 0, 1 or 2 */
    }
}

/* The median time of one group-by, clearing the table included (CUDA events). */
static double median_us(groupby_kernel k, const int *keys, const float *vals, size_t n, float *sums, unsigned blocks,
                        int warmups, int runs)
{
    su_timer t = su_timer_create(warmups, runs);
    while (su_timer_next(&t)) {
        CHECK(cudaMemsetAsync(sums, 0, NKEYS * sizeof(float)));
        k<<<blocks, BLOCK>>>(keys, vals, n, sums);
        CHECK(cudaGetLastError());
    }
    return su_timer_median_us(&t);
}

static int part2(size_t n, unsigned blocks, int warmups, int runs)
{
    int *h_keys = (int *)su_malloc(n * sizeof(int));
    float *h_vals = (float *)su_malloc(n * sizeof(float));
    int *d_keys;
    float *d_vals, *d_sums;
    CHECK(cudaMalloc(&d_keys, n * sizeof(int)));
    CHECK(cudaMalloc(&d_vals, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, NKEYS * sizeof(float)));

    printf("\nPart 2: sum per key of %zu values into a table of %d keys, %u blocks of %d, median of %d runs\n", n,
           NKEYS, blocks, BLOCK, runs);
    int ok = 1;
    for (int kind = 0; kind < NINPUTS; kind++) {
        make_input(h_keys, h_vals, n, kind);
        long long want[NKEYS] = {0};
        long long top = 0;
        for (size_t i = 0; i < n; i++) want[h_keys[i]] += (long long)h_vals[i];
        for (int k = 0; k < NKEYS; k++) top = want[k] > top ? want[k] : top;
        if (top >= (1 << 24)) {
            fprintf(stderr, "a key's total reaches 2^24: float sums would not be exact\n");
            exit(1);
        }
        CHECK(cudaMemcpy(d_keys, h_keys, n * sizeof(int), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(d_vals, h_vals, n * sizeof(float), cudaMemcpyHostToDevice));
        printf("\nkeys: %s\n%-38s %10s %14s %9s  %s\n", input_names[kind], "method", "time us", "G elements/s",
               "vs plain", "check");
        double plain_us = 0;
        for (int m = 0; m < NMETHODS; m++) {
            float got[NKEYS];
            CHECK(cudaMemset(d_sums, 0, sizeof got));
            methods[m].kernel<<<blocks, BLOCK>>>(d_keys, d_vals, n, d_sums);
            CHECK(cudaGetLastError());
            CHECK(cudaMemcpy(got, d_sums, sizeof got, cudaMemcpyDeviceToHost));
            int right = 1;
            for (int k = 0; k < NKEYS && right; k++)
                if (got[k] != (float)want[k]) {
                    printf("  %s: key %d sums to %.1f, the CPU to %lld\n", methods[m].name, k, got[k], want[k]);
                    right = 0;
                }
            ok &= right;
            const double us = median_us(methods[m].kernel, d_keys, d_vals, n, d_sums, blocks, warmups, runs);
            if (m == 0) plain_us = us;
            printf("%-38s %10.1f %14.2f %8.1fx  %s\n", methods[m].name, us, n / (us * 1e3), plain_us / us,
                   right ? "exact" : "WRONG");
        }
    }
    CHECK(cudaFree(d_keys));
    CHECK(cudaFree(d_vals));
    CHECK(cudaFree(d_sums));
    free(h_keys);
    free(h_vals);
    return ok;
}

int main(void)
{
    const cudaDeviceProp prop = su_require_gpu("segmented_sums");
    const int quick = su_quick(), warmups = su_warmups(quick), runs = su_runs(quick);
    const unsigned wave_blocks = su_wave_blocks(&prop, BLOCK);
    printf("segmented sums on %s\n\n", prop.name);

    int ok = part1();
    ok &= part2(quick ? 20011 : ((size_t)1 << 24) + 5, quick ? 16 : wave_blocks, warmups, runs);
    printf("\n%s\n", ok ? "every group sum and every key total matched the CPU exactly" : "ERROR: a sum is wrong");
    return ok ? 0 : 1;
}
