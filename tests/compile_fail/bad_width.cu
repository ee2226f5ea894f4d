// expect: warpred: Width must be 1, 2, 4, 8, 16 or 32
#include <warpred/warp_reduce.cuh>
__global__ void k(const float *in, float *out) { *out = warpred_warp_reduce<12>(in[threadIdx.x], warpred_op_sum()); }
