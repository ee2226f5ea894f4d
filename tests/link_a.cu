/* Linked with link_b.cu: every header included in two translation units of one program must
   not produce duplicate symbols (built both whole-program and with -rdc=true). */
#include <warpred/warpred.cuh>

__global__ void link_a_kernel(float *p)
{
    p[0] = warpred_block_reduce(p[threadIdx.x], warpred_op_sum());
    p[1] = warpred_warp_allreduce(p[threadIdx.x], warpred_op_max());
}

void link_b_launch(int *p);

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) { /* never taken by the build check: the program only has to link */
        link_a_kernel<<<1, 64>>>((float *)0);
        link_b_launch((int *)0);
    }
    return 0;
}
