/* Exact floating-point atomic max/min (warpred/atomic_minmax.cuh): every pair of special values
   for each function, both NaN policies, three implementations (the public functions, which
   combine a warp's lanes per address on sm_80+; the one-lane path that sm_75 and
   WARPRED_NO_REDUX take; the compare-and-swap reference), global and shared memory; contention
   on one word; lanes of a warp on one or a few words (all lanes, divergent subsets, partial
   warps, ties and special values), where the returned values must fit one sequence of updates.
   Checked against wt_atomic_stored (wt_types.h): the host statement of the IEEE rule plus the
   atomics' NaN-storage rules. */
#include <warpred/atomic_minmax.cuh>
#include "wt_types.h"

/* The functions, by the reference's op codes: WT_MAX is fmaximum, WT_MIN fminimum, WT_MAX_NUM
   and WT_MIN_NUM the _num forms. */
static const char *fn_name(int op)
{
    return op == WT_MAX ? "fmaximum" : op == WT_MIN ? "fminimum" : op == WT_MAX_NUM ? "fmaximum_num" : "fminimum_num";
}

/* IMPL_CAS calls warpred__atomic_minmax_cas, the header's private compare-and-swap reference:
   the fast path must give the same results on every input. IMPL_LANE calls
   warpred__atomic_minmax_lane, the path of one lane alone (what sm_75 and WARPRED_NO_REDUX
   take, and what the combining lane runs), so that it is tested on any GPU. */
enum { IMPL_FAST, IMPL_CAS, IMPL_LANE };

template <typename F, int Op, int Impl> __device__ F call_minmax(F *p, F v)
{
    const bool is_max = Op == WT_MAX || Op == WT_MAX_NUM, num = Op == WT_MIN_NUM || Op == WT_MAX_NUM;
    if (Impl == IMPL_CAS) return warpred__atomic_minmax_cas<F, is_max, num>(p, v);
    if (Impl == IMPL_LANE)
        return warpred__float_bits<F>::value(
            warpred__atomic_minmax_lane<F, is_max, num>(p, warpred__float_bits<F>::bits(v)));
    switch (Op) {
    case WT_MAX: return warpred_atomic_fmaximum(p, v);
    case WT_MIN: return warpred_atomic_fminimum(p, v);
    case WT_MAX_NUM: return warpred_atomic_fmaximum_num(p, v);
    default: return warpred_atomic_fminimum_num(p, v);
    }
}

/* One (memory, argument) pair per thread, each on its own word. */
template <typename F, int Op, int Impl, bool Shared>
__global__ void k_table(const F *mem, const F *arg, F *stored, F *ret, int n)
{
    __shared__ F s[256];
    const int i = threadIdx.x;
    if (i >= n) return;
    F *p = Shared ? &s[i] : &stored[i];
    *p = mem[i];
    ret[i] = call_minmax<F, Op, Impl>(p, arg[i]);
    stored[i] = *p;
}

enum { NPAIRS = WT_NSPECIAL * WT_NSPECIAL };

template <typename F, int Op, int Impl, bool Shared> static void run_table(void)
{
    typedef wt_type<F> W;
    F mem[NPAIRS], arg[NPAIRS], stored[NPAIRS], ret[NPAIRS];
    for (int i = 0; i < NPAIRS; i++) {
        mem[i] = W::special(i / WT_NSPECIAL);
        arg[i] = W::special(i % WT_NSPECIAL);
    }
    F *d = (F *)wt_dev_alloc(4 * sizeof mem);
    wt_to_dev(d, mem, sizeof mem);
    wt_to_dev(d + NPAIRS, arg, sizeof arg);
    k_table<F, Op, Impl, Shared><<<1, 256>>>(d, d + NPAIRS, d + 2 * NPAIRS, d + 3 * NPAIRS, NPAIRS);
    WT_LAUNCHED();
    wt_to_host(stored, d + 2 * NPAIRS, sizeof stored);
    wt_to_host(ret, d + 3 * NPAIRS, sizeof ret);
    wt_dev_free(d);
    for (int i = 0; i < NPAIRS; i++) {
        const uint64_t want = wt_atomic_stored(Op, mem[i], arg[i]);
        if (W::bits(stored[i]) != want || W::bits(ret[i]) != W::bits(mem[i]))
            fail_msg("%s %s (%s, %s memory): memory %llx, argument %llx -> stored %llx (want %llx), returned %llx "
                     "(want %llx)",
                     W::name(), fn_name(Op),
                     Impl == IMPL_CAS    ? "CAS"
                     : Impl == IMPL_LANE ? "one lane"
                                         : "fast",
                     Shared ? "shared" : "global", (unsigned long long)W::bits(mem[i]),
                     (unsigned long long)W::bits(arg[i]), (unsigned long long)W::bits(stored[i]),
                     (unsigned long long)want, (unsigned long long)W::bits(ret[i]),
                     (unsigned long long)W::bits(mem[i]));
    }
}

template <typename F, int Op> static void run_table_all(void)
{
    run_table<F, Op, IMPL_FAST, false>();
    run_table<F, Op, IMPL_FAST, true>();
    run_table<F, Op, IMPL_CAS, false>();
    run_table<F, Op, IMPL_CAS, true>();
    run_table<F, Op, IMPL_LANE, false>();
    run_table<F, Op, IMPL_LANE, true>();
}

template <typename F> static void run_table_type(void)
{
    run_table_all<F, WT_MAX>();
    run_table_all<F, WT_MIN>();
    run_table_all<F, WT_MAX_NUM>();
    run_table_all<F, WT_MIN_NUM>();
}

WT_GPU_TEST(test_minmax_table_float, run_table_type<float>())
WT_GPU_TEST(test_minmax_table_double, run_table_type<double>())

/* Contention: every thread updates one global word. */
template <typename F, int Op, int Impl> __global__ void k_contend(const F *v, size_t n, F *target, F *ret)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        ret[i] = call_minmax<F, Op, Impl>(target, v[i]);
}

/* Contention inside a block: each block updates a shared word, thread 0 stores the result. */
template <typename F, int Op> __global__ void k_contend_shared(const F *v, F init, F *per_block)
{
    __shared__ F s;
    if (threadIdx.x == 0) s = init;
    __syncthreads();
    call_minmax<F, Op, IMPL_FAST>(&s, v[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) per_block[blockIdx.x] = s;
}

enum { DATA_RANDOM, DATA_ASCENDING, DATA_WITH_NANS };

template <typename F> static void fill_values(F *v, size_t n, int data)
{
    typedef wt_type<F> W;
    for (size_t i = 0; i < n; i++) {
        if (data == DATA_ASCENDING) v[i] = W::from_d((double)i - (double)n / 2);
        else
            v[i] = W::from_d((wt_rand_unit() * 2 - 1) * ldexp(1.0, wt_rand_below(40) - 20));
        if (data == DATA_WITH_NANS && wt_rand_below(64) == 0) /* quiet NaNs of either sign */
            v[i] = W::special(wt_rand_below(2) ? WT_SP_QNAN : WT_SP_NEG_QNAN);
    }
}

template <typename F, int Op, int Impl> static void run_contention(int data, F init)
{
    typedef wt_type<F> W;
    const size_t n = wt_large_n();
    F *v = (F *)wt_host_alloc(n * sizeof(F)), *ret = (F *)wt_host_alloc(n * sizeof(F)), got;
    fill_values(v, n, data);
    F *d_v = (F *)wt_dev_alloc(n * sizeof(F)), *d_ret = (F *)wt_dev_alloc(n * sizeof(F)),
      *d_t = (F *)wt_dev_alloc(sizeof(F));
    wt_to_dev(d_v, v, n * sizeof(F));
    wt_to_dev(d_t, &init, sizeof(F));
    k_contend<F, Op, Impl><<<1024, 256>>>(d_v, n, d_t, d_ret);
    WT_LAUNCHED();
    wt_to_host(&got, d_t, sizeof(F));
    wt_to_host(ret, d_ret, n * sizeof(F));

    /* the final value: the serial fold of the model over all updates */
    F want = init;
    for (size_t i = 0; i < n; i++) want = W::from_bits(wt_atomic_stored(Op, want, v[i]));
    const char *what = data == DATA_RANDOM ? "random" : data == DATA_ASCENDING ? "ascending" : "random with NaNs";
    if (W::bits(got) != W::bits(want))
        fail_msg("%s %s contention (%s, %zu threads): final %.9g (%llx), expected %.9g (%llx)", W::name(), fn_name(Op),
                 what, n, W::to_d(got), (unsigned long long)W::bits(got), W::to_d(want),
                 (unsigned long long)W::bits(want));

    /* every returned old value was in memory at some time: the initial value or an argument
       (or the stored NaN), and applying the rule to it cannot pass the final value */
    uint64_t *seen = (uint64_t *)wt_host_alloc((n + 2) * sizeof(uint64_t));
    for (size_t i = 0; i < n; i++) seen[i] = wt_atomic_stored(Op, init, v[i]); /* v, or its stored NaN */
    seen[n] = W::bits(init);
    seen[n + 1] = W::bits(v[0]);
    qsort(seen, n + 2, sizeof(uint64_t), wt_cmp_u64);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = W::bits(ret[i]);
        if (!bsearch(&r, seen, n + 2, sizeof(uint64_t), wt_cmp_u64))
            fail_msg("%s contention: thread %zu returned %llx, a value never stored", fn_name(Op), i,
                     (unsigned long long)r);
        if (wt_atomic_stored(Op, got, ret[i]) != W::bits(got))
            fail_msg("%s contention: thread %zu returned %llx, beyond the final value", fn_name(Op), i,
                     (unsigned long long)r);
    }
    wt_host_free(seen);
    wt_dev_free(d_v);
    wt_dev_free(d_ret);
    wt_dev_free(d_t);
    wt_host_free(v);
    wt_host_free(ret);
}

static void test_minmax_contention_float(void **state)
{
    WT_NEED_GPU(state);
    const float ninf = -INFINITY, pinf = INFINITY, empty = wt_type<float>::special(WT_SP_QNAN);
    for (int data = DATA_RANDOM; data <= DATA_ASCENDING; data++) {
        run_contention<float, WT_MAX, IMPL_FAST>(data, ninf);
        run_contention<float, WT_MAX, IMPL_CAS>(data, ninf);
        run_contention<float, WT_MIN, IMPL_FAST>(data, pinf);
        run_contention<float, WT_MAX_NUM, IMPL_FAST>(data, empty); /* memory starts "empty" */
        run_contention<float, WT_MIN_NUM, IMPL_FAST>(data, empty);
    }
    run_contention<float, WT_MAX, IMPL_FAST>(DATA_WITH_NANS, ninf);
    run_contention<float, WT_MAX, IMPL_LANE>(DATA_RANDOM, ninf);
    run_contention<float, WT_MAX, IMPL_LANE>(DATA_WITH_NANS, ninf);
    run_contention<float, WT_MIN_NUM, IMPL_LANE>(DATA_WITH_NANS, empty);
    run_contention<float, WT_MIN, IMPL_FAST>(DATA_WITH_NANS, pinf);
    run_contention<float, WT_MAX_NUM, IMPL_FAST>(DATA_WITH_NANS, ninf);
    run_contention<float, WT_MIN_NUM, IMPL_CAS>(DATA_WITH_NANS, pinf);
}

static void test_minmax_contention_double(void **state)
{
    WT_NEED_GPU(state);
    for (int data = DATA_RANDOM; data <= DATA_WITH_NANS; data++) {
        run_contention<double, WT_MAX, IMPL_FAST>(data, -INFINITY);
        run_contention<double, WT_MIN_NUM, IMPL_FAST>(data, wt_type<double>::special(WT_SP_QNAN));
    }
}

static void test_minmax_contention_shared(void **state)
{
    WT_NEED_GPU(state);
    typedef wt_type<float> W;
    enum { BLOCKS = 512, THREADS = 1024 };
    const size_t n = (size_t)BLOCKS * THREADS;
    float *v = (float *)wt_host_alloc(n * sizeof(float)), got[BLOCKS];
    fill_values(v, n, DATA_WITH_NANS);
    float *d_v = (float *)wt_dev_alloc(n * sizeof(float)), *d_out = (float *)wt_dev_alloc(sizeof got);
    wt_to_dev(d_v, v, n * sizeof(float));
    k_contend_shared<float, WT_MIN_NUM><<<BLOCKS, THREADS>>>(d_v, INFINITY, d_out);
    WT_LAUNCHED();
    wt_to_host(got, d_out, sizeof got);
    for (int b = 0; b < BLOCKS; b++) {
        float want = INFINITY;
        for (int t = 0; t < THREADS; t++) want = W::from_bits(wt_atomic_stored(WT_MIN_NUM, want, v[b * THREADS + t]));
        if (W::bits(got[b]) != W::bits(want))
            fail_msg("shared fminimum_num, block %d: got %g, expected %g", b, got[b], want);
    }
    wt_dev_free(d_v);
    wt_dev_free(d_out);
    wt_host_free(v);
}

/* ------------------------------------------------------------------------------------------
   lanes of a warp on a few words
   ------------------------------------------------------------------------------------------ */

/* Each warp owns GROUP_WORDS_PER_WARP words; thread t calls once on word slot[t] of its block
   (slot[t] < 0: it does not call, so the calling lanes are a divergent subset). */
enum { GROUP_THREADS = 256, GROUP_WORDS_PER_WARP = 4, GROUP_WORDS = GROUP_THREADS / 32 * GROUP_WORDS_PER_WARP };

template <typename F, int Op, bool Shared> __global__ void k_groups(const int *slot, const F *arg, F *words, F *ret)
{
    __shared__ unsigned long long raw[GROUP_WORDS]; /* room for GROUP_WORDS values of up to 8 bytes */
    F *block_words = words + blockIdx.x * GROUP_WORDS, *w = Shared ? (F *)raw : block_words;
    if (Shared) {
        for (int k = threadIdx.x; k < GROUP_WORDS; k += blockDim.x) w[k] = block_words[k];
        __syncthreads();
    }
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot[t] >= 0) ret[t] = call_minmax<F, Op, IMPL_FAST>(&w[slot[t]], arg[t]);
    if (Shared) {
        __syncthreads();
        for (int k = threadIdx.x; k < GROUP_WORDS; k += blockDim.x) block_words[k] = w[k];
    }
}

/* Whether the calls on one word fit one sequence of updates in which each call returned what
   memory held just before it, ending in `final`. Memory only moves up the order and never
   comes back to a value it left, so the calls that returned the current value m come next:
   those that leave m as it is, then at most one that changes it. */
template <typename F> static int fits_one_sequence(int op, F m0, const F *v, const F *ret, int n, F final)
{
    typedef wt_type<F> W;
    int done[32] = {0}, left = n;
    uint64_t m = W::bits(m0);
    while (left > 0) {
        int changer = -1;
        for (int i = 0; i < n; i++) {
            if (done[i] || W::bits(ret[i]) != m) continue;
            if (wt_atomic_stored(op, W::from_bits(m), v[i]) != m) {
                if (changer >= 0) return 0; /* two calls displaced the same value */
                changer = i;
            } else {
                done[i] = 1;
                left--;
            }
        }
        if (changer < 0) return left == 0 && m == W::bits(final);
        m = wt_atomic_stored(op, W::from_bits(m), v[changer]);
        done[changer] = 1;
        left--;
    }
    return m == W::bits(final);
}

/* The words of warp w: w * GROUP_WORDS_PER_WARP + 0..3 of its block's words. Lane patterns:
   all lanes on one word; two words by lane parity; random words; a random subset of lanes on
   one word; the first few lanes (a partial warp) on words by lane % 4. Arguments tie often:
   half of them come from four values per warp. */
template <typename F> static void make_group_case(int op, int *slot, F *arg, F *words, int nthreads, int nwords)
{
    typedef wt_type<F> W;
    for (int warp = 0; warp < nthreads / 32; warp++) {
        const int mode = wt_rand_below(5), first = warp % (GROUP_THREADS / 32) * GROUP_WORDS_PER_WARP;
        const int prefix = 1 + wt_rand_below(31), subset_bits = wt_rand_below(3); /* subsets from dense to sparse */
        F pool[4];
        for (int k = 0; k < 4; k++) pool[k] = W::random(1);
        for (int lane = 0; lane < 32; lane++) {
            const int t = warp * 32 + lane;
            int k = 0;
            switch (mode) {
            case 0: k = 0; break;
            case 1: k = lane & 1; break;
            case 2: k = wt_rand_below(3); break;
            case 3: k = wt_rand_below(1 << subset_bits) == 0 ? 0 : -1; break;
            default: k = lane < prefix ? lane % 4 : -1;
            }
            slot[t] = k < 0 ? -1 : first + k;
            const int pick = wt_rand_below(4);
            arg[t] = pick < 2    ? pool[wt_rand_below(4)]
                     : pick == 2 ? W::special(wt_rand_below(WT_NSPECIAL))
                                 : W::random(1);
        }
    }
    const int empty = wt_op_is_num(op) ? WT_SP_QNAN : wt_op_is_max(op) ? WT_SP_NEG_INF : WT_SP_INF;
    for (int k = 0; k < nwords; k++) words[k] = wt_rand_below(2) ? W::special(empty) : W::random(1);
}

template <typename F, int Op, bool Shared> static void run_groups(void)
{
    typedef wt_type<F> W;
    const int blocks = wt_quick() ? 8 : 64, nthreads = blocks * GROUP_THREADS, nwords = blocks * GROUP_WORDS;
    int *slot = (int *)wt_host_alloc(nthreads * sizeof(int));
    F *arg = (F *)wt_host_alloc(nthreads * sizeof(F)), *ret = (F *)wt_host_alloc(nthreads * sizeof(F));
    F *init = (F *)wt_host_alloc(nwords * sizeof(F)), *got = (F *)wt_host_alloc(nwords * sizeof(F));
    make_group_case(Op, slot, arg, init, nthreads, nwords);
    int *d_slot = (int *)wt_dev_alloc(nthreads * sizeof(int));
    F *d_arg = (F *)wt_dev_alloc(nthreads * sizeof(F)), *d_ret = (F *)wt_dev_alloc(nthreads * sizeof(F));
    F *d_words = (F *)wt_dev_alloc(nwords * sizeof(F));
    wt_to_dev(d_slot, slot, nthreads * sizeof(int));
    wt_to_dev(d_arg, arg, nthreads * sizeof(F));
    wt_to_dev(d_words, init, nwords * sizeof(F));
    k_groups<F, Op, Shared><<<blocks, GROUP_THREADS>>>(d_slot, d_arg, d_words, d_ret);
    WT_LAUNCHED();
    wt_to_host(got, d_words, nwords * sizeof(F));
    wt_to_host(ret, d_ret, nthreads * sizeof(F));

    for (int warp = 0; warp < nthreads / 32; warp++)
        for (int k = 0; k < GROUP_WORDS_PER_WARP; k++) {
            const int word =
                warp / (GROUP_THREADS / 32) * GROUP_WORDS + warp % (GROUP_THREADS / 32) * GROUP_WORDS_PER_WARP + k;
            F v[32], r[32];
            int n = 0;
            for (int lane = 0; lane < 32; lane++) {
                const int t = warp * 32 + lane;
                if (slot[t] != warp % (GROUP_THREADS / 32) * GROUP_WORDS_PER_WARP + k) continue;
                v[n] = arg[t];
                r[n++] = ret[t];
            }
            if (fits_one_sequence(Op, init[word], v, r, n, got[word])) continue;
            char calls[32 * 48] = "";
            for (int i = 0; i < n; i++)
                snprintf(calls + strlen(calls), sizeof calls - strlen(calls), " %llx->%llx",
                         (unsigned long long)W::bits(v[i]), (unsigned long long)W::bits(r[i]));
            fail_msg(
                "%s %s, lanes combined (%s memory), warp %d word %d: memory %llx, %d calls (argument->returned):%s; "
                "final %llx: no sequence of updates gives these",
                W::name(), fn_name(Op), Shared ? "shared" : "global", warp, k, (unsigned long long)W::bits(init[word]),
                n, calls, (unsigned long long)W::bits(got[word]));
        }
    wt_dev_free(d_slot);
    wt_dev_free(d_arg);
    wt_dev_free(d_ret);
    wt_dev_free(d_words);
    wt_host_free(slot);
    wt_host_free(arg);
    wt_host_free(ret);
    wt_host_free(init);
    wt_host_free(got);
}

template <typename F> static void run_groups_type(void)
{
    for (int rep = 0; rep < (wt_quick() ? 1 : 4); rep++) {
        run_groups<F, WT_MAX, false>();
        run_groups<F, WT_MIN, true>();
        run_groups<F, WT_MAX_NUM, true>();
        run_groups<F, WT_MIN_NUM, false>();
        run_groups<F, WT_MAX, true>();
        run_groups<F, WT_MIN_NUM, true>();
    }
}

WT_GPU_TEST(test_minmax_groups_float, run_groups_type<float>())
WT_GPU_TEST(test_minmax_groups_double, run_groups_type<double>())
WT_GPU_TEST(test_minmax_groups_16bit, run_groups_type<__half>(); run_groups_type<__nv_bfloat16>())

/* The usage snippet of atomic_minmax.cuh (the kernel peak), as the build copies it from the manual
   (scripts/snippets.py); peak_num, its _num variant, is written here. */
#include "snippets/atomic_minmax.inc"

__global__ void peak_num(const float *x, int n, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) warpred_atomic_fmaximum_num(out, x[i]);
}

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    typedef wt_type<float> W;
    const float a[3] = {-3.0f, -0.0f, -7.0f}, b[3] = {1.0f, NAN, 2.0f}, ninf = -INFINITY;
    float *d_in = (float *)wt_dev_alloc(sizeof a), *d_out = (float *)wt_dev_alloc(4);
    /* kernel over x[0..3) into *out, which starts at -INFINITY */
    auto run = [&](void (*kernel)(const float *, int, float *), const float *x) {
        float got;
        wt_to_dev(d_in, x, sizeof a);
        wt_to_dev(d_out, &ninf, 4);
        kernel<<<1, 32>>>(d_in, 3, d_out);
        WT_LAUNCHED();
        wt_to_host(&got, d_out, 4);
        return got;
    };
    assert_true(W::bits(run(peak, a)) == 0x80000000u);
    assert_true(W::bits(run(peak, b)) == 0x7fffffffu);
    assert_true(run(peak_num, b) == 2.0f);
    wt_dev_free(d_in);
    wt_dev_free(d_out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_doc_snippet),
        WT_TEST(test_minmax_table_float),
        WT_TEST(test_minmax_table_double),
        WT_TEST(test_minmax_contention_float),
        WT_TEST(test_minmax_contention_double),
        WT_TEST(test_minmax_contention_shared),
        WT_TEST(test_minmax_groups_float),
        WT_TEST(test_minmax_groups_double),
        WT_TEST(test_minmax_groups_16bit),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
