// expect: warpred: this type is not a reducible value
#include <warpred/block_reduce.cuh>
__global__ void k(const signed char *in, signed char *out)
{
    *out = warpred_block_allreduce(in[threadIdx.x], warpred_op_sum());
}
