/* warpred/atomic_aggregate.cuh - warp-aggregated atomics for CUDA.      MIT licensed, see LICENSE.

   When many lanes of a warp update memory, the lanes that target the same address combine
   their updates and one of them issues a single atomic; every lane still gets back exactly
   what its own plain atomic would have returned, as if the lanes of the group had executed
   one after another in lane order.

     T warpred_atomic_inc_agg(T *p)       like atomicAdd(p, 1): a unique slot per calling lane
                                          (T = int, unsigned, unsigned long long)
     T warpred_atomic_add_agg(T *p, T v)  like atomicAdd(p, v); returns the old value
                                          (T = int, unsigned, long long, unsigned long long,
                                          float, double)

   USAGE
       #include <warpred/atomic_aggregate.cuh>

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
       // keep_positive on {3, -1, 2, 0, 5}: *count == 3, out[0..2] holds 3, 2, 5 in some order;
       // total on the same input: *sum == 9

   (These snippets are compiled and checked in tests/test_atomic_aggregate.cu.)

   SEMANTICS
     - Any subset of the warp may call, from divergent code: the calling lanes are found with
       one __activemask() whose value every later step reuses.
     - Lanes may pass different addresses. __match_any_sync splits the calling lanes into
       groups with equal addresses; each group issues one atomic. A histogram with a few hot
       bins gets one atomic per distinct bin per warp.
     - Returned values: the group's leader gets the memory's old value m; the lane of rank r
       in its group gets m + (sum of the values of the group's lanes of lower rank). For
       integers that is exactly what one plain atomic per lane in lane order would return,
       and memory ends up with the exact total. For float/double the group total and the
       prefixes are rounded sums computed in the warp (one rounding per add, as a serial
       order would also round, but possibly at different points): results may differ from
       a serial order in the last bits.
     - Global and shared memory (generic pointers). Signed overflow wraps, as atomicAdd does.

   WHEN IT HELPS (same-address updates; figures: docs/BENCHMARKS.md, bench_atomics)
     - float/double sums to a few addresses: plain float atomicAdd to one address serialises
       every lane's update; one atomic per warp is many times faster.
     - per-lane addresses with repeats (histograms with hot bins).
     - nvcc already aggregates atomicAdd(p, constant) and integer atomicAdd/atomicMax on an
       address it can prove warp-uniform, with correct per-lane return values: for those,
       warpred_atomic_inc_agg is correct but not faster. It still documents the lane order
       and works when the address is not provably uniform.
     - When lanes rarely share an address, the grouping is overhead: use plain atomics.

   PRECONDITIONS  sm_70 or newer (__match_any_sync). p is a valid, naturally aligned address
   (alignment checked with assert).

   CONFIGURATION  see config.cuh (WARPRED_ASSERT).

   This header needs ops.cuh and its base beside it (README: Copying a header).
*/
#ifndef WARPRED_ATOMIC_AGGREGATE_CUH
#define WARPRED_ATOMIC_AGGREGATE_CUH

#include "ops.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#    error "warpred/atomic_aggregate.cuh needs sm_70 or newer (__match_any_sync)"
#endif

/* The calling lanes that target the same address as this lane. */
__device__ __forceinline__ unsigned warpred__agg_group(const void *p)
{
    const unsigned active = __activemask(); /* read once; the match below uses this value */
    return __match_any_sync(active, (unsigned long long)p);
}

/* atomicAdd lacks signed 64-bit and needs the unsigned form; two's complement adds alike. */
template <typename T> __device__ __forceinline__ T warpred__agg_atomic_add(T *p, T v)
{
    if constexpr (warpred__same<T, long long>::value)
        return (long long)atomicAdd((unsigned long long *)p, (unsigned long long)v);
    else
        return atomicAdd(p, v);
}

/* The lane `distance` ranks below this one in `group`, or 32 and above if there is none. */
__device__ __forceinline__ unsigned warpred__agg_lane_below(unsigned group, unsigned lane, int distance)
{
    if (group == 0xffffffffu) return lane >= (unsigned)distance ? lane - distance : 32u;
    return __fns(group, lane, -(distance + 1));
}

/* Inclusive prefix sum of v over the lanes of `group`, in lane order (Kogge-Stone over ranks). */
template <typename T> __device__ __forceinline__ T warpred__agg_inclusive_scan(T v, unsigned group, unsigned lane)
{
    const int size = __popc(group);
    for (int distance = 1; distance < size; distance <<= 1) {
        const unsigned src = warpred__agg_lane_below(group, lane, distance);
        const T t = __shfl_sync(group, v, src < 32u ? src : lane); /* read only lanes of the group */
        if (src < 32u) v = warpred__add(t, v);
    }
    return v;
}

template <typename T> __device__ __forceinline__ T warpred_atomic_add_agg(T *p, T v)
{
    static_assert(warpred__is_integer<T>::value || warpred__same<T, float>::value || warpred__same<T, double>::value,
                  "warpred_atomic_add_agg: int, unsigned, long long, unsigned long long, float or double");
    WARPRED_ASSERT(((unsigned long long)p & (sizeof(T) - 1)) == 0);
    const unsigned group = warpred__agg_group(p);
    const unsigned lane = warpred__lane_id();
    const int leader = __ffs(group) - 1, last = 31 - __clz(group);
    const T inclusive = warpred__agg_inclusive_scan(v, group, lane);
    const T total = __shfl_sync(group, inclusive, last);
    T old = T();
    if ((int)lane == leader) old = warpred__agg_atomic_add(p, total);
    old = __shfl_sync(group, old, leader);
    /* the exclusive prefix, taken from the lane below rather than computed as inclusive - v,
       which would not be exact for floating point */
    const unsigned below = warpred__agg_lane_below(group, lane, 1);
    const T exclusive = __shfl_sync(group, inclusive, below < 32u ? below : lane);
    return below < 32u ? warpred__add(old, exclusive) : old;
}

template <typename T> __device__ __forceinline__ T warpred__atomic_inc_agg(T *p)
{
    WARPRED_ASSERT(((unsigned long long)p & (sizeof(T) - 1)) == 0);
    const unsigned group = warpred__agg_group(p);
    const unsigned lane = warpred__lane_id();
    const int leader = __ffs(group) - 1;
    T base = 0;
    if ((int)lane == leader) base = atomicAdd(p, (T)__popc(group));
    base = __shfl_sync(group, base, leader);
    return warpred__add(base, (T)__popc(group & warpred__lanes_below())); /* wraps, as atomicAdd does */
}

__device__ __forceinline__ int warpred_atomic_inc_agg(int *p) { return warpred__atomic_inc_agg(p); }
__device__ __forceinline__ unsigned warpred_atomic_inc_agg(unsigned *p) { return warpred__atomic_inc_agg(p); }
__device__ __forceinline__ unsigned long long warpred_atomic_inc_agg(unsigned long long *p)
{
    return warpred__atomic_inc_agg(p);
}

#endif /* WARPRED_ATOMIC_AGGREGATE_CUH */
