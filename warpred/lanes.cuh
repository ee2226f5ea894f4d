/* warpred/lanes.cuh - the hardware lane of a thread, and lane masks.      MIT licensed, see LICENSE.

   The lane is %laneid: with 2D/3D blocks warps are formed from the linear thread index, so
   threadIdx.x & 31 is not always the lane. Used by the warp layer and the atomics.

   This header needs config.cuh and version.h beside it.
*/
#ifndef WARPRED_LANES_CUH
#define WARPRED_LANES_CUH

#include "config.cuh"

__device__ __forceinline__ unsigned warpred__lane_id(void)
{
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

/* The lanes below this one, as a mask. */
__device__ __forceinline__ unsigned warpred__lanes_below(void)
{
    unsigned mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}

/* Lanes 0..n-1 as a mask, 1 <= n <= 32. */
__device__ __forceinline__ unsigned warpred__first_lanes(int n) { return 0xffffffffu >> (32 - n); }

#endif /* WARPRED_LANES_CUH */
