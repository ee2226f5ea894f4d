// expect: warpred_op_and/or/xor: integer members only
#include <warpred/warp_reduce.cuh>
__global__ void k(const float2 *in, float2 *out) { *out = warpred_warp_reduce(in[threadIdx.x], warpred_op_xor()); }
