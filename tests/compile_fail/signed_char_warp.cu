// expect: warpred: this type is not a reducible value
#include <warpred/warp_reduce.cuh>
__global__ void k(const signed char *in, signed char *out)
{
    *out = warpred_warp_reduce(in[threadIdx.x], warpred_op_max());
}
