/* samples/layernorm - LayerNorm and RMSNorm over rows, at the memory limit for every row length,
   float32 and bfloat16 (float arithmetic inside).

   layernorm  y = (x - mean) / sqrt(var + eps) * w + b     (population variance, as torch)
   rmsnorm    y = x / sqrt(mean(x^2) + eps) * w

   Every thread that holds part of a row needs the row's mean and variance before it writes: the
   allreduce of warpred/row_reduce.cuh over exactly the threads that hold the row, a segment of a
   warp, a warp, a block or a cluster's blocks, chosen from the row length (samples/common/
   row_kernels.cuh, WHERE A ROW LIVES). Once the row is in the registers of a warp or a block the
   exact two-pass variance costs nothing extra: the mean is reduced first, then the squared
   deviations from it, with no second read of memory and no E[x^2] - E[x]^2 cancellation. In a
   cluster, where each reduction waits on the other blocks, and in rows too long for a cluster's
   registers (streamed: the output in a second pass; or across the whole GPU), one reduction of
   the sums of x - x[0] and its square (the shift keeps the cancellation small).

   Each length is checked element by element against a double-precision reference with a stated
   bound (samples/common/row_check.h), rows offset by up to 60 from zero included, then timed;
   then 2 x SMs + 5 rows of 16392 and of 16387, more rows than the clusters that take rows in
   turn (row_kernels.cuh, rk_norm_cluster_rows); then rows across the whole GPU (rk_grid_rows):
   21 and 3 float32 rows of 524296, 21 bfloat16 rows of 1048584.

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. -arch=sm_90 samples/layernorm/main.cu -o layernorm && ./layernorm
   WARPRED_SAMPLE_QUICK=1 uses small sizes (make test, make sanitize). */
#include "../common/sample_util.h"
#include "../common/row_kernels.cuh"
#include "../common/row_check.h"

int main(void)
{
    rc_session s;
    rc_begin(&s, "layernorm");
    rc_op<RC_LAYERNORM>(&s);
    rc_op<RC_RMSNORM>(&s);
    return rc_end(&s);
}
