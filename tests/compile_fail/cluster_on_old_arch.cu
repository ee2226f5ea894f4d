// expect: warpred: warpred_cluster_reduce, _allreduce, _allreduce_once and WARPRED_CLUSTER_REDUCER need thread-block clusters (sm_90
/* A cluster reduction in device code for an arch without clusters: one error, however many calls
   and types. compile_fail.sh compiles for the first arch of ARCHS (sm_75 by default), where the
   header's own arch check fires; when that arch is sm_90 or newer, the private switch below makes
   the header take the older archs' path, so that the message is still checked. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#    define WARPRED__CLUSTER_TEST_OLD_ARCH 1
#endif
#include <warpred/cluster_reduce.cuh>
__global__ void k(const float *in, float *out, double *d)
{
    out[0] = warpred_cluster_reduce(in[threadIdx.x], warpred_op_sum());
    d[0] = warpred_cluster_allreduce<256>((double)in[threadIdx.x], warpred_op_max());
}
