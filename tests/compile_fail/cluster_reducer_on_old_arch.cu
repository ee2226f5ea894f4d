// expect: warpred: warpred_cluster_reduce, _allreduce, _allreduce_once and WARPRED_CLUSTER_REDUCER need thread-block clusters (sm_90
/* A cluster reducer in device code for an arch without clusters: one error for the declaration and
   its calls together. As cluster_on_old_arch.cu, the private switch makes an sm_90 pass take the
   older archs' path. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#    define WARPRED__CLUSTER_TEST_OLD_ARCH 1
#endif
#include <warpred/cluster_reducer.cuh>
__global__ void k(const float *in, float *out, int rows)
{
    WARPRED_CLUSTER_REDUCER(sum, float, 256);
    for (int r = 0; r < rows; r++) out[r] = sum.allreduce(in[r * 256 + threadIdx.x], warpred_op_sum());
}
