// expect: warpred: warpred_cluster_reduce, _allreduce, _allreduce_once and WARPRED_CLUSTER_REDUCER need thread-block clusters (sm_90
/* The one-shot cluster allreduce in device code for an arch without clusters: one error for begin
   and the call together. As cluster_on_old_arch.cu, the private switch makes an sm_90 pass take
   the older archs' path. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#    define WARPRED__CLUSTER_TEST_OLD_ARCH 1
#endif
#include <warpred/cluster_allreduce_once.cuh>
__global__ void k(const float *in, float *out)
{
    warpred_cluster_allreduce_once_begin();
    out[0] = warpred_cluster_allreduce_once<256>(in[threadIdx.x], warpred_op_sum());
}
