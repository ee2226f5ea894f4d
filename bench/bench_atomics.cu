/* bench/bench_atomics.cu - throughput of warpred's atomics against the plain alternatives, in
   G updates/s (updates / median kernel time). Values are generated in the kernel from the
   thread index (a hash for "random", the index itself for "ascending"), so no input is read.
   Usage: bench_atomics [csv path]   (run by `make bench`) */
#include <warpred/atomic_aggregate.cuh>
#include <warpred/atomic_minmax.cuh>
#include "bench_util.h"

enum { THREADS = 256 };
static const size_t N = (size_t)1 << 24; /* updates per run */

/* random: uniform in [-1, 1); ascending: the thread index */
__device__ __forceinline__ float bench_value(size_t i, int ascending)
{
    return ascending ? (float)i : (float)(bench_hash((unsigned)i) >> 8) * 0x1p-23f - 1.0f;
}

__global__ void k_add_plain(float *sum, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, bench_value(i, 0));
}

__global__ void k_add_agg(float *sum, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) warpred_atomic_add_agg(sum, bench_value(i, 0));
}

/* The usual float atomicMax: a compare-and-swap loop that writes on every call. */
__device__ float cas_max_always_writes(float *p, float v)
{
    int *w = (int *)p, old = *w, assumed;
    do {
        assumed = old;
        old = atomicCAS(w, assumed, __float_as_int(fmaxf(v, __int_as_float(assumed))));
    } while (assumed != old);
    return __int_as_float(old);
}

enum { MAX_WARPRED, MAX_WARPRED_CAS_ONLY, MAX_CAS_ALWAYS };

__global__ void k_max(float *m, size_t n, int ascending, int variant)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = bench_value(i, ascending);
    if (variant == MAX_WARPRED) warpred_atomic_fmaximum(m, v);
    else if (variant == MAX_WARPRED_CAS_ONLY) warpred__atomic_minmax_cas<float, true, false>(m, v);
    else cas_max_always_writes(m, v);
}

/* Increment with the slot used (stream compaction); divergent: about half of the lanes call. */
__global__ void k_inc(unsigned *ctr, unsigned *slot, size_t n, int divergent, int agg)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n || (divergent && (bench_hash((unsigned)i) & 1))) return;
    slot[i] = agg ? warpred_atomic_inc_agg(ctr) : atomicAdd(ctr, 1u);
}

__global__ void k_hist(unsigned *hist, unsigned bins, size_t n, int agg)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned *bin = &hist[bench_hash((unsigned)i * 2654435761u) % bins];
    if (agg) warpred_atomic_inc_agg(bin);
    else atomicAdd(bin, 1u);
}

__global__ void k_set(float *p, float v) { *p = v; }

typedef struct {
    int kind, variant, ascending, divergent;
    unsigned bins;
    float *f;
    unsigned *u, *slot;
} run_ctx;

enum { RUN_ADD, RUN_MAX, RUN_INC, RUN_HIST };

static void run_once(void *p)
{
    run_ctx *c = (run_ctx *)p;
    const unsigned blocks = (unsigned)((N + THREADS - 1) / THREADS);
    switch (c->kind) {
    case RUN_ADD:
        if (c->variant) k_add_agg<<<blocks, THREADS>>>(c->f, N);
        else k_add_plain<<<blocks, THREADS>>>(c->f, N);
        break;
    case RUN_MAX:
        k_set<<<1, 1>>>(c->f, -INFINITY); /* every run starts from scratch: ~2 us of 100s */
        k_max<<<blocks, THREADS>>>(c->f, N, c->ascending, c->variant);
        break;
    case RUN_INC:
        k_inc<<<blocks, THREADS>>>(c->u, c->slot, N, c->divergent, c->variant);
        break;
    default:
        k_hist<<<blocks, THREADS>>>(c->u, c->bins, N, c->variant);
    }
}

static float gups(run_ctx *c)
{
    float ms = bench_median_ms(run_once, c, 2, 9);
    return (float)(N / (ms * 1e-3) / 1e9);
}

static void row(FILE *csv, const char *what, const char *base_name, float base, float ours)
{
    printf("| %-44s | %-26s %8.3g | %8.3g | %7.3gx |\n", what, base_name, base, ours, ours / base);
    fprintf(csv, "atomics,\"%s\",\"%s\",%zu,,%.4f,G updates/s\n", what, base_name, N, base);
    fprintf(csv, "atomics,\"%s\",warpred,%zu,,%.4f,G updates/s\n", what, N, ours);
}

int main(int argc, char **argv)
{
    FILE *csv = bench_csv_open(argc > 1 ? argv[1] : "bench_atomics.csv");
    cudaDeviceProp prop;
    BCHECK(cudaGetDeviceProperties(&prop, 0));
    printf("atomics on %s, %zu updates per run, median of 9 after 2 warm-ups, G updates/s\n\n", prop.name, N);
    run_ctx c;
    memset(&c, 0, sizeof c);
    BCHECK(cudaMalloc(&c.f, sizeof(float)));
    BCHECK(cudaMalloc(&c.u, 65536 * sizeof(unsigned)));
    BCHECK(cudaMalloc(&c.slot, N * sizeof(unsigned)));
    BCHECK(cudaMemset(c.f, 0, sizeof(float)));
    BCHECK(cudaMemset(c.u, 0, 65536 * sizeof(unsigned)));

    printf("| %-44s | %-26s %8s | %8s | %7s |\n", "operation (one address unless stated)", "baseline", "G/s", "warpred",
           "speedup");
    printf("|%.46s|%.37s|%.10s|%.9s|\n", "----------------------------------------------",
           "-------------------------------------", "----------", "---------");
    float base, ours;
    c.kind = RUN_ADD;
    c.variant = 0; base = gups(&c);
    c.variant = 1; ours = gups(&c);
    row(csv, "float add, random values", "plain atomicAdd", base, ours);

    c.kind = RUN_MAX;
    for (c.ascending = 0; c.ascending < 2; c.ascending++) {
        const char *what = c.ascending ? "float max, ascending values" : "float max, random values";
        c.variant = MAX_CAS_ALWAYS; base = gups(&c);
        c.variant = MAX_WARPRED; ours = gups(&c);
        row(csv, what, "CAS loop, always writes", base, ours);
        c.variant = MAX_WARPRED_CAS_ONLY; float cas_only = gups(&c);
        printf("|   (warpred's CAS path alone: early exit, no integer atomics)                  | %8.3g |         |\n", cas_only);
        fprintf(csv, "atomics,\"%s\",warpred CAS path only,%zu,,%.4f,G updates/s\n", what, N, cas_only);
    }

    c.kind = RUN_INC;
    for (c.divergent = 0; c.divergent < 2; c.divergent++) {
        c.variant = 0; base = gups(&c);
        c.variant = 1; ours = gups(&c);
        row(csv, c.divergent ? "increment, slot used, half the lanes call" : "increment, slot used, all lanes",
            "plain atomicAdd(p, 1)", base, ours);
    }

    c.kind = RUN_HIST;
    const unsigned bins[] = {8, 256};
    for (int b = 0; b < 2; b++) {
        char what[64];
        c.bins = bins[b];
        snprintf(what, sizeof what, "histogram, %u bins, uniform", bins[b]);
        c.variant = 0; base = gups(&c);
        c.variant = 1; ours = gups(&c);
        row(csv, what, "plain atomicAdd(bin, 1)", base, ours);
    }
    BCHECK(cudaFree(c.f));
    BCHECK(cudaFree(c.u));
    BCHECK(cudaFree(c.slot));
    fclose(csv);
    return 0;
}
