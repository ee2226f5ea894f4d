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

   OPERATIONS AND VALUES  any operation (ops.cuh: warpred_op_sum, _min, _max, _min_num, _max_num,
   _and, _or, _xor; op_*.cuh; your own: operation.cuh) over any value (value.cuh: the scalars,
   the CUDA vector types, the op_*.cuh types, your structs), which is shuffled member by member.
   See ops.cuh for the NaN and -0 rules. A reduction over a single value (Width 1, or a segment
   with one calling lane) applies no operation and returns that value unchanged.

   ORDER  The combinations are fixed by the lanes, so results are bitwise repeatable. With
   x_i lane i's value in a segment of W lanes:
     warpred_warp_reduce       shuffle-down tree, rising offsets 1, 2, 4, ...: at offset d lane
                               i takes op(its value, lane i + d's); the first lane ends with
                               ((x0 x1) (x2 x3)) ((x4 x5) (x6 x7)) ... (x_a x_b: op(x_a, x_b)).
     warpred_warp_allreduce    xor butterfly, falling offsets W/2, ..., 1: at offset d lane i
                               takes op(its value, lane i ^ d's); lane 0 ends with
                               ((x0 x16) (x8 x24)) ((x4 x20) (x12 x28)) ... for W = 32. Every
                               lane gets the same bits (the operation is commutative), but a
                               float sum may differ from warpred_warp_reduce's in the last bits.
     the _partial forms        the shuffle-down tree over the calling lanes (a lane whose
                               partner lies past n keeps its value); _allreduce_partial then
                               broadcasts the first lane's result.

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

   HARDWARE PATHS  The operation's fast paths (operation.cuh, warpred_op_warp), never
   changing a result. On sm_80 and newer, 32-bit integer sum/min/max/and/or/xor over a whole
   warp (Width 32, full or _partial with all 32 lanes) use the redux.sync instruction
   (__reduce_*_sync) instead of five shuffles. Define WARPRED_NO_REDUX to force the shuffle path. Float/double min/max over whole warps
   (Width 32) run a plain tree and, beside it, one warp vote on whether any input is a NaN or a zero (for
   float under -ftz a subnormal counts too); almost always none is, and then the plain tree is exact: one hardware
   min/max per step for float, a compare and a select for double. Narrower segments take the
   exact operation at each step. Segments narrower than the warp shuffle with the whole warp's
   mask when every lane of the warp calls (one vote on entry finds out); with a segment's own
   mask, the form where lanes of the warp have left, the compiler adds a divergence check and
   a fallback path to every step. Otherwise (the _partial forms) every step is a hardware min/max and NaN and the sign of zero are settled once at the
   end with two more votes. The tests check these and the plain path (WARPRED_NO_NAN_MINMAX)
   against the same reference.

   COST  One shuffle per halving (log2(Width) steps) and one operation after each; the down
   tree and the butterfly cost the same. A compound value costs one shuffle per scalar member
   per step, all issued before any is used. IEEE float/double min/max: one vote beside the tree
   (three more, rarely, when a NaN or a zero is among the inputs). Figures against CUB and
   cooperative groups: docs/BENCHMARKS.md.

   FOR THE LAYERS ABOVE  (block_reduce.cuh, warp_segmented.cuh and the rows' kernels use these)
     warpred__warp_reduce_prefix<Broadcast>(v, op, present, counted)  lanes 0..present-1 call,
         the values of lanes 0..counted-1 count (1 <= counted <= present <= 32); the result in
         lane 0 (Broadcast: in every calling lane). present == counted == 32 is
         warpred_warp_reduce / _allreduce; otherwise the _partial order above.
     warpred__warp_reduce_whole<Broadcast, Width>(v, op)  all 32 lanes of the warp call (the
         first shuffle waits for them); each segment of Width lanes is reduced as
         warpred_warp_reduce<Width> (Broadcast: _allreduce<Width>) does, the same bits, without
         its __activemask() vote on entry, so that several calls in a row (a value each of
         several rows) interleave their trees.
     warpred__shfl<Kind>(mask, v, arg, width)  __shfl_down/xor/_sync of any value, member by
         member (Kind: WARPRED__SHFL_DOWN, _XOR, _IDX).
     warpred__segment_mask<Width>()  the lanes of the calling lane's segment of Width lanes.

   CONFIGURATION  see config.cuh (WARPRED_ASSERT, WARPRED_NO_REDUX, WARPRED_NO_NAN_MINMAX).

   This header needs ops.cuh and its base beside it (README: Copying a header).
*/
#ifndef WARPRED_WARP_REDUCE_CUH
#define WARPRED_WARP_REDUCE_CUH

#include "ops.cuh"

template <int Width> struct warpred__check_width {
    static_assert(Width == 1 || Width == 2 || Width == 4 || Width == 8 || Width == 16 || Width == 32,
                  "warpred: Width must be 1, 2, 4, 8, 16 or 32");
};

/* Lanes of the calling lane's segment, for the sync masks of the shuffles. */
template <int Width> __device__ __forceinline__ unsigned warpred__segment_mask(void)
{
    if (Width == 32) return 0xffffffffu;
    return (0xffffffffu >> (32 - Width)) << (warpred__lane_id() & ~(unsigned)(Width - 1));
}

/* ---- moving a value between lanes: scalars directly, compound values member by member ---- */

enum { WARPRED__SHFL_DOWN, WARPRED__SHFL_XOR, WARPRED__SHFL_IDX };

template <int Kind, typename S>
__device__ __forceinline__ S warpred__shfl_scalar(unsigned mask, S v, int arg, int width)
{
    if constexpr (Kind == WARPRED__SHFL_DOWN) return __shfl_down_sync(mask, v, arg, width);
    else if constexpr (Kind == WARPRED__SHFL_XOR)
        return __shfl_xor_sync(mask, v, arg, width);
    else
        return __shfl_sync(mask, v, arg, width);
}

/* Shuffles one scalar member of a compound value. (A function object, not a lambda: NVRTC
   compiles no lambdas in device code without -default-device.) */
template <int Kind> struct warpred__shfl_member {
    unsigned mask;
    int arg, width;
    template <typename S> __device__ __forceinline__ void operator()(S &member) const
    {
        member = warpred__shfl_scalar<Kind>(mask, member, arg, width);
    }
};

template <int Kind, typename T> __device__ __forceinline__ T warpred__shfl(unsigned mask, T v, int arg, int width)
{
    /* all members' shuffles are issued before any is used, so their latencies overlap */
    warpred__shfl_member<Kind> shuffle = {mask, arg, width};
    warpred__each_scalar(v, shuffle);
    return v;
}

/* ---- the trees ---- */

/* Whether pred holds in any lane of this lane's segment (every lane of sync calls; sync holds
   the segment). */
template <int Width> __device__ __forceinline__ bool warpred__any_in_segment(unsigned sync, unsigned segment, bool pred)
{
    if (Width == 32) return __any_sync(sync, pred) != 0;
    return (__ballot_sync(sync, pred) & segment) != 0;
}

/* At step i the offset is i (down: rising) or Width / 2 / i (xor: falling). */
template <int Width, int Kind> __device__ __forceinline__ int warpred__offset(int i)
{
    return Kind == WARPRED__SHFL_XOR ? Width / 2 / i : i;
}

/* The tree's steps, with sync the shuffles' and votes' mask: the calling lane's segment, or the
   whole warp where every lane of it calls. */
template <int Width, int Kind, typename T, typename Op>
__device__ __forceinline__ T warpred__tree_steps(T v, Op op, unsigned sync)
{
    typedef warpred_op_warp<Op, T> W;
    const unsigned segment = warpred__segment_mask<Width>();
    if constexpr (Width == 32 && W::hardware) {
        return W::hardware_reduce(sync, v);
    } else if constexpr (W::votes && Width < 32) {
        /* Segments narrower than the warp: the operation itself is exact at each step (a vote
           would need the segment's own mask whenever the warp is not whole). */
        T r = v;
#pragma unroll
        for (int i = 1; i < Width; i <<= 1)
            r = op(r, warpred__shfl<Kind>(sync, r, warpred__offset<Width, Kind>(i), Width));
        return r;
    } else {
        if constexpr (W::votes) {
            /* the vote's answer is needed only at the end: it runs beside the plain tree
               (shuffles are convergent, so the compiler keeps the tree ahead of the branch) */
            const bool special = warpred__any_in_segment<Width>(sync, segment, W::special(v));
            T plain = v;
#pragma unroll
            for (int i = 1; i < Width; i <<= 1)
                plain = W::plain(plain, warpred__shfl<Kind>(sync, plain, warpred__offset<Width, Kind>(i), Width));
            if (!special) return plain;
        }
        T r = v;
#pragma unroll
        for (int i = 1; i < Width; i <<= 1)
            r = W::step(op, r, warpred__shfl<Kind>(sync, r, warpred__offset<Width, Kind>(i), Width));
        return W::settle(r, v, segment, segment);
    }
}

/* A tree over whole segments of Width lanes: Kind WARPRED__SHFL_DOWN leaves the result in each
   segment's first lane (lane i accumulates lanes [i, i + 2*offset), which never leaves the
   segment for the first lane; the others hold garbage that no result or settle reads),
   WARPRED__SHFL_XOR in every lane. Segments narrower than the warp, when every lane of the warp
   calls (the common case: a row or a group per segment, all of them present), shuffle with the
   whole warp's mask, a constant: with each segment's own mask the compiler guards every step
   with a divergence check and a fallback path. The lanes that find the whole warp active are
   one converged group, and each of them goes on to the same shuffles. */
template <int Width, int Kind, typename T, typename Op> __device__ __forceinline__ T warpred__tree(T v, Op op)
{
    if constexpr (Width == 1) {
        return v; /* nothing to combine, nothing to settle */
    } else if constexpr (Width == 32) {
        return warpred__tree_steps<32, Kind>(v, op, 0xffffffffu);
    } else {
        if (__activemask() == 0xffffffffu) return warpred__tree_steps<Width, Kind>(v, op, 0xffffffffu);
        return warpred__tree_steps<Width, Kind>(v, op, warpred__segment_mask<Width>());
    }
}

/* Lanes 0..present-1 of the warp call; the values of lanes 0..counted-1 count (1 <= counted <=
   present <= 32). Shuffle-down tree, result in the first lane of each segment that holds a
   counted value; with Broadcast, then in every calling lane of that segment. */
template <bool Broadcast, int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__down_tree_prefix(T v, Op op, int present, int counted)
{
    typedef warpred_op_warp<Op, T> W;
    const unsigned calling = warpred__first_lanes(present);
    if constexpr (Width == 32 && W::hardware)
        if (counted == present) return W::hardware_reduce(calling, v); /* already in every lane */
    const int lane = (int)warpred__lane_id();
    T r = v;
#pragma unroll
    for (int offset = 1; offset < Width && offset < counted; offset <<= 1) {
        /* every calling lane takes part in the shuffle; only counted sources are used */
        const T other = warpred__shfl<WARPRED__SHFL_DOWN>(calling, r, offset, Width);
        if (lane + offset < counted) r = W::step(op, r, other);
    }
    const unsigned segment = calling & warpred__segment_mask<Width>();
    r = W::settle(r, v, segment, warpred__first_lanes(counted) & segment);
    if constexpr (Broadcast) r = warpred__shfl<WARPRED__SHFL_IDX>(calling, r, 0, Width);
    return r;
}

/* Every lane of the warp calls, each segment of Width lanes reduced (see the manual): the
   whole warp's mask, no vote, so that several calls in a row interleave their trees. (The
   lanes need not be converged on entry: the first shuffle waits for all 32.) */
template <bool Broadcast, int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__warp_reduce_whole(T v, Op op)
{
    (void)sizeof(warpred__check_width<Width>);
    if constexpr (Width == 1 || !warpred__value_ok<T>()) return v;
    else
        return warpred__tree_steps < Width, Broadcast ? WARPRED__SHFL_XOR : WARPRED__SHFL_DOWN > (v, op, 0xffffffffu);
}

/* The entry point of the layers above (see the manual). */
template <bool Broadcast, typename T, typename Op>
__device__ __forceinline__ T warpred__warp_reduce_prefix(T v, Op op, int present, int counted)
{
    if (present == 32 && counted == 32)
        return warpred__tree < 32, Broadcast ? WARPRED__SHFL_XOR : WARPRED__SHFL_DOWN > (v, op);
    return warpred__down_tree_prefix<Broadcast, 32>(v, op, present, counted);
}

/* ---- public API ---- */

/* Result in the first lane of each Width-lane segment; every lane of the segment calls. */
template <int Width = 32, typename T, typename Op> __device__ __forceinline__ T warpred_warp_reduce(T v, Op op)
{
    (void)sizeof(warpred__check_width<Width>);
    if constexpr (warpred__value_ok<T>()) return warpred__tree<Width, WARPRED__SHFL_DOWN>(v, op);
    else
        return v;
}

/* Result in every lane of each Width-lane segment; every lane of the segment calls. */
template <int Width = 32, typename T, typename Op> __device__ __forceinline__ T warpred_warp_allreduce(T v, Op op)
{
    (void)sizeof(warpred__check_width<Width>);
    if constexpr (warpred__value_ok<T>()) return warpred__tree<Width, WARPRED__SHFL_XOR>(v, op);
    else
        return v;
}

/* A partial warp: only lanes 0..n-1 call. Result in the first lane of each segment that has a
   calling lane. */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_reduce_partial(T v, Op op, int n)
{
    (void)sizeof(warpred__check_width<Width>);
    WARPRED_ASSERT(n >= 1 && n <= 32 && (int)warpred__lane_id() < n);
    if constexpr (warpred__value_ok<T>()) return warpred__down_tree_prefix<false, Width>(v, op, n, n);
    else
        return v;
}

/* A partial warp: only lanes 0..n-1 call. Result in every calling lane. (A butterfly cannot
   skip missing partners: this is the down tree, then a broadcast from each segment's first
   lane.) */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_allreduce_partial(T v, Op op, int n)
{
    (void)sizeof(warpred__check_width<Width>);
    WARPRED_ASSERT(n >= 1 && n <= 32 && (int)warpred__lane_id() < n);
    if constexpr (warpred__value_ok<T>()) return warpred__down_tree_prefix<true, Width>(v, op, n, n);
    else
        return v;
}

#endif /* WARPRED_WARP_REDUCE_CUH */
