/* Warp-aggregated atomics (warpred/atomic_aggregate.cuh): increments and adds under random
   divergence, per-lane return values (slots in lane order, group bases that chain into one
   serial order), histograms in global and shared memory, against exact host references. */
#include <warpred/atomic_aggregate.cuh>
#include "wt.h"

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
static void check_inc_slots(const unsigned char *pred, const unsigned *addr, size_t n, unsigned bins, const T *counters,
                            const T *slot)
{
    size_t *first = (size_t *)wt_host_alloc_zeroed((bins + 1) * sizeof(size_t));
    for (unsigned b = 0; b < bins; b++) first[b + 1] = first[b] + (size_t)counters[b];
    unsigned char *taken = (unsigned char *)wt_host_alloc_zeroed(first[bins] + 1);
    size_t calls = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pred[i]) continue;
        calls++;
        const unsigned b = addr[i];
        if ((uint64_t)slot[i] >= (uint64_t)counters[b])
            fail_msg("thread %zu got slot %llu of bin %u, which counted only %llu", i, (unsigned long long)slot[i], b,
                     (unsigned long long)counters[b]);
        if (taken[first[b] + (size_t)slot[i]]++)
            fail_msg("slot %llu of bin %u was handed out twice", (unsigned long long)slot[i], b);
        for (size_t j = i & ~(size_t)31; j < i; j++) /* lane order within the warp */
            if (pred[j] && addr[j] == b && slot[j] >= slot[i])
                fail_msg("lanes %zu and %zu of one warp: slots %llu and %llu are not in lane order", j % 32, i % 32,
                         (unsigned long long)slot[j], (unsigned long long)slot[i]);
    }
    if (calls != first[bins]) fail_msg("%zu calls but the counters add up to %zu", calls, first[bins]);
    wt_host_free(first);
    wt_host_free(taken);
}

template <typename T> static void run_inc(unsigned bins, size_t n)
{
    unsigned char *pred = (unsigned char *)wt_host_alloc(n);
    unsigned *addr = (unsigned *)wt_host_alloc(n * sizeof(unsigned));
    T *slot = (T *)wt_host_alloc(n * sizeof(T)), *counters = (T *)wt_host_alloc_zeroed(bins * sizeof(T));
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
    size_t *hist = (size_t *)wt_host_alloc_zeroed(bins * sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        if (pred[i]) hist[addr[i]]++;
    for (unsigned b = 0; b < bins; b++)
        if ((size_t)counters[b] != hist[b])
            fail_msg("%u bins: bin %u counted %llu, expected %zu", bins, b, (unsigned long long)counters[b], hist[b]);
    check_inc_slots(pred, addr, n, bins, counters, slot);
    wt_host_free(hist);
    wt_dev_free(d_pred);
    wt_dev_free(d_addr);
    wt_dev_free(d_slot);
    wt_dev_free(d_counters);
    wt_host_free(pred);
    wt_host_free(addr);
    wt_host_free(slot);
    wt_host_free(counters);
}

static void test_inc_divergent(void **state)
{
    WT_NEED_GPU(state);
    run_inc<unsigned>(1, wt_large_n());
    run_inc<int>(1, wt_large_n() / 4);
    run_inc<unsigned long long>(1, wt_large_n() / 4);
}

static void test_histogram(void **state)
{
    WT_NEED_GPU(state);
    const unsigned bins[] = {1, 8, 256, 65536};
    for (int b = 0; b < 4; b++) run_inc<unsigned>(bins[b], wt_large_n());
}

/* One group: the lanes of warp w that called with address a. */
typedef struct {
    uint64_t base, total;
} wt_group;

static int cmp_group(const void *a, const void *b)
{
    return wt_cmp_u64(&((const wt_group *)a)->base, &((const wt_group *)b)->base);
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
    r.pred = (unsigned char *)wt_host_alloc(n);
    r.addr = (unsigned *)wt_host_alloc(n * sizeof(unsigned));
    r.v = (T *)wt_host_alloc(n * sizeof(T));
    r.old = (T *)wt_host_alloc(n * sizeof(T));
    r.sums = (T *)wt_host_alloc(bins * sizeof(T));
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
    wt_dev_free(d_pred);
    wt_dev_free(d_addr);
    wt_dev_free(d_v);
    wt_dev_free(d_old);
    wt_dev_free(d_sums);
}

template <typename T> static void add_run_free(add_run<T> *r)
{
    wt_host_free(r->pred);
    wt_host_free(r->addr);
    wt_host_free(r->v);
    wt_host_free(r->old);
    wt_host_free(r->sums);
}

/* Integer adds: in every (warp, address) group, lane k got the group's base plus the values of
   the group's lower lanes; per address, the group bases chain up from 0 in some serial order of
   the groups; and the sums are exact. Arithmetic modulo 2^64 covers every integer type. */
template <typename T> static void run_add_int(unsigned bins, size_t n)
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
    wt_group *groups = (wt_group *)wt_host_alloc(((n + 31) / 32) * sizeof(wt_group));
    for (unsigned b = 0; b < bins; b++) {
        size_t ngroups = 0;
        uint64_t want_sum = 0;
        for (size_t w = 0; w < n; w += 32) {
            uint64_t running = 0;
            int members = 0;
            for (size_t i = w; i < w + 32 && i < n; i++) {
                if (!pred[i] || addr[i] != b) continue;
                if (members && ((uint64_t)old[i] & mask) != ((groups[ngroups].base + running) & mask))
                    fail_msg(
                        "%u bins, bin %u, warp %zu lane %zu: returned %llx, expected group base + lower lanes = %llx",
                        bins, b, w / 32, i - w, (unsigned long long)old[i],
                        (unsigned long long)((groups[ngroups].base + running) & mask));
                if (!members) groups[ngroups].base = (uint64_t)old[i] & mask;
                running += (uint64_t)v[i];
                members++;
            }
            if (members) groups[ngroups++].total = running;
            want_sum += running;
        }
        if (((uint64_t)sums[b] & mask) != (want_sum & mask))
            fail_msg("%u bins, bin %u: sum %llx, expected %llx", bins, b, (unsigned long long)sums[b],
                     (unsigned long long)(want_sum & mask));
        /* a serial order exists: sorted by base, each group starts where the previous ended
           (values are positive, so bases only grow along the order) */
        qsort(groups, ngroups, sizeof(wt_group), cmp_group);
        uint64_t at = 0;
        for (size_t g = 0; g < ngroups; g++) {
            if (groups[g].total == 0) continue; /* a group of zeros may sit anywhere */
            if (groups[g].base != at)
                fail_msg("%u bins, bin %u: no serial order - a group starts at %llx where the previous ended at %llx",
                         bins, b, (unsigned long long)groups[g].base, (unsigned long long)at);
            at += groups[g].total;
        }
    }
    wt_host_free(groups);
    add_run_free(&r);
}

static void test_add_int_divergent(void **state)
{
    WT_NEED_GPU(state);
    const size_t n = wt_large_n() / 4;
    run_add_int<unsigned long long>(1, n);
    run_add_int<long long>(1, n);
    run_add_int<unsigned long long>(8, n);
    run_add_int<long long>(256, n);
    run_add_int<unsigned>(1, n / 4);
    run_add_int<int>(8, n / 4);
}

/* Floating-point adds: the total against a double reference (n*u*sum|x|), and in each warp
   group lane k's return value against base + exact prefix of lower lanes. */
template <typename F> static void run_add_float(unsigned bins, size_t n)
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
            fail_msg("%s add, bin %u: total %.17g, expected %.17g (tolerance %.3g)",
                     sizeof(F) == 4 ? "float" : "double", b, (double)sums[b], want, tol);
    }
    add_run_free(&r);
}

static void test_add_float_divergent(void **state)
{
    WT_NEED_GPU(state);
    run_add_float<float>(1, wt_large_n() / 4);
    run_add_float<float>(8, wt_large_n() / 4);
    run_add_float<double>(1, wt_large_n() / 4);
    run_add_float<double>(256, wt_large_n() / 4);
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
    unsigned *addr = (unsigned *)wt_host_alloc(BLOCKS * THREADS * sizeof(unsigned)), out[BLOCKS * 8];
    for (int i = 0; i < BLOCKS * THREADS; i++) addr[i] = wt_rand32() % 64;
    unsigned *d_addr = (unsigned *)wt_dev_alloc(BLOCKS * THREADS * sizeof(unsigned)),
             *d_out = (unsigned *)wt_dev_alloc(sizeof out);
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
    wt_dev_free(d_addr);
    wt_dev_free(d_out);
    wt_host_free(addr);
}

/* The usage snippets of atomic_aggregate.cuh (the kernels keep_positive and total), as the build
   copies them from the manual (scripts/snippets.py). */
#include "snippets/atomic_aggregate.inc"

static void test_doc_snippets(void **state)
{
    WT_NEED_GPU(state);
    const float in[5] = {3, -1, 2, 0, 5};
    float *d_in = (float *)wt_dev_alloc(sizeof in), *d_out = (float *)wt_dev_alloc(sizeof in),
          *d_sum = (float *)wt_dev_alloc(4);
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
    wt_dev_free(d_in);
    wt_dev_free(d_out);
    wt_dev_free(d_sum);
    wt_dev_free(d_count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_doc_snippets),      WT_TEST(test_inc_divergent),       WT_TEST(test_histogram),
        WT_TEST(test_add_int_divergent), WT_TEST(test_add_float_divergent), WT_TEST(test_shared_histogram),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
