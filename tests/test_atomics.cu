/* Atomics: exact float/double atomic max/min (table of special values, both NaN policies, both
   implementations, global and shared memory; contention), and warp-aggregated increments and
   adds (random divergence, per-lane return values, histograms), against host references. */
#include <warpred/atomic_minmax.cuh>
#include <warpred/atomic_aggregate.cuh>
#include "wt.h"

static size_t wt_big(void) { return wt_quick() ? (size_t)1 << 18 : (size_t)1 << 24; }

/* ------------------------------------------------------------------------------------------
   float/double atomic max/min
   ------------------------------------------------------------------------------------------ */

enum { FN_MAX, FN_MIN, FN_MAX_NUM, FN_MIN_NUM, FN_COUNT };
static const char *const fn_name[] = {"fmaximum", "fminimum", "fmaximum_num", "fminimum_num"};
enum { IMPL_FAST, IMPL_CAS };

template <typename F, int Fn, int Impl>
__device__ F call_minmax(F *p, F v)
{
    if (Impl == IMPL_CAS) return warpred__atomic_minmax_cas<F, Fn == FN_MAX || Fn == FN_MAX_NUM, Fn >= FN_MAX_NUM>(p, v);
    switch (Fn) {
    case FN_MAX: return warpred_atomic_fmaximum(p, v);
    case FN_MIN: return warpred_atomic_fminimum(p, v);
    case FN_MAX_NUM: return warpred_atomic_fmaximum_num(p, v);
    default: return warpred_atomic_fminimum_num(p, v);
    }
}

/* One (memory, argument) pair per thread, each on its own word. */
template <typename F, int Fn, int Impl, bool Shared>
__global__ void k_table(const F *mem, const F *arg, F *stored, F *ret, int n)
{
    __shared__ F s[256];
    const int i = threadIdx.x;
    if (i >= n) return;
    F *p = Shared ? &s[i] : &stored[i];
    *p = mem[i];
    ret[i] = call_minmax<F, Fn, Impl>(p, arg[i]);
    stored[i] = *p;
}

static uint64_t bits_of(float x) { uint32_t b; memcpy(&b, &x, 4); return b; }
static uint64_t bits_of(double x) { uint64_t b; memcpy(&b, &x, 8); return b; }

/* The documented rule, written with C comparisons (independent of the device's bit keys). */
template <typename F>
static uint64_t model_stored(int fn, F x, F v)
{
    const int is_max = fn == FN_MAX || fn == FN_MAX_NUM, num = fn >= FN_MAX_NUM;
    const uint64_t nan_max = sizeof(F) == 4 ? 0x7fffffffull : 0x7fffffffffffffffull;
    const uint64_t nan_min = sizeof(F) == 4 ? 0xffffffffull : 0xffffffffffffffffull;
    if (!num && isnan(x)) return bits_of(x);
    if (!num && isnan(v)) return is_max ? nan_max : nan_min;
    if (num && isnan(v)) return bits_of(x);
    if (num && isnan(x)) return bits_of(v);
    if (x == v) {
        if (x == 0 && signbit(x) != signbit(v)) return bits_of(is_max ? (signbit(x) ? v : x) : (signbit(x) ? x : v));
        return bits_of(x);
    }
    return bits_of((v > x) == is_max ? v : x);
}

template <typename F> static F from_bits(uint64_t b) { F x; memcpy(&x, &b, sizeof x); return x; }

static const uint32_t special_f[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
                                     0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x00000001,
                                     0x80000001, 0x7f7fffff, 0xff7fffff};
static const uint64_t special_d[] = {0x0ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
                                     0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                                     0xfff8000000000000ull, 0x7ff0000000000001ull, 0x1ull, 0x8000000000000001ull,
                                     0x7fefffffffffffffull, 0xffefffffffffffffull};
enum { NSPECIAL = 13, NPAIRS = NSPECIAL * NSPECIAL };

template <typename F, int Fn, int Impl, bool Shared>
static void run_table(void)
{
    F mem[NPAIRS], arg[NPAIRS], stored[NPAIRS], ret[NPAIRS];
    for (int i = 0; i < NPAIRS; i++) {
        mem[i] = from_bits<F>(sizeof(F) == 4 ? special_f[i / NSPECIAL] : special_d[i / NSPECIAL]);
        arg[i] = from_bits<F>(sizeof(F) == 4 ? special_f[i % NSPECIAL] : special_d[i % NSPECIAL]);
    }
    F *d = (F *)wt_dev_alloc(4 * sizeof mem);
    wt_to_dev(d, mem, sizeof mem);
    wt_to_dev(d + NPAIRS, arg, sizeof arg);
    k_table<F, Fn, Impl, Shared><<<1, 256>>>(d, d + NPAIRS, d + 2 * NPAIRS, d + 3 * NPAIRS, NPAIRS);
    WT_LAUNCHED();
    wt_to_host(stored, d + 2 * NPAIRS, sizeof stored);
    wt_to_host(ret, d + 3 * NPAIRS, sizeof ret);
    WT_CUDA(cudaFree(d));
    for (int i = 0; i < NPAIRS; i++) {
        const uint64_t want = model_stored(Fn, mem[i], arg[i]);
        if (bits_of(stored[i]) != want || bits_of(ret[i]) != bits_of(mem[i]))
            fail_msg("%s %s (%s, %s memory): memory %llx, argument %llx -> stored %llx (want %llx), returned %llx (want %llx)",
                     sizeof(F) == 4 ? "float" : "double", fn_name[Fn], Impl == IMPL_CAS ? "CAS" : "fast",
                     Shared ? "shared" : "global", (unsigned long long)bits_of(mem[i]), (unsigned long long)bits_of(arg[i]),
                     (unsigned long long)bits_of(stored[i]), (unsigned long long)want, (unsigned long long)bits_of(ret[i]),
                     (unsigned long long)bits_of(mem[i]));
    }
}

template <typename F, int Fn>
static void run_table_all(void)
{
    run_table<F, Fn, IMPL_FAST, false>();
    run_table<F, Fn, IMPL_FAST, true>();
    run_table<F, Fn, IMPL_CAS, false>();
    run_table<F, Fn, IMPL_CAS, true>();
}

template <typename F>
static void run_table_type(void)
{
    run_table_all<F, FN_MAX>();
    run_table_all<F, FN_MIN>();
    run_table_all<F, FN_MAX_NUM>();
    run_table_all<F, FN_MIN_NUM>();
}

static void test_minmax_table_float(void **state) { WT_NEED_GPU(state); run_table_type<float>(); }
static void test_minmax_table_double(void **state) { WT_NEED_GPU(state); run_table_type<double>(); }

/* Contention: every thread updates one global word. */
template <typename F, int Fn, int Impl>
__global__ void k_contend(const F *v, size_t n, F *target, F *ret)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        ret[i] = call_minmax<F, Fn, Impl>(target, v[i]);
}

/* Contention inside a block: each block updates a shared word, thread 0 stores the result. */
template <typename F, int Fn>
__global__ void k_contend_shared(const F *v, F init, F *per_block)
{
    __shared__ F s;
    if (threadIdx.x == 0) s = init;
    __syncthreads();
    call_minmax<F, Fn, IMPL_FAST>(&s, v[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) per_block[blockIdx.x] = s;
}

enum { DATA_RANDOM, DATA_ASCENDING, DATA_WITH_NANS };

template <typename F>
static void fill_values(F *v, size_t n, int data)
{
    for (size_t i = 0; i < n; i++) {
        if (data == DATA_ASCENDING) v[i] = (F)((double)i - (double)n / 2);
        else v[i] = (F)((wt_rand_unit() * 2 - 1) * ldexp(1.0, wt_rand_below(40) - 20));
        if (data == DATA_WITH_NANS && wt_rand_below(64) == 0) { /* quiet NaNs of either sign */
            const uint64_t qnan = sizeof(F) == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull;
            v[i] = from_bits<F>(wt_rand_below(2) ? qnan : qnan | (sizeof(F) == 4 ? 0x80000000ull : 0x8000000000000000ull));
        }
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

template <typename F, int Fn, int Impl>
static void run_contention(int data, F init)
{
    const size_t n = wt_big();
    F *v = (F *)malloc(n * sizeof(F)), *ret = (F *)malloc(n * sizeof(F)), got;
    fill_values(v, n, data);
    F *d_v = (F *)wt_dev_alloc(n * sizeof(F)), *d_ret = (F *)wt_dev_alloc(n * sizeof(F)), *d_t = (F *)wt_dev_alloc(sizeof(F));
    wt_to_dev(d_v, v, n * sizeof(F));
    wt_to_dev(d_t, &init, sizeof(F));
    k_contend<F, Fn, Impl><<<1024, 256>>>(d_v, n, d_t, d_ret);
    WT_LAUNCHED();
    wt_to_host(&got, d_t, sizeof(F));
    wt_to_host(ret, d_ret, n * sizeof(F));

    /* the final value: the serial fold of the model over all updates */
    F want = init;
    for (size_t i = 0; i < n; i++) want = from_bits<F>(model_stored(Fn, want, v[i]));
    const char *what = data == DATA_RANDOM ? "random" : data == DATA_ASCENDING ? "ascending" : "random with NaNs";
    if (bits_of(got) != bits_of(want))
        fail_msg("%s %s contention (%s, %zu threads): final %.9g (%llx), expected %.9g (%llx)", sizeof(F) == 4 ? "float" : "double",
                 fn_name[Fn], what, n, (double)got, (unsigned long long)bits_of(got), (double)want, (unsigned long long)bits_of(want));

    /* every returned old value was in memory at some time: the initial value or an argument
       (or the stored NaN), and applying the rule to it cannot pass the final value */
    uint64_t *seen = (uint64_t *)malloc((n + 2) * sizeof(uint64_t));
    for (size_t i = 0; i < n; i++) seen[i] = model_stored(Fn, init, v[i]); /* v, or its stored NaN */
    seen[n] = bits_of(init);
    seen[n + 1] = bits_of(v[0]);
    qsort(seen, n + 2, sizeof(uint64_t), cmp_u64);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = bits_of(ret[i]);
        if (!bsearch(&r, seen, n + 2, sizeof(uint64_t), cmp_u64))
            fail_msg("%s contention: thread %zu returned %llx, a value never stored", fn_name[Fn], i, (unsigned long long)r);
        if (model_stored(Fn, got, ret[i]) != bits_of(got))
            fail_msg("%s contention: thread %zu returned %llx, beyond the final value", fn_name[Fn], i, (unsigned long long)r);
    }
    free(seen);
    WT_CUDA(cudaFree(d_v));
    WT_CUDA(cudaFree(d_ret));
    WT_CUDA(cudaFree(d_t));
    free(v);
    free(ret);
}

static void test_minmax_contention_float(void **state)
{
    WT_NEED_GPU(state);
    const float ninf = -INFINITY, pinf = INFINITY, empty = from_bits<float>(0x7fc00000u);
    for (int data = DATA_RANDOM; data <= DATA_ASCENDING; data++) {
        run_contention<float, FN_MAX, IMPL_FAST>(data, ninf);
        run_contention<float, FN_MAX, IMPL_CAS>(data, ninf);
        run_contention<float, FN_MIN, IMPL_FAST>(data, pinf);
        run_contention<float, FN_MAX_NUM, IMPL_FAST>(data, empty); /* memory starts "empty" */
        run_contention<float, FN_MIN_NUM, IMPL_FAST>(data, empty);
    }
    run_contention<float, FN_MAX, IMPL_FAST>(DATA_WITH_NANS, ninf);
    run_contention<float, FN_MIN, IMPL_FAST>(DATA_WITH_NANS, pinf);
    run_contention<float, FN_MAX_NUM, IMPL_FAST>(DATA_WITH_NANS, ninf);
    run_contention<float, FN_MIN_NUM, IMPL_CAS>(DATA_WITH_NANS, pinf);
}

static void test_minmax_contention_double(void **state)
{
    WT_NEED_GPU(state);
    for (int data = DATA_RANDOM; data <= DATA_WITH_NANS; data++) {
        run_contention<double, FN_MAX, IMPL_FAST>(data, -INFINITY);
        run_contention<double, FN_MIN_NUM, IMPL_FAST>(data, from_bits<double>(0x7ff8000000000000ull));
    }
}

static void test_minmax_contention_shared(void **state)
{
    WT_NEED_GPU(state);
    enum { BLOCKS = 512, THREADS = 1024 };
    const size_t n = (size_t)BLOCKS * THREADS;
    float *v = (float *)malloc(n * sizeof(float)), got[BLOCKS];
    fill_values(v, n, DATA_WITH_NANS);
    float *d_v = (float *)wt_dev_alloc(n * sizeof(float)), *d_out = (float *)wt_dev_alloc(sizeof got);
    wt_to_dev(d_v, v, n * sizeof(float));
    k_contend_shared<float, FN_MIN_NUM><<<BLOCKS, THREADS>>>(d_v, INFINITY, d_out);
    WT_LAUNCHED();
    wt_to_host(got, d_out, sizeof got);
    for (int b = 0; b < BLOCKS; b++) {
        float want = INFINITY;
        for (int t = 0; t < THREADS; t++) want = from_bits<float>(model_stored(FN_MIN_NUM, want, v[b * THREADS + t]));
        if (bits_of(got[b]) != bits_of(want)) fail_msg("shared fminimum_num, block %d: got %g, expected %g", b, got[b], want);
    }
    WT_CUDA(cudaFree(d_v));
    WT_CUDA(cudaFree(d_out));
    free(v);
}

/* ------------------------------------------------------------------------------------------
   warp-aggregated increments and adds
   ------------------------------------------------------------------------------------------ */

/* pred[i] != 0: thread i calls, on counters[addr[i]]; slot[i] gets the return value. */
template <typename T>
__global__ void k_inc(const unsigned char *pred, const unsigned *addr, size_t n, T *counters, T *slot)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n && pred[i]) slot[i] = warpred_atomic_inc_agg(&counters[addr[i]]);
}

template <typename T>
__global__ void k_add(const unsigned char *pred, const unsigned *addr, const T *v, size_t n, T *sums, T *old)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n && pred[i]) old[i] = warpred_atomic_add_agg(&sums[addr[i]], v[i]);
}

/* Random divergence: each warp draws how likely its lanes are to call (never, rarely, often,
   always), then each lane draws. */
static void fill_predicates(unsigned char *pred, size_t n)
{
    static const int pct[] = {0, 3, 50, 90, 100};
    for (size_t w = 0; w < n; w += 32) {
        const int p = pct[wt_rand_below(5)];
        for (size_t i = w; i < w + 32 && i < n; i++) pred[i] = (int)(wt_rand32() % 100) < p;
    }
}

/* Bins with a few hot ones: half of all values land in the first 1/16 of the bins. */
static void fill_bins(unsigned *addr, size_t n, unsigned bins)
{
    for (size_t i = 0; i < n; i++) {
        unsigned hot = bins / 16 ? bins / 16 : 1;
        addr[i] = wt_rand_below(2) ? wt_rand32() % hot : wt_rand32() % bins;
    }
}

/* Checks per-lane return values of an increment: for each address, the returned slots are a
   permutation of 0..count-1, and within a warp a lane of higher lane index got a higher slot. */
template <typename T>
static void check_inc_slots(const unsigned char *pred, const unsigned *addr, size_t n, unsigned bins,
                            const T *counters, const T *slot)
{
    size_t *first = (size_t *)calloc(bins + 1, sizeof(size_t));
    for (unsigned b = 0; b < bins; b++) first[b + 1] = first[b] + (size_t)counters[b];
    unsigned char *taken = (unsigned char *)calloc(first[bins] + 1, 1);
    size_t calls = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pred[i]) continue;
        calls++;
        const unsigned b = addr[i];
        if ((uint64_t)slot[i] >= (uint64_t)counters[b])
            fail_msg("thread %zu got slot %llu of bin %u, which counted only %llu", i, (unsigned long long)slot[i], b,
                     (unsigned long long)counters[b]);
        if (taken[first[b] + (size_t)slot[i]]++) fail_msg("slot %llu of bin %u was handed out twice", (unsigned long long)slot[i], b);
        for (size_t j = i & ~(size_t)31; j < i; j++) /* lane order within the warp */
            if (pred[j] && addr[j] == b && slot[j] >= slot[i])
                fail_msg("lanes %zu and %zu of one warp: slots %llu and %llu are not in lane order", j % 32, i % 32,
                         (unsigned long long)slot[j], (unsigned long long)slot[i]);
    }
    if (calls != first[bins]) fail_msg("%zu calls but the counters add up to %zu", calls, first[bins]);
    free(first);
    free(taken);
}

template <typename T>
static void run_inc(unsigned bins, size_t n)
{
    unsigned char *pred = (unsigned char *)malloc(n);
    unsigned *addr = (unsigned *)malloc(n * sizeof(unsigned));
    T *slot = (T *)malloc(n * sizeof(T)), *counters = (T *)calloc(bins, sizeof(T));
    fill_predicates(pred, n);
    fill_bins(addr, n, bins);
    unsigned char *d_pred = (unsigned char *)wt_dev_alloc(n);
    unsigned *d_addr = (unsigned *)wt_dev_alloc(n * sizeof(unsigned));
    T *d_slot = (T *)wt_dev_alloc(n * sizeof(T)), *d_counters = (T *)wt_dev_alloc(bins * sizeof(T));
    WT_CUDA(cudaMemset(d_counters, 0, bins * sizeof(T)));
    wt_to_dev(d_pred, pred, n);
    wt_to_dev(d_addr, addr, n * sizeof(unsigned));
    k_inc<T><<<(unsigned)((n + 255) / 256), 256>>>(d_pred, d_addr, n, d_counters, d_slot);
    WT_LAUNCHED();
    wt_to_host(slot, d_slot, n * sizeof(T));
    wt_to_host(counters, d_counters, bins * sizeof(T));
    /* the histogram itself, against the host's */
    size_t *hist = (size_t *)calloc(bins, sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        if (pred[i]) hist[addr[i]]++;
    for (unsigned b = 0; b < bins; b++)
        if ((size_t)counters[b] != hist[b])
            fail_msg("%u bins: bin %u counted %llu, expected %zu", bins, b, (unsigned long long)counters[b], hist[b]);
    check_inc_slots(pred, addr, n, bins, counters, slot);
    free(hist);
    WT_CUDA(cudaFree(d_pred));
    WT_CUDA(cudaFree(d_addr));
    WT_CUDA(cudaFree(d_slot));
    WT_CUDA(cudaFree(d_counters));
    free(pred);
    free(addr);
    free(slot);
    free(counters);
}

static void test_inc_divergent(void **state)
{
    WT_NEED_GPU(state);
    run_inc<unsigned>(1, wt_big());
    run_inc<int>(1, wt_big() / 4);
    run_inc<unsigned long long>(1, wt_big() / 4);
}

static void test_histogram(void **state)
{
    WT_NEED_GPU(state);
    const unsigned bins[] = {1, 8, 256, 65536};
    for (int b = 0; b < 4; b++) run_inc<unsigned>(bins[b], wt_big());
}

/* One group: the lanes of warp w that called with address a. */
typedef struct {
    uint64_t base, total;
} wt_group;

static int cmp_group(const void *a, const void *b)
{
    return cmp_u64(&((const wt_group *)a)->base, &((const wt_group *)b)->base);
}

/* One aggregated-add run: thread i calls (if pred[i]) with v[i] on sums[addr[i]] and gets
   old[i]. prepare draws the predicates and addresses; the caller fills v, then launch does
   the device round trip. */
template <typename T> struct add_run {
    size_t n;
    unsigned bins;
    unsigned char *pred;
    unsigned *addr;
    T *v, *old, *sums;
};

template <typename T> static add_run<T> add_run_prepare(size_t n, unsigned bins)
{
    add_run<T> r;
    r.n = n;
    r.bins = bins;
    r.pred = (unsigned char *)malloc(n);
    r.addr = (unsigned *)malloc(n * sizeof(unsigned));
    r.v = (T *)malloc(n * sizeof(T));
    r.old = (T *)malloc(n * sizeof(T));
    r.sums = (T *)malloc(bins * sizeof(T));
    fill_predicates(r.pred, n);
    fill_bins(r.addr, n, bins);
    return r;
}

template <typename T> static void add_run_launch(add_run<T> *r)
{
    const size_t n = r->n;
    unsigned char *d_pred = (unsigned char *)wt_dev_alloc(n);
    unsigned *d_addr = (unsigned *)wt_dev_alloc(n * sizeof(unsigned));
    T *d_v = (T *)wt_dev_alloc(n * sizeof(T)), *d_old = (T *)wt_dev_alloc(n * sizeof(T));
    T *d_sums = (T *)wt_dev_alloc(r->bins * sizeof(T));
    WT_CUDA(cudaMemset(d_sums, 0, r->bins * sizeof(T)));
    wt_to_dev(d_pred, r->pred, n);
    wt_to_dev(d_addr, r->addr, n * sizeof(unsigned));
    wt_to_dev(d_v, r->v, n * sizeof(T));
    k_add<T><<<(unsigned)((n + 255) / 256), 256>>>(d_pred, d_addr, d_v, n, d_sums, d_old);
    WT_LAUNCHED();
    wt_to_host(r->old, d_old, n * sizeof(T));
    wt_to_host(r->sums, d_sums, r->bins * sizeof(T));
    WT_CUDA(cudaFree(d_pred));
    WT_CUDA(cudaFree(d_addr));
    WT_CUDA(cudaFree(d_v));
    WT_CUDA(cudaFree(d_old));
    WT_CUDA(cudaFree(d_sums));
}

template <typename T> static void add_run_free(add_run<T> *r)
{
    free(r->pred);
    free(r->addr);
    free(r->v);
    free(r->old);
    free(r->sums);
}

/* Integer adds: in every (warp, address) group, lane k got the group's base plus the values of
   the group's lower lanes; per address, the group bases chain up from 0 in some serial order of
   the groups; and the sums are exact. Arithmetic modulo 2^64 covers every integer type. */
template <typename T>
static void run_add_int(unsigned bins, size_t n)
{
    add_run<T> r = add_run_prepare<T>(n, bins);
    const unsigned char *pred = r.pred;
    const unsigned *addr = r.addr;
    const T *v = r.v, *old = r.old, *sums = r.sums;
    /* 12-bit values for 32-bit types (callers keep n <= 2^20), 40-bit ones for 64-bit types
       (n <= 2^24): no sum wraps, so the group bases sort into a chain */
    for (size_t i = 0; i < n; i++) r.v[i] = (T)(wt_rand64() >> (sizeof(T) == 4 ? 52 : 24));
    add_run_launch(&r);

    const uint64_t mask = sizeof(T) == 4 ? 0xffffffffull : ~0ull;
    wt_group *groups = (wt_group *)malloc(((n + 31) / 32) * sizeof(wt_group));
    for (unsigned b = 0; b < bins; b++) {
        size_t ngroups = 0;
        uint64_t want_sum = 0;
        for (size_t w = 0; w < n; w += 32) {
            uint64_t running = 0;
            int members = 0;
            for (size_t i = w; i < w + 32 && i < n; i++) {
                if (!pred[i] || addr[i] != b) continue;
                if (members && ((uint64_t)old[i] & mask) != ((groups[ngroups].base + running) & mask))
                    fail_msg("%u bins, bin %u, warp %zu lane %zu: returned %llx, expected group base + lower lanes = %llx", bins, b,
                             w / 32, i - w, (unsigned long long)old[i], (unsigned long long)((groups[ngroups].base + running) & mask));
                if (!members) groups[ngroups].base = (uint64_t)old[i] & mask;
                running += (uint64_t)v[i];
                members++;
            }
            if (members) groups[ngroups++].total = running;
            want_sum += running;
        }
        if (((uint64_t)sums[b] & mask) != (want_sum & mask))
            fail_msg("%u bins, bin %u: sum %llx, expected %llx", bins, b, (unsigned long long)sums[b], (unsigned long long)(want_sum & mask));
        /* a serial order exists: sorted by base, each group starts where the previous ended
           (values are positive, so bases only grow along the order) */
        qsort(groups, ngroups, sizeof(wt_group), cmp_group);
        uint64_t at = 0;
        for (size_t g = 0; g < ngroups; g++) {
            if (groups[g].total == 0) continue; /* a group of zeros may sit anywhere */
            if (groups[g].base != at)
                fail_msg("%u bins, bin %u: no serial order - a group starts at %llx where the previous ended at %llx", bins, b,
                         (unsigned long long)groups[g].base, (unsigned long long)at);
            at += groups[g].total;
        }
    }
    free(groups);
    add_run_free(&r);
}

static void test_add_int_divergent(void **state)
{
    WT_NEED_GPU(state);
    const size_t n = wt_big() / 4;
    run_add_int<unsigned long long>(1, n);
    run_add_int<long long>(1, n);
    run_add_int<unsigned long long>(8, n);
    run_add_int<long long>(256, n);
    run_add_int<unsigned>(1, n / 4);
    run_add_int<int>(8, n / 4);
}

/* Floating-point adds: the total against a double reference (n*u*sum|x|), and in each warp
   group lane k's return value against base + exact prefix of lower lanes. */
template <typename F>
static void run_add_float(unsigned bins, size_t n)
{
    add_run<F> r = add_run_prepare<F>(n, bins);
    const unsigned char *pred = r.pred;
    const unsigned *addr = r.addr;
    const F *v = r.v, *old = r.old, *sums = r.sums;
    for (size_t i = 0; i < n; i++) r.v[i] = (F)(wt_rand_unit() * 2 - 1);
    add_run_launch(&r);
    const double u = sizeof(F) == 4 ? 0x1p-24 : 0x1p-53;
    for (unsigned b = 0; b < bins; b++) {
        double want = 0, abs_sum = 0;
        size_t calls = 0;
        for (size_t w = 0; w < n; w += 32) {
            double base = 0, prefix = 0, prefix_abs = 0;
            int members = 0;
            for (size_t i = w; i < w + 32 && i < n; i++) {
                if (!pred[i] || addr[i] != b) continue;
                if (!members) base = old[i];
                else if (fabs((double)old[i] - (base + prefix)) > 32 * u * (fabs(base) + prefix_abs))
                    fail_msg("%s add, bin %u warp %zu lane %zu: returned %.17g, expected base + prefix %.17g",
                             sizeof(F) == 4 ? "float" : "double", b, w / 32, i - w, (double)old[i], base + prefix);
                prefix += v[i];
                prefix_abs += fabs((double)v[i]);
                want += v[i];
                abs_sum += fabs((double)v[i]);
                members++;
                calls++;
            }
        }
        const double tol = (double)calls * u * abs_sum + 1e-300;
        if (fabs((double)sums[b] - want) > tol)
            fail_msg("%s add, bin %u: total %.17g, expected %.17g (tolerance %.3g)", sizeof(F) == 4 ? "float" : "double", b,
                     (double)sums[b], want, tol);
    }
    add_run_free(&r);
}

static void test_add_float_divergent(void **state)
{
    WT_NEED_GPU(state);
    run_add_float<float>(1, wt_big() / 4);
    run_add_float<float>(8, wt_big() / 4);
    run_add_float<double>(1, wt_big() / 4);
    run_add_float<double>(256, wt_big() / 4);
}

/* Aggregation in shared memory: a per-block histogram of 8 bins. */
__global__ void k_shared_hist(const unsigned *addr, unsigned *out)
{
    __shared__ unsigned hist[8];
    if (threadIdx.x < 8) hist[threadIdx.x] = 0;
    __syncthreads();
    if (addr[blockIdx.x * blockDim.x + threadIdx.x] % 3) /* divergent: about 2/3 of lanes call */
        warpred_atomic_inc_agg(&hist[addr[blockIdx.x * blockDim.x + threadIdx.x] % 8]);
    __syncthreads();
    if (threadIdx.x < 8) out[blockIdx.x * 8 + threadIdx.x] = hist[threadIdx.x];
}

static void test_shared_histogram(void **state)
{
    WT_NEED_GPU(state);
    enum { BLOCKS = 256, THREADS = 512 };
    unsigned *addr = (unsigned *)malloc(BLOCKS * THREADS * sizeof(unsigned)), out[BLOCKS * 8];
    for (int i = 0; i < BLOCKS * THREADS; i++) addr[i] = wt_rand32() % 64;
    unsigned *d_addr = (unsigned *)wt_dev_alloc(BLOCKS * THREADS * sizeof(unsigned)), *d_out = (unsigned *)wt_dev_alloc(sizeof out);
    wt_to_dev(d_addr, addr, BLOCKS * THREADS * sizeof(unsigned));
    k_shared_hist<<<BLOCKS, THREADS>>>(d_addr, d_out);
    WT_LAUNCHED();
    wt_to_host(out, d_out, sizeof out);
    for (int b = 0; b < BLOCKS; b++) {
        unsigned want[8] = {0};
        for (int t = 0; t < THREADS; t++)
            if (addr[b * THREADS + t] % 3) want[addr[b * THREADS + t] % 8]++;
        for (int k = 0; k < 8; k++)
            if (out[b * 8 + k] != want[k]) fail_msg("block %d bin %d: %u, expected %u", b, k, out[b * 8 + k], want[k]);
    }
    WT_CUDA(cudaFree(d_addr));
    WT_CUDA(cudaFree(d_out));
    free(addr);
}

/* ------------------------------------------------------------------------------------------
   the usage snippets of both headers, verbatim
   ------------------------------------------------------------------------------------------ */

// stream compaction: keep the positive values, in any order
__global__ void keep_positive(const float *in, int n, float *out, unsigned *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f) out[warpred_atomic_inc_agg(count)] = in[i];
}

// a float total: one atomic per warp instead of 32
__global__ void total(const float *in, int n, float *sum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) warpred_atomic_add_agg(sum, in[i]);
}

__global__ void peak(const float *x, int n, float *out)   // *out starts at -INFINITY
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) warpred_atomic_fmaximum(out, x[i]);
}

__global__ void peak_num(const float *x, int n, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) warpred_atomic_fmaximum_num(out, x[i]);
}

static void test_doc_snippets(void **state)
{
    WT_NEED_GPU(state);
    const float in[5] = {3, -1, 2, 0, 5};
    float *d_in = (float *)wt_dev_alloc(sizeof in), *d_out = (float *)wt_dev_alloc(sizeof in), *d_sum = (float *)wt_dev_alloc(4);
    unsigned *d_count = (unsigned *)wt_dev_alloc(4), count;
    float out[5], sum, zero = 0;
    wt_to_dev(d_in, in, sizeof in);
    WT_CUDA(cudaMemset(d_count, 0, 4));
    wt_to_dev(d_sum, &zero, 4);
    keep_positive<<<1, 32>>>(d_in, 5, d_out, d_count);
    WT_LAUNCHED();
    total<<<1, 32>>>(d_in, 5, d_sum);
    WT_LAUNCHED();
    wt_to_host(&count, d_count, 4);
    wt_to_host(out, d_out, sizeof out);
    wt_to_host(&sum, d_sum, 4);
    assert_int_equal(count, 3);
    assert_true(out[0] + out[1] + out[2] == 10.0f && out[0] * out[1] * out[2] == 30.0f);
    assert_true(sum == 9.0f);

    const float a[3] = {-3.0f, -0.0f, -7.0f}, b[3] = {1.0f, NAN, 2.0f}, ninf = -INFINITY;
    float got;
    wt_to_dev(d_in, a, sizeof a);
    wt_to_dev(d_sum, &ninf, 4);
    peak<<<1, 32>>>(d_in, 3, d_sum);
    WT_LAUNCHED();
    wt_to_host(&got, d_sum, 4);
    assert_true(bits_of(got) == 0x80000000u);
    wt_to_dev(d_in, b, sizeof b);
    wt_to_dev(d_sum, &ninf, 4);
    peak<<<1, 32>>>(d_in, 3, d_sum);
    WT_LAUNCHED();
    wt_to_host(&got, d_sum, 4);
    assert_true(bits_of(got) == 0x7fffffffu);
    wt_to_dev(d_sum, &ninf, 4);
    peak_num<<<1, 32>>>(d_in, 3, d_sum);
    WT_LAUNCHED();
    wt_to_host(&got, d_sum, 4);
    assert_true(got == 2.0f);
    WT_CUDA(cudaFree(d_in));
    WT_CUDA(cudaFree(d_out));
    WT_CUDA(cudaFree(d_sum));
    WT_CUDA(cudaFree(d_count));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doc_snippets),
        cmocka_unit_test(test_minmax_table_float),
        cmocka_unit_test(test_minmax_table_double),
        cmocka_unit_test(test_minmax_contention_float),
        cmocka_unit_test(test_minmax_contention_double),
        cmocka_unit_test(test_minmax_contention_shared),
        cmocka_unit_test(test_inc_divergent),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_add_int_divergent),
        cmocka_unit_test(test_add_float_divergent),
        cmocka_unit_test(test_shared_histogram),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
