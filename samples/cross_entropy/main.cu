/* samples/cross_entropy - the cross-entropy loss of each row of logits and its mean over rows,
   float32 and bfloat16 logits, at the memory limit for every row length.

   loss[r] = logsumexp(x[r]) - x[r][target[r]],  argmax[r] = the first index of the row's largest
   logit (a by-product: the max that logsumexp needs comes with its index), mean = sum loss / rows.

   The row's max (as a (value, index) pair, warpred_op_argmax_num) and then the sum of exp(x - max)
   are reduced over exactly the threads that hold the row (warpred/row_reduce.cuh), a segment of a
   warp, a warp, a block or a cluster's blocks, chosen from the row length (samples/common/
   row_kernels.cuh, WHERE A ROW LIVES); rows longer than a cluster holds are read once with the online
   (max, sum) pair (op_softmax.cuh). The logits are read exactly once in every case. The mean is
   warpred_device_transform_reduce over the per-row losses: the same bits on every run, whatever the
   scheduling (no float atomics).

   Each length is checked against a double-precision reference with a stated bound (samples/common/
   row_check.h), rows with -inf logits included (and, at lengths 16392 and 16387, 4 rows per SM
   and a few more: the streamed kernel's blocks of 256), and special rows exactly: a row of only -inf (loss
   +inf, argmax 0), a target logit of -inf (+inf), a target out of range (NaN, nothing read).

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. -arch=sm_90 samples/cross_entropy/main.cu -o cross_entropy && ./cross_entropy
   WARPRED_SAMPLE_QUICK=1 uses small sizes (make test, make sanitize). */
#include "../common/sample_util.h"
#include "../common/row_kernels.cuh"
#include "../common/row_check.h"

int main(void)
{
    rc_session s;
    rc_begin(&s, "cross_entropy");
    rc_op<RC_CROSS_ENTROPY>(&s);
    return rc_end(&s);
}
