/* warpred/grid_scratch.h - the scratch memory of warpred_grid_reduce, for host code.      MIT licensed.

   The type a kernel that calls warpred_grid_reduce (grid_reduce.cuh) takes as an argument,
   and the host functions that allocate, check and free it. Plain C: a .c or .cpp file compiled
   by gcc or g++ can include it with only the CUDA include path (-I/usr/local/cuda/include) and
   link with -lcudart, so the host side of a program need not be compiled by nvcc.

   USAGE (host code, C or C++)
       #include <warpred/grid_scratch.h>

       warpred_grid_scratch scratch;
       const char *why;
       if (warpred_grid_scratch_create(&scratch, 1024, sizeof(float), &why) != cudaSuccess) {
           fprintf(stderr, "grid scratch: %s\n", why);
           exit(1);
       }
       my_launch(scratch);                                   // kernels that call warpred_grid_reduce
       if (warpred_grid_scratch_status(&scratch, &why) != cudaSuccess) fprintf(stderr, "%s\n", why);
       warpred_grid_scratch_destroy(&scratch);

   (tests/consumer builds this from a .cpp file with g++; tests/test_grid_reduce.cu runs it.)

   THE TYPE  partials: room for `capacity` values of the reduced type,
   warpred_grid_scratch_bytes(capacity, sizeof(T)) bytes of device memory. counter: two 32-bit
   words of device memory, zero before the first launch: [0] the ticket counter, which the last
   block sets back to zero, so launches may follow each other with no memset; [1] the status
   word. You may point the fields at memory of your own (then zero both words once).

   OVERFLOW IS AN ERROR, NEVER A WRITE  A launch with more blocks than `capacity` writes no
   partial and no result: its blocks set the status word and return false, with or without
   NDEBUG (no assert: the host is told, the kernel goes on). warpred_grid_scratch_status reads the status
   word (a synchronous copy: call it where you check errors anyway, not in a hot loop), returns
   cudaErrorInvalidValue with a message if any launch overflowed since the last check, and
   clears it.

   This header needs only version.h beside it (and the CUDA runtime API); grid_reduce.cuh
   includes it.
*/
#ifndef WARPRED_GRID_SCRATCH_H
#define WARPRED_GRID_SCRATCH_H

#include "version.h"

typedef struct warpred_grid_scratch {
    void *partials;    /* capacity values of the reduced type, device memory */
    unsigned *counter; /* two words of device memory: [0] tickets, [1] status; zero before first use */
    unsigned capacity; /* how many partials fit: at least the blocks of a launch */
} warpred_grid_scratch;

/* The status word's bits. */
#define WARPRED_GRID_STATUS_OVERFLOW 1u /* a launch had more blocks than capacity */

#ifndef __CUDACC_RTC__
#    include <stddef.h>
#    include <cuda_runtime_api.h>

/* Bytes of partials for `capacity` blocks of values of `elem_size` bytes. */
static inline size_t warpred_grid_scratch_bytes(unsigned capacity, size_t elem_size)
{
    return (size_t)capacity * elem_size;
}

/* Allocates partials for `capacity` blocks and a zeroed counter, and waits for the zeroing
   (a synchronization of the default stream, as any allocation may be). Returns cudaSuccess, or
   an error code with *why (when why is not NULL) set to a message; on error nothing stays
   allocated and *s is zeroed. */
static inline cudaError_t warpred_grid_scratch_create(warpred_grid_scratch *s, unsigned capacity, size_t elem_size,
                                                      const char **why)
{
    const char *ignored;
    cudaError_t err;
    if (!why) why = &ignored;
    *why = "no error";
    if (!s) {
        *why = "warpred_grid_scratch_create: s is NULL";
        return cudaErrorInvalidValue;
    }
    s->partials = NULL;
    s->counter = NULL;
    s->capacity = 0;
    if (capacity == 0 || elem_size == 0) {
        *why = "warpred_grid_scratch_create: capacity and elem_size must be at least 1";
        return cudaErrorInvalidValue;
    }
    err = cudaMalloc(&s->partials, warpred_grid_scratch_bytes(capacity, elem_size));
    if (err == cudaSuccess) err = cudaMalloc((void **)&s->counter, 2 * sizeof(unsigned));
    if (err == cudaSuccess) err = cudaMemset(s->counter, 0, 2 * sizeof(unsigned));
    /* cudaMemset runs in the default stream and may return before the counter is zero; a
       kernel launched next into a stream created with cudaStreamNonBlocking is not ordered
       after the default stream and could read the ticket before the zeroing: wait for it here */
    if (err == cudaSuccess) err = cudaStreamSynchronize(0);
    if (err != cudaSuccess) {
        *why = cudaGetErrorString(err);
        cudaFree(s->partials);
        cudaFree(s->counter);
        s->partials = NULL;
        s->counter = NULL;
        return err;
    }
    s->capacity = capacity;
    return cudaSuccess;
}

/* cudaErrorInvalidValue with a message if a launch since the last check had more blocks than
   s->capacity (and clears that), the error of the copy if it failed, else cudaSuccess.
   Synchronous: waits for the work already queued. */
static inline cudaError_t warpred_grid_scratch_status(const warpred_grid_scratch *s, const char **why)
{
    const char *ignored;
    unsigned status = 0;
    cudaError_t err;
    if (!why) why = &ignored;
    *why = "no error";
    if (!s || !s->counter) {
        *why = "warpred_grid_scratch_status: no scratch (NULL, or not created)";
        return cudaErrorInvalidValue;
    }
    err = cudaMemcpy(&status, s->counter + 1, sizeof status, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        *why = cudaGetErrorString(err);
        return err;
    }
    if (status & WARPRED_GRID_STATUS_OVERFLOW) {
        *why = "warpred_grid_reduce: a launch had more blocks than scratch.capacity; it wrote no result "
               "(create the scratch with a capacity of at least gridDim.x * gridDim.y * gridDim.z)";
        err = cudaMemset(s->counter + 1, 0, sizeof(unsigned));
        return err != cudaSuccess ? err : cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

static inline cudaError_t warpred_grid_scratch_destroy(warpred_grid_scratch *s)
{
    cudaError_t a, b;
    if (!s) return cudaErrorInvalidValue;
    a = cudaFree(s->partials);
    b = cudaFree(s->counter);
    s->partials = NULL;
    s->counter = NULL;
    s->capacity = 0;
    return a != cudaSuccess ? a : b;
}
#endif /* __CUDACC_RTC__ */

#endif /* WARPRED_GRID_SCRATCH_H */
