/* samples/demo - one warp reduction and one block reduction, checked against the CPU.
   Build and run from the repository root:  make run-demo */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <warpred/warpred.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu */

enum { BLOCK = 1000 }; /* not a multiple of 32: the last warp has 8 threads */

/* out[0]: lane 0's warp sum; out[1..32]: every lane's warp max; out[33]: block sum;
   out[34]: block min as seen by the last thread (broadcast variant); out[35]: the sum of the
   last warp, which holds only 8 threads.
   The full-warp forms require all 32 lanes of the warp to call. Warps 0..30 are full, so warp 0
   may use them; the last warp (threads 992..999) has 8 lanes, so it must use the _partial form,
   which only lanes 0..n-1 call. The block reductions handle the partial warp themselves. */
__global__ void demo(const float *x, float *out)
{
    const int t = threadIdx.x;
    const int last_warp_first = BLOCK & ~31; /* 992 */
    if (t < 32) {                            /* warp 0: a full warp */
        float warp_sum = warpred_warp_reduce(x[t], warpred_op_sum());
        float warp_max = warpred_warp_allreduce(x[t], warpred_op_max());
        if (t == 0) out[0] = warp_sum;
        out[1 + t] = warp_max;
    }
    if (t >= last_warp_first) { /* the last warp: 8 lanes */
        float tail_sum = warpred_warp_reduce_partial(x[t], warpred_op_sum(), BLOCK - last_warp_first);
        if (t == last_warp_first) out[35] = tail_sum;
    }
    float block_sum = warpred_block_reduce(x[t], warpred_op_sum());
    float block_min = warpred_block_allreduce(x[t], warpred_op_min());
    if (t == 0) out[33] = block_sum;
    if (t == BLOCK - 1) out[34] = block_min;
}

int main(void)
{
    su_require_gpu("demo");
    float x[BLOCK], out[36];
    srand(42);
    for (int i = 0; i < BLOCK; i++) x[i] = (float)(rand() % 2001 - 1000) / 8.0f; /* exact in float */
    double warp_sum = 0, block_sum = 0, tail_sum = 0;
    float warp_max = x[0], block_min = x[0];
    for (int i = 0; i < BLOCK; i++) {
        if (i < 32) warp_sum += x[i];
        if (i >= (BLOCK & ~31)) tail_sum += x[i];
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
    struct {
        const char *what;
        double got, want;
        int ok;
    } rows[] = {
        {"warp sum (lane 0)", out[0], warp_sum, out[0] == (float)warp_sum},
        {"warp max (all 32 lanes)", out[1], warp_max, every_lane},
        {"last warp sum (8 lanes)", out[35], tail_sum, out[35] == (float)tail_sum},
        {"block sum, 1000 threads", out[33], block_sum, out[33] == (float)block_sum},
        {"block min, broadcast", out[34], block_min, out[34] == block_min},
    };
    int ok = 1;
    printf("%-26s %14s %14s  %s\n", "reduction", "GPU", "CPU", "check");
    for (int i = 0; i < 5; i++) {
        printf("%-26s %14.3f %14.3f  %s\n", rows[i].what, rows[i].got, rows[i].want, rows[i].ok ? "ok" : "WRONG");
        ok &= rows[i].ok;
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_out));
    printf("%s\n", ok ? "all results match" : "MISMATCH");
    return ok ? 0 : 1;
}
