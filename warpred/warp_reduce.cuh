/* warpred/warp_reduce.cuh - warp-level reductions for CUDA.      MIT licensed, see LICENSE.

   A warp (or each independent segment of Width lanes of it) combines one value per lane
   into one result. Two flavours of every reduction:

     warpred_warp_reduce<Width>(v, op)         __shfl_down_sync tree; result in the FIRST lane
                                                of each segment (other lanes: unspecified)
     warpred_warp_allreduce<Width>(v, op)      __shfl_xor_sync butterfly; result in EVERY lane

   and a partial-warp form of each, for the last warp of a block whose size is not a multiple
   of 32, or code where the lanes past n have left:

     warpred_warp_reduce_partial<Width>(v, op, n)     only lanes 0..n-1 of the warp call (the
     warpred_warp_allreduce_partial<Width>(v, op, n)  others are absent), 1 <= n <= 32

   USAGE
       #include <warpred/warp_reduce.cuh>

       __global__ void demo(int *out)
       {
           int lane = threadIdx.x & 31;
           int s = warpred_warp_reduce(lane + 1, warpred_op_sum());          // 528 in lane 0
           int m = warpred_warp_allreduce<8>(lane, warpred_op_max());       // 7,15,23,31 per 8 lanes
           if (lane < 5) {
               int t = warpred_warp_reduce_partial(lane + 1, warpred_op_sum(), 5); // 15 in lane 0
               if (lane == 0) out[2] = t;
           }
           if (lane == 0) out[0] = s;
           out[3 + lane] = m;
       }
       // demo<<<1, 32>>>(out): out[0] = 528, out[2] = 15, out[3..34] = 7 x8, 15 x8, 23 x8, 31 x8

   (This snippet is compiled and checked in tests/test_warp_reduce.cu.)

   OPERATIONS AND TYPES  those of ops.cuh: warpred_op_sum, _min, _max, _min_num, _max_num,
   _and, _or, _xor or your own associative, commutative function object; int, unsigned, long
   long, unsigned long long, float, double, __half, __nv_bfloat16, and the compound types of the
   op_*.cuh headers (argmin/argmax pairs, tuples, Welford, softmax), which are shuffled member
   by member. See ops.cuh for the NaN and -0 rules. A reduction over a single value (Width 1,
   or a segment with one calling lane) applies no operation and returns that value unchanged.

   WIDTH  a template argument, 1, 2, 4, 8, 16 or 32 (default 32; others fail a static_assert).
   The warp is cut into 32/Width segments of consecutive lanes, each reduced on its own.

   PRECONDITIONS (undefined behaviour otherwise; checked with assert where cheap)
     - warpred_warp_reduce / warpred_warp_allreduce: every lane of the calling lane's segment
       calls, converged, with the same Width and op (for Width 32: the whole warp).
     - the _partial forms: exactly lanes 0..n-1 of the warp call, all with the same n, 1 <= n <= 32;
       lanes n..31 must not call (they may have exited or be in another branch). Segments
       past n get nothing; the segment holding lane n-1 reduces its valid lanes only.
     - The lane is the hardware lane (%laneid): with 2D/3D blocks, warps are formed from the
       linear thread index x + y*Dx + z*Dx*Dy, as CUDA does.

   HARDWARE PATHS  On sm_80 and newer, 32-bit integer sum/min/max/and/or/xor over a whole
   warp (Width 32, full or _partial) use the redux.sync instruction (__reduce_*_sync) instead of
   five shuffles. Integer results are exact either way, so the path never changes a result.
   Define WARPRED_NO_REDUX to force the shuffle path. Float/double min/max over whole segments
   run a plain tree and, beside it, one warp vote on whether any input is a NaN or a zero (for
   float under -ftz a subnormal counts too); almost always none is, and then the plain tree is exact: one hardware
   min/max per step for float, a compare and a select for double. Otherwise (and in the _partial
   forms) every step is a hardware min/max and NaN and the sign of zero are settled once at the
   end with two more votes. The tests check these and the plain path (WARPRED_NO_NAN_MINMAX)
   against the same reference.

   COST  One shuffle per halving (log2(Width) steps); the down tree and the butterfly cost
   the same. On an H100 both match cub::WarpReduce and cg::reduce for float, int and double
   sums (`make bench`). IEEE min/max: one compare and one vote per reduction on top of the
   tree; against cg::reduce with cg::greater and a `a < b ? b : a` shuffle tree in a
   dependent chain (bench_block, H100, 2026-11-21): float max and max_num 1.12x of both
   (1.05x in a throughput loop), double max and max_num 0.97x (0.95x).

   CONFIGURATION  see ops.cuh (WARPRED_ASSERT, WARPRED_NO_REDUX, WARPRED_NO_NAN_MINMAX).

   This header needs ops.cuh beside it; copy both.
*/
#ifndef WARPRED_WARP_REDUCE_CUH
#define WARPRED_WARP_REDUCE_CUH

#include "ops.cuh"

template <int Width> struct warpred__check_width {
    static_assert(Width == 1 || Width == 2 || Width == 4 || Width == 8 || Width == 16 || Width == 32,
                  "warpred: Width must be 1, 2, 4, 8, 16 or 32");
};

/* Lanes of the calling lane's segment, for the sync masks of the shuffles. */
template <int Width>
__device__ __forceinline__ unsigned warpred__segment_mask(void)
{
    if (Width == 32) return 0xffffffffu;
    return (0xffffffffu >> (32 - Width)) << (warpred__lane_id() & ~(unsigned)(Width - 1));
}

/* ---- moving a value between lanes: scalars directly, compound types member by member ---- */

enum { WARPRED__SHFL_DOWN, WARPRED__SHFL_XOR, WARPRED__SHFL_IDX };

template <int Kind, typename T> __device__ __forceinline__ T warpred__shfl(unsigned mask, T v, int arg, int width);

/* Shuffles one member of a compound value. (A function object, not a lambda: NVRTC compiles
   no lambdas in device code without -default-device.) */
template <int Kind> struct warpred__shfl_member {
    unsigned mask;
    int arg, width;
    template <typename M> __device__ __forceinline__ void operator()(M &member) const
    {
        member = warpred__shfl<Kind>(mask, member, arg, width);
    }
};

template <int Kind, typename T>
__device__ __forceinline__ T warpred__shfl(unsigned mask, T v, int arg, int width)
{
    if constexpr (warpred__is_scalar<T>::value) {
        if constexpr (Kind == WARPRED__SHFL_DOWN) return __shfl_down_sync(mask, v, arg, width);
        else if constexpr (Kind == WARPRED__SHFL_XOR) return __shfl_xor_sync(mask, v, arg, width);
        else return __shfl_sync(mask, v, arg, width);
    } else {
        /* all members' shuffles are issued before any is used, so their latencies overlap */
        const warpred__shfl_member<Kind> shuffle = {mask, arg, width};
        warpred__visit(v, shuffle);
        return v;
    }
}

/* ---- redux.sync: which (type, op) pairs the hardware reduces over a whole warp ---- */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WARPRED_NO_REDUX)
#  define WARPRED__HAS_REDUX 1
#else
#  define WARPRED__HAS_REDUX 0
#endif

template <typename T, typename Op> struct warpred__redux {
    enum {
        ok = WARPRED__HAS_REDUX && (warpred__same<T, int>::value || warpred__same<T, unsigned>::value) &&
             (warpred__same<Op, warpred_op_sum>::value || warpred__same<Op, warpred_op_min>::value ||
              warpred__same<Op, warpred_op_max>::value || warpred__same<Op, warpred_op_min_num>::value ||
              warpred__same<Op, warpred_op_max_num>::value || warpred__same<Op, warpred_op_and>::value ||
              warpred__same<Op, warpred_op_or>::value || warpred__same<Op, warpred_op_xor>::value)
    };
    static __device__ __forceinline__ T run(unsigned mask, T v)
    {
#if WARPRED__HAS_REDUX
        if constexpr (warpred__same<Op, warpred_op_sum>::value) return (T)__reduce_add_sync(mask, v);
        else if constexpr (warpred__same<Op, warpred_op_min>::value || warpred__same<Op, warpred_op_min_num>::value)
            return (T)__reduce_min_sync(mask, v);
        else if constexpr (warpred__same<Op, warpred_op_max>::value || warpred__same<Op, warpred_op_max_num>::value)
            return (T)__reduce_max_sync(mask, v);
        else if constexpr (warpred__same<Op, warpred_op_and>::value) return (T)__reduce_and_sync(mask, (unsigned)v);
        else if constexpr (warpred__same<Op, warpred_op_or>::value) return (T)__reduce_or_sync(mask, (unsigned)v);
        else return (T)__reduce_xor_sync(mask, (unsigned)v);
#else
        (void)mask;
        return v;
#endif
    }
};

/* ---- what a shuffle step applies, and how the result is finished ----
   For most (type, op) pairs: the op itself, and nothing. For float/double min/max each step
   is one hardware min/max (NaN-ignoring, zeros unordered) and the result is settled once at
   the end: one vote tells whether any counted input was a NaN or a zero; almost always none
   was and the hardware result stands. Otherwise two more votes sort it out: the result becomes
   the canonical NaN (NaN-propagating ops, or _num ops when every input was NaN) or the zero of
   the sign the op prefers (+0 for max, -0 for min) when one was among the inputs.
   A single counted input is returned as it is (the hardware's f64 min/max may hand back an
   input NaN, which is then made canonical only when more than one input counted). Every lane
   of a segment applies the same fix, so the butterfly still leaves identical bits. (Whole
   segments try a plain tree first: see warpred__plain_first below.) */
template <typename T, typename Op> struct warpred__tree {
    enum { fast_minmax = 0 };
    static __device__ __forceinline__ T step(Op op, T a, T b) { return op(a, b); }
};
template <bool IsMax, bool Num, typename F> struct warpred__tree_minmax {
    enum { fast_minmax = 1 };
    typedef warpred__float_bits<F> B;
    template <typename Op> static __device__ __forceinline__ F step(Op, F a, F b)
    {
        return IsMax ? warpred__hw_max(a, b) : warpred__hw_min(a, b);
    }
    /* The step of a tree over inputs none of which is a NaN or a zero: then any max/min is exact.
       float: the hardware's (one instruction, no -ftz: inline PTX); double: a compare and a select,
       which the H100 issues faster than its f64 max/min (double never flushes subnormals). */
    static __device__ __forceinline__ F plain_step(F a, F b)
    {
        if constexpr (sizeof(F) == 8) return IsMax ? (a < b ? b : a) : (b < a ? b : a);
        else return IsMax ? warpred__hw_max(a, b) : warpred__hw_min(a, b);
    }
    static __device__ __forceinline__ typename B::S preferred_zero(void) { return IsMax ? 0 : ~B::magnitude_mask(); } /* +0 for max, -0 for min */
    /* NaN or a zero of either sign, in three instructions: |v| - 1 wraps for zeros */
    static __device__ __forceinline__ bool nan_or_zero(F v)
    {
        typedef typename warpred__unsigned_of<typename B::S>::type U;
        return (U)(B::bits(v) & B::magnitude_mask()) - 1u >= (U)B::inf();
    }
    /* The same in one compare: !(|v| > 0) holds for NaN and zeros, and for subnormals too when
       compiled with -ftz (those then take the exact path: slower, same result). */
    static __device__ __forceinline__ bool maybe_nan_or_zero(F v)
    {
        if constexpr (sizeof(F) == 8) return !(fabs(v) > 0.0);
        else return !(fabsf(v) > 0.0f);
    }
    static __device__ __forceinline__ bool is_preferred_zero(F v) { return B::bits(v) == preferred_zero(); }
    /* r: the hardware fold of the counted inputs (several: more than one counted); any_nan /
       any_zero: whether one of them was a NaN / the preferred zero. */
    static __device__ __forceinline__ F settle(F r, bool several, bool any_nan, bool any_zero)
    {
        if (several && ((!Num && any_nan) || warpred__isnan(r))) return warpred__canonical_nan<F>();
        if ((B::bits(r) & B::magnitude_mask()) == 0 && any_zero) return B::value(preferred_zero()); /* bits: no -ftz surprises */
        return r;
    }
    /* segment: the calling lanes of this lane's segment; counted: those whose inputs count */
    static __device__ __forceinline__ F finish(F r, F v, unsigned segment, unsigned counted)
    {
        const bool mine = (counted >> warpred__lane_id()) & 1u;
        if ((__ballot_sync(segment, mine && nan_or_zero(v)) & segment) == 0) return r;
        const bool any_nan = (__ballot_sync(segment, mine && warpred__isnan(v)) & segment) != 0;
        const bool any_zero = (__ballot_sync(segment, mine && is_preferred_zero(v)) & segment) != 0;
        return settle(r, (counted & (counted - 1)) != 0, any_nan, any_zero);
    }
};
template <> struct warpred__tree<float, warpred_op_max> : warpred__tree_minmax<true, false, float> {};
template <> struct warpred__tree<float, warpred_op_min> : warpred__tree_minmax<false, false, float> {};
template <> struct warpred__tree<float, warpred_op_max_num> : warpred__tree_minmax<true, true, float> {};
template <> struct warpred__tree<float, warpred_op_min_num> : warpred__tree_minmax<false, true, float> {};
template <> struct warpred__tree<double, warpred_op_max> : warpred__tree_minmax<true, false, double> {};
template <> struct warpred__tree<double, warpred_op_min> : warpred__tree_minmax<false, false, double> {};
template <> struct warpred__tree<double, warpred_op_max_num> : warpred__tree_minmax<true, true, double> {};
template <> struct warpred__tree<double, warpred_op_min_num> : warpred__tree_minmax<false, true, double> {};

template <typename T, typename Op>
__device__ __forceinline__ T warpred__tree_finish(T r, T v, unsigned segment, unsigned counted)
{
    if constexpr (warpred__tree<T, Op>::fast_minmax) return warpred__tree<T, Op>::finish(r, v, segment, counted);
    else return (void)v, (void)segment, (void)counted, r;
}

/* Tuples (op_tuple.cuh): each member takes its own step and finish, so float/double min/max
   members keep the fast path above inside a tuple. */
template <typename O0, typename O1> struct warpred_op_tuple2;
template <typename O0, typename O1, typename O2> struct warpred_op_tuple3;
template <typename O0, typename O1, typename O2, typename O3> struct warpred_op_tuple4;

template <typename A, typename B, typename O0, typename O1> struct warpred__tree<warpred_tuple2<A, B>, warpred_op_tuple2<O0, O1> > {
    typedef warpred_tuple2<A, B> T;
    enum { fast_minmax = warpred__tree<A, O0>::fast_minmax || warpred__tree<B, O1>::fast_minmax };
    static __device__ __forceinline__ T step(warpred_op_tuple2<O0, O1> op, T a, T b)
    {
        T r;
        r.v0 = warpred__tree<A, O0>::step(op.op0, a.v0, b.v0);
        r.v1 = warpred__tree<B, O1>::step(op.op1, a.v1, b.v1);
        return r;
    }
    static __device__ __forceinline__ T finish(T r, T v, unsigned segment, unsigned counted)
    {
        r.v0 = warpred__tree_finish<A, O0>(r.v0, v.v0, segment, counted);
        r.v1 = warpred__tree_finish<B, O1>(r.v1, v.v1, segment, counted);
        return r;
    }
};
template <typename A, typename B, typename C, typename O0, typename O1, typename O2>
struct warpred__tree<warpred_tuple3<A, B, C>, warpred_op_tuple3<O0, O1, O2> > {
    typedef warpred_tuple3<A, B, C> T;
    enum { fast_minmax = warpred__tree<A, O0>::fast_minmax || warpred__tree<B, O1>::fast_minmax || warpred__tree<C, O2>::fast_minmax };
    static __device__ __forceinline__ T step(warpred_op_tuple3<O0, O1, O2> op, T a, T b)
    {
        T r;
        r.v0 = warpred__tree<A, O0>::step(op.op0, a.v0, b.v0);
        r.v1 = warpred__tree<B, O1>::step(op.op1, a.v1, b.v1);
        r.v2 = warpred__tree<C, O2>::step(op.op2, a.v2, b.v2);
        return r;
    }
    static __device__ __forceinline__ T finish(T r, T v, unsigned segment, unsigned counted)
    {
        r.v0 = warpred__tree_finish<A, O0>(r.v0, v.v0, segment, counted);
        r.v1 = warpred__tree_finish<B, O1>(r.v1, v.v1, segment, counted);
        r.v2 = warpred__tree_finish<C, O2>(r.v2, v.v2, segment, counted);
        return r;
    }
};
template <typename A, typename B, typename C, typename D, typename O0, typename O1, typename O2, typename O3>
struct warpred__tree<warpred_tuple4<A, B, C, D>, warpred_op_tuple4<O0, O1, O2, O3> > {
    typedef warpred_tuple4<A, B, C, D> T;
    enum {
        fast_minmax = warpred__tree<A, O0>::fast_minmax || warpred__tree<B, O1>::fast_minmax ||
                      warpred__tree<C, O2>::fast_minmax || warpred__tree<D, O3>::fast_minmax
    };
    static __device__ __forceinline__ T step(warpred_op_tuple4<O0, O1, O2, O3> op, T a, T b)
    {
        T r;
        r.v0 = warpred__tree<A, O0>::step(op.op0, a.v0, b.v0);
        r.v1 = warpred__tree<B, O1>::step(op.op1, a.v1, b.v1);
        r.v2 = warpred__tree<C, O2>::step(op.op2, a.v2, b.v2);
        r.v3 = warpred__tree<D, O3>::step(op.op3, a.v3, b.v3);
        return r;
    }
    static __device__ __forceinline__ T finish(T r, T v, unsigned segment, unsigned counted)
    {
        r.v0 = warpred__tree_finish<A, O0>(r.v0, v.v0, segment, counted);
        r.v1 = warpred__tree_finish<B, O1>(r.v1, v.v1, segment, counted);
        r.v2 = warpred__tree_finish<C, O2>(r.v2, v.v2, segment, counted);
        r.v3 = warpred__tree_finish<D, O3>(r.v3, v.v3, segment, counted);
        return r;
    }
};

/* ---- the trees ---- */

/* Scalar float/double min/max over whole segments run a plain tree (plain_step) and, beside it,
   one vote on whether any input is a NaN or a zero; almost always none is, and then the plain
   tree is exact and nothing needs settling. Otherwise the exact path below runs as well
   (hardware steps, then finish). */
template <typename T, typename Op> struct warpred__plain_first { enum { value = 0 }; };
#define WARPRED__PLAIN_FIRST(F, OP) template <> struct warpred__plain_first<F, OP> { enum { value = 1 }; };
WARPRED__PLAIN_FIRST(float, warpred_op_max)
WARPRED__PLAIN_FIRST(float, warpred_op_min)
WARPRED__PLAIN_FIRST(float, warpred_op_max_num)
WARPRED__PLAIN_FIRST(float, warpred_op_min_num)
WARPRED__PLAIN_FIRST(double, warpred_op_max)
WARPRED__PLAIN_FIRST(double, warpred_op_min)
WARPRED__PLAIN_FIRST(double, warpred_op_max_num)
WARPRED__PLAIN_FIRST(double, warpred_op_min_num)
#undef WARPRED__PLAIN_FIRST

/* Whether pred holds in any lane of this lane's segment (every lane of the segment calls). */
template <int Width> __device__ __forceinline__ bool warpred__any_in_segment(unsigned mask, bool pred)
{
    if (Width == 32) return __any_sync(mask, pred) != 0;
    return (__ballot_sync(mask, pred) & mask) != 0;
}

template <int Width, int Kind, typename Tree, typename T>
__device__ __forceinline__ T warpred__plain_tree(unsigned mask, T v)
{
#pragma unroll
    for (int i = 1; i < Width; i <<= 1) {
        const int offset = Kind == WARPRED__SHFL_XOR ? Width / 2 / i : i; /* xor: falling offsets, down: rising */
        v = Tree::plain_step(v, warpred__shfl<Kind>(mask, v, offset, Width));
    }
    return v;
}

/* Shuffle-down tree over whole segments, result in each segment's first lane. Rising offsets:
   lane i accumulates lanes [i, i + 2*offset), which never leaves the segment for the segment's
   first lane; lanes whose window leaves it hold garbage nobody reads. */
template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__down_tree(T v, Op op)
{
    const unsigned mask = warpred__segment_mask<Width>();
    if constexpr (Width == 32 && warpred__redux<T, Op>::ok) return warpred__redux<T, Op>::run(mask, v);
    if constexpr (warpred__plain_first<T, Op>::value) {
        /* the vote's answer is needed only at the end: it runs beside the tree (shuffles are
           convergent, so the compiler keeps the tree ahead of the branch) */
        const bool special = warpred__any_in_segment<Width>(mask, warpred__tree<T, Op>::maybe_nan_or_zero(v));
        const T plain = warpred__plain_tree<Width, WARPRED__SHFL_DOWN, warpred__tree<T, Op> >(mask, v);
        if (!special) return plain;
    }
    T r = v;
#pragma unroll
    for (int offset = 1; offset < Width; offset <<= 1)
        r = warpred__tree<T, Op>::step(op, r, warpred__shfl<WARPRED__SHFL_DOWN>(mask, r, offset, Width));
    return warpred__tree_finish<T, Op>(r, v, mask, mask);
}

/* Xor butterfly over whole segments, result in every lane. */
template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__butterfly(T v, Op op)
{
    const unsigned mask = warpred__segment_mask<Width>();
    if constexpr (Width == 32 && warpred__redux<T, Op>::ok) return warpred__redux<T, Op>::run(mask, v);
    if constexpr (warpred__plain_first<T, Op>::value) {
        /* the vote's answer is needed only at the end: it runs beside the tree (shuffles are
           convergent, so the compiler keeps the tree ahead of the branch) */
        const bool special = warpred__any_in_segment<Width>(mask, warpred__tree<T, Op>::maybe_nan_or_zero(v));
        const T plain = warpred__plain_tree<Width, WARPRED__SHFL_XOR, warpred__tree<T, Op> >(mask, v);
        if (!special) return plain;
    }
    T r = v;
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset >>= 1)
        r = warpred__tree<T, Op>::step(op, r, warpred__shfl<WARPRED__SHFL_XOR>(mask, r, offset, Width));
    return warpred__tree_finish<T, Op>(r, v, mask, mask);
}

/* Lanes 0..present-1 of the warp call; the values of lanes 0..counted-1 count (1 <= counted <=
   present <= 32). Shuffle-down tree, result in the first lane of each segment that holds a
   counted value; with Broadcast, then in every calling lane of that segment. */
template <bool Broadcast, int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__down_tree_prefix(T v, Op op, int present, int counted)
{
    const unsigned calling = warpred__first_lanes(present);
    if constexpr (Width == 32 && warpred__redux<T, Op>::ok)
        if (counted == present) return warpred__redux<T, Op>::run(calling, v); /* already in every lane */
    const int lane = (int)warpred__lane_id();
    T r = v;
#pragma unroll
    for (int offset = 1; offset < Width && offset < counted; offset <<= 1) {
        /* every calling lane takes part in the shuffle; only counted sources are used */
        const T other = warpred__shfl<WARPRED__SHFL_DOWN>(calling, r, offset, Width);
        if (lane + offset < counted) r = warpred__tree<T, Op>::step(op, r, other);
    }
    const unsigned segment = calling & warpred__segment_mask<Width>();
    r = warpred__tree_finish<T, Op>(r, v, segment, warpred__first_lanes(counted) & segment);
    if constexpr (Broadcast) r = warpred__shfl<WARPRED__SHFL_IDX>(calling, r, 0, Width);
    return r;
}

/* The one entry point of the layer above (block_reduce.cuh): lanes 0..present-1 of the warp
   call, the values of lanes 0..counted-1 count (1 <= counted <= present <= 32); the result in
   lane 0 (Broadcast: in every calling lane). */
template <bool Broadcast, typename T, typename Op>
__device__ __forceinline__ T warpred__warp_reduce_prefix(T v, Op op, int present, int counted)
{
    if (present == 32 && counted == 32) return Broadcast ? warpred__butterfly<32>(v, op) : warpred__down_tree<32>(v, op);
    return warpred__down_tree_prefix<Broadcast, 32>(v, op, present, counted);
}

/* ---- public API ---- */

/* Result in the first lane of each Width-lane segment; every lane of the segment calls. */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_reduce(T v, Op op)
{
    (void)sizeof(warpred__check_width<Width>);
    warpred__check_type<T>();
    return warpred__down_tree<Width>(v, op);
}

/* Result in every lane of each Width-lane segment; every lane of the segment calls. */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_allreduce(T v, Op op)
{
    (void)sizeof(warpred__check_width<Width>);
    warpred__check_type<T>();
    return warpred__butterfly<Width>(v, op);
}

/* A partial warp: only lanes 0..n-1 call. Result in the first lane of each segment that has a
   calling lane. */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_reduce_partial(T v, Op op, int n)
{
    (void)sizeof(warpred__check_width<Width>);
    warpred__check_type<T>();
    WARPRED_ASSERT(n >= 1 && n <= 32 && (int)warpred__lane_id() < n);
    return warpred__down_tree_prefix<false, Width>(v, op, n, n);
}

/* A partial warp: only lanes 0..n-1 call. Result in every calling lane. (A butterfly cannot
   skip missing partners: this is the down tree, then a broadcast from each segment's first
   lane.) */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_allreduce_partial(T v, Op op, int n)
{
    (void)sizeof(warpred__check_width<Width>);
    warpred__check_type<T>();
    WARPRED_ASSERT(n >= 1 && n <= 32 && (int)warpred__lane_id() < n);
    return warpred__down_tree_prefix<true, Width>(v, op, n, n);
}

#endif /* WARPRED_WARP_REDUCE_CUH */
