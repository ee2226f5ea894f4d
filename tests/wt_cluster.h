/* tests/wt_cluster.h - the host side shared by the cluster tests (test_cluster_reduce.cu,
   test_cluster_reducer.cu):

   - wt_cluster_setup_with(state, probe): the group setup; wt_clusters_ok is 1 when there is a GPU
     of compute capability 9.0 or newer and probe (one of the program's kernels) has sm_90 code
     for it, else the GPU tests skip (and the setup says why)
   - wt_max_cluster(kernel, block, cap): the largest cluster size the kernel launches with
   - wt_launch(kernel, block, cdim, clusters, args...): a launch of clusters of cdim blocks
   - wt_same(a, b): the same bytes */
#ifndef WT_CLUSTER_H
#define WT_CLUSTER_H

#include "wt.h"

static int wt_clusters_ok; /* a GPU that runs this program's sm_90 code */

template <typename Kernel> static int wt_cluster_setup_with(void **state, Kernel probe)
{
    wt_group_setup(state);
    wt_clusters_ok = 0;
    if (wt_has_gpu) {
        int device = 0, major = 0, minor = 0;
        cudaFuncAttributes attrs;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
        const cudaError_t err = cudaFuncGetAttributes(&attrs, probe);
        if (major < 9)
            printf("[ INFO     ] the GPU (compute capability %d.%d) has no thread-block clusters (9.0+): the "
                   "cluster tests will be SKIPPED\n",
                   major, minor);
        else if (err != cudaSuccess || attrs.binaryVersion < 90)
            printf("[ INFO     ] this program has no code for the GPU's arch (%s; build with ARCHS containing "
                   "90): the cluster tests will be SKIPPED\n",
                   err != cudaSuccess ? cudaGetErrorString(err) : "binary older than sm_90");
        else
            wt_clusters_ok = 1;
        cudaGetLastError();
    }
    *state = &wt_clusters_ok;
    return 0;
}

/* The largest cluster (in blocks) that kernel can be launched with in blocks of `block`, with
   non-portable sizes allowed where the GPU has them, at most cap. */
template <typename Kernel> static int wt_max_cluster(Kernel kernel, dim3 block, int cap = 16)
{
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
        cudaGetLastError(); /* no non-portable sizes: the query answers with the portable ones */
    cudaLaunchConfig_t cfg = cudaLaunchConfig_t();
    cfg.gridDim = dim3(5040); /* a multiple of every size up to 16 but 11 and 13 */
    cfg.blockDim = block;
    int size = 0;
    WT_CUDA(cudaOccupancyMaxPotentialClusterSize(&size, kernel, &cfg));
    if (size < 1)
        fail_msg("cudaOccupancyMaxPotentialClusterSize: no cluster size for blocks of %u x %u x %u", block.x, block.y,
                 block.z);
    /* Under the sanitizers (quick mode) the portable sizes only: compute-sanitizer's synccheck
       (CUDA 13.0) reports "divergent thread(s) in warp" at the first __syncthreads of any kernel,
       even one without cluster code, and fails the launch, when clusters of 16 blocks fill more
       than one wave of the GPU; the same launches are clean without the tool and under memcheck. */
    if (wt_quick() && size > 8) size = 8;
    if (size > cap) size = cap;
    static int printed[17];
    if (size <= 16 && !printed[size]++)
        printf("[ INFO     ] largest cluster for one of the test kernels: %d blocks (of %u x %u x %u threads)\n", size,
               block.x, block.y, block.z);
    return size;
}

/* kernel on `clusters` clusters of cdim blocks of `block` threads, the grid cdim.x * clusters
   blocks wide; cdim.x 0: an ordinary launch of `clusters` blocks, no cluster attribute (each
   block a cluster of one). */
template <typename... Params, typename... Args>
static void wt_launch(void (*kernel)(Params...), dim3 block, dim3 cdim, unsigned clusters, Args... args)
{
    cudaLaunchAttribute attr = cudaLaunchAttribute();
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cdim.x;
    attr.val.clusterDim.y = cdim.y;
    attr.val.clusterDim.z = cdim.z;
    cudaLaunchConfig_t cfg = cudaLaunchConfig_t();
    cfg.blockDim = block;
    if (cdim.x == 0) {
        cfg.gridDim = dim3(clusters);
    } else {
        cfg.gridDim = dim3(cdim.x * clusters, cdim.y, cdim.z);
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        if (cdim.x * cdim.y * cdim.z > 8)
            WT_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    }
    WT_CUDA(cudaLaunchKernelEx(&cfg, kernel, args...));
}

/* Two values with the same bytes (the test types have no padding). */
template <typename T> static int wt_same(const T &a, const T &b) { return memcmp(&a, &b, sizeof(T)) == 0; }

#endif
