/* bench/bench_atomics.cu - throughput of warpred's atomics against the plain alternatives, in
   G updates/s (updates / median kernel time). Values are generated in the kernel from the
   thread index (a hash for "random", the index itself for "ascending"), so no input is read.
   Float max has a table of its own: warpred against warpred 0.2.0's path (kept below as the
   baseline), a compare-and-swap loop, and experimental reads, the variants taking turns run by
   run; every run starts from -inf on a word no earlier run touched (set before the timing).
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

/* ---- float max ---- */

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

/* warpred 0.2.0's warpred_atomic_fmaximum(float *, float), kept as the baseline: each lane
   reads on its own (volatile) and returns when nothing would change; else one integer atomic on
   the bits, or the compare-and-swap loop for NaN. */
__device__ float fmaximum_v020(float *p, float v)
{
    const int x = *(const volatile int *)p, vb = __float_as_int(v);
    if (warpred__atomic_rule<float, true, false>(x, vb) == x) return __int_as_float(x);
    if (warpred__isnan_bits<float>(x) || warpred__isnan_bits<float>(vb))
        return warpred__atomic_minmax_cas<float, true, false>(p, v);
    return __int_as_float(vb >= 0 ? atomicMax((int *)p, vb) : (int)atomicMin((unsigned *)p, (unsigned)vb));
}

/* Other first reads for warpred's path (its Read parameter), measured as experiments.
   volatile: what warpred 0.2.0 and the first version of the combined path read with (system
   scope); warpred's default is a relaxed load at GPU scope.
   L1-cached: a weak load that may hit a stale copy in the SM's L1. Stored results stay exact
   (memory only moves up the order, so an argument that does not beat an old value does not
   beat memory either), but an early exit may then return a value older than the call. */
struct bench_read_volatile {
    template <typename S> static __device__ __forceinline__ S load(const S *p) { return *(const volatile S *)p; }
};
struct bench_read_l1 {
    static __device__ __forceinline__ int load(const int *p)
    {
        int r;
        asm volatile("ld.global.ca.b32 %0, [%1];" : "=r"(r) : "l"(__cvta_generic_to_global(p)) : "memory");
        return r;
    }
};

enum { MAX_CAS_ALWAYS, MAX_V020, MAX_WARPRED, MAX_VOLATILE_READ, MAX_L1_READ, MAX_CAS_ONLY, MAX_VARIANTS };
static const char *const max_variant_name[MAX_VARIANTS] = {"CAS loop, always writes",
                                                           "warpred 0.2.0 path",
                                                           "warpred",
                                                           "warpred, volatile read (combined path)",
                                                           "warpred, L1-cached read (experimental)",
                                                           "warpred CAS path only"};

enum { MAX_BINS = 256 }; /* the scattered case: addresses hashed over this many words */

template <int Variant> __device__ __forceinline__ void max_update(float *p, float v)
{
    if (Variant == MAX_CAS_ALWAYS) cas_max_always_writes(p, v);
    else if (Variant == MAX_V020)
        fmaximum_v020(p, v);
    else if (Variant == MAX_WARPRED)
        warpred_atomic_fmaximum(p, v);
    else if (Variant == MAX_VOLATILE_READ)
        warpred__atomic_minmax<float, true, false, bench_read_volatile>(p, v);
    else if (Variant == MAX_L1_READ)
        warpred__atomic_minmax<float, true, false, bench_read_l1>(p, v);
    else
        warpred__atomic_minmax_cas<float, true, false>(p, v);
}

/* words: MAX_BINS words at -inf; one address (words[0]) unless scattered */
template <int Variant, bool Scattered> __global__ void k_max(float *words, size_t n, int ascending)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float *p = Scattered ? &words[bench_hash((unsigned)i * 2654435761u) % MAX_BINS] : words;
    max_update<Variant>(p, bench_value(i, ascending));
}

__global__ void k_fill(float *p, size_t n, float v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = v;
}

/* Each run takes the next region of MAX_BINS words, all set to -inf before a measurement. */
enum { MAX_REGIONS = 128 };
typedef struct {
    float *regions;
    int next;
} max_words;

typedef struct {
    int variant, ascending, scattered;
    max_words *w;
} max_ctx;

template <int Variant> static void launch_max(float *words, int ascending, int scattered)
{
    const unsigned blocks = (unsigned)((N + THREADS - 1) / THREADS);
    if (scattered) k_max<Variant, true><<<blocks, THREADS>>>(words, N, ascending);
    else
        k_max<Variant, false><<<blocks, THREADS>>>(words, N, ascending);
}

static void run_max(void *p)
{
    max_ctx *c = (max_ctx *)p;
    float *words = c->w->regions + (size_t)(c->w->next++ % MAX_REGIONS) * MAX_BINS;
    switch (c->variant) {
    case MAX_CAS_ALWAYS: launch_max<MAX_CAS_ALWAYS>(words, c->ascending, c->scattered); break;
    case MAX_V020: launch_max<MAX_V020>(words, c->ascending, c->scattered); break;
    case MAX_WARPRED: launch_max<MAX_WARPRED>(words, c->ascending, c->scattered); break;
    case MAX_VOLATILE_READ: launch_max<MAX_VOLATILE_READ>(words, c->ascending, c->scattered); break;
    case MAX_L1_READ: launch_max<MAX_L1_READ>(words, c->ascending, c->scattered); break;
    default: launch_max<MAX_CAS_ONLY>(words, c->ascending, c->scattered);
    }
}

enum { MAX_WARMUP = 2, MAX_REPS = 9 };

/* G updates/s of `count` variants, interleaved run by run, each run on fresh words. */
static void measure_max(max_words *w, const int *variants, int count, int ascending, int scattered, float *gups_out)
{
    max_ctx ctx[MAX_VARIANTS];
    bench_fn fns[MAX_VARIANTS];
    void *ctxs[MAX_VARIANTS];
    float ms[MAX_VARIANTS];
    if ((MAX_WARMUP + MAX_REPS) * count > MAX_REGIONS) {
        fprintf(stderr, "bench_atomics: %d runs would reuse words (MAX_REGIONS %d)\n", (MAX_WARMUP + MAX_REPS) * count,
                MAX_REGIONS);
        exit(1);
    }
    k_fill<<<64, 256>>>(w->regions, (size_t)MAX_REGIONS * MAX_BINS, -INFINITY);
    BCHECK(cudaGetLastError());
    w->next = 0;
    for (int k = 0; k < count; k++) {
        ctx[k].variant = variants[k];
        ctx[k].ascending = ascending;
        ctx[k].scattered = scattered;
        ctx[k].w = w;
        fns[k] = run_max;
        ctxs[k] = &ctx[k];
    }
    bench_interleaved_median_ms(fns, ctxs, count, MAX_WARMUP, MAX_REPS, ms);
    for (int k = 0; k < count; k++) gups_out[k] = (float)(N / (ms[k] * 1e-3) / 1e9);
}

static void max_table(FILE *csv)
{
    static const int all[MAX_VARIANTS] = {MAX_CAS_ALWAYS,    MAX_V020,    MAX_WARPRED,
                                          MAX_VOLATILE_READ, MAX_L1_READ, MAX_CAS_ONLY};
    static const int pair[2] = {MAX_V020, MAX_WARPRED};
    static const char *const cases[3] = {"float max, random values", "float max, ascending values",
                                         "float max, random values, 256 addresses"};
    float g[3][MAX_VARIANTS];
    max_words w;
    BCHECK(cudaMalloc(&w.regions, (size_t)MAX_REGIONS * MAX_BINS * sizeof(float)));
    measure_max(&w, all, MAX_VARIANTS, 0, 0, g[0]);
    measure_max(&w, all, MAX_VARIANTS, 1, 0, g[1]);
    measure_max(&w, pair, 2, 0, 1, g[2]);
    BCHECK(cudaFree(w.regions));

    printf(
        "\nfloat max (warpred_atomic_fmaximum), %zu updates per run, G updates/s, median of %d runs after %d warm-ups, "
        "variants interleaved run by run\n\n",
        N, MAX_REPS, MAX_WARMUP);
    printf("| %-45s | %9s | %9s | %17s |\n", "variant", "random", "ascending", "random, 256 addr.");
    printf("|%.47s|%.11s|%.11s|%.19s|\n", "-----------------------------------------------", "-----------",
           "-----------", "-------------------");
    for (int k = 0; k < MAX_VARIANTS; k++) {
        char scattered[32] = "";
        if (k == MAX_V020 || k == MAX_WARPRED) snprintf(scattered, sizeof scattered, "%.3g", g[2][k == MAX_WARPRED]);
        printf("| %-45s | %9.3g | %9.3g | %17s |\n", max_variant_name[k], g[0][k], g[1][k], scattered);
        for (int c = 0; c < 2; c++)
            fprintf(csv, "atomics,\"%s\",\"%s\",%zu,,%.4f,G updates/s\n", cases[c], max_variant_name[k], N, g[c][k]);
    }
    for (int k = 0; k < 2; k++)
        fprintf(csv, "atomics,\"%s\",\"%s\",%zu,,%.4f,G updates/s\n", cases[2], max_variant_name[pair[k]], N, g[2][k]);
    printf("| %-45s | %8.3gx | %8.3gx | %16.3gx |\n", "warpred / warpred 0.2.0 path",
           g[0][MAX_WARPRED] / g[0][MAX_V020], g[1][MAX_WARPRED] / g[1][MAX_V020], g[2][1] / g[2][0]);
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
    else
        atomicAdd(bin, 1u);
}

typedef struct {
    int kind, variant, divergent;
    unsigned bins;
    float *f;
    unsigned *u, *slot;
} run_ctx;

enum { RUN_ADD, RUN_INC, RUN_HIST };

static void run_once(void *p)
{
    run_ctx *c = (run_ctx *)p;
    const unsigned blocks = (unsigned)((N + THREADS - 1) / THREADS);
    switch (c->kind) {
    case RUN_ADD:
        if (c->variant) k_add_agg<<<blocks, THREADS>>>(c->f, N);
        else
            k_add_plain<<<blocks, THREADS>>>(c->f, N);
        break;
    case RUN_INC: k_inc<<<blocks, THREADS>>>(c->u, c->slot, N, c->divergent, c->variant); break;
    default: k_hist<<<blocks, THREADS>>>(c->u, c->bins, N, c->variant);
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
    c.variant = 0;
    base = gups(&c);
    c.variant = 1;
    ours = gups(&c);
    row(csv, "float add, random values", "plain atomicAdd", base, ours);

    c.kind = RUN_INC;
    for (c.divergent = 0; c.divergent < 2; c.divergent++) {
        c.variant = 0;
        base = gups(&c);
        c.variant = 1;
        ours = gups(&c);
        row(csv, c.divergent ? "increment, slot used, half the lanes call" : "increment, slot used, all lanes",
            "plain atomicAdd(p, 1)", base, ours);
    }

    c.kind = RUN_HIST;
    const unsigned bins[] = {8, 256};
    for (int b = 0; b < 2; b++) {
        char what[64];
        c.bins = bins[b];
        snprintf(what, sizeof what, "histogram, %u bins, uniform", bins[b]);
        c.variant = 0;
        base = gups(&c);
        c.variant = 1;
        ours = gups(&c);
        row(csv, what, "plain atomicAdd(bin, 1)", base, ours);
    }
    BCHECK(cudaFree(c.f));
    BCHECK(cudaFree(c.u));
    BCHECK(cudaFree(c.slot));
    max_table(csv);
    fclose(csv);
    return 0;
}
