/* samples/reduction_progression - the classic sequence of parallel sum kernels, one small step
   at a time, from a naive shared-memory tree to warpred's single-launch grid reduction.

   Every kernel sums n floats for ANY n (not only powers of two). Kernels 1-6 reduce one tile of
   the array per block and are relaunched on their own partial sums until one value is left;
   kernels 7-9 use a fixed grid and a second, one-block launch for the partials; kernel 10 needs
   a single launch. Each kernel's comment says what changed and why it is faster.

   Every result is checked for EXACT equality with an integer reference (see make_input), at the
   timed sizes and at awkward ones (1, 31, 257, an odd million). The table reports time (median
   of CUDA-event-timed runs after warm-up), GB/s of input read, the percentage of the read
   ceiling (a plain read kernel timed in the same run) and the speedup over kernel 1.

   Build and run alone, from the repository root:
       nvcc -std=c++17 -O2 -I. samples/reduction_progression/main.cu -o progression && ./progression
   WARPRED_SAMPLE_QUICK=1 uses small sizes (for make test and the sanitizers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <warpred/block_reduce.cuh>
#include <warpred/grid_reduce.cuh>
#include "../common/sample_util.h" /* CHECK, su_require_gpu, su_quick, su_malloc, su_timer, ... */

enum { BLOCK = 256 }; /* threads per block for every kernel (a power of two: kernels 1-7 need one) */

/* ------------------------------------------------------------------------------------------
   Kernel 1: interleaved addressing with divergent branches.
   Each block loads BLOCK elements into shared memory and builds a tree: at step s, thread t
   adds s[t + stride] into s[t] when t is a multiple of 2*stride. Correct, but slow: the active
   threads are scattered over every warp, so all warps stay busy doing little (divergence), and
   `%` is an expensive instruction. */
__global__ void k1_interleaved_divergent(const float *in, float *out, size_t n)
{
    __shared__ float s[BLOCK];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f; /* zero pads the last tile: any n works */
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

/* Kernel 2: interleaved addressing, contiguous active threads.
   Thread t now works on index 2*stride*t, so the active threads are the first ones of the block
   and whole warps drop out as the tree narrows: no divergence inside the busy warps and no `%`.
   New problem: the lanes of a warp touch words 2*stride apart, which fall in the same shared
   memory bank (32 banks of 4 bytes) once 2*stride reaches 32: up to 16-way bank conflicts. */
__global__ void k2_interleaved_contiguous(const float *in, float *out, size_t n)
{
    __shared__ float s[BLOCK];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        const unsigned index = 2 * stride * t;
        if (index < blockDim.x) s[index] += s[index + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

/* Kernel 3: sequential addressing.
   The stride starts at half the block and halves: thread t adds s[t + stride] into s[t]. Lanes
   of a warp read consecutive words, one per bank: no bank conflicts, and the active threads are
   still contiguous. But half of the threads do nothing after the load. */
__global__ void k3_sequential(const float *in, float *out, size_t n)
{
    __shared__ float s[BLOCK];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

/* Kernel 4: first add during load.
   Each block takes a tile of 2*BLOCK elements and every thread adds two of them while loading,
   so the first tree level costs no shared-memory round trip, no thread is idle after the load,
   and half as many blocks (and partials) are needed. */
__global__ void k4_first_add_during_load(const float *in, float *out, size_t n)
{
    __shared__ float s[BLOCK];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + t;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

/* The last six tree levels, by warp 0 alone (s holds 64 values; lane t = thread t < 32).
   Within one warp no __syncthreads() is needed, only a warp barrier. The old version of this
   step relied on `volatile` shared memory and on the 32 lanes running in lockstep; since Volta
   the lanes of a warp are scheduled independently (independent thread scheduling) and that
   code has a race. Here every level reads, waits for the whole warp (__syncwarp), writes, and
   waits again, so no lane overwrites a value another lane has not read yet. */
__device__ __forceinline__ float warp_tail_sum(float *s, unsigned t)
{
    float v = s[t];
#pragma unroll
    for (unsigned stride = 32; stride > 0; stride >>= 1) {
        v += s[t + stride];
        __syncwarp();
        s[t] = v;
        __syncwarp();
    }
    return v; /* the block's sum in lane 0 */
}

/* Kernel 5: unrolled last warp.
   Once 32 or fewer threads are active, the remaining levels run inside one warp: no more
   __syncthreads() (which stalls the whole block) and no loop bookkeeping for them. */
__global__ void k5_unrolled_last_warp(const float *in, float *out, size_t n)
{
    __shared__ float s[BLOCK];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + t;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32) v = warp_tail_sum(s, t);
    if (t == 0) out[blockIdx.x] = v;
}

/* The whole shared-memory tree for a block size known at compile time: every `if (Block >= ..)`
   is decided by the compiler, so the loop, its counter and its branches disappear. */
template <unsigned Block> __device__ __forceinline__ float block_tree_sum(float *s, unsigned t)
{
    static_assert(Block >= 64 && Block <= 1024 && (Block & (Block - 1)) == 0, "Block: a power of two, 64..1024");
    if (Block >= 1024) {
        if (t < 512) s[t] += s[t + 512];
        __syncthreads();
    }
    if (Block >= 512) {
        if (t < 256) s[t] += s[t + 256];
        __syncthreads();
    }
    if (Block >= 256) {
        if (t < 128) s[t] += s[t + 128];
        __syncthreads();
    }
    if (Block >= 128) {
        if (t < 64) s[t] += s[t + 64];
        __syncthreads();
    }
    return t < 32 ? warp_tail_sum(s, t) : 0.0f;
}

/* Kernel 6: complete unrolling with a template block size.
   As kernel 5, with the block size a template argument: the whole tree is straight-line code. */
template <unsigned Block> __global__ void k6_complete_unroll(const float *in, float *out, size_t n)
{
    __shared__ float s[Block];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * Block) + t;
    float v = i < n ? in[i] : 0.0f;
    if (i + Block < n) v += in[i + Block];
    s[t] = v;
    __syncthreads();
    v = block_tree_sum<Block>(s, t);
    if (t == 0) out[blockIdx.x] = v;
}

/* Kernel 7: several elements per thread.
   A fixed grid, about one wave of resident blocks, walks the array with a grid-stride loop:
   each thread adds many elements in a register before the tree runs once. The tree's cost is
   now paid once per thread for hundreds of elements instead of once per two, and each thread
   keeps loads in flight back to back, which is what saturates memory. Two launches in all:
   this one over the array, then one block over the per-block partials. */
template <unsigned Block> __global__ void k7_many_per_thread(const float *in, float *out, size_t n)
{
    __shared__ float s[Block];
    const unsigned t = threadIdx.x;
    float v = 0.0f;
    for (size_t i = (size_t)blockIdx.x * Block + t; i < n; i += (size_t)gridDim.x * Block) v += in[i];
    s[t] = v;
    __syncthreads();
    v = block_tree_sum<Block>(s, t);
    if (t == 0) out[blockIdx.x] = v;
}

/* Kernel 8: shuffle-based warp reduction.
   __shfl_down_sync moves a register from one lane to another directly: each warp sums its 32
   values in five shuffles without touching shared memory, and only one value per warp goes
   through shared memory (8 values for 256 threads, instead of 256), with one __syncthreads().
   The shuffle's mask names the lanes that take part, so this is correct under independent
   thread scheduling with no extra barrier. */
__device__ __forceinline__ float warp_shuffle_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v; /* the warp's sum in lane 0 */
}

template <unsigned Block> __global__ void k8_warp_shuffle(const float *in, float *out, size_t n)
{
    __shared__ float warp_sums[Block / 32];
    const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    float v = 0.0f;
    for (size_t i = (size_t)blockIdx.x * Block + t; i < n; i += (size_t)gridDim.x * Block) v += in[i];
    v = warp_shuffle_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_shuffle_sum(lane < Block / 32 ? warp_sums[lane] : 0.0f);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

/* Kernel 9: warpred_block_reduce.
   The same structure with the library's block reduction: any block size and shape (partial
   last warps included), any warpred operation, back-to-back calls without a barrier of yours,
   a fixed and reproducible order of float additions. */
template <unsigned Block> __global__ void k9_warpred_block(const float *in, float *out, size_t n)
{
    float v = 0.0f;
    for (size_t i = (size_t)blockIdx.x * Block + threadIdx.x; i < n; i += (size_t)gridDim.x * Block) v += in[i];
    v = warpred_block_reduce<Block>(v, warpred_op_sum());
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* Kernel 10: warpred_grid_reduce, one launch.
   Each block stores its partial and takes a ticket from a counter; the last block to finish
   folds all partials (in a fixed order) and writes the result, then resets the counter. The
   second launch, and the gap between two launches, are gone. */
template <unsigned Block>
__global__ void k10_warpred_grid(const float *in, float *out, size_t n, warpred_grid_scratch scratch)
{
    float v = 0.0f;
    for (size_t i = (size_t)blockIdx.x * Block + threadIdx.x; i < n; i += (size_t)gridDim.x * Block) v += in[i];
    warpred_grid_reduce<Block>(v, warpred_op_sum(), scratch, out);
}

/* The read ceiling: a plain kernel that reads every input byte once with 16-byte loads and
   does next to nothing else. No sum can be faster than this on the same array. The store
   never happens (inputs are non-negative) but the compiler cannot know, so the loads stay. */
__global__ void read_ceiling(const float *in, size_t n, float *sink)
{
    const float4 *in4 = (const float4 *)in; /* cudaMalloc memory is 256-byte aligned */
    const size_t n4 = n / 4;
    float acc = 0.0f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
        const float4 q = in4[i];
        acc += q.x + q.y + q.z + q.w;
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) acc += in[n4 * 4 + threadIdx.x];
    if (acc < 0.0f) *sink = acc;
}

/* ---------------------------------------- host side ---------------------------------------- */

typedef struct workspace {
    float *partials[2];           /* ping-pong buffers for the multi-launch kernels */
    float *result;                /* one float: every variant leaves its sum here */
    warpred_grid_scratch scratch; /* for kernel 10 */
    unsigned wave_blocks;         /* blocks resident on the device at once (kernels 7-10) */
} workspace;

typedef void (*kernel_fn)(const float *, float *, size_t);

/* Kernels 1-6: launch over `count` values, then over the partials, until one value is left. */
static void multi_pass(kernel_fn kernel, unsigned per_block, const float *in, size_t n, const workspace *w)
{
    const float *src = in;
    size_t count = n;
    int flip = 0;
    for (;;) {
        const size_t blocks = (count + per_block - 1) / per_block;
        float *dst = blocks == 1 ? w->result : w->partials[flip];
        kernel<<<(unsigned)blocks, BLOCK>>>(src, dst, count);
        CHECK(cudaGetLastError());
        if (blocks == 1) return;
        src = dst;
        count = blocks;
        flip ^= 1;
    }
}

static unsigned grid_for(size_t n, const workspace *w)
{
    const size_t tiles = (n + BLOCK - 1) / BLOCK;
    return tiles < w->wave_blocks ? (unsigned)tiles : w->wave_blocks;
}

/* Kernels 7-9: one wave of blocks over the array, then one block over the partials. */
static void two_pass(kernel_fn kernel, const float *in, size_t n, const workspace *w)
{
    const unsigned blocks = grid_for(n, w);
    if (blocks == 1) {
        kernel<<<1, BLOCK>>>(in, w->result, n);
        CHECK(cudaGetLastError());
        return;
    }
    kernel<<<blocks, BLOCK>>>(in, w->partials[0], n);
    CHECK(cudaGetLastError());
    kernel<<<1, BLOCK>>>(w->partials[0], w->result, blocks);
    CHECK(cudaGetLastError());
}

static void run1(const float *in, size_t n, const workspace *w)
{
    multi_pass(k1_interleaved_divergent, BLOCK, in, n, w);
}
static void run2(const float *in, size_t n, const workspace *w)
{
    multi_pass(k2_interleaved_contiguous, BLOCK, in, n, w);
}
static void run3(const float *in, size_t n, const workspace *w) { multi_pass(k3_sequential, BLOCK, in, n, w); }
static void run4(const float *in, size_t n, const workspace *w)
{
    multi_pass(k4_first_add_during_load, 2 * BLOCK, in, n, w);
}
static void run5(const float *in, size_t n, const workspace *w)
{
    multi_pass(k5_unrolled_last_warp, 2 * BLOCK, in, n, w);
}
static void run6(const float *in, size_t n, const workspace *w)
{
    multi_pass(k6_complete_unroll<BLOCK>, 2 * BLOCK, in, n, w);
}
static void run7(const float *in, size_t n, const workspace *w) { two_pass(k7_many_per_thread<BLOCK>, in, n, w); }
static void run8(const float *in, size_t n, const workspace *w) { two_pass(k8_warp_shuffle<BLOCK>, in, n, w); }
static void run9(const float *in, size_t n, const workspace *w) { two_pass(k9_warpred_block<BLOCK>, in, n, w); }
static void run10(const float *in, size_t n, const workspace *w)
{
    k10_warpred_grid<BLOCK><<<grid_for(n, w), BLOCK>>>(in, w->result, n, w->scratch);
    CHECK(cudaGetLastError());
}
static void run_ceiling(const float *in, size_t n, const workspace *w)
{
    read_ceiling<<<w->wave_blocks, BLOCK>>>(in, n, w->result);
    CHECK(cudaGetLastError());
}

typedef void (*variant_fn)(const float *, size_t, const workspace *);
typedef struct variant {
    const char *name;
    variant_fn run;
} variant;

static const variant variants[] = {
    {"1 interleaved, divergent branches", run1},
    {"2 interleaved, contiguous threads", run2},
    {"3 sequential addressing", run3},
    {"4 first add during load", run4},
    {"5 unrolled last warp (__syncwarp)", run5},
    {"6 complete unroll (template size)", run6},
    {"7 several elements per thread", run7},
    {"8 warp shuffles", run8},
    {"9 warpred_block_reduce", run9},
    {"10 warpred_grid_reduce, 1 launch", run10},
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

/* Input values are small integers (0..3, mostly 0) stored as floats. Every partial sum any
   kernel forms is the sum of some of them, hence an integer no larger than the total; while the
   total stays below 2^24 every such integer is exactly representable in float, so every
   addition is exact in ANY order and each kernel must return exactly the integer total. Any
   lost, doubled or stray element shows. (Mean 3/32: the total stays near 0.094 n, far below
   2^24 = 16777216 for n up to 2^26; main() checks it.) */
static unsigned hash32(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static void make_input(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned h = hash32((unsigned)i * 2654435761u ^ seed);
        x[i] = (h & 15u) == 0 ? (float)((h >> 4) & 3u) : 0.0f;
    }
}

static long long exact_total(const float *x, size_t n)
{
    long long total = 0;
    for (size_t i = 0; i < n; i++) total += (long long)x[i];
    return total;
}

static float get_result(const workspace *w)
{
    float r;
    CHECK(cudaMemcpy(&r, w->result, sizeof r, cudaMemcpyDeviceToHost));
    return r;
}

/* Poisons the result, runs one variant, returns what it wrote. */
static float run_once(variant_fn run, const float *in, size_t n, const workspace *w)
{
    CHECK(cudaMemset(w->result, 0xff, sizeof(float))); /* NaN: a missing write shows */
    run(in, n, w);
    CHECK(cudaDeviceSynchronize());
    return get_result(w);
}

/* Median time in microseconds of `runs` calls after `warmups` untimed ones (CUDA events). */
static double median_us(variant_fn run, const float *in, size_t n, const workspace *w, int warmups, int runs)
{
    su_timer t = su_timer_create(warmups, runs);
    while (su_timer_next(&t)) run(in, n, w);
    return su_timer_median_us(&t);
}

/* Every variant must return the exact total. Prints one line per failure; returns 1 if all ok. */
static int check_all(const float *d_x, const float *h_x, size_t n, const workspace *w, float *got)
{
    const long long want = exact_total(h_x, n);
    int ok = 1;
    for (int v = 0; v < NVARIANTS; v++) {
        got[v] = run_once(variants[v].run, d_x, n, w);
        if (got[v] != (float)want) {
            printf("  n = %zu: kernel %s returned %.1f, exact total %lld: WRONG\n", n, variants[v].name, got[v], want);
            ok = 0;
        }
    }
    return ok;
}

static int table(const float *d_x, const float *h_x, size_t n, const workspace *w, int warmups, int runs)
{
    float got[NVARIANTS];
    const int ok = check_all(d_x, h_x, n, w, got);
    const float want = (float)exact_total(h_x, n);
    const double bytes = (double)n * sizeof(float);
    const double ceiling_us = median_us(run_ceiling, d_x, n, w, warmups, runs);
    const double ceiling_gbs = bytes / (ceiling_us * 1e3);
    printf("\nn = %zu floats (%.1f MiB); read ceiling %.1f us = %.0f GB/s (plain 16-byte read kernel)\n", n,
           bytes / (1 << 20), ceiling_us, ceiling_gbs);
    printf("%-36s %10s %8s %8s %8s  %s\n", "kernel", "time us", "GB/s", "% ceil", "speedup", "result");
    double first_us = 0;
    for (int v = 0; v < NVARIANTS; v++) {
        const double us = median_us(variants[v].run, d_x, n, w, warmups, runs);
        if (v == 0) first_us = us;
        const double gbs = bytes / (us * 1e3);
        printf("%-36s %10.1f %8.0f %7.1f%% %7.1fx  %s\n", variants[v].name, us, gbs, 100.0 * gbs / ceiling_gbs,
               first_us / us, got[v] == want ? "exact" : "WRONG");
    }
    return ok;
}

int main(void)
{
    const cudaDeviceProp prop = su_require_gpu("reduction_progression");
    const int quick = su_quick();
    const size_t big_sizes[] = {(size_t)1 << 24, (size_t)1 << 26};
    const size_t quick_sizes[] = {(size_t)1 << 16};
    const size_t odd_sizes[] = {1, 31, 257, 1000003};
    const size_t quick_odd_sizes[] = {1, 257, 40009};
    const size_t *sizes = quick ? quick_sizes : big_sizes;
    const int nsizes = quick ? 1 : 2;
    const size_t *odd = quick ? quick_odd_sizes : odd_sizes;
    const int nodd = quick ? 3 : 4;
    const int warmups = su_warmups(quick), runs = su_runs(quick);
    const size_t n_max = sizes[nsizes - 1];

    printf("reduction progression on %s: float sums, %d threads per block, median of %d runs\n", prop.name, BLOCK,
           runs);

    float *h_x = (float *)su_malloc(n_max * sizeof(float));
    make_input(h_x, n_max, 12345u);
    if (exact_total(h_x, n_max) >= (1 << 24)) {
        fprintf(stderr, "input total reaches 2^24: float sums would not be exact, the check would be meaningless\n");
        return 1;
    }

    workspace w;
    w.wave_blocks = su_wave_blocks(&prop, BLOCK);
    const size_t max_partials = (n_max + BLOCK - 1) / BLOCK; /* the most any first pass writes */
    float *d_x;
    const char *why;
    CHECK(cudaMalloc(&d_x, n_max * sizeof(float)));
    CHECK(cudaMalloc(&w.partials[0], max_partials * sizeof(float)));
    CHECK(cudaMalloc(&w.partials[1], max_partials * sizeof(float)));
    CHECK(cudaMalloc(&w.result, sizeof(float)));
    if (warpred_grid_scratch_create(&w.scratch, w.wave_blocks, sizeof(float), &why) != cudaSuccess) {
        fprintf(stderr, "grid scratch: %s\n", why);
        return 1;
    }
    CHECK(cudaMemcpy(d_x, h_x, n_max * sizeof(float), cudaMemcpyHostToDevice));

    /* Awkward sizes first: each kernel on a prefix of the same input. */
    int ok = 1;
    float got[NVARIANTS];
    for (int s = 0; s < nodd; s++) {
        const int this_ok = check_all(d_x, h_x, odd[s], &w, got);
        printf("n = %zu: %s\n", odd[s], this_ok ? "all 10 kernels exact" : "MISMATCH");
        ok &= this_ok;
    }
    for (int s = 0; s < nsizes; s++) ok &= table(d_x, h_x, sizes[s], &w, warmups, runs);

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(w.partials[0]));
    CHECK(cudaFree(w.partials[1]));
    CHECK(cudaFree(w.result));
    CHECK(warpred_grid_scratch_destroy(&w.scratch));
    free(h_x);
    printf("\n%s\n", ok ? "every kernel returned the exact sum at every size" : "ERROR: a kernel returned a wrong sum");
    return ok ? 0 : 1;
}
