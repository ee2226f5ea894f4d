/* samples/softmax - row-wise softmax at the memory limit for every row length, float32 and bfloat16.

   y = exp(x - max) / sum exp(x - max) for each row of a matrix. Every thread that holds part of a row
   needs two statistics of the whole row (the max, then the sum) before it writes anything: the
   allreduce of warpred/row_reduce.cuh, over the threads that hold the row. How many threads those
   are follows from the row length (samples/common/row_kernels.cuh, WHERE A ROW LIVES):
     - short rows (up to 256 values): a segment of 4..32 lanes of a warp, several rows per warp, the
       allreduce a shuffle butterfly inside the segment;
     - up to 1024: a warp; up to 16384: a block (warpred_block_allreduce);
     - up to 262144: the blocks of a thread-block cluster (warpred_cluster_allreduce_once, sm_90): the row
       still sits in registers, spread over up to 8 SMs (blocks of 1024 threads in float32);
     - longer: streamed in two passes; the first forms the online (max, sum) pair of op_softmax.cuh
       (one pass for both statistics), the second writes.
   The row is read once into registers with 16-byte loads, reduced twice and written from there.

   Each length is checked element by element against a double-precision reference with a stated
   bound (samples/common/row_check.h), rows with -inf entries and a row of only -inf (which gives
   zeros) included, then timed; then 2 x SMs + 5 rows of 16392 and of 16387 (the cluster layout's
   kernel, many rows at once) and 12 float32 rows of 1048584 (across the whole GPU, rk_grid_rows:
   more rows than its ring holds).

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. -arch=sm_90 samples/softmax/main.cu -o softmax && ./softmax
   WARPRED_SAMPLE_QUICK=1 uses small sizes (make test, make sanitize). */
#include "../common/sample_util.h"
#include "../common/row_kernels.cuh"
#include "../common/row_check.h"

int main(void)
{
    rc_session s;
    rc_begin(&s, "softmax");
    rc_op<RC_SOFTMAX>(&s);
    return rc_end(&s);
}
