/* warpred/warpred.cuh - includes every warpred header.      MIT licensed, see LICENSE.

   warpred is a header-only collection of device-side reduction primitives for CUDA:
     warp_reduce.cuh   warp and sub-warp reductions (result in lane 0, or in every lane)
     block_reduce.cuh  block reductions for any block shape (result in thread 0, or everywhere)
     atomic_aggregate.cuh  warp-aggregated atomic increment and add
     atomic_minmax.cuh     exact atomic max/min for float and double (two NaN policies)
     grid_reduce.cuh       one result for a whole grid in a single launch, deterministic
   Each header's top comment is its manual.
*/
#ifndef WARPRED_CUH
#define WARPRED_CUH
#include "warp_reduce.cuh"
#include "block_reduce.cuh"
#include "atomic_aggregate.cuh"
#include "atomic_minmax.cuh"
#include "grid_reduce.cuh"
#endif /* WARPRED_CUH */
