/* See link_a.cu. */
#include <warpred/warpred.cuh>

__global__ void link_b_kernel(int *p)
{
    p[0] = warpred_block_reduce(p[threadIdx.x], warpred_op_sum());
    p[1] = warpred_warp_allreduce(p[threadIdx.x], warpred_op_max());
}

void link_b_launch(int *p) { link_b_kernel<<<1, 64>>>(p); }
