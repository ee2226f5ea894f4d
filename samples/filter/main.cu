/* samples/filter - stream compaction: copy the elements above a threshold into a dense output.

   Each thread that keeps an element needs its own output slot. The simplest way is one atomic
   increment of a shared counter per kept element; warpred_atomic_inc_agg gives every calling
   lane exactly the slot its own atomicAdd(count, 1) would have given, but lets one lane per warp
   issue a single atomic for the whole warp. Compared here with plain atomicAdd and with
   cub::DeviceSelect::If (CUB ships with the CUDA toolkit), which is order-preserving and runs a
   decoupled-lookback scan instead of atomics.

   Check: the inputs are distinct (see make_input), so the kept set is checked exactly with a
   bitmap: every output value must be above the threshold and appear once, and the count must
   match the CPU's. CUB must also keep the input order.

   Build and run alone, from the repository root (CUB needs nothing but the toolkit):
       nvcc -std=c++17 -O2 -I. samples/filter/main.cu -o filter && ./filter
   WARPRED_SAMPLE_QUICK=1 uses small sizes (for make test and the sanitizers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cub/device/device_select.cuh>
#include <warpred/atomic_aggregate.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_quick, su_malloc, su_timer, ... */

enum { BLOCK = 256 };

/* warpred: the kept lanes of a warp share one atomic; each still gets its own slot. */
__global__ void filter_warpred(const float *in, size_t n, float threshold, float *out, unsigned *count)
{
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK) {
        const float x = in[i];
        if (x > threshold) out[warpred_atomic_inc_agg(count)] = x;
    }
}

/* Plain: one atomicAdd per kept element. (nvcc can aggregate an integer atomicAdd on an address
   it proves warp-uniform by itself, as here; the table shows what that leaves.) */
__global__ void filter_plain(const float *in, size_t n, float threshold, float *out, unsigned *count)
{
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK) {
        const float x = in[i];
        if (x > threshold) out[atomicAdd(count, 1u)] = x;
    }
}

struct above {
    float threshold;
    __device__ bool operator()(const float &x) const { return x > threshold; }
};

/* ------------------------------------------ host ------------------------------------------ */

typedef struct job {
    const float *in;
    size_t n;
    float threshold;
    float *out;
    unsigned *count;
    void *cub_temp;
    size_t cub_temp_bytes;
    unsigned blocks;
} job;

static void run_warpred(const job *j)
{
    CHECK(cudaMemsetAsync(j->count, 0, sizeof(unsigned)));
    filter_warpred<<<j->blocks, BLOCK>>>(j->in, j->n, j->threshold, j->out, j->count);
    CHECK(cudaGetLastError());
}
static void run_plain(const job *j)
{
    CHECK(cudaMemsetAsync(j->count, 0, sizeof(unsigned)));
    filter_plain<<<j->blocks, BLOCK>>>(j->in, j->n, j->threshold, j->out, j->count);
    CHECK(cudaGetLastError());
}
static void run_cub(const job *j)
{
    size_t bytes = j->cub_temp_bytes;
    const above op = {j->threshold};
    CHECK(cub::DeviceSelect::If(j->cub_temp, bytes, j->in, j->out, j->count, (long long)j->n, op));
}

typedef void (*filter_fn)(const job *);
typedef struct method {
    const char *name;
    filter_fn run;
    int keeps_order;
} method;
static const method methods[] = {
    {"warpred_atomic_inc_agg", run_warpred, 0},
    {"plain atomicAdd", run_plain, 0},
    {"cub::DeviceSelect::If", run_cub, 1},
};
enum { NMETHODS = sizeof methods / sizeof methods[0] };

/* Distinct inputs: x_i = k_i * 2^-24 where i -> k_i is a bijection of [0, 2^24) (odd multiply
   and xorshift, both invertible modulo 2^24). Every k below 2^24 is exact in float, so the n
   inputs are distinct floats in [0, 1), and a value identifies its element. */
static unsigned perm24(unsigned i)
{
    unsigned k = (i * 0x9e3779b1u) & 0xffffffu;
    k ^= k >> 12;
    k = (k * 0x2c1b3c6du) & 0xffffffu;
    k ^= k >> 11;
    return k;
}

static void make_input(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)perm24((unsigned)i) * (1.0f / 16777216.0f);
}

/* The kept set, exactly: count, each value above the threshold, no value twice; and, when the
   method promises it, the input order. */
static int check_output(const float *h_in, size_t n, float threshold, const float *got, unsigned got_count,
                        int keeps_order, unsigned char *seen)
{
    size_t want_count = 0;
    for (size_t i = 0; i < n; i++) want_count += h_in[i] > threshold;
    if (got_count != want_count) {
        printf("  kept %u elements, the CPU keeps %zu\n", got_count, want_count);
        return 0;
    }
    memset(seen, 0, (size_t)1 << 24);
    size_t next = 0; /* for the order check: the next kept input */
    for (unsigned j = 0; j < got_count; j++) {
        const float x = got[j];
        const float k = x * 16777216.0f;
        if (!(x > threshold) || !(k < 16777216.0f) || k != (float)(unsigned)k || seen[(unsigned)k]) {
            printf("  output %u (%.9g) is not a kept input, or appears twice\n", j, x);
            return 0;
        }
        seen[(unsigned)k] = 1;
        if (keeps_order) {
            while (next < n && !(h_in[next] > threshold)) next++;
            if (next >= n || h_in[next] != x) {
                printf("  output %u is out of input order\n", j);
                return 0;
            }
            next++;
        }
    }
    return 1; /* right count, all distinct, all kept inputs (the inputs are distinct too) */
}

int main(void)
{
    const cudaDeviceProp prop = su_require_gpu("filter");
    const int quick = su_quick(), warmups = su_warmups(quick), runs = su_runs(quick);
    const size_t n = quick ? 20011 : ((size_t)1 << 24) - 5; /* at most 2^24: the inputs stay distinct */
    const float thresholds[] = {0.99f, 0.9f, 0.5f};         /* keep 1%, 10%, 50% */
    const int nthresholds = sizeof thresholds / sizeof thresholds[0];

    float *h_in = (float *)su_malloc(n * sizeof(float)), *h_out = (float *)su_malloc(n * sizeof(float));
    unsigned char *seen = (unsigned char *)su_malloc((size_t)1 << 24);
    make_input(h_in, n);

    job j;
    float *d_in;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&j.out, n * sizeof(float)));
    CHECK(cudaMalloc(&j.count, sizeof(unsigned)));
    CHECK(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
    j.in = d_in;
    j.n = n;
    j.blocks = su_wave_blocks(&prop, BLOCK);
    j.cub_temp = NULL;
    j.cub_temp_bytes = 0;
    const above probe = {0.5f};
    CHECK(cub::DeviceSelect::If(NULL, j.cub_temp_bytes, j.in, j.out, j.count, (long long)n, probe));
    CHECK(cudaMalloc(&j.cub_temp, j.cub_temp_bytes));

    printf("stream compaction of %zu distinct floats in [0, 1) on %s, median of %d runs\n", n, prop.name, runs);
    printf("(GB/s counts the input read once and the kept elements written once)\n\n");
    printf("%-8s %-24s %10s %10s %8s  %s\n", "kept", "method", "time us", "GB/s", "count", "check");
    int ok = 1;
    for (int t = 0; t < nthresholds; t++) {
        j.threshold = thresholds[t];
        for (int m = 0; m < NMETHODS; m++) {
            unsigned count;
            CHECK(cudaMemset(j.out, 0xff, n * sizeof(float))); /* NaN: stray slots show */
            methods[m].run(&j);
            CHECK(cudaMemcpy(&count, j.count, sizeof count, cudaMemcpyDeviceToHost));
            const int this_ok = count <= n;
            if (this_ok) CHECK(cudaMemcpy(h_out, j.out, count * sizeof(float), cudaMemcpyDeviceToHost));
            const int right = this_ok && check_output(h_in, n, j.threshold, h_out, count, methods[m].keeps_order, seen);
            ok &= right;
            su_timer timer = su_timer_create(warmups, runs);
            while (su_timer_next(&timer)) methods[m].run(&j);
            const double us = su_timer_median_us(&timer);
            char kept[16];
            snprintf(kept, sizeof kept, "> %.2f", thresholds[t]);
            printf("%-8s %-24s %10.1f %10.0f %8u  %s\n", kept, methods[m].name, us,
                   ((double)n + count) * sizeof(float) / (us * 1e3), count,
                   right ? (methods[m].keeps_order ? "exact set, input order" : "exact set") : "WRONG");
        }
    }

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(j.out));
    CHECK(cudaFree(j.count));
    CHECK(cudaFree(j.cub_temp));
    free(h_in);
    free(h_out);
    free(seen);
    printf("\n%s\n", ok ? "every method kept exactly the right elements" : "ERROR: a method kept the wrong elements");
    return ok ? 0 : 1;
}
