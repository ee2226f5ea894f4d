/* Values and operations through the protocol (warpred/value.cuh, warpred/operation.cuh): types a
   user brings - int64_t (long), size_t (unsigned long), float2, int2, a 12-byte struct described
   by a warpred_value specialisation, a padded struct with a warpred_members member function -
   reduced at warp, block, grid and device level against exact host references; member-by-member
   IEEE rules in vector types; a user operation; and the block layer's compound orders checked to
   the bit against block_reduce.cuh's ORDER at 1, 2, 4, 8, 17 and 32 warps. */
#include <warpred/warpred.cuh>
#include "wt_plans.h"

/* ---- the manuals' snippets: particle and centre (value.cuh), op_absmax and peak (operation.cuh) ---- */

#include "snippets/value.inc"
#include "snippets/operation.inc"

/* A padded struct (4 bytes of padding after count) that describes itself. */
struct tally {
    int count;
    double total;
    template <typename F> __device__ void warpred_members(F &f)
    {
        f(count);
        f(total);
    }
};

/* ---- host models of the built-in sum, member by member ---- */

static long h_sum(long a, long b) { return (long)((unsigned long)a + (unsigned long)b); }
static unsigned long h_sum(unsigned long a, unsigned long b) { return a + b; }
static float2 h_sum(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
static int2 h_sum(int2 a, int2 b)
{
    return make_int2((int)((unsigned)a.x + (unsigned)b.x), (int)((unsigned)a.y + (unsigned)b.y));
}
static particle h_sum(particle a, particle b)
{
    particle r = {a.x + b.x, a.y + b.y, a.z + b.z};
    return r;
}
static tally h_sum(tally a, tally b)
{
    tally r;
    r.count = a.count + b.count;
    r.total = a.total + b.total;
    return r;
}

static bool h_same(long a, long b) { return a == b; }
static bool h_same(unsigned long a, unsigned long b) { return a == b; }
static bool h_same(float2 a, float2 b) { return memcmp(&a.x, &b.x, 4) == 0 && memcmp(&a.y, &b.y, 4) == 0; }
static bool h_same(int2 a, int2 b) { return a.x == b.x && a.y == b.y; }
static bool h_same(particle a, particle b) { return memcmp(&a, &b, sizeof a) == 0; }
static bool h_same(tally a, tally b) { return a.count == b.count && memcmp(&a.total, &b.total, 8) == 0; }

static void h_show(char *s, long a) { sprintf(s, "%ld", a); }
static void h_show(char *s, unsigned long a) { sprintf(s, "%lu", a); }
static void h_show(char *s, float2 a) { sprintf(s, "{%.9g, %.9g}", a.x, a.y); }
static void h_show(char *s, int2 a) { sprintf(s, "{%d, %d}", a.x, a.y); }
static void h_show(char *s, particle a) { sprintf(s, "{%.9g, %.9g, %.9g}", a.x, a.y, a.z); }
static void h_show(char *s, tally a) { sprintf(s, "{%d, %.17g}", a.count, a.total); }

/* Random values whose sums are exact in any order (small integers in floats, full-width 64-bit
   integers that wrap), so that every level has one right answer. */
static void h_random(long *v) { *v = (long)wt_rand64(); }
static void h_random(unsigned long *v) { *v = (unsigned long)wt_rand64(); }
static void h_random(float2 *v) { *v = make_float2((float)wt_rand_below(129) - 64.0f, (float)wt_rand_below(64)); }
static void h_random(int2 *v) { *v = make_int2((int)wt_rand32(), (int)wt_rand32()); }
static void h_random(particle *v)
{
    particle p = {(float)wt_rand_below(200) - 100.0f, (float)wt_rand_below(8), 0.5f};
    *v = p;
}
static void h_random(tally *v)
{
    memset(v, 0x5a, sizeof *v);
    v->count = wt_rand_below(100);
    v->total = (double)wt_rand_below(1 << 20) * 0.25;
}

template <typename T> static T h_zero(void)
{
    T z;
    memset(&z, 0, sizeof z);
    return z;
}

template <typename T> static void h_expect(const char *what, int shape, const T &got, const T &want)
{
    if (h_same(got, want)) return;
    char g[160], w[160];
    h_show(g, got);
    h_show(w, want);
    fail_msg("%s (shape %d): got %s, expected %s", what, shape, g, w);
}

/* ---- the kernels, one per level ---- */

/* out[2 * warp]: warp_reduce's result; out[2 * warp + 1]: lane 31's allreduce result. */
template <typename T> __global__ void k_warp(const T *in, T *out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const T r = warpred_warp_reduce(in[t], warpred_op_sum());
    const T a = warpred_warp_allreduce(in[t], warpred_op_sum());
    if ((threadIdx.x & 31) == 0) out[2 * (t >> 5)] = r;
    if ((threadIdx.x & 31) == 31) out[2 * (t >> 5) + 1] = a;
}

/* out[2 * block]: block_reduce's result; out[2 * block + 1]: the last thread's allreduce result. */
template <typename T> __global__ void k_block(const T *in, T *out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const T r = warpred_block_reduce(in[t], warpred_op_sum());
    const T a = warpred_block_allreduce(in[t], warpred_op_sum());
    if (threadIdx.x == 0) out[2 * blockIdx.x] = r;
    if (threadIdx.x == blockDim.x - 1) out[2 * blockIdx.x + 1] = a;
}

template <typename T> __global__ void k_grid(const T *in, warpred_grid_scratch scratch, T *out)
{
    warpred_grid_reduce(in[blockIdx.x * blockDim.x + threadIdx.x], warpred_op_sum(), scratch, out);
}

/* Every level reduces fresh random values of T and must match the exact host sum. */
template <typename T> static void levels_of(const char *name)
{
    enum { N = 1 << 17 };
    T *h = (T *)wt_host_alloc(N * sizeof(T));
    T *got = (T *)wt_host_alloc(2 * 1024 * sizeof(T));
    for (int i = 0; i < N; i++) h_random(&h[i]);
    T *in = (T *)wt_dev_alloc(N * sizeof(T));
    T *out = (T *)wt_dev_alloc(2 * 1024 * sizeof(T));
    wt_to_dev(in, h, N * sizeof(T));
    char what[96];

    /* warp: 4 warps */
    k_warp<T><<<1, 128>>>(in, out);
    WT_LAUNCHED();
    wt_to_host(got, out, 8 * sizeof(T));
    for (int w = 0; w < 4; w++) {
        T want = h[32 * w];
        for (int l = 1; l < 32; l++) want = h_sum(want, h[32 * w + l]);
        snprintf(what, sizeof what, "%s warp_reduce", name);
        h_expect(what, w, got[2 * w], want);
        snprintf(what, sizeof what, "%s warp_allreduce", name);
        h_expect(what, w, got[2 * w + 1], want);
    }

    /* block: several sizes, including partial warps */
    const int sizes[] = {32, 96, 256, 1000, 1024};
    for (int s = 0; s < 5; s++) {
        const int bs = sizes[s], blocks = 3;
        wt_poison(out, 2 * blocks * sizeof(T));
        k_block<T><<<blocks, bs>>>(in, out);
        WT_LAUNCHED();
        wt_to_host(got, out, 2 * blocks * sizeof(T));
        for (int b = 0; b < blocks; b++) {
            T want = h[b * bs];
            for (int i = 1; i < bs; i++) want = h_sum(want, h[b * bs + i]);
            snprintf(what, sizeof what, "%s block_reduce", name);
            h_expect(what, bs, got[2 * b], want);
            snprintf(what, sizeof what, "%s block_allreduce", name);
            h_expect(what, bs, got[2 * b + 1], want);
        }
    }

    /* grid: 37 blocks of 128 */
    warpred_grid_scratch *scratch = wt_grid_scratch(64, sizeof(T));
    for (int rep = 0; rep < 2; rep++) {
        wt_poison(out, sizeof(T));
        k_grid<T><<<37, 128>>>(in, *scratch, out);
        WT_LAUNCHED();
        wt_to_host(got, out, sizeof(T));
        T want = h[0];
        for (int i = 1; i < 37 * 128; i++) want = h_sum(want, h[i]);
        snprintf(what, sizeof what, "%s grid_reduce", name);
        h_expect(what, rep, got[0], want);
    }

    /* device: several n, and a start one element in (misaligned for the 16-byte loads) */
    warpred_device_plan *plan = wt_device_plan(0);
    const char *why;
    const int ns[] = {0, 1, 31, 1000, 4099, N - 1};
    for (int k = 0; k < 6; k++) {
        for (int start = 0; start < 2 && start + ns[k] <= N; start++) {
            wt_poison(out, sizeof(T));
            WT_CUDA(warpred_device_reduce(plan, in + start, (size_t)ns[k], out, warpred_op_sum(), 0, &why));
            WT_LAUNCHED();
            wt_to_host(got, out, sizeof(T));
            T want = h_zero<T>();
            for (int i = 0; i < ns[k]; i++) want = h_sum(want, h[start + i]);
            snprintf(what, sizeof what, "%s device_reduce from element %d", name, start);
            h_expect(what, ns[k], got[0], want);
        }
    }
}

static void test_int64_t(void **state)
{
    WT_NEED_GPU(state);
    levels_of<int64_t>("int64_t");
}
static void test_size_t(void **state)
{
    WT_NEED_GPU(state);
    levels_of<size_t>("size_t");
}
static void test_float2(void **state)
{
    WT_NEED_GPU(state);
    levels_of<float2>("float2");
}
static void test_int2(void **state)
{
    WT_NEED_GPU(state);
    levels_of<int2>("int2");
}
static void test_struct_12_bytes(void **state)
{
    WT_NEED_GPU(state);
    levels_of<particle>("particle (12 bytes)");
}
static void test_struct_with_padding(void **state)
{
    WT_NEED_GPU(state);
    levels_of<tally>("tally (member function)");
}

/* ---- member-by-member rules ---- */

__global__ void k_vector_rules(const float2 *in, const int2 *bits_in, float2 *fmax, float2 *fmax_num, float2 *fmin,
                               int2 *ixor, int2 *imax)
{
    const int t = threadIdx.x;
    const float2 a = warpred_block_reduce(in[t], warpred_op_max());
    const float2 b = warpred_warp_allreduce(in[t], warpred_op_max_num());
    const float2 c = warpred_block_allreduce(in[t], warpred_op_min());
    const int2 d = warpred_block_reduce(bits_in[t], warpred_op_xor());
    const int2 e = warpred_warp_reduce(bits_in[t], warpred_op_max());
    if (t == 0) {
        *fmax = a;
        *ixor = d;
        *imax = e;
    }
    if (t == 5) {
        *fmax_num = b;
        *fmin = c;
    }
}

static unsigned h_bits(float x)
{
    unsigned u;
    memcpy(&u, &x, 4);
    return u;
}

/* x members hold a NaN (lane 7) and y members only -0/+0 or numbers: each member follows the
   IEEE rule of its operation on its own. */
static void test_vector_members_follow_ieee_rules(void **state)
{
    WT_NEED_GPU(state);
    enum { B = 32 };
    float2 h[B];
    int2 hb[B];
    for (int i = 0; i < B; i++) {
        h[i] = make_float2((float)i - 10.0f, i % 2 ? -0.0f : 0.0f);
        hb[i] = make_int2((int)wt_rand32(), -(int)i);
    }
    h[7].x = nanf("");
    h[9].y = -3.5f;
    float2 *in = (float2 *)wt_dev_alloc(sizeof h), *o = (float2 *)wt_dev_alloc(3 * sizeof(float2));
    int2 *bin = (int2 *)wt_dev_alloc(sizeof hb), *io = (int2 *)wt_dev_alloc(2 * sizeof(int2));
    wt_to_dev(in, h, sizeof h);
    wt_to_dev(bin, hb, sizeof hb);
    k_vector_rules<<<1, B>>>(in, bin, o, o + 1, o + 2, io, io + 1);
    WT_LAUNCHED();
    float2 got[3];
    int2 igot[2];
    wt_to_host(got, o, sizeof got);
    wt_to_host(igot, io, sizeof igot);
    if (h_bits(got[0].x) != 0x7fffffffu)
        fail_msg("float2 max .x: bits %08x, expected the canonical NaN", h_bits(got[0].x));
    if (h_bits(got[0].y) != 0x00000000u) fail_msg("float2 max .y: bits %08x, expected +0", h_bits(got[0].y));
    if (got[1].x != 21.0f) fail_msg("float2 max_num .x: %g, expected 21 (NaN ignored)", got[1].x);
    if (h_bits(got[2].x) != 0x7fffffffu)
        fail_msg("float2 min .x: bits %08x, expected the canonical NaN", h_bits(got[2].x));
    if (got[2].y != -3.5f) fail_msg("float2 min .y: %g, expected -3.5", got[2].y);
    int2 want_xor = make_int2(0, 0), want_max = hb[0];
    for (int i = 0; i < B; i++) {
        want_xor.x ^= hb[i].x, want_xor.y ^= hb[i].y;
        if (hb[i].x > want_max.x) want_max.x = hb[i].x;
        if (hb[i].y > want_max.y) want_max.y = hb[i].y;
    }
    if (!h_same(igot[0], want_xor))
        fail_msg("int2 xor: {%d, %d}, expected {%d, %d}", igot[0].x, igot[0].y, want_xor.x, want_xor.y);
    if (!h_same(igot[1], want_max))
        fail_msg("int2 max: {%d, %d}, expected {%d, %d}", igot[1].x, igot[1].y, want_max.x, want_max.y);
}

/* ---- the manuals' snippets ---- */

static void test_doc_snippets(void **state)
{
    WT_NEED_GPU(state);
    particle h[32];
    for (int i = 0; i < 32; i++) h[i] = particle{(float)i, 1.0f, (float)-i};
    particle *p = (particle *)wt_dev_alloc(sizeof h), *o = (particle *)wt_dev_alloc(sizeof(particle));
    wt_to_dev(p, h, sizeof h);
    centre<<<1, 32>>>(p, o);
    WT_LAUNCHED();
    particle c;
    wt_to_host(&c, o, sizeof c);
    if (c.x != 496.0f || c.y != 32.0f || c.z != -496.0f)
        fail_msg("value.cuh snippet: {%g, %g, %g}, expected {496, 32, -496}", c.x, c.y, c.z);

    float x[256];
    for (int i = 0; i < 256; i++) x[i] = (i % 2 ? -1.0f : 1.0f) * (float)i;
    float *xd = (float *)wt_dev_alloc(sizeof x), *od = (float *)wt_dev_alloc(sizeof(float));
    wt_to_dev(xd, x, sizeof x);
    peak<<<1, 256>>>(xd, od);
    WT_LAUNCHED();
    float pk;
    wt_to_host(&pk, od, sizeof pk);
    if (pk != -255.0f) fail_msg("operation.cuh snippet: %g, expected -255", pk);
}

/* ---- the block layer's compound orders, to the bit ---- */

/* A float2 sum that is not member-wise (no each_member): block_reduce.cuh folds its warp results
   by the tree. */
struct op_pair_sum {
    __device__ float2 operator()(float2 a, float2 b) const { return make_float2(a.x + b.x, a.y + b.y); }
};

typedef warpred_tuple2<float, warpred_arg<float, int>> sum_arg;

template <typename T, typename Op, int BS> __global__ void k_order(const T *in, T *out, Op op)
{
    const T v = in[blockIdx.x * blockDim.x + threadIdx.x];
    const T r = warpred_block_reduce(v, op);
    const T a = warpred_block_allreduce(v, op);
    const T s = warpred_block_reduce<BS>(v, op);
    if (threadIdx.x == 0) out[3 * blockIdx.x] = r, out[3 * blockIdx.x + 2] = s;
    if (threadIdx.x == blockDim.x - 1) out[3 * blockIdx.x + 1] = a;
}

/* host: the float sum of the two members (the model combines member by member; an argmax
   member keeps the larger value, the lower index on ties) */
static float2 h_op(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
static sum_arg h_op(sum_arg a, sum_arg b)
{
    sum_arg r;
    r.v0 = a.v0 + b.v0;
    const bool a_wins = a.v1.value > b.v1.value || (a.v1.value == b.v1.value && a.v1.index < b.v1.index);
    r.v1 = a_wins ? a.v1 : b.v1;
    return r;
}
static bool h_same(sum_arg a, sum_arg b)
{
    return h_bits(a.v0) == h_bits(b.v0) && h_bits(a.v1.value) == h_bits(b.v1.value) && a.v1.index == b.v1.index;
}
static void h_show(char *s, sum_arg a) { sprintf(s, "{%.9g, {%.9g, %d}}", a.v0, a.v1.value, a.v1.index); }

/* warp_reduce.cuh's shuffle-down tree over x[0..n-1] (rising offsets, simultaneous steps). */
template <typename T> static T h_tree(const T *x, int n)
{
    T r[32];
    for (int i = 0; i < n; i++) r[i] = x[i];
    for (int offset = 1; offset < 32 && offset < n; offset <<= 1) {
        T next[32];
        for (int i = 0; i < n; i++) next[i] = i + offset < n ? h_op(r[i], r[i + offset]) : r[i];
        memcpy(r, next, sizeof(T) * (size_t)n);
    }
    return r[0];
}

/* block_reduce.cuh, ORDER, for compound values in blocks of more than 32 threads */
template <typename T> static T h_block_order(const T *x, int n, bool member_wise)
{
    T w[32];
    const int nwarps = (n + 31) / 32;
    for (int k = 0; k < nwarps; k++) w[k] = h_tree(x + 32 * k, n - 32 * k < 32 ? n - 32 * k : 32);
    if (member_wise && nwarps <= 16) {
        T r = w[0];
        for (int k = 1; k < nwarps; k++) r = h_op(r, w[k]);
        return r;
    }
    return h_tree(w, nwarps);
}

static void h_random(sum_arg *v)
{
    v->v0 = (float)((wt_rand_unit() - 0.5) * pow(2.0, wt_rand_below(20)));
    v->v1 = warpred_make_arg((float)wt_rand_below(50), wt_rand_below(1 << 20));
}
static void h_random_bits(float2 *v)
{
    *v = make_float2((float)((wt_rand_unit() - 0.5) * pow(2.0, wt_rand_below(20))), (float)(wt_rand_unit() * 3.0));
}

template <int BS, typename T, typename Op>
static void check_order(const char *name, Op op, bool member_wise, const T *h, T *in, T *out)
{
    enum { BLOCKS = 4 };
    T got[3 * BLOCKS];
    wt_poison(out, sizeof got);
    k_order<T, Op, BS><<<BLOCKS, BS>>>(in, out, op);
    WT_LAUNCHED();
    wt_to_host(got, out, sizeof got);
    for (int b = 0; b < BLOCKS; b++) {
        const T want = h_block_order(h + b * BS, BS, member_wise);
        char what[96];
        snprintf(what, sizeof what, "%s block_reduce, %d warps", name, (BS + 31) / 32);
        h_expect(what, BS, got[3 * b], want);
        snprintf(what, sizeof what, "%s block_allreduce, %d warps", name, (BS + 31) / 32);
        h_expect(what, BS, got[3 * b + 1], want);
        snprintf(what, sizeof what, "%s block_reduce<%d>, %d warps", name, BS, (BS + 31) / 32);
        h_expect(what, BS, got[3 * b + 2], want);
    }
}

template <typename T, typename Op> static void orders_of(const char *name, Op op, bool member_wise)
{
    enum { N = 4 * 1024 };
    T *h = (T *)wt_host_alloc(N * sizeof(T));
    for (int i = 0; i < N; i++) {
        if constexpr (warpred__same<T, float2>::value) h_random_bits(&h[i]);
        else
            h_random(&h[i]);
    }
    T *in = (T *)wt_dev_alloc(N * sizeof(T)), *out = (T *)wt_dev_alloc(12 * sizeof(T));
    wt_to_dev(in, h, N * sizeof(T));
    check_order<64>(name, op, member_wise, h, in, out);
    check_order<128>(name, op, member_wise, h, in, out);
    check_order<256>(name, op, member_wise, h, in, out);
    check_order<530>(name, op, member_wise, h, in, out); /* 17 warps, the last partial */
    check_order<544>(name, op, member_wise, h, in, out); /* 17 whole warps */
    check_order<1024>(name, op, member_wise, h, in, out);
}

/* One warp (32 threads): reduce is the tree; allreduce the butterfly (checked against the tree
   only where the two agree: integer-valued members) - here the reduce and <32> forms. */
template <typename T, typename Op> __global__ void k_order32(const T *in, T *out, Op op)
{
    const T v = in[threadIdx.x];
    const T r = warpred_block_reduce(v, op);
    const T s = warpred_block_reduce<32>(v, op);
    if (threadIdx.x == 0) out[0] = r, out[1] = s;
}

template <typename T, typename Op> static void order_one_warp(const char *name, Op op)
{
    T h[32], got[2];
    for (int i = 0; i < 32; i++) {
        if constexpr (warpred__same<T, float2>::value) h_random_bits(&h[i]);
        else
            h_random(&h[i]);
    }
    T *in = (T *)wt_dev_alloc(sizeof h), *out = (T *)wt_dev_alloc(sizeof got);
    wt_to_dev(in, h, sizeof h);
    k_order32<<<1, 32>>>(in, out, op);
    WT_LAUNCHED();
    wt_to_host(got, out, sizeof got);
    const T want = h_tree(h, 32);
    char what[96];
    snprintf(what, sizeof what, "%s block_reduce, 1 warp", name);
    h_expect(what, 32, got[0], want);
    snprintf(what, sizeof what, "%s block_reduce<32>, 1 warp", name);
    h_expect(what, 32, got[1], want);
}

static void test_compound_block_orders(void **state)
{
    WT_NEED_GPU(state);
    const auto tuple_op = warpred_make_op_tuple(warpred_op_sum(), warpred_op_argmax());
    orders_of<float2>("float2 sum (member-wise)", warpred_op_sum(), true);
    orders_of<float2>("float2 sum by a whole-value operation", op_pair_sum(), false);
    orders_of<sum_arg>("tuple (sum, argmax)", tuple_op, true);
    order_one_warp<float2>("float2 sum (member-wise)", warpred_op_sum());
    order_one_warp<float2>("float2 sum by a whole-value operation", op_pair_sum());
    order_one_warp<sum_arg>("tuple (sum, argmax)", tuple_op);
}

/* ---- the device-wide reduce starts a tuple's float-sum member from -0, as a lone float sum ---- */

struct xf_negzero_pair {
    __device__ warpred_tuple2<float, int> operator()(float x, size_t) const { return warpred_make_tuple(x, 1); }
};

static void test_device_tuple_sum_of_negative_zeros(void **state)
{
    WT_NEED_GPU(state);
    enum { N = 5000 };
    float *h = (float *)wt_host_alloc(N * sizeof(float));
    for (int i = 0; i < N; i++) h[i] = -0.0f;
    float *in = (float *)wt_dev_alloc(N * sizeof(float));
    warpred_tuple2<float, int> *out = (warpred_tuple2<float, int> *)wt_dev_alloc(sizeof(warpred_tuple2<float, int>));
    wt_to_dev(in, h, N * sizeof(float));
    warpred_device_plan *plan = wt_device_plan(0);
    const char *why;
    const auto op = warpred_make_op_tuple(warpred_op_sum(), warpred_op_sum());
    WT_CUDA(warpred_device_transform_reduce(plan, in, (size_t)N, out, op, xf_negzero_pair(), 0, &why));
    WT_LAUNCHED();
    warpred_tuple2<float, int> got;
    wt_to_host(&got, out, sizeof got);
    if (h_bits(got.v0) != 0x80000000u || got.v1 != N)
        fail_msg("tuple of (sum of -0s, count): {bits %08x, %d}, expected {-0, %d}", h_bits(got.v0), got.v1, N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_int64_t),
        WT_TEST(test_size_t),
        WT_TEST(test_float2),
        WT_TEST(test_int2),
        WT_TEST(test_struct_12_bytes),
        WT_TEST(test_struct_with_padding),
        WT_TEST(test_vector_members_follow_ieee_rules),
        WT_TEST(test_doc_snippets),
        WT_TEST(test_compound_block_orders),
        WT_TEST(test_device_tuple_sum_of_negative_zeros),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
