/* warpred/warp_segmented.cuh - warp reductions over groups of lanes.      MIT licensed, see LICENSE.

   Two ways to cut a warp into groups that reduce on their own:

   by key: lanes holding the same key reduce together, wherever they sit in the warp (keys
   need not be contiguous or sorted). Any subset of the warp may call, from divergent code.

     T warpred_warp_allreduce_by_key(T v, K key, Op op)   group result in every lane of the group
     T warpred_warp_reduce_by_key(T v, K key, Op op)      group result in the group's lowest lane
     unsigned warpred_warp_key_group(K key)               the calling lanes that hold this key

   by head flags: contiguous runs of lanes; a run starts at lane 0 and at every lane whose
   `head` is true, and ends before the next head. The whole warp calls.

     T warpred_warp_reduce_by_flags(T v, bool head, Op op)     run result in the run's first lane
     T warpred_warp_allreduce_by_flags(T v, bool head, Op op)  run result in every lane of the run

   USAGE
       #include <warpred/warp_segmented.cuh>

       __global__ void per_key(const int *keys, const float *vals, float *sums)  // one warp
       {
           int lane = threadIdx.x;
           float s = warpred_warp_allreduce_by_key(vals[lane], keys[lane], warpred_op_sum());
           sums[lane] = s;
       }
       // keys = {7, 3, 7, 3, 9, ...(lanes 5..31: 9)}, vals = lane index:
       // sums[0] = sums[2] = 2, sums[1] = sums[3] = 4, lanes 4..31: 4 + 5 + ... + 31 = 490

       __global__ void per_run(const float *vals, const int *heads, float *sums)  // one warp
       {
           int lane = threadIdx.x;
           float s = warpred_warp_reduce_by_flags(vals[lane], heads[lane] != 0, warpred_op_sum());
           if (lane == 0 || heads[lane]) sums[lane] = s;
       }
       // heads at lanes 8 and 20, vals = 1: sums[0] = 8, sums[8] = 12, sums[20] = 12

   (Both snippets are compiled and checked in tests/test_segmented.cu.)

   SEMANTICS  Operations and values are those of warp_reduce.cuh (compound values too).
   The combination order is fixed by the lanes' positions: results are bitwise repeatable, and
   every lane of a group or run gets the same bits. The op need only be associative (the
   result is formed in one lane and broadcast). Keys: int, unsigned, long long, unsigned long
   long, and long / unsigned long (compared bit for bit by __match_any_sync).

   PRECONDITIONS  by key: the calling lanes are converged among themselves (one
   __activemask(), read once, is used for every step). by flags: all 32 lanes call, converged.
   sm_70 or newer (__match_any_sync).

   COST  by flags: five shuffles, like warpred_warp_reduce. by key: one match, then up to
   log2(largest group) rounds, each a shuffle plus a search for the source lane (__fns); a warp
   whose groups are all single lanes does no round at all.

   This header needs warp_reduce.cuh, ops.cuh and its base beside it (README: Copying a header).
*/
#ifndef WARPRED_WARP_SEGMENTED_CUH
#define WARPRED_WARP_SEGMENTED_CUH

#include "warp_reduce.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#    error "warpred/warp_segmented.cuh needs sm_70 or newer (__match_any_sync)"
#endif

template <typename K> __device__ __forceinline__ void warpred__check_key(void)
{
    static_assert(warpred__is_integer<K>::value,
                  "warpred: keys must be int, unsigned, long, unsigned long, long long or unsigned long long");
}

template <typename K> __device__ __forceinline__ unsigned warpred_warp_key_group(K key)
{
    warpred__check_key<K>();
    return __match_any_sync(__activemask(), key);
}

/* Down tree over the ranks of each group: after the round with offset o, the lane of rank r
   holds ranks [r, r + 2o) of its group, so rank 0 ends with the whole group. Every calling
   lane takes part in every shuffle (the rounds are counted over the warp's largest group). */
template <typename T, typename Op>
__device__ __forceinline__ T warpred__reduce_group(T v, Op op, unsigned active, unsigned group)
{
    const unsigned lane = warpred__lane_id();
    const int rank = __popc(group & warpred__lanes_below()), size = __popc(group);
    T r = v;
    for (int offset = 1; __any_sync(active, offset < size); offset <<= 1) {
        const bool has_source = rank + offset < size;
        const unsigned source = has_source ? __fns(group, lane, offset + 1) : lane;
        const T other = warpred__shfl<WARPRED__SHFL_IDX>(active, r, (int)source, 32);
        if (has_source) r = op(r, other);
    }
    return r;
}

template <typename T, typename K, typename Op>
__device__ __forceinline__ T warpred_warp_reduce_by_key(T v, K key, Op op)
{
    if constexpr (!warpred__value_ok<T>()) {
        return v;
    } else {
        warpred__check_key<K>();
        const unsigned active = __activemask(); /* read once: every step below uses this value */
        return warpred__reduce_group(v, op, active, __match_any_sync(active, key));
    }
}

template <typename T, typename K, typename Op>
__device__ __forceinline__ T warpred_warp_allreduce_by_key(T v, K key, Op op)
{
    if constexpr (!warpred__value_ok<T>()) {
        return v;
    } else {
        warpred__check_key<K>();
        const unsigned active = __activemask();
        const unsigned group = __match_any_sync(active, key);
        const T r = warpred__reduce_group(v, op, active, group);
        return warpred__shfl<WARPRED__SHFL_IDX>(active, r, __ffs(group) - 1, 32);
    }
}

/* The run of this lane ends before the first head above it. Rising offsets as in the warp
   tree, never reaching past the run's end, leave each run's result in its first lane. */
template <typename T, typename Op> __device__ __forceinline__ T warpred__reduce_runs(T v, Op op, unsigned heads)
{
    const int lane = (int)warpred__lane_id();
    const unsigned above = lane == 31 ? 0u : heads & (0xfffffffeu << lane);
    const int end = above ? __ffs(above) - 1 : 32;
    T r = v;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        const T other = warpred__shfl<WARPRED__SHFL_DOWN>(0xffffffffu, r, offset, 32);
        if (lane + offset < end) r = op(r, other);
    }
    return r;
}

template <typename T, typename Op> __device__ __forceinline__ T warpred_warp_reduce_by_flags(T v, bool head, Op op)
{
    if constexpr (!warpred__value_ok<T>()) {
        return v;
    } else {
        return warpred__reduce_runs(v, op, __ballot_sync(0xffffffffu, head) | 1u);
    }
}

template <typename T, typename Op> __device__ __forceinline__ T warpred_warp_allreduce_by_flags(T v, bool head, Op op)
{
    if constexpr (!warpred__value_ok<T>()) {
        return v;
    } else {
        const unsigned heads = __ballot_sync(0xffffffffu, head) | 1u;
        const T r = warpred__reduce_runs(v, op, heads);
        const unsigned lane = warpred__lane_id();
        const unsigned at_or_below = heads & (lane == 31 ? 0xffffffffu : (2u << lane) - 1u);
        return warpred__shfl<WARPRED__SHFL_IDX>(0xffffffffu, r, 31 - __clz(at_or_below), 32);
    }
}

#endif /* WARPRED_WARP_SEGMENTED_CUH */
