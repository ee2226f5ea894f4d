// expect: warpred: this type is not a reducible value
#include <warpred/warp_segmented.cuh>
__global__ void k(const signed char *in, signed char *out)
{
    *out = warpred_warp_reduce_by_key(in[threadIdx.x], 1, warpred_op_sum());
}
