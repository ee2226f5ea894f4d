/* samples/demo - one warp reduction and one block reduction, checked against the CPU.
   Build and run from the repository root:  make run */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <warpred/warpred.cuh>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t err_ = (call);                                                                \
        if (err_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

enum { BLOCK = 1000 }; /* not a multiple of 32: the last warp has 8 threads */

/* out[0]: lane 0's warp sum; out[1..32]: every lane's warp max; out[33]: block sum;
   out[34]: block min as seen by the last thread (broadcast variant). */
__global__ void demo(const float *x, float *out)
{
    const int t = threadIdx.x;
    float warp_sum = warpred_warp_reduce(x[t], warpred_op_sum());
    float warp_max = warpred_warp_allreduce(x[t], warpred_op_max());
    float block_sum = warpred_block_reduce(x[t], warpred_op_sum());
    float block_min = warpred_block_allreduce(x[t], warpred_op_min());
    if (t == 0) out[0] = warp_sum;
    if (t < 32) out[1 + t] = warp_max;
    if (t == 0) out[33] = block_sum;
    if (t == BLOCK - 1) out[34] = block_min;
}

int main(void)
{
    float x[BLOCK], out[35];
    srand(42);
    for (int i = 0; i < BLOCK; i++) x[i] = (float)(rand() % 2001 - 1000) / 8.0f; /* exact in float */
    double warp_sum = 0, block_sum = 0;
    float warp_max = x[0], block_min = x[0];
    for (int i = 0; i < BLOCK; i++) {
        if (i < 32) warp_sum += x[i];
        if (i < 32 && x[i] > warp_max) warp_max = x[i];
        if (x[i] < block_min) block_min = x[i];
        block_sum += x[i];
    }

    float *d_x, *d_out;
    CHECK(cudaMalloc(&d_x, sizeof x));
    CHECK(cudaMalloc(&d_out, sizeof out));
    CHECK(cudaMemcpy(d_x, x, sizeof x, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0xff, sizeof out)); /* NaN: anything unwritten shows */
    demo<<<1, BLOCK>>>(d_x, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));

    int every_lane = 1;
    for (int l = 0; l < 32; l++) every_lane &= out[1 + l] == warp_max;
    struct { const char *what; double got, want; int ok; } rows[] = {
        {"warp sum (lane 0)", out[0], warp_sum, out[0] == (float)warp_sum},
        {"warp max (all 32 lanes)", out[1], warp_max, every_lane},
        {"block sum, 1000 threads", out[33], block_sum, out[33] == (float)block_sum},
        {"block min, broadcast", out[34], block_min, out[34] == block_min},
    };
    int ok = 1;
    printf("%-26s %14s %14s  %s\n", "reduction", "GPU", "CPU", "check");
    for (int i = 0; i < 4; i++) {
        printf("%-26s %14.3f %14.3f  %s\n", rows[i].what, rows[i].got, rows[i].want, rows[i].ok ? "ok" : "WRONG");
        ok &= rows[i].ok;
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_out));
    printf("%s\n", ok ? "all results match" : "MISMATCH");
    return ok ? 0 : 1;
}
