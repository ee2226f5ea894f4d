// expect: warpred: this type is not a reducible value
#include <warpred/grid_reduce.cuh>
__global__ void k(const signed char *in, warpred_grid_scratch s, signed char *out)
{
    warpred_grid_reduce(in[threadIdx.x], warpred_op_max(), s, out);
}
