/* 16-bit float atomics (atomic_minmax.cuh): warpred_atomic_fmaximum / fminimum and their _num
   forms for __half and __nv_bfloat16, against the bit-level host model in wt_compound.h:
   - every pair of special values (NaN, -NaN, signalling NaN, the canonical NaN, +-0, +-inf,
     +-1, +-smallest subnormal, +-max), in the low and in the high half of a 32-bit word, global
     and shared memory: stored bits, returned bits, and the other half of the word untouched;
   - adjacent halves of one word updated at the same time by different threads with different
     functions: both halves end as their own serial fold;
   - 2^20 threads on one address with random values: the final bits equal the serial fold, and
     every returned value is one that memory held, never beyond the final value. */
#include <warpred/atomic_minmax.cuh>
#include "wt_compound.h"

static size_t wt_big(void) { return wt_quick() ? (size_t)1 << 18 : (size_t)1 << 20; }

template <typename H> struct h16;
template <> struct h16<__half> {
    enum { is_bf16 = 0 };
    static const char *name() { return "__half"; }
};
template <> struct h16<__nv_bfloat16> {
    enum { is_bf16 = 1 };
    static const char *name() { return "__nv_bfloat16"; }
};

template <typename H, int Fn> __device__ H call16(H *p, H v)
{
    switch (Fn) {
    case WT_FN_MAX: return warpred_atomic_fmaximum(p, v);
    case WT_FN_MIN: return warpred_atomic_fminimum(p, v);
    case WT_FN_MAX_NUM: return warpred_atomic_fmaximum_num(p, v);
    default: return warpred_atomic_fminimum_num(p, v);
    }
}

/* A 16-bit pattern as H and back, on the device (both types are 2-byte structs of bits). */
template <typename H> __device__ H h_of(unsigned short b)
{
    H h;
    memcpy(&h, &b, 2);
    return h;
}
template <typename H> __device__ unsigned short bits_of(H h)
{
    unsigned short b;
    memcpy(&b, &h, 2);
    return b;
}

/* ------------------------------------------------------------------------------------------
   special pairs
   ------------------------------------------------------------------------------------------ */

static const uint16_t special_h[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00,
                                     0xfe00, 0x7c01, 0x7fff, 0x0001, 0x8001, 0x7bff, 0xfbff};
static const uint16_t special_b[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0,
                                     0xffc0, 0x7f81, 0x7fff, 0x0001, 0x8001, 0x7f7f, 0xff7f};
enum { NSPECIAL = 14, NPAIRS = NSPECIAL * NSPECIAL };
static const uint16_t NEIGHBOUR = 0xA5C3; /* the other half of each word: must survive */

/* Pair i lives in word i: its memory value in half `high`, NEIGHBOUR in the other half. The
   thread updates its half; words[] gets the whole word afterwards. */
template <typename H, int Fn, bool Shared>
__global__ void k_table(const unsigned short *mem, const unsigned short *arg, int high, unsigned short *words,
                        unsigned short *ret, int n)
{
    __shared__ unsigned short s[2 * NPAIRS];
    const int i = threadIdx.x;
    if (i >= n) return;
    unsigned short *w = Shared ? s : words;
    w[2 * i + high] = mem[i];
    w[2 * i + 1 - high] = NEIGHBOUR;
    ret[i] = bits_of(call16<H, Fn>((H *)&w[2 * i + high], h_of<H>(arg[i])));
    if (Shared) {
        words[2 * i] = s[2 * i];
        words[2 * i + 1] = s[2 * i + 1];
    }
}

template <typename H, int Fn, bool Shared> static void run_table(int high)
{
    const uint16_t *sp = h16<H>::is_bf16 ? special_b : special_h;
    uint16_t mem[NPAIRS], arg[NPAIRS], ret[NPAIRS], words[2 * NPAIRS];
    for (int i = 0; i < NPAIRS; i++) {
        mem[i] = sp[i / NSPECIAL];
        arg[i] = sp[i % NSPECIAL];
    }
    unsigned short *d = (unsigned short *)wt_dev_alloc(5 * NPAIRS * sizeof(uint16_t));
    wt_to_dev(d, mem, sizeof mem);
    wt_to_dev(d + NPAIRS, arg, sizeof arg);
    k_table<H, Fn, Shared><<<1, 256>>>(d, d + NPAIRS, high, d + 2 * NPAIRS, d + 4 * NPAIRS, NPAIRS);
    WT_LAUNCHED();
    wt_to_host(words, d + 2 * NPAIRS, sizeof words);
    wt_to_host(ret, d + 4 * NPAIRS, sizeof ret);
    wt_dev_free(d);
    for (int i = 0; i < NPAIRS; i++) {
        const uint16_t want = wt_h16_stored(Fn, mem[i], arg[i], h16<H>::is_bf16), got = words[2 * i + high];
        if (got != want || ret[i] != mem[i] || words[2 * i + 1 - high] != NEIGHBOUR)
            fail_msg("%s %s (%s memory, %s half): memory %04x, argument %04x -> stored %04x (want %04x), returned %04x "
                     "(want %04x), "
                     "other half %04x (want %04x)",
                     h16<H>::name(), wt_fn_name[Fn], Shared ? "shared" : "global", high ? "high" : "low", mem[i],
                     arg[i], got, want, ret[i], mem[i], words[2 * i + 1 - high], NEIGHBOUR);
    }
}

template <typename H, int Fn> static void run_table_all(void)
{
    for (int high = 0; high < 2; high++) {
        run_table<H, Fn, false>(high);
        run_table<H, Fn, true>(high);
    }
}

template <typename H> static void run_table_type(void)
{
    run_table_all<H, WT_FN_MAX>();
    run_table_all<H, WT_FN_MIN>();
    run_table_all<H, WT_FN_MAX_NUM>();
    run_table_all<H, WT_FN_MIN_NUM>();
}

static void test_table_half(void **state)
{
    WT_NEED_GPU(state);
    run_table_type<__half>();
}
static void test_table_bfloat16(void **state)
{
    WT_NEED_GPU(state);
    run_table_type<__nv_bfloat16>();
}

/* ------------------------------------------------------------------------------------------
   random values
   ------------------------------------------------------------------------------------------ */

/* Random 16-bit patterns: mostly finite numbers of both signs and many magnitudes (subnormals
   included); with_nans: one in 64 a NaN of either sign; zeros of both signs now and then. */
static uint16_t random16(int is_bf16, int with_nans)
{
    for (;;) {
        uint16_t b = (uint16_t)wt_rand32();
        if (wt_rand_below(32) == 0) b &= 0x8000; /* +-0 */
        if (with_nans && wt_rand_below(64) == 0)
            return (uint16_t)((is_bf16 ? 0x7fc0 : 0x7e00) | (wt_rand_below(2) << 15) | wt_rand_below(4));
        if (!wt_h16_isnan(b, is_bf16)) return b;
    }
}

/* ------------------------------------------------------------------------------------------
   adjacent halves under contention
   ------------------------------------------------------------------------------------------ */

/* Thread t updates word (t / 2) % nwords: the low half with FnLo if t is even, the high half
   with FnHi if odd. Shared: the same on words in shared memory, per block, copied out at the end. */
template <typename H, int FnLo, int FnHi, bool Shared>
__global__ void k_halves(const unsigned short *v, size_t n, int nwords, unsigned short *words)
{
    __shared__ unsigned short s[2 * 64];
    unsigned short *w = Shared ? s + 0 : words;
    if (Shared) {
        for (int k = threadIdx.x; k < 2 * nwords; k += blockDim.x) s[k] = words[k];
        __syncthreads();
    }
    const size_t stride = Shared ? blockDim.x : (size_t)gridDim.x * blockDim.x;
    for (size_t t = Shared ? threadIdx.x : blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < n; t += stride) {
        const int word = (int)((t / 2) % nwords), half = (int)(t & 1);
        H *p = (H *)&w[2 * word + half];
        if (half) call16<H, FnHi>(p, h_of<H>(v[t]));
        else
            call16<H, FnLo>(p, h_of<H>(v[t]));
    }
    if (Shared) {
        __syncthreads();
        for (int k = threadIdx.x; k < 2 * nwords; k += blockDim.x) words[k] = s[k];
    }
}

template <typename H, int FnLo, int FnHi, bool Shared> static void run_halves(int nwords)
{
    const int is_bf16 = h16<H>::is_bf16;
    const size_t n = Shared ? 1024 * 64 : wt_big();
    uint16_t *v = (uint16_t *)wt_host_alloc(n * sizeof(uint16_t)), init[2 * 64] = {0}, words[2 * 64] = {0};
    for (size_t i = 0; i < n; i++) v[i] = random16(is_bf16, 1);
    /* initial values: the identity-like start of each function (-inf for max, +inf for min,
       NaN "empty" for the _num forms) or a random number */
    for (int k = 0; k < 2 * nwords; k++) {
        const int fn = k & 1 ? FnHi : FnLo, is_max = fn == WT_FN_MAX || fn == WT_FN_MAX_NUM;
        const uint16_t inf = is_bf16 ? 0x7f80 : 0x7c00;
        init[k] = wt_rand_below(2)      ? random16(is_bf16, 0)
                  : fn >= WT_FN_MAX_NUM ? (uint16_t)(is_bf16 ? 0x7fc0 : 0x7e00)
                                        : (uint16_t)(is_max ? inf | 0x8000 : inf);
    }
    unsigned short *d_v = (unsigned short *)wt_dev_alloc(n * sizeof(uint16_t)),
                   *d_w = (unsigned short *)wt_dev_alloc(sizeof words);
    wt_to_dev(d_v, v, n * sizeof(uint16_t));
    wt_to_dev(d_w, init, 2 * nwords * sizeof(uint16_t));
    if (Shared) k_halves<H, FnLo, FnHi, true><<<1, 1024>>>(d_v, n, nwords, d_w);
    else
        k_halves<H, FnLo, FnHi, false><<<1024, 256>>>(d_v, n, nwords, d_w);
    WT_LAUNCHED();
    wt_to_host(words, d_w, 2 * nwords * sizeof(uint16_t));
    uint16_t want[2 * 64];
    memcpy(want, init, sizeof want);
    for (size_t t = 0; t < n; t++) {
        const int k = (int)(2 * ((t / 2) % nwords) + (t & 1));
        want[k] = wt_h16_stored(t & 1 ? FnHi : FnLo, want[k], v[t], is_bf16);
    }
    for (int k = 0; k < 2 * nwords; k++)
        if (words[k] != want[k])
            fail_msg("%s adjacent halves (%s memory, %d words, low %s / high %s): word %d %s half is %04x, expected "
                     "%04x (started %04x)",
                     h16<H>::name(), Shared ? "shared" : "global", nwords, wt_fn_name[FnLo], wt_fn_name[FnHi], k / 2,
                     k & 1 ? "high" : "low", words[k], want[k], init[k]);
    wt_dev_free(d_v);
    wt_dev_free(d_w);
    wt_host_free(v);
}

template <typename H> static void run_halves_type(void)
{
    const int words[] = {1, 3, 64};
    for (int w = 0; w < 3; w++) {
        run_halves<H, WT_FN_MAX, WT_FN_MIN, false>(words[w]);
        run_halves<H, WT_FN_MAX_NUM, WT_FN_MIN_NUM, false>(words[w]);
        run_halves<H, WT_FN_MIN, WT_FN_MAX_NUM, false>(words[w]);
        run_halves<H, WT_FN_MAX, WT_FN_MIN, true>(words[w]);
        run_halves<H, WT_FN_MIN_NUM, WT_FN_MAX, true>(words[w]);
    }
}

static void test_adjacent_halves_half(void **state)
{
    WT_NEED_GPU(state);
    run_halves_type<__half>();
}
static void test_adjacent_halves_bfloat16(void **state)
{
    WT_NEED_GPU(state);
    run_halves_type<__nv_bfloat16>();
}

/* ------------------------------------------------------------------------------------------
   one address, 2^20 threads
   ------------------------------------------------------------------------------------------ */

/* The target is the high half of a word whose low half holds NEIGHBOUR. */
template <typename H, int Fn>
__global__ void k_contend(const unsigned short *v, size_t n, unsigned short *word, unsigned short *ret)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        ret[i] = bits_of(call16<H, Fn>((H *)&word[1], h_of<H>(v[i])));
}

static int cmp_u16(const void *a, const void *b)
{
    const uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;
    return x < y ? -1 : x > y;
}

template <typename H, int Fn> static void run_contention(int with_nans, int ascending)
{
    const int is_bf16 = h16<H>::is_bf16;
    const size_t n = wt_big();
    uint16_t *v = (uint16_t *)wt_host_alloc(n * sizeof(uint16_t)),
             *ret = (uint16_t *)wt_host_alloc(n * sizeof(uint16_t));
    for (size_t i = 0; i < n; i++) v[i] = random16(is_bf16, with_nans);
    if (ascending) { /* ascending values make nearly every update win: the slow path under load */
        for (size_t i = 0; i < n; i++) {
            double x = (double)i / (double)n * 2 - 1;
            const int is_max = Fn == WT_FN_MAX || Fn == WT_FN_MAX_NUM;
            if (!is_max) x = -x;
            v[i] = is_bf16 ? (uint16_t)(wt_type<__nv_bfloat16>::bits(wt_d2b(x * 100)))
                           : (uint16_t)wt_type<__half>::bits(wt_d2h(x * 100));
        }
    }
    const uint16_t init = Fn >= WT_FN_MAX_NUM
                              ? (uint16_t)(is_bf16 ? 0x7fc0 : 0x7e00)
                              : (uint16_t)((Fn == WT_FN_MAX ? 0x8000 : 0) | (is_bf16 ? 0x7f80 : 0x7c00));
    uint16_t word[2] = {NEIGHBOUR, init};
    unsigned short *d_v = (unsigned short *)wt_dev_alloc(n * sizeof(uint16_t)),
                   *d_ret = (unsigned short *)wt_dev_alloc(n * sizeof(uint16_t));
    unsigned short *d_word = (unsigned short *)wt_dev_alloc(sizeof word);
    wt_to_dev(d_v, v, n * sizeof(uint16_t));
    wt_to_dev(d_word, word, sizeof word);
    k_contend<H, Fn><<<1024, 256>>>(d_v, n, d_word, d_ret);
    WT_LAUNCHED();
    wt_to_host(word, d_word, sizeof word);
    wt_to_host(ret, d_ret, n * sizeof(uint16_t));
    uint16_t want = init;
    for (size_t i = 0; i < n; i++) want = wt_h16_stored(Fn, want, v[i], is_bf16);
    if (word[1] != want || word[0] != NEIGHBOUR)
        fail_msg("%s %s contention (%zu threads%s%s): final %04x, expected %04x; other half %04x (want %04x)",
                 h16<H>::name(), wt_fn_name[Fn], n, with_nans ? ", NaNs" : "", ascending ? ", ascending" : "", word[1],
                 want, word[0], NEIGHBOUR);
    /* every returned value was in memory at some time: init, or what an update stores (the
       argument, or the function's NaN) - and applying the rule to it cannot pass the final */
    uint16_t *seen = (uint16_t *)wt_host_alloc((n + 1) * sizeof(uint16_t));
    for (size_t i = 0; i < n; i++)
        seen[i] = wt_h16_isnan(v[i], is_bf16) ? wt_h16_stored(Fn, 0x3c00, v[i], is_bf16) : v[i];
    seen[n] = init;
    qsort(seen, n + 1, sizeof(uint16_t), cmp_u16);
    for (size_t i = 0; i < n; i++) {
        if (!bsearch(&ret[i], seen, n + 1, sizeof(uint16_t), cmp_u16))
            fail_msg("%s %s contention: thread %zu returned %04x, a value never stored", h16<H>::name(), wt_fn_name[Fn],
                     i, ret[i]);
        if (wt_h16_stored(Fn, word[1], ret[i], is_bf16) != word[1])
            fail_msg("%s %s contention: thread %zu returned %04x, beyond the final value %04x", h16<H>::name(),
                     wt_fn_name[Fn], i, ret[i], word[1]);
    }
    wt_host_free(seen);
    wt_dev_free(d_v);
    wt_dev_free(d_ret);
    wt_dev_free(d_word);
    wt_host_free(v);
    wt_host_free(ret);
}

template <typename H> static void run_contention_type(void)
{
    for (int ascending = 0; ascending < 2; ascending++) {
        run_contention<H, WT_FN_MAX>(0, ascending);
        run_contention<H, WT_FN_MIN>(0, ascending);
        run_contention<H, WT_FN_MAX_NUM>(0, ascending);
        run_contention<H, WT_FN_MIN_NUM>(0, ascending);
    }
    run_contention<H, WT_FN_MAX>(1, 0);
    run_contention<H, WT_FN_MIN>(1, 0);
    run_contention<H, WT_FN_MAX_NUM>(1, 0);
    run_contention<H, WT_FN_MIN_NUM>(1, 0);
}

static void test_contention_half(void **state)
{
    WT_NEED_GPU(state);
    run_contention_type<__half>();
}
static void test_contention_bfloat16(void **state)
{
    WT_NEED_GPU(state);
    run_contention_type<__nv_bfloat16>();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(wt_compound_self_check),        WT_TEST(test_table_half),
        WT_TEST(test_table_bfloat16),           WT_TEST(test_adjacent_halves_half),
        WT_TEST(test_adjacent_halves_bfloat16), WT_TEST(test_contention_half),
        WT_TEST(test_contention_bfloat16),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
