/* Host code in a .cpp file: g++ (not nvcc) compiles it, with only the CUDA include path. */
#include <stdio.h>
#include "consumer.h"

int consumer_scratch_create(warpred_grid_scratch *s, unsigned blocks)
{
    const char *why;
    if (warpred_grid_scratch_create(s, blocks, sizeof(unsigned long long), &why) != cudaSuccess) {
        printf("consumer: grid scratch: %s\n", why);
        return 1;
    }
    printf("consumer: grid scratch for %u blocks, %zu bytes of partials\n", blocks,
           warpred_grid_scratch_bytes(blocks, sizeof(unsigned long long)));
    return 0;
}

int consumer_scratch_finish(warpred_grid_scratch *s)
{
    const char *why;
    int bad = warpred_grid_scratch_status(s, &why) != cudaSuccess;
    if (bad) printf("consumer: grid scratch status: %s\n", why);
    if (warpred_grid_scratch_destroy(s) != cudaSuccess) bad = 1;
    return bad;
}
