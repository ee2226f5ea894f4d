/* argmin / argmax (op_argminmax.cuh) through the warp, block and grid reductions: ties (lowest
   index wins, indices compared as unsigned), NaN first / last / alone / everywhere, all -inf,
   all +inf, +-0 mixes, identity padding, both index types, value types float, double, int,
   unsigned, long long, unsigned long long; every block size 1..1024; against the host model
   in wt_compound.h. The result must be exactly one of the input pairs (value bits and index).

   Layouts exercised (x86-64 / CUDA, natural alignment):
     warpred_arg<float, int>             8 bytes, no padding
     warpred_arg<int, long long>        16 bytes, 4 bytes of padding after the value
     warpred_arg<double, int>           16 bytes, 4 bytes of padding after the index
     warpred_arg<double, long long>     16 bytes, no padding
     warpred_arg<unsigned long long, long long>  16 bytes
   (printed by test_layouts; the padded ones are where a whole-struct shuffle would move garbage
   and where ptxas once miscompiled an odd-sized pair, cccl#10958). */
#include <warpred/op_argminmax.cuh>
#include <warpred/warp_reduce.cuh>
#include <warpred/block_reduce.cuh>
#include <warpred/grid_reduce.cuh>
#include "wt_compound.h"
#include "wt_kernels.h"

/* ------------------------------------------------------------------------------------------
   inputs
   ------------------------------------------------------------------------------------------ */

/* Scenarios: how the values of one reduced group (a warp segment, a block, a grid) look. */
enum {
    S_FEW,       /* values from {-2, -1, -0, +0, 1, 2}: ties everywhere */
    S_UNIQUE,    /* random values */
    S_TIES,      /* one value everywhere: only the index decides */
    S_NAN_FIRST, /* a NaN in the group's first element (lowest position), the rest S_FEW */
    S_NAN_LAST,  /* a NaN in the group's last element */
    S_NAN_ONE,   /* one NaN at a random place */
    S_ALL_NAN,   /* NaNs of both signs and various payloads, signalling ones too */
    S_ALL_NINF,  /* -inf everywhere (integers: the lowest value) */
    S_ALL_PINF,  /* +inf everywhere (integers: the largest value) */
    S_ZEROS,     /* -0 and +0 */
    S_MIXED,     /* each element any of the above kinds */
    S_PADDED,    /* S_MIXED with a third of the elements the op's identity {worst, -1} */
    S_COUNT
};
static const char *const s_name[] = {"few values", "unique",   "ties",     "NaN first", "NaN last", "one NaN",
                                     "all NaN",    "all -inf", "all +inf", "+-0",       "mixed",    "identity padding"};

static int scenario_has_nan(int s) { return s >= S_NAN_FIRST && s <= S_ALL_NAN; }

template <typename T> static T value_few(void)
{
    const int r = wt_rand_below(6);
    if constexpr (wt_type<T>::is_int) {
        (void)r;
        return (T)(wt_rand_below(5) - 2);
    } else {
        return r == 2 ? (T)-0.0 : r == 3 ? (T)0.0 : (T)(r < 2 ? r - 2 : r - 3);
    }
}

template <typename T> static T value_extreme(int high)
{
    if constexpr (wt_type<T>::is_int) {
        const T zero = (T)0, ones = (T)~zero;
        const T lowest = ones < zero ? (T)(1ull << (sizeof(T) * 8 - 1)) : zero;
        return high ? (T)~lowest : lowest;
    } else {
        return high ? (T)INFINITY : (T)-INFINITY;
    }
}

template <typename T> static T value_nan(void)
{
    if constexpr (wt_type<T>::is_int) return value_few<T>();
    else
        return wt_nan_with<T>(wt_rand64() >> (wt_rand_below(2) ? 0 : 40), wt_rand_below(2));
}

template <typename T> static T value_of_kind(int s)
{
    switch (s) {
    case S_FEW: return value_few<T>();
    case S_UNIQUE: return wt_type<T>::random(0);
    case S_ALL_NAN: return value_nan<T>();
    case S_ALL_NINF: return value_extreme<T>(0);
    case S_ALL_PINF: return value_extreme<T>(1);
    case S_ZEROS: return wt_rand_below(2) ? (T)0 : (T)-0.0;
    default: {
        const int kinds[] = {S_FEW, S_UNIQUE, S_ALL_NAN, S_ALL_NINF, S_ALL_PINF, S_ZEROS};
        const int k = kinds[wt_rand_below(6)];
        return k == S_ALL_NAN && wt_rand_below(4) ? value_few<T>() : value_of_kind<T>(k); /* NaN rarer */
    }
    }
}

/* Index orders: by position, reversed (so lane order and index order disagree), or a random
   permutation; 64-bit indices also get bit 32 set on odd ones (a 32-bit compare would order
   them wrongly). Indices are distinct, except -1 for identity padding, whose pairs are
   identical. */
enum { IDX_ASCENDING, IDX_DESCENDING, IDX_RANDOM };

template <typename I> static void fill_indices(I *idx, size_t n, int order)
{
    for (size_t i = 0; i < n; i++) idx[i] = (I)(order == IDX_DESCENDING ? n - 1 - i : i);
    if (order == IDX_RANDOM)
        for (size_t i = n - 1; i > 0; i--) {
            const size_t j = (size_t)(wt_rand64() % (i + 1));
            const I t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
    if constexpr (sizeof(I) == 8)
        for (size_t i = 0; i < n; i++)
            if (idx[i] & 1) idx[i] = (I)((long long)idx[i] + (1ll << 32));
}

/* Fills n values in groups of `group` consecutive elements per scenario s; index -1 pairs are
   the identity of op. */
template <typename T, typename I> static void fill_args(int s, int op, T *v, I *idx, size_t n, size_t group, int order)
{
    fill_indices(idx, n, order);
    const int ties_kind = wt_rand_below(3);
    const T tie_value = ties_kind == 0   ? value_few<T>()
                        : ties_kind == 1 ? wt_type<T>::random(0)
                                         : value_extreme<T>(wt_rand_below(2));
    for (size_t i = 0; i < n; i++) {
        const int kind = s == S_NAN_FIRST || s == S_NAN_LAST || s == S_NAN_ONE ? S_FEW : s == S_PADDED ? S_MIXED : s;
        v[i] = s == S_TIES ? tie_value : value_of_kind<T>(kind);
        if (s == S_PADDED && wt_rand_below(3) == 0) {
            v[i] = wt_arg_identity_value<T>(op);
            idx[i] = (I)-1;
        }
    }
    if (!scenario_has_nan(s) || s == S_ALL_NAN) return;
    for (size_t g = 0; g < n; g += group) { /* one NaN per group, placed by index order */
        const size_t len = n - g < group ? n - g : group;
        size_t at = g + (size_t)wt_rand_below((int)len);
        if (s != S_NAN_ONE) { /* the element with the lowest (NaN first) or highest (NaN last) index */
            at = g;
            for (size_t i = g; i < g + len; i++)
                if (s == S_NAN_FIRST ? wt_index_lower(idx[i], idx[at]) : wt_index_lower(idx[at], idx[i])) at = i;
        }
        v[at] = value_nan<T>();
    }
}

template <typename T, typename I> static const char *pair_name(void)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "warpred_arg<%s, %s>", wt_type<T>::name(), sizeof(I) == 4 ? "int" : "long long");
    return buf;
}

/* Checks one reduced group: positions pos[0..k-1] of v/idx. */
template <typename T, typename I>
static int check_group(int op, const T *v, const I *idx, const int *pos, int k, warpred_arg<T, I> got, char *why,
                       size_t len)
{
    T *gv = (T *)calloc(k, sizeof(T)); /* calloc: gcc cannot see that k >= 1 */
    I *gi = (I *)calloc(k, sizeof(I));
    for (int j = 0; j < k; j++) {
        gv[j] = v[pos[j]];
        gi[j] = idx[pos[j]];
    }
    const int ok = wt_arg_matches(gv, gi, wt_arg_pick(op, gv, gi, k), got.value, got.index, why, len);
    free(gv);
    free(gi);
    return ok;
}

template <typename A> static int same_bits(A a, A b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Member-wise bit equality (padding bytes may differ between lanes). */
template <typename T, typename I> static int same_pair(warpred_arg<T, I> a, warpred_arg<T, I> b)
{
    return wt_type<T>::bits(a.value) == wt_type<T>::bits(b.value) && a.index == b.index;
}

/* The n (value, index) inputs of one case: v and idx on the host, d_v and d_idx their device
   copies (upload() after filling them). */
template <typename T, typename I> struct arg_inputs {
    size_t n;
    T *v, *d_v;
    I *idx, *d_idx;

    explicit arg_inputs(size_t count) : n(count)
    {
        v = (T *)wt_host_alloc(n * sizeof(T));
        d_v = (T *)wt_dev_alloc(n * sizeof(T));
        idx = (I *)wt_host_alloc(n * sizeof(I));
        d_idx = (I *)wt_dev_alloc(n * sizeof(I));
    }
    void upload() const
    {
        wt_to_dev(d_v, v, n * sizeof(T));
        wt_to_dev(d_idx, idx, n * sizeof(I));
    }
    /* The check of the wt_run_ drivers: got is op's pick among the inputs at pos[0..k-1]. */
    auto check(int op) const
    {
        return [op, v = v, idx = idx](const int *pos, int k, warpred_arg<T, I> got, char *why, size_t len) {
            return check_group(op, v, idx, pos, k, got, why, len);
        };
    }
    void release() const
    {
        wt_dev_free(d_v);
        wt_dev_free(d_idx);
        wt_host_free(v);
        wt_host_free(idx);
    }
};

/* ------------------------------------------------------------------------------------------
   warp level
   ------------------------------------------------------------------------------------------ */

/* The warp modes (how the lanes of one test warp call) are in wt_kernels.h. */
template <int W, typename T, typename I, typename Op>
__global__ void k_warp(const T *v, const I *idx, const int *modes, warpred_arg<T, I> *red, warpred_arg<T, I> *all)
{
    const int i = blockIdx.x * 32 + threadIdx.x;
    wt_warp_calls<W>(warpred_make_arg(v[i], idx[i]), Op(), modes[blockIdx.x], red + i, all + i);
}

template <int W, typename T, typename I, int OpId> static void run_warp_case(int s, int order)
{
    typedef warpred_arg<T, I> A;
    const arg_inputs<T, I> in(WT_MODE_WARPS * 32);
    fill_args(s, OpId, in.v, in.idx, in.n, W, order);
    in.upload();
    char what[160];
    snprintf(what, sizeof what, "%s %s, %s, index order %d", pair_name<T, I>(), wt_argop_name[OpId], s_name[s], order);
    wt_run_warps<A>(
        what, W,
        [&](const int *d_modes, A *d_red, A *d_all) {
            k_warp<W, T, I, typename wt_argop_of<OpId>::type>
                <<<WT_MODE_WARPS, 32>>>(in.d_v, in.d_idx, d_modes, d_red, d_all);
        },
        in.check(OpId), same_pair<T, I>);
    in.release();
}

/* Every scenario (twice with fresh values for the random ones), each index order. */
template <int W, typename T, typename I, int OpId> static void run_warp_scenarios(void)
{
    for (int s = 0; s < S_COUNT; s++) {
        if (wt_type<T>::is_int && scenario_has_nan(s)) continue;
        for (int order = IDX_ASCENDING; order <= IDX_RANDOM; order++) run_warp_case<W, T, I, OpId>(s, order);
    }
}

template <int W, typename T, typename I> static void run_warp_all_ops(void)
{
    run_warp_scenarios<W, T, I, WT_ARGMAX>();
    run_warp_scenarios<W, T, I, WT_ARGMIN>();
    run_warp_scenarios<W, T, I, WT_ARGMAX_NUM>();
    run_warp_scenarios<W, T, I, WT_ARGMIN_NUM>();
}

/* float values, int indices: every width, every op. */
static void test_warp_float_int(void **state)
{
    WT_NEED_GPU(state);
    run_warp_all_ops<1, float, int>();
    run_warp_all_ops<2, float, int>();
    run_warp_all_ops<4, float, int>();
    run_warp_all_ops<8, float, int>();
    run_warp_all_ops<16, float, int>();
    run_warp_all_ops<32, float, int>();
}

/* double with both index types (16-byte pairs, one padded), a narrow and a full width. */
static void test_warp_double(void **state)
{
    WT_NEED_GPU(state);
    run_warp_all_ops<32, double, int>();
    run_warp_all_ops<4, double, long long>();
    run_warp_all_ops<32, double, long long>();
}

static void test_warp_float_long_long(void **state)
{
    WT_NEED_GPU(state);
    run_warp_all_ops<32, float, long long>();
    run_warp_all_ops<2, float, long long>();
}

/* Integers: plain order; the _num forms must equal the plain ones. */
static void test_warp_integers(void **state)
{
    WT_NEED_GPU(state);
    run_warp_all_ops<32, int, int>();
    run_warp_all_ops<16, int, long long>();
    run_warp_scenarios<32, unsigned, int, WT_ARGMIN>();
    run_warp_scenarios<32, unsigned, int, WT_ARGMAX_NUM>();
    run_warp_scenarios<32, long long, int, WT_ARGMAX>();
    run_warp_scenarios<32, unsigned long long, long long, WT_ARGMAX>();
    run_warp_scenarios<8, unsigned long long, long long, WT_ARGMIN>();
}

/* ------------------------------------------------------------------------------------------
   block level
   ------------------------------------------------------------------------------------------ */

/* reduce then allreduce (or their _valid forms when valid > 0), with no barrier between. */
template <typename T, typename I, typename Op>
__global__ void k_block(const T *v, const I *idx, int valid, warpred_arg<T, I> *red, warpred_arg<T, I> *all)
{
    const int tid = wt_block_tid(), i = blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + tid;
    wt_block_calls(warpred_make_arg(v[i], idx[i]), Op(), valid, tid, red + blockIdx.x, all + i);
}

template <int BT, typename T, typename I, typename Op>
__global__ void k_block_static(const T *v, const I *idx, int valid, warpred_arg<T, I> *red, warpred_arg<T, I> *all)
{
    const int tid = wt_block_tid(), i = blockIdx.x * BT + tid;
    wt_block_calls_static<BT>(warpred_make_arg(v[i], idx[i]), Op(), valid, tid, red + blockIdx.x, all + i);
}

template <typename T, typename I> struct block_kernel {
    typedef void (*type)(const T *, const I *, int, warpred_arg<T, I> *, warpred_arg<T, I> *);
};

/* `blocks` blocks of `shape`; valid > 0: only the first `valid` threads' values count (the
   others hold the op's most winning value, which must not leak in). */
template <typename T, typename I, int OpId>
static void run_block(dim3 shape, int blocks, int s, int valid, typename block_kernel<T, I>::type kernel = 0)
{
    typedef warpred_arg<T, I> A;
    typedef typename wt_argop_of<OpId>::type Op;
    const int nthreads = shape.x * shape.y * shape.z, counted = valid > 0 ? valid : nthreads;
    const arg_inputs<T, I> in((size_t)blocks * nthreads);
    const int order = wt_rand_below(3);
    fill_args(s, OpId, in.v, in.idx, in.n, nthreads, order);
    if (valid > 0) /* a loud value past the first `valid`: NaN with index 0 beats everything in the plain forms */
        for (size_t i = 0; i < in.n; i++)
            if ((int)(i % nthreads) >= valid) {
                const int want_max = OpId == WT_ARGMAX || OpId == WT_ARGMAX_NUM;
                in.v[i] = OpId < WT_ARGMAX_NUM && !wt_type<T>::is_int ? value_nan<T>() : value_extreme<T>(want_max);
                in.idx[i] = 0;
            }
    in.upload();
    char what[160];
    snprintf(what, sizeof what, "%s %s, %s", pair_name<T, I>(), wt_argop_name[OpId], s_name[s]);
    wt_run_blocks<A>(
        what, shape, blocks, counted,
        [&](A *d_red, A *d_all) {
            if (kernel) kernel<<<blocks, shape>>>(in.d_v, in.d_idx, valid, d_red, d_all);
            else
                k_block<T, I, Op><<<blocks, shape>>>(in.d_v, in.d_idx, valid, d_red, d_all);
        },
        in.check(OpId), same_pair<T, I>);
    in.release();
}

/* Every 1D size 1..1024, for argmax and argmin_num over float (under `make sanitize`: the
   edges and a spread). Scenarios rotate with the size so that each appears at many sizes. */
static void test_block_every_size(void **state)
{
    WT_NEED_GPU(state);
    for (int n = 1; n <= 1024; n++) {
        const int edge = n <= 66 || n % 32 <= 1 || n % 32 == 31 || n >= 1000;
        if (wt_quick() && !edge && n % 37 != 0) continue;
        run_block<float, int, WT_ARGMAX>(dim3(n), 3, n % S_COUNT, 0);
        run_block<float, int, WT_ARGMIN_NUM>(dim3(n), 2, (n * 7) % S_COUNT, 0);
    }
}

static const dim3 wt_shapes[] = {dim3(1000),       dim3(1024),     dim3(33),       dim3(17),
                                 dim3(96),         dim3(7, 5, 3),  dim3(32, 32),   dim3(33, 31),
                                 dim3(10, 10, 10), dim3(3, 3, 64), dim3(1, 1, 64), dim3(1)};
enum { NSHAPES = sizeof wt_shapes / sizeof wt_shapes[0] };

/* Every shape x scenario, the given pair type and op, full and _valid forms. */
template <typename T, typename I, int OpId> static void run_block_shapes(void)
{
    for (int sh = 0; sh < NSHAPES; sh++) {
        const int nthreads = wt_shapes[sh].x * wt_shapes[sh].y * wt_shapes[sh].z;
        for (int s = 0; s < S_COUNT; s++) {
            if (wt_type<T>::is_int && scenario_has_nan(s)) continue;
            run_block<T, I, OpId>(wt_shapes[sh], 3, s, 0);
        }
        const int valid[] = {1, nthreads / 2 + 1, nthreads > 1 ? nthreads - 1 : 1};
        for (int k = 0; k < 3; k++) run_block<T, I, OpId>(wt_shapes[sh], 3, S_MIXED, valid[k]);
    }
}

static void test_block_shapes_float(void **state)
{
    WT_NEED_GPU(state);
    run_block_shapes<float, int, WT_ARGMAX>();
    run_block_shapes<float, int, WT_ARGMIN>();
    run_block_shapes<float, int, WT_ARGMAX_NUM>();
    run_block_shapes<float, int, WT_ARGMIN_NUM>();
}

static void test_block_shapes_other_types(void **state)
{
    WT_NEED_GPU(state);
    run_block_shapes<double, int, WT_ARGMAX>();
    run_block_shapes<double, long long, WT_ARGMIN_NUM>();
    run_block_shapes<float, long long, WT_ARGMIN>();
    run_block_shapes<int, long long, WT_ARGMAX>();
    run_block_shapes<unsigned long long, int, WT_ARGMIN>();
}

/* The compile-time block size. */
static void test_block_static(void **state)
{
    WT_NEED_GPU(state);
    for (int s = 0; s < S_COUNT; s++) {
        run_block<float, int, WT_ARGMAX>(dim3(17), 3, s, 0, k_block_static<17, float, int, warpred_op_argmax>);
        run_block<float, int, WT_ARGMAX>(dim3(7, 5, 3), 3, s, 0, k_block_static<105, float, int, warpred_op_argmax>);
        run_block<float, int, WT_ARGMAX>(dim3(256), 3, s, 0, k_block_static<256, float, int, warpred_op_argmax>);
        run_block<float, int, WT_ARGMAX>(dim3(1024), 2, s, 0, k_block_static<1024, float, int, warpred_op_argmax>);
        run_block<double, long long, WT_ARGMIN_NUM>(dim3(96), 3, s, 0,
                                                    k_block_static<96, double, long long, warpred_op_argmin_num>);
        run_block<double, long long, WT_ARGMIN_NUM>(dim3(1000), 2, s, 0,
                                                    k_block_static<1000, double, long long, warpred_op_argmin_num>);
    }
    run_block<float, int, WT_ARGMAX>(dim3(256), 3, S_PADDED, 77, k_block_static<256, float, int, warpred_op_argmax>);
    run_block<double, long long, WT_ARGMIN_NUM>(dim3(1000), 3, S_MIXED, 999,
                                                k_block_static<1000, double, long long, warpred_op_argmin_num>);
}

/* Four reductions of different pair types back to back, no caller barrier, then the same
   pair type twice in a loop: the shared-memory reuse bug class. */
__global__ void k_back_to_back(const float *v, const double *w, int rounds, warpred_arg<float, int> *out_f,
                               warpred_arg<double, long long> *out_d)
{
    const int n = blockDim.x * blockDim.y * blockDim.z;
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int base = blockIdx.x * n;
    warpred_arg<float, int> a = warpred_block_allreduce(warpred_make_arg(v[base + tid], tid), warpred_op_argmax());
    warpred_arg<double, long long> b =
        warpred_block_reduce(warpred_make_arg(w[base + tid], (long long)tid), warpred_op_argmin());
    warpred_arg<float, int> c = warpred_block_reduce(warpred_make_arg(v[base + tid], tid), warpred_op_argmin_num());
    warpred_arg<double, long long> d =
        warpred_block_allreduce(warpred_make_arg(w[base + tid], (long long)tid), warpred_op_argmax_num());
    if (tid == 0) {
        out_f[blockIdx.x * 4 + 0] = a;
        out_f[blockIdx.x * 4 + 1] = c;
        out_d[blockIdx.x * 4 + 0] = b;
        out_d[blockIdx.x * 4 + 1] = d;
    }
    if (tid == n - 1) { /* the allreduce results in the last thread */
        out_f[blockIdx.x * 4 + 2] = a;
        out_d[blockIdx.x * 4 + 2] = d;
    }
    warpred_arg<float, int> acc = warpred_arg<float, int>{0, 0};
    for (int r = 0; r < rounds; r++) { /* values rotate against the indices: each round another winner */
        const int t = (tid + r * 7) % n;
        acc = warpred_block_allreduce(warpred_make_arg(v[base + t], tid), warpred_op_argmax());
    }
    if (tid == n / 2) out_f[blockIdx.x * 4 + 3] = acc;
}

static void run_back_to_back(dim3 shape, int blocks)
{
    const int n = shape.x * shape.y * shape.z, rounds = 5;
    const size_t count = (size_t)blocks * n;
    float *v = (float *)wt_host_alloc(count * sizeof(float));
    double *w = (double *)wt_host_alloc(count * sizeof(double));
    int *iota = (int *)wt_host_alloc(n * sizeof(int));
    long long *iota_ll = (long long *)wt_host_alloc(n * sizeof(long long));
    float *last_round = (float *)wt_host_alloc(n * sizeof(float));
    for (int t = 0; t < n; t++) iota[t] = t, iota_ll[t] = t;
    for (size_t i = 0; i < count; i++) {
        v[i] = value_of_kind<float>(S_MIXED);
        w[i] = value_of_kind<double>(S_MIXED);
    }
    float *d_v = (float *)wt_dev_alloc(count * sizeof(float));
    double *d_w = (double *)wt_dev_alloc(count * sizeof(double));
    warpred_arg<float, int> *d_f =
                                (warpred_arg<float, int> *)wt_dev_alloc(blocks * 4 * sizeof(warpred_arg<float, int>)),
                            *f;
    warpred_arg<double, long long> *d_d = (warpred_arg<double, long long> *)wt_dev_alloc(
                                       blocks * 4 * sizeof(warpred_arg<double, long long>)),
                                   *d;
    f = (warpred_arg<float, int> *)wt_host_alloc(blocks * 4 * sizeof *f);
    d = (warpred_arg<double, long long> *)wt_host_alloc(blocks * 4 * sizeof *d);
    wt_to_dev(d_v, v, count * sizeof(float));
    wt_to_dev(d_w, w, count * sizeof(double));
    k_back_to_back<<<blocks, shape>>>(d_v, d_w, rounds, d_f, d_d);
    WT_LAUNCHED();
    wt_to_host(f, d_f, blocks * 4 * sizeof *f);
    wt_to_host(d, d_d, blocks * 4 * sizeof *d);
    for (int b = 0; b < blocks; b++) {
        const float *bv = v + (size_t)b * n;
        const double *bw = w + (size_t)b * n;
        char why[300];
#define WT_CHECK(vals, ids, op, got, what)                                                                    \
    if (!wt_arg_matches(vals, ids, wt_arg_pick(op, vals, ids, n), (got).value, (got).index, why, sizeof why)) \
        fail_msg("back to back, block (%u,%u,%u) #%d, %s: %s", shape.x, shape.y, shape.z, b, what, why);
        WT_CHECK(bv, iota, WT_ARGMAX, f[b * 4 + 0], "argmax allreduce (thread 0)")
        WT_CHECK(bv, iota, WT_ARGMAX, f[b * 4 + 2], "argmax allreduce (last thread)")
        WT_CHECK(bv, iota, WT_ARGMIN_NUM, f[b * 4 + 1], "argmin_num reduce")
        WT_CHECK(bw, iota_ll, WT_ARGMIN, d[b * 4 + 0], "double argmin reduce")
        WT_CHECK(bw, iota_ll, WT_ARGMAX_NUM, d[b * 4 + 1], "double argmax_num allreduce (thread 0)")
        WT_CHECK(bw, iota_ll, WT_ARGMAX_NUM, d[b * 4 + 2], "double argmax_num allreduce (last thread)")
        for (int t = 0; t < n; t++) last_round[t] = bv[(t + (rounds - 1) * 7) % n];
        WT_CHECK(last_round, iota, WT_ARGMAX, f[b * 4 + 3], "argmax in a loop, last round")
#undef WT_CHECK
    }
    wt_dev_free(d_v);
    wt_dev_free(d_w);
    wt_dev_free(d_f);
    wt_dev_free(d_d);
    wt_host_free(v);
    wt_host_free(w);
    wt_host_free(iota);
    wt_host_free(iota_ll);
    wt_host_free(last_round);
    wt_host_free(f);
    wt_host_free(d);
}

static void test_block_back_to_back(void **state)
{
    WT_NEED_GPU(state);
    const dim3 shapes[] = {dim3(1024), dim3(1000), dim3(257), dim3(64),      dim3(33),
                           dim3(32),   dim3(5),    dim3(1),   dim3(7, 5, 3), dim3(16, 8, 8)};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) run_back_to_back(shapes[s], 5);
}

/* ------------------------------------------------------------------------------------------
   grid level
   ------------------------------------------------------------------------------------------ */

template <typename T, typename I, typename Op>
__global__ void k_grid(const T *v, const I *idx, warpred_grid_scratch scratch, warpred_arg<T, I> *out, int *winners)
{
    const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const size_t i = (size_t)blockIdx.x * nthreads + tid;
    if (warpred_grid_reduce(warpred_make_arg(v[i], idx[i]), Op(), scratch, out)) atomicAdd(winners, 1);
}

/* One grid reduction per scenario on `blocks` x `shape`, all on one scratch, each repeated
   `repeats` times on the same input: every repeat must give the same bits, and exactly one thread
   of each launch gets true from warpred_grid_reduce. */
template <typename T, typename I, int OpId> static void run_grid(int blocks, dim3 shape, int repeats)
{
    typedef warpred_arg<T, I> A;
    const int nthreads = shape.x * shape.y * shape.z;
    const size_t n = (size_t)blocks * nthreads;
    warpred_grid_scratch *scratch = wt_grid_scratch((unsigned)blocks, sizeof(A));
    const arg_inputs<T, I> in(n);
    T *v = in.v;
    I *idx = in.idx;
    int *d_winners = (int *)wt_dev_alloc(sizeof(int));
    for (int s = 0; s < S_COUNT; s++) {
        if (wt_type<T>::is_int && scenario_has_nan(s)) continue;
        const int order = wt_rand_below(3);
        fill_args(s, OpId, v, idx, n, n, order);
        in.upload();
        const int want = wt_arg_pick(OpId, v, idx, (int)n);
        char what[200];
        snprintf(what, sizeof what, "%s %s grid of %d x (%u,%u,%u), %s", pair_name<T, I>(), wt_argop_name[OpId], blocks,
                 shape.x, shape.y, shape.z, s_name[s]);
        wt_run_grid<A>(
            what, blocks, repeats, scratch,
            [&](warpred_grid_scratch sc, A *d_out) {
                WT_CUDA(cudaMemset(d_winners, 0, sizeof(int)));
                k_grid<T, I, typename wt_argop_of<OpId>::type>
                    <<<blocks, shape>>>(in.d_v, in.d_idx, sc, d_out, d_winners);
            },
            [&](A got, char *why, size_t len) {
                int winners;
                wt_to_host(&winners, d_winners, sizeof(int));
                if (winners != 1) {
                    snprintf(why, len, "grid reduce returned true in %d threads, expected 1", winners);
                    return 0;
                }
                return wt_arg_matches(v, idx, want, got.value, got.index, why, len);
            },
            same_pair<T, I>);
    }
    wt_grid_scratch_free(scratch);
    wt_dev_free(d_winners);
    in.release();
}

static void test_grid(void **state)
{
    WT_NEED_GPU(state);
    const int blocks[] = {1, 2, 3, 7, 31, 33, 64, 132, 255, 300};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        run_grid<float, int, WT_ARGMAX>(blocks[b], dim3(96), 2);
        run_grid<double, long long, WT_ARGMIN_NUM>(blocks[b], dim3(7, 5, 3), 1);
    }
    /* a few thousand blocks: more partials than threads in the last block */
    const int big = wt_quick() ? 1500 : 3001;
    run_grid<float, int, WT_ARGMAX>(big, dim3(64), 3);
    run_grid<float, int, WT_ARGMIN>(big, dim3(33), 1);
    run_grid<int, long long, WT_ARGMAX_NUM>(2049, dim3(32), 1);
    run_grid<float, long long, WT_ARGMAX_NUM>(1000, dim3(256), 2);
}

/* ------------------------------------------------------------------------------------------
   the identities and the layouts
   ------------------------------------------------------------------------------------------ */

template <typename A> __global__ void k_identities(A *out)
{
    out[0] = warpred_op_argmax::identity<A>();
    out[1] = warpred_op_argmin::identity<A>();
    out[2] = warpred_op_argmax_num::identity<A>();
    out[3] = warpred_op_argmin_num::identity<A>();
}

template <typename T, typename I> static void check_identities(void)
{
    typedef warpred_arg<T, I> A;
    A got[4], *d = (A *)wt_dev_alloc(sizeof got);
    k_identities<A><<<1, 1>>>(d);
    WT_LAUNCHED();
    wt_to_host(got, d, sizeof got);
    wt_dev_free(d);
    for (int op = 0; op < 4; op++) {
        const T want = wt_arg_identity_value<T>(op);
        if (wt_type<T>::bits(got[op].value) != wt_type<T>::bits(want) || got[op].index != (I)-1)
            fail_msg("%s identity of %s: value bits %llx index %lld, expected bits %llx index -1", pair_name<T, I>(),
                     wt_argop_name[op], (unsigned long long)wt_type<T>::bits(got[op].value), (long long)got[op].index,
                     (unsigned long long)wt_type<T>::bits(want));
    }
}

static void test_identities(void **state)
{
    WT_NEED_GPU(state);
    check_identities<float, int>();
    check_identities<double, long long>();
    check_identities<int, int>();
    check_identities<unsigned, long long>();
    check_identities<long long, int>();
    check_identities<unsigned long long, long long>();
}

static void test_layouts(void **state)
{
    (void)state;
    printf("[ INFO     ] sizeof warpred_arg<float,int> %zu, <int,long long> %zu, <double,int> %zu, <double,long long> "
           "%zu, "
           "<unsigned long long,long long> %zu\n",
           sizeof(warpred_arg<float, int>), sizeof(warpred_arg<int, long long>), sizeof(warpred_arg<double, int>),
           sizeof(warpred_arg<double, long long>), sizeof(warpred_arg<unsigned long long, long long>));
    /* the pair holds both members at least (a packed or reordered layout is fine) */
    assert_true(sizeof(warpred_arg<float, int>) >= 8 && sizeof(warpred_arg<double, int>) >= 12);
}

/* ------------------------------------------------------------------------------------------
   the usage snippet of op_argminmax.cuh (the kernel row_argmax, as the build copies it from the
   manual: scripts/snippets.py), and its _num variant, written here
   ------------------------------------------------------------------------------------------ */

#include "snippets/op_argminmax.inc"

__global__ void row_argmax_num(const float *x, int cols, int *out)
{
    warpred_arg<float, int> best = warpred_op_argmax_num::identity<warpred_arg<float, int>>();
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        best = warpred_op_argmax_num()(best, warpred_make_arg(x[blockIdx.x * cols + c], c));
    best = warpred_block_reduce(best, warpred_op_argmax_num());
    if (threadIdx.x == 0) out[blockIdx.x] = best.index;
}

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float x[8] = {3, 7, 7, 1, 2, NAN, 5, NAN};
    float *d_x = (float *)wt_dev_alloc(sizeof x);
    int *d_out = (int *)wt_dev_alloc(2 * sizeof(int)), out[2];
    wt_to_dev(d_x, x, sizeof x);
    const int threads[] = {1, 2, 3, 32, 128};
    for (int t = 0; t < 5; t++) {
        wt_launch_into(out, d_out, sizeof out, [&] { row_argmax<<<2, threads[t]>>>(d_x, 4, d_out); });
        assert_int_equal(out[0], 1);
        assert_int_equal(out[1], 1);
        wt_launch_into(out, d_out, sizeof out, [&] { row_argmax_num<<<2, threads[t]>>>(d_x, 4, d_out); });
        assert_int_equal(out[0], 1);
        assert_int_equal(out[1], 2);
    }
    wt_dev_free(d_x);
    wt_dev_free(d_out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(wt_compound_self_check),
        WT_TEST(test_layouts),
        WT_TEST(test_identities),
        WT_TEST(test_doc_snippet),
        WT_TEST(test_warp_float_int),
        WT_TEST(test_warp_double),
        WT_TEST(test_warp_float_long_long),
        WT_TEST(test_warp_integers),
        WT_TEST(test_block_every_size),
        WT_TEST(test_block_shapes_float),
        WT_TEST(test_block_shapes_other_types),
        WT_TEST(test_block_static),
        WT_TEST(test_block_back_to_back),
        WT_TEST(test_grid),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
