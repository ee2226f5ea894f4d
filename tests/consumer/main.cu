/* warpred consumer: sums 0..n-1 with warpred_block_reduce (one partial per block) and with
   warpred_grid_reduce (the whole grid, one launch), and checks both against the exact sum.
   Exit 0 when both are right; 1 otherwise, or when there is no usable GPU (nothing was run). */
#include <stdio.h>
#include <cuda_runtime.h>
#include <warpred/block_reduce.cuh>
#include <warpred/grid_reduce.cuh>
#include "consumer.h"

enum { BLOCK = 256, BLOCKS = 40 };

__global__ void consumer_sums(unsigned n, unsigned long long *block_sums, warpred_grid_scratch scratch,
                              unsigned long long *grid_sum)
{
    unsigned long long v = 0;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) v += i;
    unsigned long long b = warpred_block_reduce<BLOCK>(v, warpred_op_sum());
    if (threadIdx.x == 0) block_sums[blockIdx.x] = b;
    warpred_grid_reduce<BLOCK>(v, warpred_op_sum(), scratch, grid_sum);
}

static int check(cudaError_t err, const char *what)
{
    if (err != cudaSuccess) printf("consumer: %s: %s\n", what, cudaGetErrorString(err));
    return err != cudaSuccess;
}

int main(void)
{
    printf("consumer: warpred %d.%d.%d (WARPRED_VERSION %d)\n", WARPRED_VERSION_MAJOR, WARPRED_VERSION_MINOR,
           WARPRED_VERSION_PATCH, WARPRED_VERSION);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("consumer: no usable GPU, nothing was run\n");
        return 1;
    }
    const unsigned n = 1000003;
    const unsigned long long exact = (unsigned long long)n * (n - 1) / 2;
    unsigned long long *d = NULL, h[BLOCKS + 1];
    warpred_grid_scratch scratch;
    if (consumer_scratch_create(&scratch, BLOCKS)) return 1;
    if (check(cudaMalloc(&d, sizeof h), "cudaMalloc") || check(cudaMemset(d, 0xff, sizeof h), "cudaMemset")) return 1;
    consumer_sums<<<BLOCKS, BLOCK>>>(n, d, scratch, d + BLOCKS);
    if (check(cudaGetLastError(), "launch") || check(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "copy"))
        return 1;
    unsigned long long blocks_total = 0;
    for (int b = 0; b < BLOCKS; b++) blocks_total += h[b];
    int bad = consumer_scratch_finish(&scratch) | check(cudaFree(d), "cudaFree");
    printf("consumer: sum of 0..%u: exact %llu, block sums %llu, grid sum %llu\n", n - 1, exact, blocks_total,
           h[BLOCKS]);
    bad |= blocks_total != exact || h[BLOCKS] != exact;
    printf("consumer: %s\n", bad ? "FAILED" : "ok");
    return bad;
}
