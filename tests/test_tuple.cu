/* Several values in one pass (op_tuple.cuh): tuples of 2, 3 and 4 members, each with its own
   operation, through the warp, block and grid reductions. Every member must equal what the
   single-operation reference of wt_types.h gives for that member alone (exact bits for
   min/max and integers, the sum tolerance for floating-point sums), and, in a separate test,
   have the same bits as a separate warpred call with that member's op on the same inputs (the
   contract: "exactly as a separate call with that op would").

   Member layouts exercised: all-float (12 bytes), float/int/double/float (24 with padding),
   __half/int/__half (12 with padding: small members beside larger ones), int/unsigned/long long,
   double/__nv_bfloat16. */
#include <float.h>
#include <warpred/op_tuple.cuh>
#include <warpred/warp_reduce.cuh>
#include <warpred/block_reduce.cuh>
#include <warpred/grid_reduce.cuh>
#include "wt_compound.h"
#include "wt_kernels.h"

/* ------------------------------------------------------------------------------------------
   host side: the members of each arity, their ops, fill, check
   ------------------------------------------------------------------------------------------ */

template <typename Tup, typename T>
static int check_member(int m, int op, const Tup *in, T Tup::*mem, const int *pos, int k, T got, char *why, size_t len)
{
    T *vals = (T *)calloc(k, sizeof(T)); /* calloc: gcc cannot see that k >= 1 */
    for (int j = 0; j < k; j++) vals[j] = in[pos[j]].*mem;
    wt_ref<T> ref;
    ref.fold(op, vals, k);
    char sub[300];
    const int ok = ref.matches(op, got, k, sub, sizeof sub);
    if (!ok) snprintf(why, len, "member %d (%s, %s over %d values): %s", m, wt_type<T>::name(), wt_op_name[op], k, sub);
    free(vals);
    return ok;
}

template <typename T> static T member_input(int op, int special)
{
    /* sums get ordinary values (specials would make the tolerance meaningless); min/max get
       NaN, +-0, +-inf and subnormals when special */
    return wt_type<T>::random(op == WT_SUM ? 0 : special);
}

/* A value that changes the member's result if it is wrongly counted (past the _valid count). */
template <typename T> static T member_loud(int op)
{
    const int is_min = op == WT_MIN || op == WT_MIN_NUM, is_max = op == WT_MAX || op == WT_MAX_NUM;
    if constexpr (!wt_type<T>::is_int) {
        return wt_type<T>::from_d(is_min ? -60000.0 : 60000.0);
    } else {
        T v;
        memset((void *)&v, WT_POISON, sizeof v);
        if (is_min || is_max) {
            const T zero = (T)0, ones = (T)~zero;
            const T lowest = ones < zero ? (T)(1ull << (sizeof(T) * 8 - 1)) : zero;
            v = is_min ? lowest : (T)~lowest;
        }
        return v;
    }
}

/* T, from the type of a pointer to a member of type T */
template <typename P> struct wt_member_type;
template <typename C, typename T> struct wt_member_type<T C::*> {
    typedef T type;
};

/* The members of each arity, as pointers to members: each(fn) calls fn(m, &Tup::vm) in order. */
template <typename Tup> struct wt_members;
template <typename A, typename B> struct wt_members<warpred_tuple2<A, B>> {
    typedef warpred_tuple2<A, B> Tup;
    template <typename Fn> static void each(Fn fn)
    {
        fn(0, &Tup::v0);
        fn(1, &Tup::v1);
    }
};
template <typename A, typename B, typename C> struct wt_members<warpred_tuple3<A, B, C>> {
    typedef warpred_tuple3<A, B, C> Tup;
    template <typename Fn> static void each(Fn fn)
    {
        fn(0, &Tup::v0);
        fn(1, &Tup::v1);
        fn(2, &Tup::v2);
    }
};
template <typename A, typename B, typename C, typename D> struct wt_members<warpred_tuple4<A, B, C, D>> {
    typedef warpred_tuple4<A, B, C, D> Tup;
    template <typename Fn> static void each(Fn fn)
    {
        fn(0, &Tup::v0);
        fn(1, &Tup::v1);
        fn(2, &Tup::v2);
        fn(3, &Tup::v3);
    }
};

/* The host side of a tuple type, member by member (ops[m]: member m's op code). */
template <typename Tup> struct wt_tup {
    typedef wt_members<Tup> M;
    static Tup random(const int *ops, int special)
    {
        Tup t;
        M::each([&](int m, auto mem) {
            t.*mem = member_input<typename wt_member_type<decltype(mem)>::type>(ops[m], special);
        });
        return t;
    }
    static Tup loud(const int *ops)
    {
        Tup t;
        M::each([&](int m, auto mem) { t.*mem = member_loud<typename wt_member_type<decltype(mem)>::type>(ops[m]); });
        return t;
    }
    /* every member against the single-operation reference over in[pos[0..k-1]] */
    static int check(const int *ops, const Tup *in, const int *pos, int k, Tup got, char *why, size_t len)
    {
        int ok = 1;
        M::each([&](int m, auto mem) { ok = ok && check_member(m, ops[m], in, mem, pos, k, got.*mem, why, len); });
        return ok;
    }
    static int equal(Tup a, Tup b)
    {
        int eq = 1;
        M::each([&](int, auto mem) { eq = eq && wt_same_bits(a.*mem, b.*mem); });
        return eq;
    }
};

/* The configurations under test: the tuple type, its op type, and the op codes. */
#define WT_OPS2(a, b) warpred_op_tuple2<wt_op_type<a>::type, wt_op_type<b>::type>
#define WT_OPS3(a, b, c) warpred_op_tuple3<wt_op_type<a>::type, wt_op_type<b>::type, wt_op_type<c>::type>
#define WT_OPS4(a, b, c, d) \
    warpred_op_tuple4<wt_op_type<a>::type, wt_op_type<b>::type, wt_op_type<c>::type, wt_op_type<d>::type>

/* sum, min, max of floats: the common case */
typedef warpred_tuple3<float, float, float> T_smm;
typedef WT_OPS3(WT_SUM, WT_MIN, WT_MAX) O_smm;
static const int ops_smm[] = {WT_SUM, WT_MIN, WT_MAX};
/* float sum, int count, double max, float min_num */
typedef warpred_tuple4<float, int, double, float> T_mixed4;
typedef WT_OPS4(WT_SUM, WT_SUM, WT_MAX, WT_MIN_NUM) O_mixed4;
static const int ops_mixed4[] = {WT_SUM, WT_SUM, WT_MAX, WT_MIN_NUM};
/* 16-bit members around a 32-bit one */
typedef warpred_tuple3<__half, int, __half> T_half3;
typedef WT_OPS3(WT_MAX, WT_SUM, WT_MIN_NUM) O_half3;
static const int ops_half3[] = {WT_MAX, WT_SUM, WT_MIN_NUM};
/* integers of three widths */
typedef warpred_tuple3<int, unsigned, long long> T_int3;
typedef WT_OPS3(WT_SUM, WT_MAX, WT_MIN) O_int3;
static const int ops_int3[] = {WT_SUM, WT_MAX, WT_MIN};
/* two members */
typedef warpred_tuple2<float, int> T_sumcount;
typedef WT_OPS2(WT_SUM, WT_SUM) O_sumcount;
static const int ops_sumcount[] = {WT_SUM, WT_SUM};
typedef warpred_tuple2<double, __nv_bfloat16> T_db;
typedef WT_OPS2(WT_MAX_NUM, WT_MIN) O_db;
static const int ops_db[] = {WT_MAX_NUM, WT_MIN};
/* four integers, one of them xor */
typedef warpred_tuple4<int, int, int, unsigned> T_int4;
typedef WT_OPS4(WT_SUM, WT_MIN, WT_MAX, WT_XOR) O_int4;
static const int ops_int4[] = {WT_SUM, WT_MIN, WT_MAX, WT_XOR};

/* ------------------------------------------------------------------------------------------
   warp level
   ------------------------------------------------------------------------------------------ */

template <int W, typename Tup, typename Op> static void run_warp(const int *ops, const char *name, int special)
{
    typedef wt_tup<Tup> H;
    const size_t n = WT_MODE_WARPS * 32, bytes = n * sizeof(Tup);
    Tup *in = (Tup *)wt_host_alloc(bytes), *d_in = (Tup *)wt_dev_alloc(bytes);
    for (size_t i = 0; i < n; i++) in[i] = H::random(ops, special);
    wt_to_dev(d_in, in, bytes);
    char what[200];
    snprintf(what, sizeof what, "%s%s", name, special ? " (special values)" : "");
    wt_run_warps<Tup>(
        what, W,
        [&](const int *d_modes, Tup *d_red, Tup *d_all) {
            wt_k_warp<W, Tup, Op><<<WT_MODE_WARPS, 32>>>(d_in, d_modes, d_red, d_all);
        },
        [&](const int *pos, int k, Tup got, char *why, size_t len) { return H::check(ops, in, pos, k, got, why, len); },
        H::equal);
    wt_dev_free(d_in);
    wt_host_free(in);
}

/* run_warp at each of the widths Ws. */
template <typename Tup, typename Op, int... Ws>
static void run_warp_widths(const int *ops, const char *name, int special)
{
    (run_warp<Ws, Tup, Op>(ops, name, special), ...);
}

static void test_warp(void **state)
{
    WT_NEED_GPU(state);
    for (int special = 0; special < 2; special++) {
        run_warp_widths<T_smm, O_smm, 1, 2, 8, 32>(ops_smm, "sum/min/max float", special);
        run_warp_widths<T_mixed4, O_mixed4, 32, 4>(ops_mixed4, "float sum/int count/double max/float min_num", special);
        run_warp_widths<T_half3, O_half3, 32, 16>(ops_half3, "__half max/int sum/__half min_num", special);
        run_warp_widths<T_int3, O_int3, 32>(ops_int3, "int sum/unsigned max/long long min", special);
        run_warp_widths<T_sumcount, O_sumcount, 32, 8>(ops_sumcount, "float sum/int count", special);
        run_warp_widths<T_db, O_db, 32>(ops_db, "double max_num/bfloat16 min", special);
        run_warp_widths<T_int4, O_int4, 32>(ops_int4, "int sum/min/max/unsigned xor", special);
    }
}

/* ------------------------------------------------------------------------------------------
   block level
   ------------------------------------------------------------------------------------------ */

template <typename Tup, typename Op> __global__ void k_block(const Tup *in, int valid, Tup *red, Tup *all)
{
    const int tid = wt_block_tid(), i = blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + tid;
    wt_block_calls(in[i], Op(), valid, tid, red + blockIdx.x, all + i);
}

template <int BT, typename Tup, typename Op>
__global__ void k_block_static(const Tup *in, int valid, Tup *red, Tup *all)
{
    const int tid = wt_block_tid(), i = blockIdx.x * BT + tid;
    wt_block_calls_static<BT>(in[i], Op(), valid, tid, red + blockIdx.x, all + i);
}

/* valid > 0: only the first `valid` threads' values count; the others hold values that would
   win a min/max or visibly change a sum. */
template <typename Tup, typename Op>
static void run_block(const int *ops, const char *name, dim3 shape, int blocks, int special, int valid,
                      void (*kernel)(const Tup *, int, Tup *, Tup *) = 0)
{
    typedef wt_tup<Tup> H;
    const int nthreads = shape.x * shape.y * shape.z, counted = valid > 0 ? valid : nthreads;
    const size_t n = (size_t)blocks * nthreads, bytes = n * sizeof(Tup);
    Tup *in = (Tup *)wt_host_alloc(bytes), *d_in = (Tup *)wt_dev_alloc(bytes);
    for (size_t i = 0; i < n; i++) {
        in[i] = H::random(ops, special);
        if ((int)(i % nthreads) >= counted) in[i] = H::loud(ops);
    }
    wt_to_dev(d_in, in, bytes);
    char what[200];
    snprintf(what, sizeof what, "%s%s", name, special ? " (special values)" : "");
    wt_run_blocks<Tup>(
        what, shape, blocks, counted,
        [&](Tup *d_red, Tup *d_all) {
            if (kernel) kernel<<<blocks, shape>>>(d_in, valid, d_red, d_all);
            else
                k_block<Tup, Op><<<blocks, shape>>>(d_in, valid, d_red, d_all);
        },
        [&](const int *pos, int k, Tup got, char *why, size_t len) { return H::check(ops, in, pos, k, got, why, len); },
        H::equal);
    wt_dev_free(d_in);
    wt_host_free(in);
}

static const dim3 wt_shapes[] = {dim3(1),    dim3(17),   dim3(32),      dim3(33),     dim3(96),         dim3(256),
                                 dim3(1000), dim3(1024), dim3(7, 5, 3), dim3(33, 31), dim3(10, 10, 10), dim3(1, 1, 64)};
enum { NSHAPES = sizeof wt_shapes / sizeof wt_shapes[0] };

template <typename Tup, typename Op> static void run_block_shapes(const int *ops, const char *name)
{
    for (int s = 0; s < NSHAPES; s++) {
        const int nthreads = wt_shapes[s].x * wt_shapes[s].y * wt_shapes[s].z;
        for (int special = 0; special < 2; special++) run_block<Tup, Op>(ops, name, wt_shapes[s], 3, special, 0);
        const int valid[] = {1, nthreads / 2 + 1, nthreads > 1 ? nthreads - 1 : 1};
        for (int k = 0; k < 3; k++) run_block<Tup, Op>(ops, name, wt_shapes[s], 2, 1, valid[k]);
    }
}

static void test_block(void **state)
{
    WT_NEED_GPU(state);
    run_block_shapes<T_smm, O_smm>(ops_smm, "sum/min/max float");
    run_block_shapes<T_mixed4, O_mixed4>(ops_mixed4, "float sum/int count/double max/float min_num");
    run_block_shapes<T_half3, O_half3>(ops_half3, "__half max/int sum/__half min_num");
    run_block_shapes<T_int3, O_int3>(ops_int3, "int sum/unsigned max/long long min");
    run_block_shapes<T_sumcount, O_sumcount>(ops_sumcount, "float sum/int count");
    run_block_shapes<T_db, O_db>(ops_db, "double max_num/bfloat16 min");
    run_block_shapes<T_int4, O_int4>(ops_int4, "int sum/min/max/unsigned xor");
}

static void test_block_static(void **state)
{
    WT_NEED_GPU(state);
    for (int special = 0; special < 2; special++) {
        run_block<T_smm, O_smm>(ops_smm, "sum/min/max float <256>", dim3(256), 4, special, 0,
                                k_block_static<256, T_smm, O_smm>);
        run_block<T_smm, O_smm>(ops_smm, "sum/min/max float <105>", dim3(7, 5, 3), 4, special, 0,
                                k_block_static<105, T_smm, O_smm>);
        run_block<T_mixed4, O_mixed4>(ops_mixed4, "mixed4 <1000>", dim3(1000), 3, special, 0,
                                      k_block_static<1000, T_mixed4, O_mixed4>);
    }
    run_block<T_smm, O_smm>(ops_smm, "sum/min/max float <256> valid", dim3(256), 3, 1, 100,
                            k_block_static<256, T_smm, O_smm>);
    run_block<T_mixed4, O_mixed4>(ops_mixed4, "mixed4 <1000> valid", dim3(1000), 3, 1, 999,
                                  k_block_static<1000, T_mixed4, O_mixed4>);
}

/* Three tuple reductions of different types back to back, and a loop, with no caller barrier:
   each must equal its reference (shared-memory reuse). */
__global__ void k_back_to_back(const T_smm *a, const T_mixed4 *b, const T_half3 *c, T_smm *oa, T_mixed4 *ob,
                               T_half3 *oc, T_smm *oloop)
{
    const int n = blockDim.x * blockDim.y * blockDim.z;
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int i = blockIdx.x * n + tid;
    T_smm ra = warpred_block_allreduce(a[i], O_smm());
    T_mixed4 rb = warpred_block_reduce(b[i], O_mixed4());
    T_half3 rc = warpred_block_allreduce(c[i], O_half3());
    T_smm loop = ra;
    for (int r = 0; r < 4; r++) loop = warpred_block_allreduce(a[blockIdx.x * n + (tid + r * 5) % n], O_smm());
    if (tid == 0) {
        oa[blockIdx.x] = ra;
        ob[blockIdx.x] = rb;
    }
    if (tid == n - 1) {
        oc[blockIdx.x] = rc;
        oloop[blockIdx.x] = loop;
    }
}

static void test_block_back_to_back(void **state)
{
    WT_NEED_GPU(state);
    enum { BLOCKS = 4 };
    wt_each_back_to_back_shape(1, [&](dim3 shape, int n) {
        const size_t count = (size_t)BLOCKS * n;
        T_smm *a = (T_smm *)wt_host_alloc(count * sizeof(T_smm));
        T_mixed4 *b = (T_mixed4 *)wt_host_alloc(count * sizeof(T_mixed4));
        T_half3 *c = (T_half3 *)wt_host_alloc(count * sizeof(T_half3));
        for (size_t i = 0; i < count; i++) {
            a[i] = wt_tup<T_smm>::random(ops_smm, 1);
            b[i] = wt_tup<T_mixed4>::random(ops_mixed4, 1);
            c[i] = wt_tup<T_half3>::random(ops_half3, 1);
        }
        T_smm *d_a = (T_smm *)wt_dev_copy(a, count * sizeof(T_smm)),
              *d_oa = (T_smm *)wt_dev_alloc(BLOCKS * sizeof(T_smm));
        T_smm *d_ol = (T_smm *)wt_dev_alloc(BLOCKS * sizeof(T_smm));
        T_mixed4 *d_b = (T_mixed4 *)wt_dev_copy(b, count * sizeof(T_mixed4)),
                 *d_ob = (T_mixed4 *)wt_dev_alloc(BLOCKS * sizeof(T_mixed4));
        T_half3 *d_c = (T_half3 *)wt_dev_copy(c, count * sizeof(T_half3)),
                *d_oc = (T_half3 *)wt_dev_alloc(BLOCKS * sizeof(T_half3));
        k_back_to_back<<<BLOCKS, shape>>>(d_a, d_b, d_c, d_oa, d_ob, d_oc, d_ol);
        WT_LAUNCHED();
        T_smm oa[BLOCKS], ol[BLOCKS];
        T_mixed4 ob[BLOCKS];
        T_half3 oc[BLOCKS];
        wt_to_host(oa, d_oa, sizeof oa);
        wt_to_host(ob, d_ob, sizeof ob);
        wt_to_host(oc, d_oc, sizeof oc);
        wt_to_host(ol, d_ol, sizeof ol);
        wt_each_block(BLOCKS, n, [&](int blk, const int *pos) {
            char why[500];
            if (!wt_tup<T_smm>::check(ops_smm, a, pos, n, oa[blk], why, sizeof why))
                fail_msg("back to back, first call, block size %d: %s", n, why);
            if (!wt_tup<T_mixed4>::check(ops_mixed4, b, pos, n, ob[blk], why, sizeof why))
                fail_msg("back to back, second call, block size %d: %s", n, why);
            if (!wt_tup<T_half3>::check(ops_half3, c, pos, n, oc[blk], why, sizeof why))
                fail_msg("back to back, third call, block size %d: %s", n, why);
            /* the loop's last round is a permutation of the block's values: same reference */
            if (!wt_tup<T_smm>::check(ops_smm, a, pos, n, ol[blk], why, sizeof why))
                fail_msg("back to back, loop, block size %d: %s", n, why);
        });
        wt_dev_free(d_a);
        wt_dev_free(d_b);
        wt_dev_free(d_c);
        wt_dev_free(d_oa);
        wt_dev_free(d_ob);
        wt_dev_free(d_oc);
        wt_dev_free(d_ol);
        wt_host_free(a);
        wt_host_free(b);
        wt_host_free(c);
    });
}

/* ------------------------------------------------------------------------------------------
   grid level
   ------------------------------------------------------------------------------------------ */

template <typename Tup, typename Op> __global__ void k_grid(const Tup *in, warpred_grid_scratch scratch, Tup *out)
{
    const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    warpred_grid_reduce(in[(size_t)blockIdx.x * nthreads + tid], Op(), scratch, out);
}

template <typename Tup, typename Op>
static void run_grid(const int *ops, const char *name, int blocks, dim3 shape, int repeats)
{
    typedef wt_tup<Tup> H;
    const int nthreads = shape.x * shape.y * shape.z;
    const size_t n = (size_t)blocks * nthreads;
    Tup *in = (Tup *)wt_host_alloc(n * sizeof(Tup)), *d_in = (Tup *)wt_dev_alloc(n * sizeof(Tup));
    int *pos = (int *)wt_host_alloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++) {
        in[i] = H::random(ops, 1);
        pos[i] = (int)i;
    }
    wt_to_dev(d_in, in, n * sizeof(Tup));
    char what[200];
    snprintf(what, sizeof what, "%s, grid of %d x (%u,%u,%u)", name, blocks, shape.x, shape.y, shape.z);
    wt_run_grid<Tup>(
        what, blocks, repeats, NULL,
        [&](warpred_grid_scratch scratch, Tup *d_out) { k_grid<Tup, Op><<<blocks, shape>>>(d_in, scratch, d_out); },
        [&](Tup got, char *why, size_t len) { return H::check(ops, in, pos, (int)n, got, why, len); }, H::equal);
    wt_dev_free(d_in);
    wt_host_free(in);
    wt_host_free(pos);
}

static void test_grid(void **state)
{
    WT_NEED_GPU(state);
    const int blocks[] = {1, 2, 5, 33, 132, 300, 2500};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        run_grid<T_smm, O_smm>(ops_smm, "sum/min/max float", blocks[b], dim3(128), 3);
        run_grid<T_mixed4, O_mixed4>(ops_mixed4, "float sum/int count/double max/float min_num", blocks[b], dim3(33),
                                     2);
        run_grid<T_half3, O_half3>(ops_half3, "__half max/int sum/__half min_num", blocks[b], dim3(8, 4, 3), 1);
    }
}

/* ------------------------------------------------------------------------------------------
   a tuple member has the bits of a separate call with its op (block level: float sums within
   rounding, see below); helpers and identity
   ------------------------------------------------------------------------------------------ */

/* level 0: warp allreduce; 1: block reduce (run-time size); 2: block allreduce_valid */
__global__ void k_separate(const T_mixed4 *in, int level, int valid, T_mixed4 *tup, T_mixed4 *sep)
{
    const int nthreads = blockDim.x * blockDim.y * blockDim.z;
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int i = blockIdx.x * nthreads + tid;
    const T_mixed4 x = in[i];
    T_mixed4 t, s;
    if (level == 0) {
        t = warpred_warp_allreduce(x, O_mixed4());
        s.v0 = warpred_warp_allreduce(x.v0, warpred_op_sum());
        s.v1 = warpred_warp_allreduce(x.v1, warpred_op_sum());
        s.v2 = warpred_warp_allreduce(x.v2, warpred_op_max());
        s.v3 = warpred_warp_allreduce(x.v3, warpred_op_min_num());
    } else if (level == 1) {
        t = warpred_block_reduce(x, O_mixed4());
        s.v0 = warpred_block_reduce(x.v0, warpred_op_sum());
        s.v1 = warpred_block_reduce(x.v1, warpred_op_sum());
        s.v2 = warpred_block_reduce(x.v2, warpred_op_max());
        s.v3 = warpred_block_reduce(x.v3, warpred_op_min_num());
    } else {
        t = warpred_block_allreduce_valid(x, O_mixed4(), valid);
        s.v0 = warpred_block_allreduce_valid(x.v0, warpred_op_sum(), valid);
        s.v1 = warpred_block_allreduce_valid(x.v1, warpred_op_sum(), valid);
        s.v2 = warpred_block_allreduce_valid(x.v2, warpred_op_max(), valid);
        s.v3 = warpred_block_allreduce_valid(x.v3, warpred_op_min_num(), valid);
    }
    const int writer = level == 1 ? tid == 0 : level == 0 ? (tid & 31) == 0 : tid == nthreads - 1;
    if (writer) {
        tup[i] = t;
        sep[i] = s;
    }
}

static void test_same_bits_as_separate_calls(void **state)
{
    WT_NEED_GPU(state);
    const struct {
        int level, valid;
        dim3 shape;
    } cases[] = {{0, 0, dim3(256)},     {1, 0, dim3(1000)},   {1, 0, dim3(256)},
                 {1, 0, dim3(7, 5, 3)}, {2, 700, dim3(1000)}, {2, 1, dim3(64)}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int nthreads = cases[c].shape.x * cases[c].shape.y * cases[c].shape.z, blocks = 4;
        const size_t n = (size_t)blocks * nthreads, bytes = n * sizeof(T_mixed4);
        T_mixed4 *in = (T_mixed4 *)wt_host_alloc(bytes), *t = (T_mixed4 *)wt_host_alloc(bytes),
                 *s = (T_mixed4 *)wt_host_alloc(bytes);
        for (size_t i = 0; i < n; i++) in[i] = wt_tup<T_mixed4>::random(ops_mixed4, 1);
        T_mixed4 *d_in = (T_mixed4 *)wt_dev_alloc(bytes), *d_t = (T_mixed4 *)wt_dev_alloc(bytes),
                 *d_s = (T_mixed4 *)wt_dev_alloc(bytes);
        wt_to_dev(d_in, in, bytes);
        k_separate<<<blocks, cases[c].shape>>>(d_in, cases[c].level, cases[c].valid, d_t, d_s);
        WT_LAUNCHED();
        wt_to_host(t, d_t, bytes);
        wt_to_host(s, d_s, bytes);
        int written = 0;
        for (size_t i = 0; i < n; i++) {
            if (wt_is_poison(t[i])) continue;
            written++;
            /* Block level: a float sum member folds in the compound order (block_reduce.cuh, ORDER
               OF FLOAT SUMS) and a scalar rakes, so it may differ in the last bits, within the
               rounding of two orders of at most 1024 values; the other members are exact. */
            bool same = wt_tup<T_mixed4>::equal(t[i], s[i]);
            if (!same && cases[c].level > 0) {
                const size_t first = i / nthreads * nthreads;
                const int counted = cases[c].valid ? cases[c].valid : nthreads;
                double magnitude = 0;
                for (int k = 0; k < counted; k++) magnitude += fabs((double)in[first + k].v0);
                T_mixed4 u = t[i];
                u.v0 = s[i].v0;
                same = wt_tup<T_mixed4>::equal(u, s[i]) &&
                       fabs((double)t[i].v0 - (double)s[i].v0) <= 2 * 1024 * FLT_EPSILON * magnitude;
            }
            if (!same)
                fail_msg(
                    "level %d (block size %d, valid %d), thread %zu: tuple (%.9g, %d, %.17g, %.9g) vs separate calls "
                    "(%.9g, %d, %.17g, %.9g)",
                    cases[c].level, nthreads, cases[c].valid, i, (double)t[i].v0, t[i].v1, t[i].v2, (double)t[i].v3,
                    (double)s[i].v0, s[i].v1, s[i].v2, (double)s[i].v3);
        }
        assert_true(written >= blocks);
        wt_dev_free(d_in);
        wt_dev_free(d_t);
        wt_dev_free(d_s);
        wt_host_free(in);
        wt_host_free(t);
        wt_host_free(s);
    }
}

/* warpred_make_tuple / warpred_make_op_tuple and the identity: the tuple of member identities. */
__global__ void k_helpers(float *out_f, int *out_i, double *out_d)
{
    const int lane = threadIdx.x;
    warpred_tuple4<float, int, double, float> x = warpred_make_tuple((float)lane, 1, (double)-lane, (float)lane * 0.5f);
    x = warpred_warp_allreduce(
        x, warpred_make_op_tuple(warpred_op_sum(), warpred_op_sum(), warpred_op_max(), warpred_op_min()));
    warpred_tuple2<int, float> y = warpred_warp_reduce(warpred_make_tuple(lane, (float)lane),
                                                       warpred_make_op_tuple(warpred_op_max(), warpred_op_min()));
    const warpred_tuple3<float, int, double> e = O_smm::identity<warpred_tuple3<float, int, double>>();
    if (lane == 0) {
        out_f[0] = x.v0;
        out_i[0] = x.v1;
        out_d[0] = x.v2;
        out_f[1] = x.v3;
        out_i[1] = y.v0;
        out_f[2] = y.v1;
        out_f[3] = e.v0;
        out_i[2] = e.v1;
        out_d[1] = e.v2;
    }
}

static void test_helpers_and_identity(void **state)
{
    WT_NEED_GPU(state);
    float *d_f = (float *)wt_dev_alloc(4 * sizeof(float)), f[4];
    int *d_i = (int *)wt_dev_alloc(3 * sizeof(int)), i[3];
    double *d_d = (double *)wt_dev_alloc(2 * sizeof(double)), d[2];
    k_helpers<<<1, 32>>>(d_f, d_i, d_d);
    WT_LAUNCHED();
    wt_to_host(f, d_f, sizeof f);
    wt_to_host(i, d_i, sizeof i);
    wt_to_host(d, d_d, sizeof d);
    assert_true(f[0] == 496.0f && i[0] == 32 && d[0] == 0.0 && !signbit(d[0]) && f[1] == 0.0f);
    assert_true(i[1] == 31 && f[2] == 0.0f);
    /* sum identity 0; min identity +inf (int: INT_MAX); max identity -inf */
    assert_true(f[3] == 0.0f && i[2] == INT32_MAX && d[1] == -INFINITY);
    wt_dev_free(d_f);
    wt_dev_free(d_i);
    wt_dev_free(d_d);
}

/* The usage snippet of op_tuple.cuh (the kernel summary), as the build copies it from the manual
   (scripts/snippets.py). */
#include "snippets/op_tuple.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float x[3] = {4, -1, 2.5f};
    float *d_x = (float *)wt_dev_alloc(sizeof x), *d_out = (float *)wt_dev_alloc(4 * sizeof(float)), out[4];
    wt_to_dev(d_x, x, sizeof x);
    const int threads[] = {1, 2, 3, 64, 100};
    for (int t = 0; t < 5; t++) {
        wt_launch_into(out, d_out, sizeof out, [&] { summary<<<1, threads[t]>>>(d_x, 3, d_out); });
        assert_true(out[0] == 5.5f && out[1] == -1.0f && out[2] == 4.0f && out[3] == 3.0f);
    }
    wt_dev_free(d_x);
    wt_dev_free(d_out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(wt_compound_self_check),
        WT_TEST(test_doc_snippet),
        WT_TEST(test_helpers_and_identity),
        WT_TEST(test_warp),
        WT_TEST(test_block),
        WT_TEST(test_block_static),
        WT_TEST(test_block_back_to_back),
        WT_TEST(test_grid),
        WT_TEST(test_same_bits_as_separate_calls),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
