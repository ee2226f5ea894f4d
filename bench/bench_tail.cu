/* bench/bench_tail.cu - an experiment on the tail of the device-wide float sum.

   warpred_device_sum spends about 2 us per call above the read ceiling at 2^20..2^22 on an H100:
   the block reduction, the partial's store, the ticket atomic (atom.acq_rel.gpu), the last
   block's fold and the write. This program times, side by side in one run, ways to shorten that
   tail, each written here as its own small kernel (nothing in warpred/ changes):

     (a) the library: warpred_device_sum (the ticket tail of warpred_grid_reduce)
     (a) bare  the library's kernel launched directly with <<< >>> and the library's grid: no
           argument checks, no cudaGetDevice; (a) against it is the library's host path
     (b) the read ceiling: k_read of bench_device.h with the library's grid (loads only)
     (c) cluster pre-fold: clusters of 1 (a control for the launch with a cluster attribute and
           the barriers), 2, 4, 8, 16 blocks (16: non-portable, if the device accepts it); the
           blocks of a cluster store their block totals into the shared memory of the cluster's
           rank 0 (distributed shared memory), which alone stores a partial and takes the ticket
     (d) fewer partials: k_ticket (the library's structure written anew: thread loop as
           device_reduce.cuh, block reduce by warpred_block_reduce<256>, partial + ticket, the
           last block folds) with N / (256 * L * 4) blocks for L = 4 (the library's grid: the
           library's design in this file's own code), 8, 16 (each thread makes L 16-byte
           loads), with 4 loads in flight (the library's loop) and with 8
     (e) epoch-tagged partials, no ticket: every block stores {float bits, launch tag} as one
           8-byte word; block 0, after its own work, polls them until each carries this launch's
           tag, folds and writes; the tag is a device counter that block 0 advances at the end

   (e) was tried in the library twice (warpred_device_reduce's tail on tagged partials, the
   last block polling; 17547e8 .. b452e56, and again on branch study-tagged-tail) and taken out
   both times: on an H100 the tagged library was within the noise of the ticket library, and
   on an H200 its ratio to (e) was the ticket library's. Against (d) L=4, this file's own
   ticket kernel with the library's grid, (e) gains little; (a) against (d) L=4 is the cost of
   the library kernel's own body. (e) stays here as the experiment's row.

   Each variant's result is checked against (a) on the start of the buffer before the timing and
   again after it (a mismatch prints MISMATCH and the program exits 1); (a) is checked against
   the exact sum. Timing as bench_reduce: CUDA events around each call, 5 warm-ups, median of
   201 calls, every variant taking turns call by call, inputs rotated through an 8 GiB buffer so
   that L2 holds nothing of a call's input; the whole measurement three times, the tables give
   the median of the three medians. The time between the events includes the host's launch
   work (the GPU idles until the launch arrives): (a) pays its argument checks there and
   "(a) bare" and the bench's own kernels do not, the cluster rows pay cudaLaunchKernelEx
   (cluster 1 measures that, with its barriers, against "(a) bare"). After the tables, the host time
   per call (no GPU time: launches queued without waiting) of warpred_device_sum, of a bare
   launch of its kernel and of cudaGetDevice alone.

   Usage: bench_tail [csv path]   (run by `make bench`)
          bench_tail --profile E   (a few calls of each variant at N = 2^E, for ncu) */
#include <math.h>
#include <time.h>
#include <cooperative_groups.h>
#include <warpred/device_reduce.cuh>
#include "bench_util.h"
#include "bench_device.h"

namespace cg = cooperative_groups;

enum {
    THREADS = WARPRED_DEVICE_THREADS, /* 256, as the library */
    MAX_PARTIALS = 4096,              /* the scratch: more than any grid here */
    BY_WARP_MAX = 8 * 32,             /* up to this many partials warp 0 folds alone, 8 per lane */
    IN_FLIGHT = 8,                    /* partials loaded together per folding thread */
    POLL_IN_FLIGHT = 4,               /* the same for (e)'s tagged 8-byte words */
    E_FIRST = 14,
    E_LAST = 24, /* N = 2^14, 2^16, ..., 2^24 */
    REPS = 201,
    WARMUP = 5
};

/* ------------------------------------------------------------------------------------------
   device side
   ------------------------------------------------------------------------------------------ */

/* The library's thread loop for float input that is 16-byte aligned and a multiple of 4 long
   (every input here): a grid-stride loop with U 16-byte loads in flight, the four floats of a
   load paired as (x + y) + (z + w) before they meet the accumulator, which starts at -0 (the
   identity of a float sum), as in device_reduce.cuh. */
template <int U> __device__ __forceinline__ float thread_sum(const float4 *__restrict__ in, size_t nv)
{
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t G = (size_t)gridDim.x * blockDim.x;
    float acc = -0.0f;
    size_t i = g;
    for (; i + (U - 1) * G < nv; i += U * G) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = __ldg(&in[i + u * G]); /* all loads first */
#pragma unroll
        for (int u = 0; u < U; u++) acc += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < nv; i += G) {
        const float4 v = __ldg(&in[i]);
        acc += (v.x + v.y) + (v.z + v.w);
    }
    return acc;
}

__device__ __forceinline__ float block_sum(float v) { return warpred_block_reduce<THREADS>(v, warpred_op_sum()); }

/* An atomic add that releases this thread's earlier stores (its partial) and acquires those
   released with every earlier ticket: the last ticket sees every partial. */
__device__ __forceinline__ unsigned take_ticket(unsigned *counter)
{
    unsigned ticket;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(ticket) : "l"(counter) : "memory");
    return ticket;
}

/* Thread `first` of Stride sums partials first, first + Stride, ... below count in that order,
   IN_FLIGHT loads per trip to L2 (read with ld.global.cg: written by other blocks). Stride is
   a compile-time constant so that the loads address one pointer plus immediate offsets. */
template <unsigned Stride>
__device__ __forceinline__ float fold_partials(const float *partials, unsigned count, unsigned first)
{
    float acc = -0.0f;
    for (unsigned base = first; base < count; base += IN_FLIGHT * Stride) {
        float x[IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < IN_FLIGHT; k++) {
            const unsigned b = base + k * Stride;
            x[k] = b < count ? __ldcg(&partials[b]) : -0.0f;
        }
#pragma unroll
        for (int k = 0; k < IN_FLIGHT; k++) acc += x[k];
    }
    return acc;
}

/* The ticket tail (the pattern of warpred_grid_reduce, written anew): thread 0 stores v (the
   block's or the cluster's total, valid in thread 0) as partial `slot` of `count` and takes a
   ticket; the block that draws the last one folds every partial and writes *out, then resets the
   counter for the next launch. Up to BY_WARP_MAX partials warp 0 folds them alone and the other
   warps leave at once; more, the whole block folds. Every thread of the block calls. */
__device__ __forceinline__ void ticket_tail(float v, unsigned slot, unsigned count, float *partials, unsigned *counter,
                                            float *out)
{
    __shared__ unsigned last_flag;
    const unsigned tid = threadIdx.x;
    if (count == 1) { /* a single partial is the result: no store, no ticket */
        if (tid == 0) *out = v;
        return;
    }
    const bool by_warp = count <= BY_WARP_MAX;
    if (by_warp && tid >= 32) return;
    unsigned is_last = 0;
    if (tid == 0) {
        partials[slot] = v;
        is_last = take_ticket(counter) == count - 1;
    }
    /* a barrier passes thread 0's acquire on to the threads that fold */
    if (by_warp) {
        __syncwarp();
        is_last = __shfl_sync(0xffffffffu, is_last, 0);
    } else {
        if (tid == 0) last_flag = is_last;
        __syncthreads();
        is_last = last_flag;
    }
    if (!is_last) return;
    const float acc = by_warp ? warpred_warp_reduce(fold_partials<32>(partials, count, tid), warpred_op_sum())
                              : block_sum(fold_partials<THREADS>(partials, count, tid));
    if (tid == 0) {
        *out = acc;
        *counter = 0;
    }
}

/* (d): the library's structure; the grid decides how many partials there are. */
template <int U>
__global__ void __launch_bounds__(THREADS)
    k_ticket(const float4 *__restrict__ in, size_t nv, float *partials, unsigned *counter, float *out)
{
    const float v = block_sum(thread_sum<U>(in, nv));
    ticket_tail(v, blockIdx.x, gridDim.x, partials, counter, out);
}

/* (c): launched with clusters of C blocks along x (gridDim.x a multiple of C), sm_90 and newer.
   Each block's thread 0 stores its block total into slot `rank` of rank 0's shared memory;
   rank 0 adds them in rank order and goes on alone, as one block of the ticket tail.
   Barriers: phase 1 (arrive at the start, wait before the remote store) makes sure rank 0 is
   running, as distributed shared memory requires before it is touched; phase 2 (cluster.sync:
   arrive with release, wait with acquire) makes the remote stores visible to rank 0 and keeps
   rank 0 alive until they have all landed (nothing else touches another block's shared memory,
   so the other ranks may leave right after it). Every thread takes part in both phases. */
template <int C>
__global__ void __launch_bounds__(THREADS)
    k_cluster(const float4 *__restrict__ in, size_t nv, float *partials, unsigned *counter, float *out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ float block_totals[C];
    cg::cluster_group cluster = cg::this_cluster();
    __cluster_barrier_arrive_relaxed(); /* phase 1: this block is running */
    float v = block_sum(thread_sum<4>(in, nv));
    const unsigned rank = cluster.block_rank();
    cluster.barrier_wait(); /* phase 1 done: every block of the cluster is running */
    if (threadIdx.x == 0 && rank != 0) cluster.map_shared_rank(&block_totals[0], 0)[rank] = v;
    cluster.sync(); /* phase 2 */
    if (rank != 0) return;
    if (threadIdx.x == 0)
        for (int r = 1; r < C; r++) v += block_totals[r];
    ticket_tail(v, blockIdx.x / C, gridDim.x / C, partials, counter, out);
#else
    /* no clusters before sm_90: the host never launches this (it checks the binary's arch) */
    (void)in, (void)nv, (void)partials, (void)counter, (void)out;
#endif
}

/* (e): a partial and its launch tag in one 8-byte word. The value travels inside the same
   single-copy-atomic store as its tag, so relaxed ordering is enough: a poller that sees the
   tag sees the value, and no other data needs publishing (st.release would add a fence per
   block). gpu scope: the stores and loads are strong, so they go to L2, never a stale L1. */
__device__ __forceinline__ unsigned long long tagged(float v, unsigned tag)
{
    return (unsigned long long)tag << 32 | __float_as_uint(v);
}
__device__ __forceinline__ unsigned tag_of(unsigned long long w) { return (unsigned)(w >> 32); }
__device__ __forceinline__ float value_of(unsigned long long w) { return __uint_as_float((unsigned)w); }

__device__ __forceinline__ void store_relaxed(unsigned long long *p, unsigned long long w)
{
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
}
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long *p)
{
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    return w;
}

/* Block 0's fold: thread `first` of Stride sums words first, first + Stride, ... below
   count, waiting for each to carry `tag`; word 0 is block 0's own total, `own` (in thread 0).
   POLL_IN_FLIGHT words at a time: each round loads again every word that still lacks the tag,
   all of them in flight together, so the last word to land costs one more round trip, not one
   per word behind it. Four, not eight as in the ticket fold: eight 8-byte words in flight take
   k_epoch past 32 registers, and a wave from 8 to 6 blocks per SM. Blocks finish roughly in the
   order of their index, so a warp's first trip (partials lane, lane + 32, .., lane + 96) is
   complete long before its second, which waits for the last blocks. */
template <unsigned Stride>
__device__ __forceinline__ float poll_fold(const unsigned long long *words, unsigned count, unsigned first,
                                           unsigned tag, float own)
{
    float acc = -0.0f;
    for (unsigned base = first; base < count; base += POLL_IN_FLIGHT * Stride) {
        unsigned long long w[POLL_IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < POLL_IN_FLIGHT; k++) {
            const unsigned b = base + k * Stride;
            /* a real partial starts untagged (tag - 1 never equals tag), so the first round loads it */
            w[k] = b == 0 ? tagged(own, tag) : b < count ? tagged(0.0f, tag - 1u) : tagged(-0.0f, tag);
        }
        bool pending = true;
        while (pending) {
#pragma unroll
            for (int k = 0; k < POLL_IN_FLIGHT; k++)
                if (tag_of(w[k]) != tag) w[k] = load_relaxed(&words[base + k * Stride]);
            pending = false;
#pragma unroll
            for (int k = 0; k < POLL_IN_FLIGHT; k++) pending |= tag_of(w[k]) != tag;
        }
#pragma unroll
        for (int k = 0; k < POLL_IN_FLIGHT; k++) acc += value_of(w[k]);
    }
    return acc;
}

/* (e): *epoch holds the tag of the last completed launch (0 at the start, as are the words), so
   this launch's tag, read by every block before it stores, is *epoch + 1; block 0 publishes it
   only after it has seen every block's word, that is after every block has read *epoch. No
   memset between calls. A word left from a launch 2^32 launches ago would pass for current:
   far beyond any run of this program.
   No deadlock: only block 0 ever waits, and every other block finishes without waiting, so
   the blocks block 0 waits for always get onto the GPU once earlier ones leave, resident or
   not. On top of that the grid here is at most one wave (all blocks resident at once). */
__global__ void __launch_bounds__(THREADS)
    k_epoch(const float4 *__restrict__ in, size_t nv, unsigned long long *words, unsigned *epoch, float *out)
{
    const unsigned tag = __ldcg(epoch) + 1u;
    const float v = block_sum(thread_sum<4>(in, nv));
    const unsigned tid = threadIdx.x, count = gridDim.x;
    if (blockIdx.x != 0) {
        if (tid == 0) store_relaxed(&words[blockIdx.x], tagged(v, tag));
        return;
    }
    if (count == 1) {
        if (tid == 0) *out = v;
        return;
    }
    const bool by_warp = count <= BY_WARP_MAX;
    if (by_warp && tid >= 32) return;
    const float acc = by_warp ? warpred_warp_reduce(poll_fold<32>(words, count, tid, tag, v), warpred_op_sum())
                              : block_sum(poll_fold<THREADS>(words, count, tid, tag, v));
    if (tid == 0) {
        *out = acc;
        *epoch = tag;
    }
}

/* ------------------------------------------------------------------------------------------
   host side
   ------------------------------------------------------------------------------------------ */

/* The kernel warpred_device_sum launches for floats (an internal name of device_reduce.cuh). */
static void (*const lib_kernel)(const float *, size_t, warpred_grid_scratch, float *, warpred_op_sum,
                                warpred_xf_identity) =
    warpred__device_reduce_kernel<float, float, warpred_op_sum, warpred_xf_identity>;

enum kind { K_LIBRARY, K_CEILING, K_CLUSTER, K_FEWER, K_EPOCH, K_LIB_BARE };

typedef struct {
    const char *name;
    enum kind kind;
    int param;     /* K_CLUSTER: blocks per cluster; K_FEWER: L, the 16-byte loads per thread */
    int in_flight; /* K_FEWER: loads in flight per thread (4 or 8) */
} variant_desc;

static const variant_desc VARIANTS_DESC[] = {
    {"(a) warpred_device_sum", K_LIBRARY, 0, 4},
    {"(b) read ceiling", K_CEILING, 0, 4},
    {"(c) cluster 1 (control)", K_CLUSTER, 1, 4},
    {"(c) cluster 2", K_CLUSTER, 2, 4},
    {"(c) cluster 4", K_CLUSTER, 4, 4},
    {"(c) cluster 8", K_CLUSTER, 8, 4},
    {"(c) cluster 16", K_CLUSTER, 16, 4},
    {"(d) L=4: ticket, library grid", K_FEWER, 4, 4},
    {"(d) L=8 (4 in flight)", K_FEWER, 8, 4},
    {"(d) L=16 (4 in flight)", K_FEWER, 16, 4},
    {"(d) L=8 (8 in flight)", K_FEWER, 8, 8},
    {"(d) L=16 (8 in flight)", K_FEWER, 16, 8},
    {"(e) epoch tags (block 0 polls)", K_EPOCH, 0, 4},
    {"(a) bare (kernel, no host path)", K_LIB_BARE, 0, 4},
};
enum { NV = sizeof VARIANTS_DESC / sizeof VARIANTS_DESC[0], V_LIBRARY = 0, V_CEILING = 1 };

/* What the device offers, asked once. */
typedef struct {
    warpred_device_plan plan;
    unsigned resident_ticket4, resident_ticket8, resident_epoch; /* blocks of one wave */
    int max_clusters[17];                                        /* by cluster size; 0: not available */
    const char *no_clusters;                                     /* why the cluster rows are skipped, or NULL */
} device_info;

typedef struct {
    int variant;
    size_t n;
    char *buf;
    float *out, *partials;
    unsigned *counter, *epoch;
    unsigned long long *words;
    const device_info *dev;
    unsigned blocks; /* this variant's grid at n */
} tail_ctx;

/* A launch of `blocks` blocks in clusters of `size` along x, on the default stream. */
static cudaLaunchConfig_t cluster_config(unsigned blocks, int size, cudaLaunchAttribute *attr)
{
    *attr = cudaLaunchAttribute();
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)size;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = cudaLaunchConfig_t();
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(THREADS);
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

template <int C> static cudaError_t launch_cluster_kernel(const tail_ctx *c, const float4 *x)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = cluster_config(c->blocks, C, &attr);
    return cudaLaunchKernelEx(&cfg, k_cluster<C>, x, c->n / 4, c->partials, c->counter, c->out);
}

static cudaError_t launch_cluster(int size, const tail_ctx *c, const float4 *x)
{
    switch (size) {
    case 1: return launch_cluster_kernel<1>(c, x);
    case 2: return launch_cluster_kernel<2>(c, x);
    case 4: return launch_cluster_kernel<4>(c, x);
    case 8: return launch_cluster_kernel<8>(c, x);
    default: return launch_cluster_kernel<16>(c, x);
    }
}

/* How many clusters of C blocks of k_cluster<C> fit on the device at once (0: the size is not
   accepted). */
template <int C> static int max_active_clusters(void)
{
    if (C > 8 && cudaFuncSetAttribute(k_cluster<C>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = cluster_config(C * 64, C, &attr);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, k_cluster<C>, &cfg) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return clusters;
}

template <typename Kernel> static unsigned resident_blocks(Kernel kernel, int sms)
{
    int per_sm = 0;
    BCHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, 0));
    return (unsigned)(per_sm > 0 ? per_sm : 1) * (unsigned)sms;
}

static void device_info_init(device_info *d)
{
    const char *why;
    memset(d, 0, sizeof *d);
    if (warpred_device_plan_create(&d->plan, 0, &why) != cudaSuccess) {
        fprintf(stderr, "warpred_device_plan_create: %s\n", why);
        exit(1);
    }
    int device, sms, major;
    BCHECK(cudaGetDevice(&device));
    BCHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    BCHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    d->resident_ticket4 = resident_blocks(k_ticket<4>, sms);
    d->resident_ticket8 = resident_blocks(k_ticket<8>, sms);
    d->resident_epoch = resident_blocks(k_epoch, sms);
    cudaFuncAttributes attrs;
    BCHECK(cudaFuncGetAttributes(&attrs, k_cluster<2>));
    if (major < 9) d->no_clusters = "the device has no thread-block clusters (compute capability below 9.0)";
    else if (attrs.binaryVersion < 90)
        d->no_clusters = "this program was built without sm_90 code (build with ARCHS containing 90)";
    if (d->no_clusters) return;
    d->max_clusters[1] = max_active_clusters<1>();
    d->max_clusters[2] = max_active_clusters<2>();
    d->max_clusters[4] = max_active_clusters<4>();
    d->max_clusters[8] = max_active_clusters<8>();
    d->max_clusters[16] = max_active_clusters<16>();
}

static bool variant_available(const device_info *d, int v)
{
    const variant_desc *s = &VARIANTS_DESC[v];
    return s->kind != K_CLUSTER || (!d->no_clusters && d->max_clusters[s->param] > 0);
}

static unsigned at_most(size_t blocks, unsigned limit)
{
    return blocks < 1 ? 1 : blocks < limit ? (unsigned)blocks : limit;
}

/* Variant v's grid for n floats: the library's, rounded up to whole clusters, or N / (256 * L * 4);
   never more than one wave of the kernel (beyond that the threads loop, as in the library). */
static unsigned variant_blocks(const device_info *d, int v, size_t n)
{
    const variant_desc *s = &VARIANTS_DESC[v];
    const unsigned lib = warpred_device_blocks(&d->plan, n, sizeof(float));
    switch (s->kind) {
    case K_CLUSTER: {
        const size_t c = (size_t)s->param, clusters = (lib + c - 1) / c;
        return (unsigned)c * at_most(clusters, (unsigned)d->max_clusters[s->param]);
    }
    case K_FEWER:
        return at_most(n / ((size_t)THREADS * s->param * 4),
                       s->in_flight == 8 ? d->resident_ticket8 : d->resident_ticket4);
    case K_EPOCH: return at_most(lib, d->resident_epoch);
    default: return lib; /* the library's own grid (its kernel caps it the same way) */
    }
}

/* How many partials the last step reads: one per block, per cluster for (c); none for one block. */
static unsigned variant_partials(int v, unsigned blocks)
{
    const variant_desc *s = &VARIANTS_DESC[v];
    if (s->kind == K_CEILING) return 0;
    const unsigned p = s->kind == K_CLUSTER ? blocks / (unsigned)s->param : blocks;
    return p > 1 ? p : 0;
}

static void tail_once(void *p)
{
    const tail_ctx *c = (const tail_ctx *)p;
    const float4 *x = (const float4 *)bench_rotated_input(c->buf, c->n * sizeof(float));
    const size_t nv = c->n / 4;
    const variant_desc *s = &VARIANTS_DESC[c->variant];
    switch (s->kind) {
    case K_LIBRARY: BCHECK(warpred_device_sum(&c->dev->plan, (const float *)x, c->n, c->out)); break;
    case K_CEILING: k_read<<<c->blocks, THREADS>>>(x, nv, c->out); break;
    case K_CLUSTER: BCHECK(launch_cluster(s->param, c, x)); break;
    case K_EPOCH: k_epoch<<<c->blocks, THREADS>>>(x, nv, c->words, c->epoch, c->out); break;
    case K_LIB_BARE:
        lib_kernel<<<c->blocks, THREADS>>>((const float *)x, c->n, c->dev->plan.scratch, c->out, warpred_op_sum(),
                                           warpred_xf_identity());
        break;
    default:
        if (s->in_flight == 8) k_ticket<8><<<c->blocks, THREADS>>>(x, nv, c->partials, c->counter, c->out);
        else
            k_ticket<4><<<c->blocks, THREADS>>>(x, nv, c->partials, c->counter, c->out);
    }
}

/* Variant v once on the buffer's first n floats (the rotation's slot 0), result to the host;
   the output is poisoned first (NaN), the rotation resumes where it was. */
static float result_of(tail_ctx *c, int v, size_t n)
{
    tail_ctx one = *c;
    one.variant = v;
    one.n = n;
    one.blocks = variant_blocks(c->dev, v, n);
    const size_t saved = g_calls;
    g_calls = 0;
    BCHECK(cudaMemset(one.out, 0xff, sizeof(float)));
    tail_once(&one);
    BCHECK(cudaGetLastError());
    float r;
    BCHECK(cudaMemcpy(&r, one.out, sizeof r, cudaMemcpyDeviceToHost));
    g_calls = saved;
    return r;
}

static const double TOLERANCE = 1e-5; /* relative: sums in other orders differ by far less */

static double rel_diff(double x, double want) { return fabs(x - want) / fabs(want); }

/* Every variant against (a), and (a) against the exact sum, at n; "equal" (same bits) or the
   relative difference into check[v]. Returns the number of mismatches (printed loudly). */
static int verify(tail_ctx *c, size_t n, double exact, const char *when, char check[NV][32])
{
    int bad = 0;
    const float lib = result_of(c, V_LIBRARY, n);
    if (!(rel_diff(lib, exact) <= TOLERANCE)) {
        printf("MISMATCH (%s): %s at N = %zu gave %.9g, the exact sum is %.9g\n", when, VARIANTS_DESC[V_LIBRARY].name,
               n, lib, exact);
        bad++;
    }
    snprintf(check[V_LIBRARY], 32, "rel. %.1e to exact", rel_diff(lib, exact));
    snprintf(check[V_CEILING], 32, "-");
    for (int v = 0; v < NV; v++) {
        if (v == V_LIBRARY || v == V_CEILING) continue;
        if (!variant_available(c->dev, v)) {
            snprintf(check[v], 32, "skipped");
            continue;
        }
        const float r = result_of(c, v, n);
        if (memcmp(&r, &lib, sizeof r) == 0) {
            snprintf(check[v], 32, "equal");
        } else if (rel_diff(r, lib) <= TOLERANCE) {
            snprintf(check[v], 32, "rel. %.1e", rel_diff(r, lib));
        } else {
            printf("MISMATCH (%s): %s at N = %zu gave %.9g, (a) gave %.9g\n", when, VARIANTS_DESC[v].name, n, r, lib);
            snprintf(check[v], 32, "MISMATCH");
            bad++;
        }
    }
    return bad;
}

/* us[e][run][v] for one run of every size: the available variants taking turns call by call. */
static void time_run(tail_ctx *base, int e, float *us)
{
    tail_ctx ctx[NV];
    void *ctxs[NV];
    bench_fn fns[NV];
    int index[NV], count = 0;
    const size_t n = (size_t)1 << e;
    for (int v = 0; v < NV; v++) {
        us[v] = 0;
        if (!variant_available(base->dev, v)) continue;
        ctx[count] = *base;
        ctx[count].variant = v;
        ctx[count].n = n;
        ctx[count].blocks = variant_blocks(base->dev, v, n);
        ctxs[count] = &ctx[count];
        fns[count] = tail_once;
        index[count++] = v;
    }
    float ms[NV];
    bench_interleaved_median_ms(fns, ctxs, count, WARMUP, REPS, ms);
    for (int i = 0; i < count; i++) us[index[i]] = ms[i] * 1000.0f;
}

/* Device memory every variant shares: the input buffer, the output, the partials (floats for
   the ticket kernels, tagged words for (e)), the ticket counter and the epoch (zero once). */
static void ctx_init(tail_ctx *c, const device_info *dev)
{
    memset(c, 0, sizeof *c);
    c->dev = dev;
    BCHECK(cudaMalloc(&c->buf, BUF_BYTES));
    BCHECK(cudaMalloc(&c->out, sizeof(float)));
    BCHECK(cudaMalloc(&c->partials, MAX_PARTIALS * sizeof(float)));
    BCHECK(cudaMalloc(&c->words, MAX_PARTIALS * sizeof(unsigned long long)));
    BCHECK(cudaMalloc(&c->counter, 2 * sizeof(unsigned)));
    c->epoch = c->counter + 1;
    BCHECK(cudaMemset(c->words, 0, MAX_PARTIALS * sizeof(unsigned long long)));
    BCHECK(cudaMemset(c->counter, 0, 2 * sizeof(unsigned)));
    k_fill<<<4096, 256>>>((float *)c->buf, BUF_BYTES / 4);
    BCHECK(cudaGetLastError());
    BCHECK(cudaDeviceSynchronize());
    for (int v = 0; v < NV; v++)
        for (int e = E_FIRST; e <= E_LAST; e += 2)
            if (variant_blocks(dev, v, (size_t)1 << e) > MAX_PARTIALS) {
                fprintf(stderr, "bench_tail: %s needs more than %d partials\n", VARIANTS_DESC[v].name,
                        (int)MAX_PARTIALS);
                exit(1);
            }
}

static void ctx_free(tail_ctx *c)
{
    BCHECK(cudaFree(c->buf));
    BCHECK(cudaFree(c->out));
    BCHECK(cudaFree(c->partials));
    BCHECK(cudaFree(c->words));
    BCHECK(cudaFree(c->counter));
}

static double host_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

enum { HOST_BATCH = 256, HOST_BATCHES = 21 };
enum host_what { H_LIBRARY, H_BARE, H_GET_DEVICE, H_WHATS };
static const char *const host_what_name[] = {"warpred_device_sum", "bare launch of its kernel", "cudaGetDevice alone"};

/* Host microseconds per call, median over batches of HOST_BATCH calls queued without waiting
   (the queue holds them all; the GPU's work is waited for between batches, untimed), N = 2^20. */
static double host_us_per_call(tail_ctx *c, enum host_what what)
{
    double per[HOST_BATCHES];
    const size_t n = (size_t)1 << 20;
    const unsigned blocks = warpred_device_blocks(&c->dev->plan, n, sizeof(float));
    const float *x = (const float *)c->buf;
    int device = 0;
    for (int b = 0; b < HOST_BATCHES; b++) {
        BCHECK(cudaDeviceSynchronize());
        const double t0 = host_now_us();
        for (int i = 0; i < HOST_BATCH; i++) {
            switch (what) {
            case H_LIBRARY: BCHECK(warpred_device_sum(&c->dev->plan, x, n, c->out)); break;
            case H_BARE:
                lib_kernel<<<blocks, THREADS>>>(x, n, c->dev->plan.scratch, c->out, warpred_op_sum(),
                                                warpred_xf_identity());
                break;
            default: BCHECK(cudaGetDevice(&device));
            }
        }
        per[b] = (host_now_us() - t0) / HOST_BATCH;
    }
    BCHECK(cudaGetLastError());
    BCHECK(cudaDeviceSynchronize());
    qsort(per, HOST_BATCHES, sizeof per[0], cmp_double);
    return per[HOST_BATCHES / 2];
}

static void print_host_cost(tail_ctx *c, FILE *csv)
{
    double us[H_WHATS];
    for (int w = 0; w < H_WHATS; w++) us[w] = host_us_per_call(c, (enum host_what)w);
    printf("\nhost time per call (us; median of %d batches of %d calls queued without waiting, N = 2^20): "
           "%s %.3f, %s %.3f (the library's host path: %+.3f), %s %.3f\n",
           HOST_BATCHES, HOST_BATCH, host_what_name[0], us[0], host_what_name[1], us[1], us[0] - us[1],
           host_what_name[2], us[2]);
    for (int w = 0; w < H_WHATS; w++)
        fprintf(csv, "tail_host,\"float sum\",\"%s\",%zu,%.4f,,us host\n", host_what_name[w], (size_t)1 << 20, us[w]);
}

static void print_device(const device_info *dev)
{
    cudaDeviceProp prop;
    BCHECK(cudaGetDeviceProperties(&prop, dev->plan.device));
    printf("tail of the device-wide float sum on %s (%d SMs): one wave = %u blocks of the library's kernel, %u of "
           "k_ticket<4>, %u of k_ticket<8>, %u of k_epoch\n",
           prop.name, prop.multiProcessorCount, dev->plan.max_blocks, dev->resident_ticket4, dev->resident_ticket8,
           dev->resident_epoch);
    if (dev->no_clusters) {
        printf("(c) cluster rows skipped: %s\n", dev->no_clusters);
    } else {
        printf("clusters resident at once:");
        for (int s = 1; s <= 16; s *= 2)
            printf(" %d of %d%s", dev->max_clusters[s], s, dev->max_clusters[s] ? "" : " (not accepted: row skipped)");
        printf("\n");
    }
    printf("\n");
}

static int run_bench(const char *csv_path)
{
    static device_info dev;
    device_info_init(&dev);
    FILE *csv = bench_csv_open(csv_path);
    tail_ctx c;
    ctx_init(&c, &dev);
    print_device(&dev);

    double exact[E_LAST + 1];
    {
        long long k = 0;
        for (size_t i = 0; i < ((size_t)1 << E_LAST); i++) {
            k += bench_k(i);
            const size_t m = i + 1;
            if (m >= ((size_t)1 << E_FIRST) && (m & (m - 1)) == 0) exact[__builtin_ctzll(m)] = ldexp((double)k, -20);
        }
    }

    int bad = 0;
    static char check[E_LAST + 1][NV][32];
    for (int e = E_FIRST; e <= E_LAST; e += 2) bad += verify(&c, (size_t)1 << e, exact[e], "before timing", check[e]);

    static float us[E_LAST + 1][RUNS][NV];
    for (int run = 0; run < RUNS; run++)
        for (int e = E_FIRST; e <= E_LAST; e += 2) {
            time_run(&c, e, us[e][run]);
            for (int v = 0; v < NV; v++)
                if (variant_available(&dev, v))
                    fprintf(csv, "tail,\"float sum\",\"%s\",%zu,%.3f,%.2f,GB/s\n", VARIANTS_DESC[v].name,
                            (size_t)1 << e, us[e][run][v], 4.0 * (double)((size_t)1 << e) / (us[e][run][v] * 1e3));
        }

    /* after hundreds of launches of every kind in turn: the tickets and epochs still agree */
    for (int e = E_FIRST; e <= E_LAST; e += 2) {
        char again[NV][32];
        bad += verify(&c, (size_t)1 << e, exact[e], "after timing", again);
    }

    printf("tail experiment, float sum: median us per call (CUDA events around each call; median of %d runs of %d "
           "calls);\n"
           "vs (a) = t_(a) / t (above 1: faster than the library); %% ceil = t_(b) / t; partials = values the last "
           "step reads\n\n",
           RUNS, REPS);
    printf("| N     | variant                        | blocks | partials |    us | vs (a) | %% ceil | result vs (a)    "
           "     |\n");
    printf("|-------|--------------------------------|-------:|---------:|------:|-------:|-------:|-------------------"
           "----|\n");
    static double med[E_LAST + 1][NV];
    for (int e = E_FIRST; e <= E_LAST; e += 2) {
        const size_t n = (size_t)1 << e;
        for (int v = 0; v < NV; v++) med[e][v] = median3(us[e][0][v], us[e][1][v], us[e][2][v]);
        for (int v = 0; v < NV; v++) {
            const unsigned blocks = variant_blocks(&dev, v, n);
            if (!variant_available(&dev, v)) {
                printf("| 2^%-3d | %-30s | %6s | %8s | %5s | %6s | %6s | %-21s |\n", e, VARIANTS_DESC[v].name, "-", "-",
                       "-", "-", "-", "skipped");
                continue;
            }
            const double ratio = med[e][V_LIBRARY] / med[e][v];
            printf("| 2^%-3d | %-30s | %6u | %8u | %5.2f | %6.3f | %5.1f%% | %-21s |\n", e, VARIANTS_DESC[v].name,
                   blocks, variant_partials(v, blocks), med[e][v], ratio, 100.0 * med[e][V_CEILING] / med[e][v],
                   check[e][v]);
            fprintf(csv, "tail_ratio,\"float sum\",\"%s: t_(a)/t median of %d\",%zu,%.3f,%.4f,ratio\n",
                    VARIANTS_DESC[v].name, RUNS, n, med[e][v], ratio);
            fprintf(csv, "tail_grid,\"float sum\",\"%s\",%zu,,%u,blocks\n", VARIANTS_DESC[v].name, n, blocks);
        }
    }

    printf("\nthe same, us per call (vs (a)):\n\n| variant                        |");
    for (int e = E_FIRST; e <= E_LAST; e += 2) printf("     2^%-2d       |", e);
    printf("\n|--------------------------------|");
    for (int e = E_FIRST; e <= E_LAST; e += 2) printf("---------------:|");
    printf("\n");
    for (int v = 0; v < NV; v++) {
        printf("| %-30s |", VARIANTS_DESC[v].name);
        for (int e = E_FIRST; e <= E_LAST; e += 2) {
            if (variant_available(&dev, v)) printf(" %6.2f (%5.3f) |", med[e][v], med[e][V_LIBRARY] / med[e][v]);
            else
                printf(" %14s |", "skipped");
        }
        printf("\n");
    }
    printf("\n(for comparison: CUB 3.0.1's DeviceReduce::Sum measured ~13.6 us at 2^20 on an H100)\n");
    print_host_cost(&c, csv);
    if (bad) printf("\nbench_tail: %d MISMATCH(ES) above: a variant computed a wrong sum\n", bad);
    else
        printf(
            "\nresults: every variant agrees with (a) within %.0e relative at every N, before and after the timing\n",
            TOLERANCE);

    fclose(csv);
    ctx_free(&c);
    BCHECK(warpred_device_plan_destroy(&dev.plan));
    return bad ? 1 : 0;
}

/* --profile E: a few calls of each variant at N = 2^E and nothing else, for ncu. */
static int profile(int e)
{
    static device_info dev;
    device_info_init(&dev);
    tail_ctx c;
    ctx_init(&c, &dev);
    c.n = (size_t)1 << e;
    for (int r = 0; r < 3; r++)
        for (int v = 0; v < NV; v++)
            if (variant_available(&dev, v)) {
                c.variant = v;
                c.blocks = variant_blocks(&dev, v, c.n);
                tail_once(&c);
            }
    BCHECK(cudaGetLastError());
    BCHECK(cudaDeviceSynchronize());
    printf("profiled N = 2^%d\n", e);
    ctx_free(&c);
    BCHECK(warpred_device_plan_destroy(&dev.plan));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--profile") == 0) return profile(atoi(argv[2]));
    return run_bench(argc > 1 ? argv[1] : "bench_tail.csv");
}
