/* samples/common/row_kernels.cuh - forward row-wise kernels built on warpred/row_reduce.cuh: softmax,
   LayerNorm, RMSNorm and cross-entropy, float or bfloat16 in and out, float arithmetic inside, and
   the host functions that pick a kernel from the row length. Shared by samples/softmax,
   samples/layernorm, samples/cross_entropy, bench/bench_rows.cu and bench/rows_vs_torch.py (which
   loads it into PyTorch). Not part of the library: names start with rk_.

   WHERE A ROW LIVES (len = row length). Rows are held packed, as loaded (16-byte vectors, unpacked
   to float where a value is used), with warpred_row_policy's packed layouts: a bfloat16 row takes
   the place of a float row of the same bytes, with twice the values a thread.
       float len <= 32 .. 256       a segment of 4, 8, 16 or 32 lanes (8 values each), 8..64 rows a block
             len <= 512, 1024       a warp, 16 or 32 values a lane, 8 rows a block
             len <= 2048 .. 16384   a block of 128, 256, 512, 512 threads, 16 or 32 values a thread
             len <= 262144          a cluster of ceil(len / 16384) blocks of 512 threads x 32 values
                                    (softmax: ceil(len / 32768) blocks of 1024, rk_cluster_layout)
       bfloat16 len <= 32 .. 512    a segment of 2, 4, 8, 16 or 32 lanes (16 values each)
             len <= 1024, 2048      a warp, 32 or 64 values a lane
             len <= 4096 .. 16384   a block of 128, 256, 512 threads, 32 values a thread
             len <= 262144          a cluster of ceil(len / 32768) blocks of 512 threads x 64 values
       LayerNorm and RMSNorm rows of whole 16-byte vectors longer than 16384: persistent
       clusters of 512 threads x 64 bytes (float ceil(len / 8192) blocks, bfloat16
       ceil(len / 16384)), float rows longer than 65536 x 128 bytes (ceil(len / 16384) blocks)
       (clusters: sm_90; 16 blocks need the non-portable cluster size, allowed on H100/H200)
       rows of whole 16-byte vectors of 2 MB or more (the norms; softmax: 4 MB or more), sm_90:
                              across the whole GPU (rk_grid_rows): every block, 1 or 2 an SM, holds
                              the same slice of each row in shared memory (the copy engine
                              brings it, rows ahead), and the blocks trade each row's
                              statistics through global memory while they work on the next
       the rest               streamed (also where clusters do not run): a cluster of 16 (else 8,
                              else 1) blocks of 512 threads per row reads the row once for its
                              statistics, keeping the first chunks of each block's share in
                              shared memory (as many as about
                              100 KB a block holds), and reads the rest once more for the output
                              (the second pass walks backwards, so it starts with what the L2
                              cache holds last).
       softmax rows of more than 256 KB (float len > 65536, bfloat16 len > 131072) are streamed,
       in clusters of ceil(bytes / 128 KB) blocks (at most 16): each block keeps most of its share.
       cross-entropy keeps nothing but the row, and a thread's share of the work for the row (its
       reductions, the row's finish) weighs as much as its share of the values: its threads hold
       twice the bytes (rk_ce_regs): segments of 8..32 lanes hold 64 bytes a lane (float len
       <= 64 .. 256: 4, 8, 16 lanes x 16; bfloat16 len <= 128 .. 512: 4, 8, 16 lanes x 32),
       blocks 128 bytes a thread (float len <= 2048 .. 8192: 64, 128, 256 threads x 32; bfloat16
       len <= 4096 .. 16384: 64, 128, 256 x 64). (On an H200, against the read kernel: float
       L = 128 0.89 -> 0.98, bfloat16 L = 128 .. 512 0.75 -> 0.89, 4096 .. 16384 0.74-0.81 ->
       0.82-0.87; float L = 32 and bfloat16 L = 32, 64, 1024 and 2048 were slower so.)
       cross-entropy rows longer than 16384 are streamed in one pass (nothing to keep): one block
       a row (of 256 threads where the rows give every SM 4 blocks, else of 512), or clusters of
       2..16 blocks of 512 where there are too few rows to keep every SM busy (rk_balanced_cluster).
       Both measured faster than a cluster's registers on an H200 (CHANGELOG).
   (warpred_row_policy's table, which these dispatchers follow otherwise.)

   THE KERNELS (each a template over the layout L and the element type T)
     softmax      y = exp(x - max) / sum exp(x - max). From registers: two reductions, the max then
                  the sum (the row is already on chip, so the second costs no memory traffic);
                  in a cluster one reduction of each thread's (max, sum) pair (op_softmax.cuh),
                  which halves the cluster reductions a row waits on (measured faster there).
                  Streamed: the online (max, sum) pair of op_softmax.cuh, so that one pass gives
                  both (two reductions would need a third pass over memory).
                  A row of only -inf gives zeros (no probability mass; torch gives NaN); NaN in a
                  row gives NaN everywhere in it.
     layernorm    y = (x - mean) / sqrt(var + eps) * w + b, var the population variance. From
                  the registers of a sub-warp, a warp or a block: the mean, then the sum of
                  squared deviations from it (exact two-pass, free once the row is in registers).
                  In a cluster and streamed: one reduction of the sums of x - x[0] and its square
                  (shifted by the row's first value, which keeps the cancellation small; two
                  reductions, each waiting on cluster barriers, measured slower in a cluster).
     rmsnorm      y = x / sqrt(mean(x^2) + eps) * w.
                  Both norms, rows of at most 2 vectors a thread: each group of threads takes 4 rows,
                  holds its part of w (and b) in registers for all of them and loads the next row
                  while this one is reduced and written (rk_norm_held). A row a warp: the block
                  copies w (and b) into shared memory, asynchronously while its 8 rows load, and
                  the rows read them there (rk_norm_warp_rows). A block's bfloat16 row loads
                  w (and b) into registers with the row (rk_norm_rows). A cluster's rows:
                  as many clusters as the GPU runs at once take the rows in turn, each block
                  with its part of w (and b) in shared memory, the next row loading while this
                  one reduces (cluster_reducer.cuh: no cluster barrier to wait for those loads)
                  (rk_norm_cluster_rows).
     cross-entropy  loss[row] = logsumexp(x) - x[target]; argmax[row] = the first index of the
                  largest logit (NaN ignored). A thread finds its own max first (bfloat16
                  compared in pairs, as loaded), then the first index of it among its values
                  (not a compare and two selects a value). From the registers of a segment or a
                  warp of up to 32 values a lane: that argmax pair (value, index) as the max,
                  then the sum (rk_ce_by_pairs); of a block or a warp of 64 values a lane: the
                  max, then the sum and the first index of the max, which only the threads
                  holding it look for (rk_ce_by_max). Streamed: one pass, the online pair and
                  the argmax pair (a chunk is searched for an index only where its max beats
                  the thread's so far), in blocks of 1024 where the launch's clusters all run
                  at once, one block an SM.
                  The mean over rows: a last kernel, launched on sm_90+ as the programmatic
                  dependent of the cross-entropy launch (on the SMs, waiting, while the last rows
                  are read), adds up a cell a block (rows of a block or a cluster: the row's
                  loss, stored as the row ends) or the losses (shorter rows); the same bits
                  every run (rk_mean_of_cells, rk_mean_of_losses).
                  A target logit of -inf gives +inf (a row of only -inf too); a target outside
                  [0, len) gives NaN and reads nothing. The target is loaded before the
                  reductions, its logit too where that measured faster (rk_cross_entropy_regs).
   ACROSS THE WHOLE GPU (rk_grid_rows: softmax, LayerNorm, RMSNorm): 1 or 2 blocks an SM, all of them
                  resident (a cooperative launch); each folds its slice of a row into its share
                  (the norms' shifted sums, softmax's (max, sum) pair), publishes it in global
                  memory tagged with the row, and gathers the other blocks' shares of the row a
                  step or two later, folding them in a fixed order (the same bits every run on
                  one GPU). w and b stay in shared memory for the whole launch, so each element
                  of x is read once, each of y written once. Launches on one stream at a time
                  share their cells; each stream has its own (rk_grid_state).
   ONE REDUCTION A CLUSTER: every kernel whose row a cluster holds (in registers or streamed)
   reduces once, with warpred_cluster_allreduce_once (begun at the kernel's start, no cluster
   barrier after it; rk_allreduce_once); cross-entropy's streamed kernel in a cluster reduces its
   two pairs as one tuple (op_tuple.cuh) that way. The norms' persistent clusters reduce once a
   row with a cluster reducer (cluster_reducer.cuh), which may be called in a loop.
   exp is 2^(x * log2(e) - max * log2(e)): one FFMA and one MUFU.EX2 an element (ex2.approx.ftz:
   results below 2^-126 are 0). Packed rows compute it again for the output rather than hold it.

   HOST (each returns the first CUDA error, or cudaSuccess; T is float or __nv_bfloat16)
     rk_softmax(x, y, rows, len, stream)
     rk_layernorm(x, w, b, y, rows, len, eps, stream)
     rk_rmsnorm(x, w, y, rows, len, eps, stream)
     rk_cross_entropy(x, targets, loss, argmax, rows, len, plan, mean, stream)   mean may be NULL
     rk_last_where                  a short text: where the last launch put its rows ("warp x 32",
                                    "cluster of 4 x 512", ...), for tables
   x, y: rows * len elements, row r at x + r * len (any len >= 1; 16-byte loads where a row starts
   on a 16-byte boundary). */
#ifndef RK_ROW_KERNELS_CUH
#define RK_ROW_KERNELS_CUH

#include <stdio.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <warpred/row_reduce.cuh>
#include <warpred/cluster_allreduce_once.cuh>
#include <warpred/cluster_reducer.cuh>
#include <warpred/op_softmax.cuh>
#include <warpred/op_argminmax.cuh>
#include <warpred/op_tuple.cuh>
#include <warpred/grid_reduce.cuh>
#include <warpred/device_reduce.cuh>

#define RK_LOG2E 1.4426950408889634f

/* The layouts: warpred_row_policy for the table's lengths; streamed rows: blocks of 512 threads,
   chunks of 64 bytes a thread (4 vectors, all loaded together, the next chunk's loads in flight
   while one is folded), clusters of up to 16 blocks. Measured on an H200 (bench_rows, L = 2^20)
   against the shape kept: one block of 1024 an SM (more of each row kept in shared memory) 0.66 of
   the copy kernel for float softmax against 0.73; chunks of 6 or 8 vectors slower for every op
   (bfloat16 spills). */
template <typename T, long long MaxLen> using rk_regs = typename warpred_row_policy<T, MaxLen>::packed;
template <typename T> struct rk_stream : warpred_row_layout<T, 512, 64 / sizeof(T), 16> {};      /* sm_90+ */
template <typename T> struct rk_stream_block : warpred_row_layout<T, 512, 64 / sizeof(T), 1> {}; /* no clusters */
/* cross-entropy's streamed layouts: 32 values a thread a chunk (rk_cross_entropy_stream) */
template <typename T> struct rk_ce_stream : warpred_row_layout<T, 512, 32, 16> {};
template <typename T> struct rk_ce_stream_block : warpred_row_layout<T, 512, 32, 1> {};
/* ... and in blocks of 256 where the rows give every SM 4 blocks: a row's last chunk, partly
   empty, is half as long (rk_ce_run::go) */
template <typename T> struct rk_ce_stream_small : warpred_row_layout<T, 256, 32, 1> {};
/* ... and in clusters of blocks of 1024 where each block gets an SM to itself: twice the loads in
   flight an SM of the blocks of 512 they replace (rk_ce_run::go) */
template <typename T> struct rk_ce_stream_wide : warpred_row_layout<T, 1024, 32, 16> {};
template <class L> struct rk_streamed {
    enum { value = 0 };
};
template <typename T> struct rk_streamed<rk_stream<T>> {
    enum { value = 1 };
};
template <typename T> struct rk_streamed<rk_stream_block<T>> {
    enum { value = 1 };
};
template <typename T> struct rk_streamed<rk_ce_stream_small<T>> {
    enum { value = 1 };
};
template <typename T> struct rk_streamed<rk_ce_stream_wide<T>> {
    enum { value = 1 };
};
template <class L> struct rk_ce_layout {
    typedef L type;
};
template <typename T> struct rk_ce_layout<rk_stream<T>> {
    typedef rk_ce_stream<T> type;
};
template <typename T> struct rk_ce_layout<rk_stream_block<T>> {
    typedef rk_ce_stream_block<T> type;
};
enum { RK_BLOCK_MAX = 16384, RK_CLUSTER_MAX = 262144 };

/* At least 2048 threads' worth of blocks per SM where the hardware has room: at most 64 registers
   a thread, so that a block of 512 loads while another one reduces or stores. */
#define RK_MIN_BLOCKS(L) (1024 / (L::BLOCK))
/* cross-entropy keeps nothing but the row: rows of a warp or less with 16 values a thread or
   fewer, 32 registers (a whole SM of threads); rows of 32 values a thread (4 vectors) spill at 32:
   40 registers (1536 threads) in a warp, 64 in rk_ce_regs' segments (bfloat16 L = 128 and 512 on
   an H200: 0.88 -> 0.89, 0.89 -> 0.90 of the read kernel against 40); longer, 64. */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 750 || __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || \
                               __CUDA_ARCH__ == 890 || __CUDA_ARCH__ == 1200)
#    define RK_SM_THREADS 1024 /* the threads an SM holds, at least */
#else
#    define RK_SM_THREADS 2048
#endif
#define RK_CE_SM_THREADS(L)                                                    \
    (L::THREADS < 32 && L::VECS == 4                           ? 1024          \
     : L::VECS <= 4 && L::PER_THREAD <= 16 && L::THREADS <= 32 ? RK_SM_THREADS \
     : L::VECS <= 4 && RK_SM_THREADS > 1024                    ? 1536          \
                                                               : 1024)
#define RK_CE_MIN_BLOCKS(L) (RK_CE_SM_THREADS(L) / (L::BLOCK))

/* A kernel whose layout needs clusters compiles to nothing for archs without them; the host launches
   it only where clusters exist. */
#define RK_CLUSTER_GUARD(L)                                  \
    if constexpr (L::CLUSTER > 1 && !WARPRED_HAS_CLUSTERS) { \
        return;                                              \
    } else

__device__ __forceinline__ float rk_shift(float m) { return m == -INFINITY ? 0.0f : m * RK_LOG2E; }

/* 2^x in one MUFU.EX2 (exp2f adds a rescaling for results below 2^-126: probabilities that small
   are flushed to 0 here) */
__device__ __forceinline__ float rk_exp2(float x)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/* value i of a packed row, as float */
template <class L> __device__ __forceinline__ float rk_at(const uint4 (&p)[L::VECS], int i)
{
    return warpred_row_unpack<L>(p, i);
}

/* whether vector j of this thread lies wholly inside the row */
template <class L> __device__ __forceinline__ bool rk_full(int len, int j)
{
    return warpred_row_elem<L>(j * L::VEC) + L::VEC <= len;
}

/* A kernel whose rows a cluster holds reduces once: warpred_cluster_allreduce_once, begun at the
   kernel's start (rk_begin), with no cluster barrier after it; faster than
   warpred_cluster_allreduce's two barriers at every cluster length measured on an H200
   (CHANGELOG). Same bits. Other layouts: warpred_row_allreduce. */
template <class L> __device__ __forceinline__ void rk_begin(void)
{
    if constexpr (L::CLUSTER > 1) warpred_cluster_allreduce_once_begin();
}
template <class L, typename V, typename Op> __device__ __forceinline__ V rk_allreduce_once(V x, Op op)
{
    if constexpr (L::CLUSTER > 1) return warpred_cluster_allreduce_once<L::BLOCK>(x, op);
    else
        return warpred_row_allreduce<L>(x, op);
}

/* The row's (max, sum) pair from each thread's own: one allreduce of op_softmax's pair (a
   cluster's layout: the kernel's one reduction). */
template <class L> __device__ __forceinline__ warpred_softmax<float> rk_pair_allreduce(float m, float s)
{
    warpred_softmax<float> pair;
    pair.max = m;
    pair.sum = s;
    return rk_allreduce_once<L>(pair, warpred_op_softmax());
}

/* =========================================== softmax =========================================== */

template <class L, typename T>
__global__ void __launch_bounds__(L::BLOCK, RK_MIN_BLOCKS(L)) rk_softmax_regs(const T *x, T *y, long long rows, int len)
{
    RK_CLUSTER_GUARD(L)
    {
        rk_begin<L>();
        const long long row = warpred_row_id<L>();
        if (row >= rows) return;
        uint4 p[L::VECS]; /* the row as loaded: exp is computed twice rather than held in registers */
        warpred_row_load_packed<L>(x + row * len, len, p, -INFINITY);
        float m = -INFINITY;
#pragma unroll
        for (int i = 0; i < L::PER_THREAD; i++) m = fmaxf(m, rk_at<L>(p, i));
        float s = 0.0f;
        if constexpr (L::CLUSTER > 1) {
            /* a cluster's reduction waits on the other blocks: one reduction of the thread's own
               (max, sum) pair instead of the row's max, then its sum */
#pragma unroll
            for (int i = 0; i < L::PER_THREAD; i++) s += rk_exp2(fmaf(rk_at<L>(p, i), RK_LOG2E, -rk_shift(m)));
            const warpred_softmax<float> pair = rk_pair_allreduce<L>(m, s);
            m = pair.max;
            s = pair.sum;
        } else {
            m = warpred_row_allreduce<L>(m, warpred_op_max());
#pragma unroll
            for (int i = 0; i < L::PER_THREAD; i++) s += rk_exp2(fmaf(rk_at<L>(p, i), RK_LOG2E, -rk_shift(m)));
            s = warpred_row_allreduce<L>(s, warpred_op_sum());
        }
        const float ms = rk_shift(m);
        const float inv = s > 0.0f ? 1.0f / s : (s == 0.0f ? 0.0f : s); /* all -inf: 0; NaN stays */
        T *out = y + row * len;
#pragma unroll
        for (int j = 0; j < L::VECS; j++) {
            float q[L::VEC];
#pragma unroll
            for (int k = 0; k < L::VEC; k++) q[k] = rk_exp2(fmaf(rk_at<L>(p, j * L::VEC + k), RK_LOG2E, -ms)) * inv;
            warpred_row_store_vector<L>(out, len, j, q);
        }
    }
}

/* Chunk c of a streamed row, as loaded: the thread's vectors c * VECS + u. */
template <class L, typename T>
__device__ __forceinline__ void rk_load_chunk(const T *in, int len, int c, uint4 (&p)[L::VECS], float fill)
{
#pragma unroll
    for (int u = 0; u < L::VECS; u++) p[u] = warpred_row_load_packed_vector<L>(in, len, c * L::VECS + u, fill);
}

/* The chunks a streamed block keeps in its dynamic shared memory (the first ones), so that the
   second pass reads them there: as many as the launch gave it room for. */
template <class L> __device__ __forceinline__ int rk_kept_chunks(int chunks)
{
    unsigned bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    const int room = (int)(bytes / (L::BLOCK * L::VECS * sizeof(uint4)));
    return chunks < room ? chunks : room;
}

/* Chunk c kept in shared memory (vector u of thread t at (c VECS + u) BLOCK + t: conflict free). */
extern __shared__ uint4 rk_kept[];
template <class L> __device__ __forceinline__ void rk_keep(const uint4 (&p)[L::VECS], int c)
{
#pragma unroll
    for (int u = 0; u < L::VECS; u++) rk_kept[(c * L::VECS + u) * L::BLOCK + threadIdx.x] = p[u];
}
template <class L> __device__ __forceinline__ void rk_take_kept(uint4 (&p)[L::VECS], int c)
{
#pragma unroll
    for (int u = 0; u < L::VECS; u++) p[u] = rk_kept[(c * L::VECS + u) * L::BLOCK + threadIdx.x];
}

/* Chunk c for the second pass: from shared memory where kept, else loaded again. */
template <class L, typename T>
__device__ __forceinline__ void rk_chunk_again(const T *in, int len, int c, int kept, uint4 (&p)[L::VECS], float fill)
{
    if (c < kept) rk_take_kept<L>(p, c);
    else
        rk_load_chunk<L>(in, len, c, p, fill);
}

/* A chunk into the thread's online (max m, sum s) pair, cm being the chunk's max with m: the sum is
   rescaled once a chunk (m = -inf: s is 0, and stays 0). */
template <class L>
__device__ __forceinline__ void rk_online_fold(const uint4 (&p)[L::VECS], float cm, float &m, float &s)
{
    if (cm > m) {
        s *= rk_exp2((m - cm) * RK_LOG2E);
        m = cm;
    }
    const float ms = rk_shift(m);
#pragma unroll
    for (int i = 0; i < L::PER_THREAD; i++) s += rk_exp2(fmaf(rk_at<L>(p, i), RK_LOG2E, -ms));
}

/* The chunks of a streamed row: vectors j = c * VECS + u of each thread, c = 0 .. chunks - 1. */
template <class L> __device__ __forceinline__ int rk_chunks(int len)
{
    const long long vectors = ((long long)len + L::VEC - 1) / L::VEC;
    const long long per_chunk = (long long)warpred_row_threads<L>() * L::VECS;
    return (int)((vectors + per_chunk - 1) / per_chunk);
}

/* Streamed softmax: pass 1 folds the chunks into the online (max, sum) pair (the next chunk's
   loads in flight meanwhile) and keeps the first ones in shared memory; one reduction of the pair;
   pass 2 (backwards: the chunks read last, not kept, are likeliest in L2) writes. */
template <class L, typename T>
__global__ void __launch_bounds__(L::BLOCK, RK_MIN_BLOCKS(L))
    rk_softmax_stream(const T *x, T *y, long long rows, int len)
{
    RK_CLUSTER_GUARD(L)
    {
        rk_begin<L>();
        const long long row = warpred_row_id<L>();
        if (row >= rows) return;
        const T *in = x + row * len;
        const int chunks = rk_chunks<L>(len), kept = rk_kept_chunks<L>(chunks);
        float m = -INFINITY, s = 0.0f;
        uint4 p[L::VECS];
        rk_load_chunk<L>(in, len, 0, p, -INFINITY);
        for (int c = 0; c < chunks; c++) {
            uint4 next[L::VECS];
            if (c + 1 < chunks) rk_load_chunk<L>(in, len, c + 1, next, -INFINITY);
            if (c < kept) rk_keep<L>(p, c);
            float cm = m;
#pragma unroll
            for (int i = 0; i < L::PER_THREAD; i++) cm = fmaxf(cm, rk_at<L>(p, i));
            rk_online_fold<L>(p, cm, m, s);
#pragma unroll
            for (int u = 0; u < L::VECS; u++) p[u] = next[u];
        }
        const warpred_softmax<float> pair = rk_pair_allreduce<L>(m, s);
        const float ms = rk_shift(pair.max);
        const float inv = pair.sum > 0.0f ? 1.0f / pair.sum : (pair.sum == 0.0f ? 0.0f : pair.sum);
        T *out = y + row * len;
        for (int c = chunks - 1; c >= 0; c--) {
            rk_chunk_again<L>(in, len, c, kept, p, 0.0f);
#pragma unroll
            for (int u = 0; u < L::VECS; u++) {
                float q[L::VEC];
#pragma unroll
                for (int k = 0; k < L::VEC; k++) q[k] = rk_exp2(fmaf(rk_at<L>(p, u * L::VEC + k), RK_LOG2E, -ms)) * inv;
                warpred_row_store_vector<L>(out, len, c * L::VECS + u, q);
            }
        }
    }
}

/* ========================================== layernorm ========================================== */

/* out[k] = (v[k] - mean) * rstd * w + b for vector j (bias NULL: RMSNorm, mean 0). */
template <class L, typename T>
__device__ __forceinline__ void rk_norm_vector(float (&q)[L::VEC], const T *w, const T *b, int len, int j, float mean,
                                               float rstd)
{
    float wq[L::VEC], bq[L::VEC];
    warpred_row_load_vector<L>(w, len, j, wq, 0.0f);
    if (b) warpred_row_load_vector<L>(b, len, j, bq, 0.0f);
#pragma unroll
    for (int k = 0; k < L::VEC; k++) q[k] = (q[k] - mean) * rstd * wq[k] + (b ? bq[k] : 0.0f);
}

/* A packed row's output: each vector normalized (rk_norm_vector) and stored. */
template <class L, typename T>
__device__ __forceinline__ void rk_norm_store(const uint4 (&p)[L::VECS], const T *w, const T *b, T *out, int len,
                                              float mean, float rstd)
{
#pragma unroll
    for (int j = 0; j < L::VECS; j++) {
        float q[L::VEC];
#pragma unroll
        for (int k = 0; k < L::VEC; k++) q[k] = rk_at<L>(p, j * L::VEC + k);
        rk_norm_vector<L>(q, w, b, len, j, mean, rstd);
        warpred_row_store_vector<L>(out, len, j, q);
    }
}

/* The sum of (x - mean)^2 over the elements this thread holds (the tail's fill left out). */
template <class L>
__device__ __forceinline__ float rk_squared_deviations(const uint4 (&p)[L::VECS], int len, float mean)
{
    float d2 = 0.0f;
#pragma unroll
    for (int j = 0; j < L::VECS; j++) {
        if (rk_full<L>(len, j)) { /* only the tail's vector needs the per-element test */
#pragma unroll
            for (int k = 0; k < L::VEC; k++) {
                const float d = rk_at<L>(p, j * L::VEC + k) - mean;
                d2 = fmaf(d, d, d2);
            }
        } else {
#pragma unroll
            for (int k = 0; k < L::VEC; k++) {
                const float d = warpred_row_elem<L>(j * L::VEC + k) < len ? rk_at<L>(p, j * L::VEC + k) - mean : 0.0f;
                d2 = fmaf(d, d, d2);
            }
        }
    }
    return d2;
}

/* One-pass statistics shifted by k (a value of the row, which keeps the cancellation small): acc
   sums x - k and (x - k)^2. */
__device__ __forceinline__ void rk_shifted_add(float2 &acc, float x, float k)
{
    const float d = x - k;
    acc.x += d;
    acc.y = fmaf(d, d, acc.y);
}

/* The mean and 1 / sqrt(var + eps) from the row's shifted sums (center 0, RMSNorm: k is 0, the mean
   0 and var the mean of the squares). */
__device__ __forceinline__ void rk_shifted_stats(float2 acc, int len, float k, bool center, float eps, float &mean,
                                                 float &rstd)
{
    const float d_mean = acc.x / (float)len;
    const float var = center ? fmaxf(acc.y / (float)len - d_mean * d_mean, 0.0f) : acc.y / (float)len;
    mean = center ? k + d_mean : 0.0f;
    rstd = rsqrtf(var + eps);
}

/* A packed row's statistics, every thread of the row getting them: LayerNorm (Center) the mean,
   then the sum of squared deviations from it (exact two-pass, free once the row is in registers;
   not for a cluster's layout, which reduces once: rk_norm_rows); RMSNorm the mean of the squares
   (mean 0), one reduction (rk_allreduce_once: a cluster's layout too). */
template <class L, bool Center>
__device__ __forceinline__ void rk_norm_stats(const uint4 (&p)[L::VECS], int len, float eps, float &mean, float &rstd)
{
    if constexpr (Center) {
        static_assert(L::CLUSTER == 1, "rk_norm_stats: a cluster's LayerNorm reduces once (rk_norm_rows)");
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < L::PER_THREAD; i++) s += rk_at<L>(p, i);
        const float inv_len = __frcp_rn((float)len);
        mean = warpred_row_allreduce<L>(s, warpred_op_sum()) * inv_len;
        const float var = warpred_row_allreduce<L>(rk_squared_deviations<L>(p, len, mean), warpred_op_sum()) * inv_len;
        rstd = rsqrtf(var + eps);
    } else {
        float s2 = 0.0f;
#pragma unroll
        for (int i = 0; i < L::PER_THREAD; i++) {
            const float v = rk_at<L>(p, i);
            s2 = fmaf(v, v, s2);
        }
        mean = 0.0f;
        rstd = rsqrtf(rk_allreduce_once<L>(s2, warpred_op_sum()) * __frcp_rn((float)len) + eps);
    }
}

/* value k of a 16-byte vector of float or bfloat16 values */
template <typename T> __device__ __forceinline__ float rk_value(const uint4 &u, int k)
{
    const unsigned word = k * (int)sizeof(T) / 4 == 0   ? u.x
                          : k * (int)sizeof(T) / 4 == 1 ? u.y
                          : k * (int)sizeof(T) / 4 == 2 ? u.z
                                                        : u.w;
    if constexpr (sizeof(T) == 4) return __uint_as_float(word);
    else
        return __uint_as_float(k % 2 ? word & 0xffff0000u : word << 16); /* bfloat16: the high half of a float */
}

/* A packed row's output, with w (and b: LayerNorm, Center) held packed in registers as well. */
template <class L, typename T, bool Center>
__device__ __forceinline__ void rk_norm_store_held(const uint4 (&p)[L::VECS], const uint4 (&wp)[L::VECS],
                                                   const uint4 (&bp)[L::VECS], T *out, int len, float mean, float rstd)
{
#pragma unroll
    for (int j = 0; j < L::VECS; j++) {
        float q[L::VEC];
#pragma unroll
        for (int k = 0; k < L::VEC; k++) {
            const int i = j * L::VEC + k;
            q[k] = (rk_at<L>(p, i) - mean) * rstd * rk_at<L>(wp, i);
            if constexpr (Center) q[k] += rk_at<L>(bp, i);
        }
        warpred_row_store_vector<L>(out, len, j, q);
    }
}

/* LayerNorm (Center) or RMSNorm, a row a warp (8 rows a block): the block copies w (and b) into
   shared memory once, with asynchronous copies issued before its rows load, and its rows read them
   there after their reductions. Read from global memory instead, they came after the reductions
   with an L2 latency each row (ncu: bfloat16 LayerNorm at 2048 spent half its cycles between
   instructions waiting on them). Where w or b is not 16-byte aligned or len not a multiple of a
   vector (or b is NULL), the rows read them from global memory as the other layouts do. */
template <class L, typename T, bool Center>
__device__ __forceinline__ void rk_norm_warp_rows(const T *x, const T *w, const T *b, T *y, long long rows, int len,
                                                  float eps)
{
    static_assert(L::THREADS == 32 && L::CLUSTER == 1, "rk_norm_warp_rows: a row a warp");
    enum { NV = L::CAPACITY / L::VEC };
    __shared__ uint4 sw[NV], sb[Center ? NV : 1];
    const unsigned long long where =
        reinterpret_cast<unsigned long long>(w) | (Center ? reinterpret_cast<unsigned long long>(b) : 0);
    const bool staged = (where & 15) == 0 && len % L::VEC == 0 && (!Center || b); /* the same in the whole block */
    if (staged) {
        for (int v = threadIdx.x; v < len / L::VEC; v += L::BLOCK) {
            __pipeline_memcpy_async(&sw[v], reinterpret_cast<const uint4 *>(w) + v, sizeof(uint4));
            if (Center) __pipeline_memcpy_async(&sb[v], reinterpret_cast<const uint4 *>(b) + v, sizeof(uint4));
        }
        __pipeline_commit();
    }
    const long long row = warpred_row_id<L>();
    const bool active = row < rows; /* a warp past the last row still meets the barrier */
    uint4 p[L::VECS];
    float mean = 0.0f, rstd = 0.0f;
    if (active) {
        warpred_row_load_packed<L>(x + row * len, len, p, 0.0f);
        rk_norm_stats<L, Center>(p, len, eps, mean, rstd);
    }
    if (staged) {
        __pipeline_wait_prior(0);
        __syncthreads();
    }
    if (!active) return;
    T *out = y + row * len;
    if (!staged) {
        rk_norm_store<L>(p, w, Center ? b : (const T *)NULL, out, len, mean, rstd);
        return;
    }
#pragma unroll
    for (int j = 0; j < L::VECS; j++) {
        const long long start = warpred_row_elem<L>(j * L::VEC);
        if (start >= len) continue; /* whole vectors only here: len is a multiple of one */
        const int v = (int)(start / L::VEC);
        float q[L::VEC];
#pragma unroll
        for (int k = 0; k < L::VEC; k++)
            q[k] = (rk_at<L>(p, j * L::VEC + k) - mean) * rstd * rk_value<T>(sw[v], k) +
                   (Center ? rk_value<T>(sb[v], k) : 0.0f);
        warpred_row_store_vector<L>(out, len, j, q);
    }
}

/* LayerNorm (Center) or RMSNorm, a row in the registers of the layout L: rk_norm_warp_rows where a
   warp holds a row, else the row's statistics and the output straight from the registers. A
   block's bfloat16 row loads w (and b) into registers with the row, so that no load waits after
   the reductions (bfloat16 LayerNorm at 4096-16384: 0.86-0.94 -> 0.88-0.96 of the copy kernel);
   float rows keep reading them after (float LayerNorm at 8192 went 0.99 -> 0.95 that way: twice
   the registers for the same row). */
template <class L, typename T, bool Center>
__device__ __forceinline__ void rk_norm_rows(const T *x, const T *w, const T *b, T *y, long long rows, int len,
                                             float eps)
{
    if constexpr (L::THREADS == 32 && L::CLUSTER == 1) {
        rk_norm_warp_rows<L, T, Center>(x, w, b, y, rows, len, eps);
    } else {
        rk_begin<L>();
        const long long row = warpred_row_id<L>();
        if (row >= rows) return;
        constexpr bool held = sizeof(T) < 4 && L::CLUSTER == 1; /* w (and b) in registers */
        uint4 p[L::VECS], wp[held ? L::VECS : 1], bp[held ? L::VECS : 1];
        if constexpr (held) {
            warpred_row_load_packed<L>(w, len, wp, 0.0f);
            if constexpr (Center) warpred_row_load_packed<L>(b, len, bp, 0.0f);
        }
        float mean, rstd;
        if constexpr (Center && L::CLUSTER > 1) {
            /* a cluster reduces once (rk_allreduce_once): the sums of x - x[0] and of its square
               instead of the mean, then the squared deviations */
            const float k = warpred_xf_to<float>()(x[row * len], 0);
            warpred_row_load_packed<L>(x + row * len, len, p, k); /* past the end: k, which adds nothing */
            float2 acc = make_float2(0.0f, 0.0f);
#pragma unroll
            for (int i = 0; i < L::PER_THREAD; i++) rk_shifted_add(acc, rk_at<L>(p, i), k);
            rk_shifted_stats(rk_allreduce_once<L>(acc, warpred_op_sum()), len, k, true, eps, mean, rstd);
        } else {
            warpred_row_load_packed<L>(x + row * len, len, p, 0.0f);
            rk_norm_stats<L, Center>(p, len, eps, mean, rstd);
        }
        if constexpr (held) rk_norm_store_held<L, T, Center>(p, wp, bp, y + row * len, len, mean, rstd);
        else
            rk_norm_store<L>(p, w, b, y + row * len, len, mean, rstd);
    }
}

template <class L, typename T>
__global__ void __launch_bounds__(L::BLOCK, RK_MIN_BLOCKS(L))
    rk_layernorm_regs(const T *x, const T *w, const T *b, T *y, long long rows, int len, float eps)
{
    RK_CLUSTER_GUARD(L) { rk_norm_rows<L, T, true>(x, w, b, y, rows, len, eps); }
}

template <class L, typename T>
__global__ void __launch_bounds__(L::BLOCK, RK_MIN_BLOCKS(L))
    rk_rmsnorm_regs(const T *x, const T *w, T *y, long long rows, int len, float eps)
{
    RK_CLUSTER_GUARD(L) { rk_norm_rows<L, T, false>(x, w, (const T *)NULL, y, rows, len, eps); }
}

/* LayerNorm (Center) or RMSNorm for rows of at most 2 vectors a thread (no clusters): each group of
   threads takes RK_NORM_ROWS rows, so that it loads its part of w (and b) once and keeps it in
   registers (re-read from L1 for every row, they cost bfloat16 LayerNorm 5-10% of the copy
   bandwidth), and loads the next row while this one is reduced and written. */
enum { RK_NORM_ROWS = 4 };
template <class L, typename T, bool Center>
__global__ void __launch_bounds__(L::BLOCK, RK_MIN_BLOCKS(L))
    rk_norm_held(const T *x, const T *w, const T *b, T *y, long long rows, int len, float eps)
{
    static_assert(L::VECS <= 2 && L::CLUSTER == 1, "rk_norm_held: rows of at most 2 vectors a thread");
    const long long stride = (long long)gridDim.x * L::ROWS_PER_BLOCK;
    long long row = warpred_row_id<L>();
    if (row >= rows) return;
    uint4 wp[L::VECS], bp[L::VECS], next[L::VECS];
    warpred_row_load_packed<L>(w, len, wp, 0.0f);
    if constexpr (Center) warpred_row_load_packed<L>(b, len, bp, 0.0f);
    warpred_row_load_packed<L>(x + row * len, len, next, 0.0f);
    for (; row < rows; row += stride) {
        uint4 p[L::VECS];
#pragma unroll
        for (int j = 0; j < L::VECS; j++) p[j] = next[j];
        if (row + stride < rows) warpred_row_load_packed<L>(x + (row + stride) * len, len, next, 0.0f);
        float mean, rstd;
        rk_norm_stats<L, Center>(p, len, eps, mean, rstd);
        rk_norm_store_held<L, T, Center>(p, wp, bp, y + row * len, len, mean, rstd);
    }
}

/* LayerNorm (Center) or RMSNorm, rows a cluster holds in registers, the clusters persistent: each
   block copies its part of w (and b) into shared memory once, for every row it takes (read from
   global memory after each row's reduction, they are as many bytes again as the row, all from L2,
   since the blocks that share an SM hold other parts of w), and each thread loads its part of the
   next row while this one is reduced and written. Clusters of blocks along x take rows
   blockIdx.x / C, then every gridDim.x / C rows after it. One reduction a row (the sums of
   x - x[0] and of its square: rk_norm_rows), with a cluster reducer (cluster_reducer.cuh): no
   cluster barrier waits for the next row's loads. Shared memory: PER_THREAD values of T a thread
   for w, as many for b. */
/* 64 bytes of row a thread: two blocks of 512 an SM (64 registers, room for the next row's 64
   bytes); 128 bytes: one block, so that a thread may take 128 registers */
#define RK_WB_MIN_BLOCKS(L) ((L::PER_THREAD * (int)sizeof(typename L::type) <= 64) ? 1024 / (L::BLOCK) : 1)
template <class L, typename T, bool Center>
__global__ void __launch_bounds__(L::BLOCK, RK_WB_MIN_BLOCKS(L))
    rk_norm_cluster_rows(const T *x, const T *w, const T *b, T *y, long long rows, int len, float eps)
{
    RK_CLUSTER_GUARD(L)
    {
        extern __shared__ uint4 rk_wb[]; /* vector j of w at [j * BLOCK + thread], of b VECS * BLOCK on */
        {
            uint4 t[L::VECS];
            warpred_row_load_packed<L>(w, len, t, 0.0f);
#pragma unroll
            for (int j = 0; j < L::VECS; j++) rk_wb[j * L::BLOCK + threadIdx.x] = t[j];
            if constexpr (Center) {
                warpred_row_load_packed<L>(b, len, t, 0.0f);
#pragma unroll
                for (int j = 0; j < L::VECS; j++) rk_wb[(L::VECS + j) * L::BLOCK + threadIdx.x] = t[j];
            }
        } /* each thread reads back only what it wrote: no barrier */
        const long long stride = gridDim.x / (unsigned)warpred__row_blocks<L>(); /* the clusters */
        long long row = warpred_row_id<L>();
        if (row >= rows) return; /* the whole cluster: its blocks share the row */
        typedef typename warpred__conditional<Center, float2, float>::type Sums;
        WARPRED_CLUSTER_REDUCER(sums, Sums, L::BLOCK);
        float k_next = Center ? warpred_xf_to<float>()(x[row * len], 0) : 0.0f;
        uint4 next[L::VECS];
        warpred_row_load_packed<L>(x + row * len, len, next, k_next); /* past the end: k, which adds nothing */
        for (; row < rows; row += stride) {
            uint4 p[L::VECS];
#pragma unroll
            for (int j = 0; j < L::VECS; j++) p[j] = next[j];
            const float k = k_next;
            if (row + stride < rows) {
                const T *in = x + (row + stride) * len;
                if (Center) k_next = warpred_xf_to<float>()(in[0], 0);
                warpred_row_load_packed<L>(in, len, next, k_next);
            }
            float2 acc = make_float2(0.0f, 0.0f);
#pragma unroll
            for (int i = 0; i < L::PER_THREAD; i++) rk_shifted_add(acc, rk_at<L>(p, i), k);
            float mean, rstd;
            if constexpr (Center) acc = sums.allreduce(acc, warpred_op_sum());
            else
                acc.y = sums.allreduce(acc.y, warpred_op_sum());
            rk_shifted_stats(acc, len, k, Center, eps, mean, rstd);
            T *out = y + row * len;
#pragma unroll
            for (int j = 0; j < L::VECS; j++) {
                const uint4 wv = rk_wb[j * L::BLOCK + threadIdx.x];
                uint4 bv = wv;
                if constexpr (Center) bv = rk_wb[(L::VECS + j) * L::BLOCK + threadIdx.x];
                float q[L::VEC];
#pragma unroll
                for (int e = 0; e < L::VEC; e++) {
                    q[e] = (rk_at<L>(p, j * L::VEC + e) - mean) * rstd * rk_value<T>(wv, e);
                    if constexpr (Center) q[e] += rk_value<T>(bv, e);
                }
                warpred_row_store_vector<L>(out, len, j, q);
            }
        }
    }
}

/* Streamed norms: pass 1 sums x - k and (x - k)^2 (k = x[0]; rmsnorm: k = 0 and the squares only),
   keeping the first chunks in shared memory; one reduction of the pair; pass 2 (backwards) writes
   (w and b do not alias y: their loads may go ahead of the chunk's stores). */
template <class L, typename T>
__global__ void __launch_bounds__(L::BLOCK, RK_MIN_BLOCKS(L))
    rk_norm_stream(const T *x, const T *__restrict__ w, const T *__restrict__ b, T *y, long long rows, int len,
                   float eps, int center)
{
    RK_CLUSTER_GUARD(L)
    {
        rk_begin<L>();
        const long long row = warpred_row_id<L>();
        if (row >= rows) return;
        const T *in = x + row * len;
        const float k = center ? warpred_xf_to<float>()(in[0], 0) : 0.0f;
        const int chunks = rk_chunks<L>(len), kept = rk_kept_chunks<L>(chunks);
        float2 acc = make_float2(0.0f, 0.0f);
        uint4 p[L::VECS];
        rk_load_chunk<L>(in, len, 0, p, k); /* past the end: k, which adds nothing */
        for (int c = 0; c < chunks; c++) {
            uint4 next[L::VECS];
            if (c + 1 < chunks) rk_load_chunk<L>(in, len, c + 1, next, k);
            if (c < kept) rk_keep<L>(p, c);
#pragma unroll
            for (int i = 0; i < L::PER_THREAD; i++) rk_shifted_add(acc, rk_at<L>(p, i), k);
#pragma unroll
            for (int u = 0; u < L::VECS; u++) p[u] = next[u];
        }
        float mean, rstd;
        rk_shifted_stats(rk_allreduce_once<L>(acc, warpred_op_sum()), len, k, center, eps, mean, rstd);
        T *out = y + row * len;
        for (int c = chunks - 1; c >= 0; c--) {
            rk_chunk_again<L>(in, len, c, kept, p, 0.0f);
#pragma unroll
            for (int u = 0; u < L::VECS; u++) {
                float q[L::VEC];
#pragma unroll
                for (int e = 0; e < L::VEC; e++) q[e] = rk_at<L>(p, u * L::VEC + e);
                rk_norm_vector<L>(q, w, center ? b : (const T *)NULL, len, c * L::VECS + u, mean, rstd);
                warpred_row_store_vector<L>(out, len, c * L::VECS + u, q);
            }
        }
    }
}

/* ======================================== cross-entropy ======================================== */

/* logsumexp - x[target], from the row's max m, its sum s of 2^((x - m) log2 e) and x[target].
   The log is one MUFU.LG2 (__logf: its error, about 2^-22 of log2 s, is far inside the sample's
   bound); logf's 30 instructions ran in every warp, for each of its rows' leaders (short rows
   2-5% faster on an H200). */
__device__ __forceinline__ float rk_ce_loss(float m, float s, float xt)
{
    const float lse = m == -INFINITY ? -INFINITY : m + __logf(s);
    return xt == -INFINITY ? INFINITY : lse - xt;
}

/* The row's result, written by the row's first thread (which loads the target's logit); returns
   the loss. */
template <typename T>
__device__ __forceinline__ float rk_ce_finish(const T *in, int len, int target, float m, float s, int arg, float *loss,
                                              int *argmax, long long row)
{
    const float l = target < 0 || target >= len ? NAN : rk_ce_loss(m, s, warpred_xf_to<float>()(in[target], 0));
    loss[row] = l;
    argmax[row] = arg;
    return l;
}

/* ---- cross-entropy's mean over rows ---- */

/* The mean is the last kernel of the call, launched on sm_90 as the programmatic dependent of the
   cross-entropy launch, whose blocks let it go at their start: its blocks are on SMs, waiting
   (griddepcontrol.wait), while the last rows are read, instead of starting after a kernel
   boundary. It adds up, in a fixed order (the same bits every run for one shape on one GPU):
     - rows of a block or a cluster: a cell per block, the row's loss (0 in a cluster's other
       blocks), which thread 0 stores as the row ends; the mean's kernel is one block
       (rk_mean_of_cells);
     - rows of a warp or less: the losses themselves, loss[r] / rows, by a grid of blocks that meet
       in warpred_grid_reduce (rk_mean_of_losses; a cell per block by a block reduction, or per
       warp by warpred_warp_reduce, measured slower there: each warp then ends later).
   Cells: a slot per plan (rk_mean_slot: the plan stands for one launch at a time, as for
   warpred_device_reduce), RK_MEAN_CELLS blocks at most (more: the losses). */
enum { RK_MEAN_SLOTS = 8, RK_MEAN_CELLS = 1 << 16, RK_MEAN_THREADS = 1024, RK_MEAN_LOSS_THREADS = 256 };
static __device__ float rk_mean_cells[RK_MEAN_SLOTS][RK_MEAN_CELLS];

/* The kernels asked for a mean let its kernel be scheduled as soon as all their blocks have begun
   (it waits for their end itself). */
__device__ __forceinline__ void rk_release_dependents(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* The mean's kernels wait for the cross-entropy launch's end and its stores (at once where they
   were not launched as its dependent). */
__device__ __forceinline__ void rk_wait_for_primary(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* A block's cell, stored by thread 0 where the layout holds a row in a block or a cluster (l: the
   row's loss, 0 outside the row's first thread); nothing for rows of a warp or less. */
template <class L> __device__ __forceinline__ void rk_mean_cell(int slot, float l)
{
    if constexpr (L::THREADS > 32) {
        if (slot >= 0 && blockIdx.x < RK_MEAN_CELLS && threadIdx.x == 0) rk_mean_cells[slot][blockIdx.x] = l;
    }
}

/* This thread's part of n values: v[first + k * stride] * scale for k = 0, 1, ... added in turn,
   8 loads at a time (read from L2: another kernel wrote them). */
__device__ __forceinline__ float rk_strided_sum(const float *v, long long first, long long n, long long stride,
                                                float scale)
{
    float acc = 0.0f;
    for (long long i0 = first; i0 < n; i0 += 8 * stride) {
        float u[8];
#pragma unroll
        for (int k = 0; k < 8; k++) u[k] = i0 + k * stride < n ? __ldcg(v + i0 + k * stride) : 0.0f;
#pragma unroll
        for (int k = 0; k < 8; k++) acc += u[k] * scale;
    }
    return acc;
}

/* The mean from cells 0..cells-1 of the slot: thread t adds cells t, t + 1024, ... in turn, then
   the block's tree; divided by rows. */
__global__ void __launch_bounds__(RK_MEAN_THREADS) rk_mean_of_cells(int slot, int cells, long long rows, float *mean)
{
    rk_wait_for_primary();
    float acc = rk_strided_sum(rk_mean_cells[slot], threadIdx.x, cells, RK_MEAN_THREADS, 1.0f);
    acc = warpred_block_reduce<RK_MEAN_THREADS>(acc, warpred_op_sum());
    if (threadIdx.x == 0) *mean = (float)((double)acc / (double)rows);
}

/* The mean from the losses: thread i of the grid adds loss[i + k * threads] * inv in turn, and the
   grid's threads meet in warpred_grid_reduce. */
__global__ void __launch_bounds__(RK_MEAN_LOSS_THREADS)
    rk_mean_of_losses(const float *loss, long long rows, float inv, warpred_grid_scratch scratch, float *mean)
{
    rk_wait_for_primary();
    const float acc = rk_strided_sum(loss, blockIdx.x * (long long)RK_MEAN_LOSS_THREADS + threadIdx.x, rows,
                                     (long long)gridDim.x * RK_MEAN_LOSS_THREADS, inv);
    warpred_grid_reduce<RK_MEAN_LOSS_THREADS>(acc, warpred_op_sum(), scratch, mean);
}

/* max of two bfloat16 pairs, pairwise (NaN loses to a number): one HMNMX2 on sm_80+ */
__device__ __forceinline__ unsigned rk_max_bf16x2(unsigned a, unsigned b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned r;
    asm("max.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    const float lo = fmaxf(__uint_as_float(a << 16), __uint_as_float(b << 16));
    const float hi = fmaxf(__uint_as_float(a & 0xffff0000u), __uint_as_float(b & 0xffff0000u));
    return (__float_as_uint(lo) >> 16) | (__float_as_uint(hi) & 0xffff0000u);
#endif
}

template <typename T> struct rk_is_bf16 {
    enum { value = 0 };
};
template <> struct rk_is_bf16<__nv_bfloat16> {
    enum { value = 1 };
};

/* The thread's largest value (NaN only where all its values are NaN); bfloat16 compared in pairs,
   as loaded. */
template <class L> __device__ __forceinline__ float rk_thread_max(const uint4 (&p)[L::VECS])
{
    if constexpr (rk_is_bf16<typename L::type>::value) {
        unsigned w = 0xff80ff80u; /* -inf, -inf */
#pragma unroll
        for (int j = 0; j < L::VECS; j++)
            w = rk_max_bf16x2(w, rk_max_bf16x2(rk_max_bf16x2(p[j].x, p[j].y), rk_max_bf16x2(p[j].z, p[j].w)));
        return fmaxf(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
    } else {
        float m = -INFINITY;
#pragma unroll
        for (int i = 0; i < L::PER_THREAD; i++) m = fmaxf(m, rk_at<L>(p, i));
        return m;
    }
}

/* The thread's sum of 2^(x log2 e - ms), ms = rk_shift(the row's max). */
template <class L> __device__ __forceinline__ float rk_exp_sum(const uint4 (&p)[L::VECS], float ms)
{
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < L::PER_THREAD; i++) sum += rk_exp2(fmaf(rk_at<L>(p, i), RK_LOG2E, -ms));
    return sum;
}

/* The lowest element index among the thread's values equal to m (INT_MAX: none); in a streamed
   row, among those of chunk c (rk_load_chunk: the thread's vectors c * VECS .. c * VECS + VECS - 1). */
template <class L> __device__ __forceinline__ int rk_first_equal(const uint4 (&p)[L::VECS], float m, int c = 0)
{
    int index = 0x7fffffff;
#pragma unroll
    for (int i = L::PER_THREAD - 1; i >= 0; i--)
        if (rk_at<L>(p, i) == m) index = (int)warpred_row_elem<L>((c * L::VECS + i / L::VEC) * L::VEC) + i % L::VEC;
    return index;
}

/* The row's max m, its sum s of 2^((x - m) log2 e) and the first index of m, in every thread of
   the row. As a (value, index) pair: each thread's own max (bfloat16 compared in pairs) and its
   first index of it, then one allreduce of the pairs and one of the sum. */
template <class L>
__device__ __forceinline__ void rk_ce_by_pairs(const uint4 (&p)[L::VECS], float &m, float &s, int &index)
{
    /* a thread with no number above -inf (past the end, say) holds (-inf, index >= len), which
       loses the tie to element 0 */
    const float own = rk_thread_max<L>(p);
    warpred_arg<float, int> best = own > -INFINITY ? warpred_make_arg(own, rk_first_equal<L>(p, own))
                                                   : warpred_make_arg(-INFINITY, (int)warpred_row_elem<L>(0));
    best = warpred_row_allreduce<L>(best, warpred_op_argmax_num());
    m = best.value;
    s = warpred_row_allreduce<L>(rk_exp_sum<L>(p, rk_shift(best.value)), warpred_op_sum());
    index = best.index;
}

/* The same by the max first: the row's max (bfloat16 compared in pairs), then only the threads
   that hold it look for its first index, which one allreduce brings with the sum (a tuple). In a
   block or a warp of 64 values a lane most warps hold no row max and skip the search (bfloat16 on
   an H200, against the read kernel: L = 2048 0.88 -> 0.92, 4096 .. 16384 0.84-0.87 -> 0.94-0.96;
   rows of 8 lanes or fewer, where every warp holds maxima, ran slower so). A row with no number
   above -inf: m = -inf and index 0, as the pairs give. */
template <class L>
__device__ __forceinline__ void rk_ce_by_max(const uint4 (&p)[L::VECS], float &m, float &s, int &index)
{
    const float own = rk_thread_max<L>(p);
    const float row_max = warpred_row_allreduce<L>(own, warpred_op_max_num());
    const bool number = row_max > -INFINITY; /* not -inf, not NaN */
    int first = number ? 0x7fffffff : (int)warpred_row_elem<L>(0);
    if (number && own == row_max) first = rk_first_equal<L>(p, row_max);
    const float sum = rk_exp_sum<L>(p, rk_shift(row_max));
    const auto both = warpred_row_allreduce<L>(warpred_make_tuple(sum, first),
                                               warpred_make_op_tuple(warpred_op_sum(), warpred_op_min()));
    m = number ? row_max : -INFINITY;
    s = both.v0;
    index = both.v1;
}

/* The row's first thread asks for the target before the reductions, so that its latency hides
   behind the row's and only the logit's load follows them (on an H200, float L = 32 and 64 and
   bfloat16 L = 32-256 ran 3-12% longer with the target asked after the reductions, both with the
   warp trees' whole-warp masks). In rows held by a block or a cluster and in float rows of 512
   bytes or more it asks for the logit early too (bfloat16 blocks at 8192-16384 went 0.80-0.89 ->
   0.87-0.92 of the read kernel, float L = 128-256 0.83-0.89 -> 0.89-0.97). Shorter rows' lines
   are still in flight then, and asking for one twice costs more than waiting (float L = 32 0.84
   -> 0.69, bfloat16 0.82 -> 0.56). Taking the logit from the registers of the lane that holds it
   (a select over the lane's values and one shuffle, every lane loading the target) was slower
   still (float L = 32 0.59). */
/* One row of rk_cross_entropy_regs: its loss in the row's first thread, 0 in the others (and
   where there is no row). */
template <class L, typename T>
__device__ __forceinline__ float rk_ce_regs_row(const T *x, const int *targets, float *loss, int *argmax,
                                                long long rows, int len)
{
    const long long row = warpred_row_id<L>();
    if (row >= rows) return 0.0f;
    const T *in = x + row * len;
    constexpr bool early = L::THREADS > 32 || (sizeof(T) == 4 && L::THREADS * L::PER_THREAD * sizeof(T) >= 512);
    const bool leader = warpred_row_rank<L>() == 0;
    const int target = leader ? targets[row] : 0;
    uint4 p[L::VECS];
    warpred_row_load_packed<L>(in, len, p, -INFINITY);
    /* the target's logit, early (NaN for a target outside [0, len): one register across the
       reductions) */
    const float xt = !(early && leader)            ? 0.0f
                     : target >= 0 && target < len ? warpred_xf_to<float>()(in[target], 0)
                                                   : NAN;
    float m, s;
    int index;
    if constexpr (L::CLUSTER == 1 && (L::THREADS > 32 || L::PER_THREAD >= 64)) rk_ce_by_max<L>(p, m, s, index);
    else
        rk_ce_by_pairs<L>(p, m, s, index);
    if (early && leader) {
        const float l = rk_ce_loss(m, s, xt); /* NaN xt: NaN */
        loss[row] = l;
        argmax[row] = index;
        return l;
    }
    return leader ? rk_ce_finish(in, len, target, m, s, index, loss, argmax, row) : 0.0f;
}

template <class L, typename T>
__global__ void __launch_bounds__(L::BLOCK, RK_CE_MIN_BLOCKS(L))
    rk_cross_entropy_regs(const T *x, const int *targets, float *loss, int *argmax, long long rows, int len,
                          int mean_slot)
{
    RK_CLUSTER_GUARD(L)
    {
        rk_release_dependents();
        rk_mean_cell<L>(mean_slot, rk_ce_regs_row<L, T>(x, targets, loss, argmax, rows, len));
    }
}

/* Streamed cross-entropy: one pass, the online (max, sum) pair and the argmax pair. Its layout
   (rk_ce_stream) takes 8 vectors a chunk for float, loaded at once, and 4 for bfloat16, the next
   chunk's loads in flight while one is folded: each measured fastest for its type (float with 4
   vectors ahead 0.77 -> 0.71 of the read kernel; 8 ahead spill). */
template <class L, typename T>
__global__ void __launch_bounds__(L::BLOCK, RK_MIN_BLOCKS(L))
    rk_cross_entropy_stream(const T *x, const int *targets, float *loss, int *argmax, long long rows, int len,
                            int mean_slot)
{
    RK_CLUSTER_GUARD(L)
    {
        rk_release_dependents();
        rk_begin<L>();
        const long long row = warpred_row_id<L>();
        if (row >= rows) return;
        const T *in = x + row * len;
        const int chunks = rk_chunks<L>(len);
        float m = -INFINITY, s = 0.0f;
        int first = (int)warpred_row_elem<L>(0); /* of m: element 0's while m is -inf */
        constexpr bool ahead = L::VECS <= 4;
        uint4 p[L::VECS];
        if (ahead) rk_load_chunk<L>(in, len, 0, p, -INFINITY);
        for (int c = 0; c < chunks; c++) {
            uint4 next[L::VECS];
            if (!ahead) rk_load_chunk<L>(in, len, c, p, -INFINITY);
            else if (c + 1 < chunks)
                rk_load_chunk<L>(in, len, c + 1, next, -INFINITY);
            /* the chunk's max alone (bfloat16 in pairs); only a chunk that beats the thread's max
               so far is searched for its first index of it (before the fold raises m to it) */
            const float top = rk_thread_max<L>(p);
            if (top > m) first = rk_first_equal<L>(p, top, c);
            rk_online_fold<L>(p, fmaxf(m, top), m, s);
            if (ahead)
#pragma unroll
                for (int u = 0; u < L::VECS; u++) p[u] = next[u];
        }
        warpred_arg<float, int> best = warpred_make_arg(m, first);
        warpred_softmax<float> pair;
        if constexpr (L::CLUSTER > 1) { /* one reduction of both pairs: rk_allreduce_once */
            pair.max = m;
            pair.sum = s;
            const auto both = rk_allreduce_once<L>(
                warpred_make_tuple(pair, best), warpred_make_op_tuple(warpred_op_softmax(), warpred_op_argmax_num()));
            pair = both.v0;
            best = both.v1;
        } else {
            pair = rk_pair_allreduce<L>(m, s);
            best = warpred_row_allreduce<L>(best, warpred_op_argmax_num());
        }
        const float l = warpred_row_rank<L>() == 0
                            ? rk_ce_finish(in, len, targets[row], pair.max, pair.sum, best.index, loss, argmax, row)
                            : 0.0f;
        rk_mean_cell<L>(mean_slot, l);
    }
}

/* ================================== rows across the whole GPU ================================== */

/* Rows longer than a cluster holds, of whole 16-byte vectors: each block of the grid (one or two
   an SM, all of them resident: a cooperative launch) owns the same slice of every row, 1 / G of
   it, and the rows go by in order, R at a time (a group: enough bytes a step to pay for the
   step's fixed latencies). The copy engine (cp.async.bulk) brings each group's slices into a
   ring of `slots` buffers in shared memory, groups ahead. Each step, all warps of the block but
   the last two (the workers) fold its slices of group s and publish its share of each row's
   statistics (rk_grid_cell), then write group s - lag - 1 from shared memory; meanwhile the last
   two warps gather the G shares of that group's rows (a warp a row, asked for a step earlier),
   so the round trips through global memory overlap the workers' folding. Each element is read
   once and written once; w and b are read once a launch and stay in shared memory. The shares
   are folded in a fixed order: the same bits every run on a GPU (G decides the order). */
enum {
    RK_GRID_GATHERERS = 64,
    RK_GRID_MAX_SLOTS = 32,
    RK_GRID_SOFTMAX = 0,
    RK_GRID_LAYERNORM = 1,
    RK_GRID_RMSNORM = 2
};

/* A block's share of one row: two 64-bit words, each a float and the row's tag, stored and loaded
   whole, so a word whose tag is the row's holds the row's value (no fence, no reset between
   launches: each launch tags its rows anew). The norms: the shifted sums (rk_shifted_add);
   softmax: the slice's max and its sum of 2^((x - max) log2 e). */
struct rk_grid_cell {
    unsigned long long word[2];
};

/* The cells of group s: ring groups of R rows of G cells, reused in turn. A block publishes group
   s after it has gathered group s - 2 - lag, which every block published only after gathering
   group s - 4 - 2 lag: the group the cells held last. */
__device__ __forceinline__ int rk_grid_ring(int lag) { return 2 * lag + 4; }

/* Relaxed stores and loads: a block publishes a row's share after the loads it is made of and
   overwrites a cell after gathering what every block published later than the cell's last row,
   orders which each block's own steps keep (control and data dependencies). The PTX memory model
   promises them only with release and acquire (a fence a publish; not measured here). */
__device__ __forceinline__ void rk_grid_publish(rk_grid_cell *cell, float2 v, unsigned tag)
{
    const unsigned long long a = (unsigned long long)tag << 32 | __float_as_uint(v.x),
                             b = (unsigned long long)tag << 32 | __float_as_uint(v.y);
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(&cell->word[0]), "l"(a) : "memory");
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(&cell->word[1]), "l"(b) : "memory");
}

/* A cell as loaded: each word whole (a 16-byte load whose two halves are each single-copy atomic). */
__device__ __forceinline__ void rk_grid_load(const rk_grid_cell *cell, unsigned long long (&v)[2])
{
    asm volatile("ld.relaxed.gpu.global.v2.b64 {%0, %1}, [%2];" : "=l"(v[0]), "=l"(v[1]) : "l"(cell) : "memory");
}

__device__ __forceinline__ bool rk_grid_tagged(const unsigned long long (&v)[2], unsigned tag)
{
    return (unsigned)(v[0] >> 32) == tag && (unsigned)(v[1] >> 32) == tag;
}

/* A row's G cells in one warp: lane l takes cells l, l + 32, ... (G <= 32 RK_GRID_LANE_CELLS).
   rk_grid_ask loads them all at once, early (in flight while the block works); rk_grid_gather
   loads again those whose tag is not yet the row's, until every one is, and folds them: each
   lane its cells in turn, then the butterfly (a fixed order). */
enum { RK_GRID_LANE_CELLS = 9, RK_GRID_MAX_BLOCKS = 32 * RK_GRID_LANE_CELLS };
typedef unsigned long long rk_grid_asked[RK_GRID_LANE_CELLS][2];

__device__ __forceinline__ void rk_grid_ask(const rk_grid_cell *cells, rk_grid_asked &v)
{
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int c = 0; c < RK_GRID_LANE_CELLS; c++)
        if (lane + 32 * c < (int)gridDim.x) rk_grid_load(&cells[lane + 32 * c], v[c]);
}

__device__ __forceinline__ float rk_grid_lo(const unsigned long long (&v)[2])
{
    return __uint_as_float((unsigned)v[0]);
}

__device__ __forceinline__ float rk_grid_hi(const unsigned long long (&v)[2])
{
    return __uint_as_float((unsigned)v[1]);
}

/* The row's totals from its cells: the norms' sums; softmax's (max, sum), each cell's sum scaled
   to the row's max. */
template <int Op>
__device__ __forceinline__ float2 rk_grid_gather(const rk_grid_cell *cells, rk_grid_asked &v, unsigned tag)
{
    const int lane = threadIdx.x % 32;
    bool all;
    do {
        all = true;
#pragma unroll
        for (int c = 0; c < RK_GRID_LANE_CELLS; c++)
            if (lane + 32 * c < (int)gridDim.x && !rk_grid_tagged(v[c], tag)) {
                rk_grid_load(&cells[lane + 32 * c], v[c]);
                all = false;
            }
    } while (!all);
    float2 t = make_float2(Op == RK_GRID_SOFTMAX ? -INFINITY : 0.0f, 0.0f);
    if constexpr (Op == RK_GRID_SOFTMAX) {
#pragma unroll
        for (int c = 0; c < RK_GRID_LANE_CELLS; c++)
            if (lane + 32 * c < (int)gridDim.x) t.x = fmaxf(t.x, rk_grid_lo(v[c]));
        t.x = warpred_warp_allreduce(t.x, warpred_op_max());
        const float ms = rk_shift(t.x);
#pragma unroll
        for (int c = 0; c < RK_GRID_LANE_CELLS; c++)
            if (lane + 32 * c < (int)gridDim.x) {
                const float s = rk_grid_hi(v[c]); /* 0 for a slice of -inf only, whose max is -inf */
                if (s != 0.0f) t.y += s * rk_exp2(fmaf(rk_grid_lo(v[c]), RK_LOG2E, -ms));
            }
        t.y = warpred_warp_allreduce(t.y, warpred_op_sum());
    } else {
#pragma unroll
        for (int c = 0; c < RK_GRID_LANE_CELLS; c++)
            if (lane + 32 * c < (int)gridDim.x) {
                t.x += rk_grid_lo(v[c]);
                t.y += rk_grid_hi(v[c]);
            }
        t = warpred_warp_allreduce(t, warpred_op_sum());
    }
    return t;
}

/* ---- the copy engine's loads into shared memory, each completing an mbarrier ---- */

__device__ __forceinline__ unsigned rk_smem_address(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void rk_bulk_begin(unsigned long long *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(rk_smem_address(bar)), "r"(bytes)
                 : "memory");
}

/* bytes (a multiple of 16, both addresses 16-byte aligned) from global to shared memory */
__device__ __forceinline__ void rk_bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     rk_smem_address(dst)),
                 "l"(src), "r"(bytes), "r"(rk_smem_address(bar))
                 : "memory");
}

__device__ __forceinline__ void rk_bulk_wait(unsigned long long *bar, unsigned parity)
{
    unsigned done;
    do
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(rk_smem_address(bar)), "r"(parity)
                     : "memory");
    while (!done);
}

/* 16 bytes of T from VEC floats */
template <typename T> __device__ __forceinline__ uint4 rk_pack(const float (&q)[16 / sizeof(T)])
{
    if constexpr (sizeof(T) == 4)
        return make_uint4(__float_as_uint(q[0]), __float_as_uint(q[1]), __float_as_uint(q[2]), __float_as_uint(q[3]));
    else {
        unsigned u[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const __nv_bfloat162 h = __floats2bfloat162_rn(q[2 * i], q[2 * i + 1]);
            __builtin_memcpy(&u[i], &h, 4);
        }
        return make_uint4(u[0], u[1], u[2], u[3]);
    }
}

/* The first vector of a slice a worker takes, then every Workers-th: odd rows of a group in the
   reverse order, so that the workers with one vector more in one row have one fewer in the next. */
template <int Workers> __device__ __forceinline__ int rk_grid_first(int i)
{
    return i % 2 ? Workers - 1 - (int)threadIdx.x : (int)threadIdx.x;
}

/* A barrier of the workers only (a named one), so that the gathering warps go on meanwhile. */
template <int Workers> __device__ __forceinline__ void rk_grid_workers_sync(void)
{
    asm volatile("bar.sync 1, %0;" ::"r"(Workers) : "memory");
}

/* The block's shares of a group's R slices (n[i] vectors, `cap` apart: 0 past the last row), in
   thread 0 (k: the rows' shifts): each warp's partial values go into part (Workers / 32 float2 a
   row of the group, shared memory), which warp 0 combines in a fixed order. Norms: the shifted sums. Softmax: each thread's max and its sum
   of 2^((x - max) log2 e), then each warp's, then the block's (every sum scaled to the larger max
   as pairs combine). */
template <typename T, int Op, int R, int Workers>
__device__ __forceinline__ void rk_grid_fold(const uint4 *group, const int (&n)[R], int cap, const float (&k)[R],
                                             float2 (*part)[Workers / 32], float2 (&share)[R])
{
    constexpr int VEC = 16 / sizeof(T), WARPS = Workers / 32, A = VEC / 2;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float2 mine[R];
#pragma unroll
    for (int i = 0; i < R; i++) {
        /* A = VEC / 2 accumulators a thread, value e into accumulator e % A: chains of 2 dependent
           operations a vector instead of VEC (the folds are latency-bound otherwise) */
        if constexpr (Op == RK_GRID_SOFTMAX) {
            float m[A], t[A];
#pragma unroll
            for (int a = 0; a < A; a++) m[a] = -INFINITY, t[a] = 0.0f;
            for (int j = rk_grid_first<Workers>(i); j < n[i]; j += Workers) {
                const uint4 u = group[i * cap + j];
#pragma unroll
                for (int e = 0; e < VEC; e++) m[e % A] = fmaxf(m[e % A], rk_value<T>(u, e));
            }
#pragma unroll
            for (int a = 1; a < A; a++) m[0] = fmaxf(m[0], m[a]);
            const float wm = warpred_warp_allreduce(m[0], warpred_op_max()); /* the warp's max: one scale a lane */
            const float ms = rk_shift(wm);
            for (int j = rk_grid_first<Workers>(i); j < n[i]; j += Workers) {
                const uint4 u = group[i * cap + j];
#pragma unroll
                for (int e = 0; e < VEC; e++) t[e % A] += rk_exp2(fmaf(rk_value<T>(u, e), RK_LOG2E, -ms));
            }
#pragma unroll
            for (int a = 1; a < A; a++) t[0] += t[a];
            mine[i] = make_float2(wm, warpred_warp_reduce(t[0], warpred_op_sum()));
        } else {
            float2 acc[A];
#pragma unroll
            for (int a = 0; a < A; a++) acc[a] = make_float2(0.0f, 0.0f);
            for (int j = rk_grid_first<Workers>(i); j < n[i]; j += Workers) {
                const uint4 u = group[i * cap + j];
#pragma unroll
                for (int e = 0; e < VEC; e++) rk_shifted_add(acc[e % A], rk_value<T>(u, e), k[i]);
            }
#pragma unroll
            for (int a = 1; a < A; a++) acc[0].x += acc[a].x, acc[0].y += acc[a].y;
            mine[i] = warpred_warp_reduce(acc[0], warpred_op_sum());
        }
        if (lane == 0) part[i][warp] = mine[i];
    }
    rk_grid_workers_sync<Workers>();
    if (warp == 0) {
#pragma unroll
        for (int i = 0; i < R; i++) {
            float2 v = lane < WARPS ? part[i][lane] : make_float2(Op == RK_GRID_SOFTMAX ? -INFINITY : 0.0f, 0.0f);
            if constexpr (Op == RK_GRID_SOFTMAX) {
                const float m = warpred_warp_allreduce(v.x, warpred_op_max());
                const float t = v.y != 0.0f ? v.y * rk_exp2((v.x - m) * RK_LOG2E) : 0.0f; /* -inf slices: 0 */
                share[i] = make_float2(m, warpred_warp_reduce(t, warpred_op_sum()));
            } else
                share[i] = warpred_warp_reduce(v, warpred_op_sum());
        }
    }
}

/* What the output needs of a row from its totals: softmax (max * log2 e, 1 / sum), the norms
   (mean, 1 / std). */
template <int Op> __device__ __forceinline__ float2 rk_grid_finish(float2 t, int len, float k, float eps)
{
    if constexpr (Op == RK_GRID_SOFTMAX) {
        const float inv = t.y > 0.0f ? 1.0f / t.y : (t.y == 0.0f ? 0.0f : t.y); /* all -inf: 0; NaN stays */
        return make_float2(rk_shift(t.x), inv);
    } else {
        float mean, rstd;
        rk_shifted_stats(t, len, k, Op == RK_GRID_LAYERNORM, eps, mean, rstd);
        return make_float2(mean, rstd);
    }
}

/* A vector v of a row's slice, normalized (wv, bv: the vector's w and b; not read by softmax), as
   16 bytes of T. */
template <typename T, int Op> __device__ __forceinline__ uint4 rk_grid_output(uint4 v, uint4 wv, uint4 bv, float2 st)
{
    constexpr int VEC = 16 / sizeof(T);
    float q[VEC];
    if constexpr (Op == RK_GRID_SOFTMAX) {
#pragma unroll
        for (int e = 0; e < VEC; e++) q[e] = rk_exp2(fmaf(rk_value<T>(v, e), RK_LOG2E, -st.x)) * st.y;
    } else {
#pragma unroll
        for (int e = 0; e < VEC; e++) {
            q[e] = (rk_value<T>(v, e) - st.x) * st.y * rk_value<T>(wv, e);
            if constexpr (Op == RK_GRID_LAYERNORM) q[e] += rk_value<T>(bv, e);
        }
    }
    return rk_pack<T>(q);
}

/* Dynamic shared memory: slots + 1 mbarriers (padded to 16 bytes), then w's slice and b's (the
   norms), then the ring of `slots` groups of R slices of `cap` vectors. tag: row r's cells carry
   tag + r. Needs lag >= 0 and slots >= lag + 3 (a group in flight at least). */
extern __shared__ uint4 rk_grid_smem[];
template <typename T, int Op, int R, int Threads>
__global__ void __launch_bounds__(Threads, 512 / Threads)
    rk_grid_rows(const T *x, const T *w, const T *b, T *y, long long rows, int len, float eps, rk_grid_cell *cells,
                 unsigned tag, int slots, int lag)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int VEC = 16 / sizeof(T), Workers = Threads - RK_GRID_GATHERERS;
    constexpr int WB = Op == RK_GRID_LAYERNORM ? 2 : Op == RK_GRID_RMSNORM ? 1 : 0; /* w, b slices kept */
    const int G = (int)gridDim.x, g = (int)blockIdx.x;
    const bool gatherer = threadIdx.x >= Workers;
    const long long V = len / VEC, v0 = g * V / G, groups = (rows + R - 1) / R;
    const int n = (int)((g + 1) * V / G - v0), cap = (int)((V + G - 1) / G), ring = rk_grid_ring(lag);
    const unsigned bytes = (unsigned)n * 16u;
    unsigned long long *bar = reinterpret_cast<unsigned long long *>(rk_grid_smem); /* slots + 1 */
    uint4 *kept = rk_grid_smem + (slots + 2) / 2, *slot0 = kept + WB * cap;
    __shared__ float2 stats[2][R];           /* the group written this step, and the next */
    __shared__ float2 part[R][Workers / 32]; /* the workers' warps' partial values */
    __shared__ float shift[64 * R];          /* row r's k at r % (64 R), kept for its output */
    if (threadIdx.x == 0) {
        for (int i = 0; i <= slots; i++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(rk_smem_address(&bar[i])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    /* group s into its slot */
    const auto fetch = [&](long long s) {
        const int slot = (int)(s % slots);
        const int in_group = rows - s * R < R ? (int)(rows - s * R) : R;
        rk_bulk_begin(&bar[slot], in_group * bytes);
        for (int i = 0; i < in_group; i++)
            rk_bulk_load(slot0 + ((size_t)slot * R + i) * cap, x + (s * R + i) * len + v0 * VEC, bytes, &bar[slot]);
    };
    if (threadIdx.x == 0) {
        if constexpr (WB > 0) {
            rk_bulk_begin(&bar[slots], WB * bytes);
            rk_bulk_load(kept, w + v0 * VEC, bytes, &bar[slots]);
            if constexpr (WB == 2) rk_bulk_load(kept + cap, b + v0 * VEC, bytes, &bar[slots]);
        }
        for (long long s = 0; s < groups && s < slots; s++) fetch(s);
    }
    if (WB > 0 && !gatherer) rk_bulk_wait(&bar[slots], 0);
    /* The gatherer asks for a group's cells a step before it folds them; the workers load the next
       group's shifts a step ahead. */
    const int gw = ((int)threadIdx.x - Workers) / 32; /* the gatherers' warp: row gw of a group */
    rk_grid_asked asked;
    const auto ask = [&](long long group) {
        if (gw < R && group >= 0 && group * R + gw < rows)
            rk_grid_ask(cells + ((size_t)(group % ring) * R + gw) * G, asked);
    };
    T k_next[R]; /* as loaded: converted when used, so that the load is not waited for a step early */
    const auto load_shifts = [&](long long group) {
#    pragma unroll
        for (int i = 0; i < R; i++)
            if (Op == RK_GRID_LAYERNORM && group * R + i < rows) k_next[i] = x[(group * R + i) * len];
    };
    if (!gatherer) load_shifts(0);
    for (long long s = 0; s < groups + lag + 1; s++) {
        const long long written = s - lag - 1; /* the group written this step */
        if (gatherer) { /* the statistics of group `written`, for the workers after the barrier */
            const long long row = written * R + gw;
            if (written >= 0 && gw < R && row < rows) {
                const float2 t =
                    rk_grid_gather<Op>(cells + ((size_t)(written % ring) * R + gw) * G, asked, tag + (unsigned)row);
                if (threadIdx.x % 32 == 0)
                    stats[written & 1][gw] = rk_grid_finish<Op>(t, len, shift[row % (64 * R)], eps);
            }
        } else if (s < groups) { /* this block's shares of group s */
            const int slot = (int)(s % slots);
            float k[R];
            int in[R];
#    pragma unroll
            for (int i = 0; i < R; i++) {
                in[i] = s * R + i < rows ? n : 0;
                k[i] = Op == RK_GRID_LAYERNORM && in[i] ? warpred_xf_to<float>()(k_next[i], 0) : 0.0f;
            }
            if (s + 1 < groups) load_shifts(s + 1);
            rk_bulk_wait(&bar[slot], (unsigned)(s / slots) & 1u);
            float2 share[R];
            rk_grid_fold<T, Op, R, Workers>(slot0 + (size_t)slot * R * cap, in, cap, k, part, share);
            if (threadIdx.x == 0)
#    pragma unroll
                for (int i = 0; i < R; i++)
                    if (s * R + i < rows) {
                        shift[(s * R + i) % (64 * R)] = k[i];
                        rk_grid_publish(cells + ((size_t)(s % ring) * R + i) * G + g, share[i],
                                        tag + (unsigned)(s * R + i));
                    }
        }
        __syncthreads(); /* the statistics of group `written` */
        if (gatherer) ask(written + 1);
        else if (written >= 0) {
            const int slot = (int)(written % slots);
            const uint4 *in = slot0 + (size_t)slot * R * cap;
            uint4 *out = reinterpret_cast<uint4 *>(y + written * R * len + v0 * VEC);
            const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
            if (R == 2 && WB > 0 && written * R + 1 < rows) { /* both rows in one pass: w and b read once */
                const float2 st0 = stats[written & 1][0], st1 = stats[written & 1][R - 1];
                for (int j = threadIdx.x; j < n; j += Workers) {
                    const uint4 wv = kept[j], bv = WB == 2 ? kept[cap + j] : zero;
                    __stcs(out + j, rk_grid_output<T, Op>(in[j], wv, bv, st0));
                    __stcs(out + len / VEC + j, rk_grid_output<T, Op>(in[cap + j], wv, bv, st1));
                }
            } else
#    pragma unroll
                for (int i = 0; i < R; i++)
                    if (written * R + i < rows) {
                        const float2 st = stats[written & 1][i];
                        for (int j = rk_grid_first<Workers>(i); j < n; j += Workers) {
                            const uint4 wv = WB > 0 ? kept[j] : zero, bv = WB == 2 ? kept[cap + j] : zero;
                            __stcs(out + (size_t)i * (len / VEC) + j,
                                   rk_grid_output<T, Op>(in[i * cap + j], wv, bv, st));
                        }
                    }
        }
        __syncthreads(); /* the slot read: the copy engine may fill it again */
        if (threadIdx.x == 0 && written >= 0 && written + slots < groups) fetch(written + slots);
    }
#endif
}

/* ============================================ host ============================================ */

/* The device the calling host thread works on (-1 where the runtime cannot say). */
static inline int rk_device(void)
{
    int device = 0;
    return cudaGetDevice(&device) == cudaSuccess ? device : -1;
}

/* What the dispatchers ask of the current device, asked once per device (the first 64). */
struct rk_device_facts {
    int asked, major, coop, optin, sm_bytes, sms;
};

static inline rk_device_facts rk_facts(void)
{
    static rk_device_facts known[64];
    rk_device_facts f = {0, 0, 0, 0, 0, 1};
    const int device = rk_device();
    if (device >= 0 && device < 64 && known[device].asked) return known[device];
    if (device < 0 || cudaDeviceGetAttribute(&f.major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&f.coop, cudaDevAttrCooperativeLaunch, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&f.optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&f.sm_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        cudaGetLastError();
        const rk_device_facts none = {0, 0, 0, 0, 0, 1};
        return none; /* not kept: the next call asks again */
    }
    f.asked = 1;
    if (device < 64) known[device] = f;
    return f;
}

/* The SMs of the current GPU. */
static inline int rk_sm_count(void) { return rk_facts().sms; }

/* A per-kernel answer of the runtime for the current device, asked once: the first N (kernel,
   device) answers kept; keep() replaces the answer it already holds for the pair. */
template <typename V, int N> struct rk_memo {
    const void *key[N];
    int device[N];
    V value[N];
    int count;
    int index_of(const void *k, int d) const
    {
        for (int i = 0; i < count; i++)
            if (key[i] == k && device[i] == d) return i;
        return -1;
    }
    bool find(const void *k, V *v) const
    {
        const int i = index_of(k, rk_device());
        if (i >= 0) *v = value[i];
        return i >= 0;
    }
    V keep(const void *k, V v)
    {
        const int d = rk_device();
        int i = index_of(k, d);
        if (i < 0 && count < N) {
            i = count++;
            key[i] = k;
            device[i] = d;
        }
        if (i >= 0) value[i] = v;
        return v;
    }
};

/* The clusters of `cluster` blocks of `block` threads, `smem` bytes of dynamic shared memory each,
   that the GPU runs at once (0 where it runs none or refuses the size). */
template <typename Kernel> static int rk_active_clusters(Kernel kernel, int block, int cluster, size_t smem)
{
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(cluster);
    config.blockDim = dim3(block);
    config.dynamicSmemBytes = smem;
    config.attrs = &attr;
    config.numAttrs = 1;
    int clusters = 0;
    return cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess ? clusters : 0;
}

/* The largest cluster (16, 8, ..., 1) with which `kernel` (blocks of `block` threads) can run on
   this GPU, asked once per kernel: 1 without clusters (before sm_90). */
template <typename Kernel> static int rk_cluster_limit(Kernel kernel, int block, size_t smem = 0)
{
    static rk_memo<int, 64> memo;
    int best = 1;
    if (memo.find((const void *)kernel, &best)) return best;
    if (rk_facts().major >= 9) {
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
        for (int c = 16; c >= 2 && best == 1; c /= 2)
            if (rk_active_clusters(kernel, block, c, smem) > 0) best = c;
        cudaGetLastError(); /* a refused size is an answer, not an error for the next call */
    }
    return memo.keep((const void *)kernel, best);
}

/* The clusters of `cluster` blocks of `block` threads with `smem` bytes of dynamic shared memory
   each that the GPU runs at once (0: none; the kernel's shared-memory limit raised to smem),
   asked once per kernel and cluster size. */
template <typename Kernel> static int rk_resident_clusters(Kernel kernel, int block, int cluster, size_t smem)
{
    static rk_memo<int, 64> memo[17];
    int clusters = 0;
    if (cluster < 1 || cluster > 16) return 0;
    if (memo[cluster].find((const void *)kernel, &clusters)) return clusters;
    if (rk_facts().major >= 9 &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) == cudaSuccess)
        clusters = rk_active_clusters(kernel, block, cluster, smem);
    cudaGetLastError(); /* a refused size is an answer, not an error for the next call */
    return memo[cluster].keep((const void *)kernel, clusters);
}

/* Where the last launch put its rows ("warp", "cluster of 4 x 512", ...), for tables. */
static char rk_last_where[48];

template <class L> static void rk_note_where(int cluster)
{
    if (rk_streamed<L>::value)
        snprintf(rk_last_where, sizeof rk_last_where, "streamed, %d x %d", cluster, (int)L::THREADS);
    else if (L::CLUSTER > 1)
        snprintf(rk_last_where, sizeof rk_last_where, "cluster of %d x %d", cluster, (int)L::THREADS);
    else if (L::THREADS < 32)
        snprintf(rk_last_where, sizeof rk_last_where, "%d lanes x %d", (int)L::THREADS, (int)L::PER_THREAD);
    else if (L::THREADS == 32)
        snprintf(rk_last_where, sizeof rk_last_where, "warp x %d", (int)L::PER_THREAD);
    else
        snprintf(rk_last_where, sizeof rk_last_where, "block of %d x %d", (int)L::THREADS, (int)L::PER_THREAD);
}

/* The most dynamic shared memory a block of the streamed kernel gets (to keep chunks in): what the
   SM holds for RK_MIN_BLOCKS(L) blocks, less its static shared memory and the 1 KB the hardware
   reserves a block; set as the kernel's limit once, and asked once per kernel. */
template <class L, typename... Params> static size_t rk_stream_room(void (*kernel)(Params...))
{
    static rk_memo<size_t, 16> memo;
    size_t bytes = 0;
    if (memo.find((const void *)kernel, &bytes)) return bytes;
    const rk_device_facts f = rk_facts();
    cudaFuncAttributes fa;
    if (f.sm_bytes > 0 && cudaFuncGetAttributes(&fa, kernel) == cudaSuccess) {
        long long b = f.sm_bytes / RK_MIN_BLOCKS(L) - 1024 - (long long)fa.sharedSizeBytes;
        if (b > f.optin - (long long)fa.sharedSizeBytes) b = f.optin - (long long)fa.sharedSizeBytes;
        const long long chunk = (long long)L::BLOCK * L::VECS * sizeof(uint4);
        bytes = b > chunk ? (size_t)(b / chunk * chunk) : 0;
        if (bytes &&
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes) != cudaSuccess)
            bytes = 0;
    }
    cudaGetLastError(); /* no room is an answer, not an error for the next call */
    return memo.keep((const void *)kernel, bytes);
}

/* The largest cluster for a kernel of the layout L that keeps chunks in shared memory when its
   rows are streamed (with that shared memory: rk_stream_room). */
template <class L, typename... Params> static int rk_limit_of(void (*kernel)(Params...))
{
    return rk_cluster_limit(kernel, L::BLOCK, rk_streamed<L>::value ? rk_stream_room<L>(kernel) : 0);
}

/* The dynamic shared memory for a streamed row of len in clusters of `cluster` blocks: room for
   each block's chunks, as far as rk_stream_room allows. */
template <class L, typename... Params> static size_t rk_stream_smem(void (*kernel)(Params...), int len, int cluster)
{
    const long long chunk = (long long)L::BLOCK * L::VECS * sizeof(uint4);
    const long long vectors = ((long long)len + L::VEC - 1) / L::VEC;
    const long long per_chunk = (long long)L::THREADS * cluster * L::VECS;
    const long long chunks = (vectors + per_chunk - 1) / per_chunk, room = (long long)rk_stream_room<L>(kernel);
    return (size_t)(chunks * chunk < room ? chunks * chunk : room);
}

/* The blocks of the last launch and the threads of its rows (cross-entropy's mean: cells, one a
   block, where a block or a cluster holds a row). */
static long long rk_last_blocks;
static int rk_last_row_threads;

/* rows of the layout L: ceil(rows / ROWS_PER_BLOCK) blocks, or rows * cluster blocks in clusters;
   smem: dynamic shared memory a block. */
template <class L, typename... Params, typename... Args>
static cudaError_t rk_launch_with(void (*kernel)(Params...), long long rows, int cluster, size_t smem,
                                  cudaStream_t stream, Args... args)
{
    cudaLaunchAttribute attr = {};
    cudaLaunchConfig_t config = {};
    config.blockDim = dim3(L::BLOCK);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    const long long blocks = L::CLUSTER > 1 ? rows * cluster : (rows + L::ROWS_PER_BLOCK - 1) / L::ROWS_PER_BLOCK;
    if (blocks < 1 || blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
    rk_note_where<L>(cluster);
    rk_last_blocks = blocks;
    rk_last_row_threads = L::THREADS;
    config.gridDim = dim3((unsigned)blocks);
    if (L::CLUSTER > 1) {
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = (unsigned)cluster;
        attr.val.clusterDim.y = 1;
        attr.val.clusterDim.z = 1;
        config.attrs = &attr;
        config.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&config, kernel, args...);
}

template <class L, typename... Params, typename... Args>
static cudaError_t rk_launch(void (*kernel)(Params...), long long rows, int cluster, cudaStream_t stream, Args... args)
{
    return rk_launch_with<L>(kernel, rows, cluster, 0, stream, args...);
}

/* rows of the layout L (no clusters), RK_NORM_ROWS rows to each group of threads: rk_launch's
   grid for ceil(rows / RK_NORM_ROWS) rows (nested ceilings of integer quotients are one ceiling). */
template <class L, typename... Params, typename... Args>
static cudaError_t rk_launch_grouped(void (*kernel)(Params...), long long rows, cudaStream_t stream, Args... args)
{
    return rk_launch<L>(kernel, (rows + RK_NORM_ROWS - 1) / RK_NORM_ROWS, 1, stream, args...);
}

/* The layout of rows that a cluster holds in registers: the table's (blocks of 512 threads), but
   blocks of 1024 for float softmax: half the blocks a row, each an SM's whole share of threads,
   so twice the rows in flight. On an H200 that was faster for float softmax at every cluster
   length, and not for cross-entropy, the norms or bfloat16 softmax (CHANGELOG), which keep 512. */
template <typename T> struct rk_softmax_run;
template <typename T, class Run> struct rk_cluster_layout {
    typedef rk_regs<T, RK_CLUSTER_MAX> type;
};
template <> struct rk_cluster_layout<float, rk_softmax_run<float>> {
    typedef warpred_row_layout<float, 1024, 32, 16> type;
};

/* ---- rows across the whole GPU (rk_grid_rows) ---- */

/* Set, the dispatchers take the streamed kernels where they would take rk_grid_rows (benchmarks
   compare the two this way). */
static int rk_grid_off;

/* Whether the dispatchers take rk_grid_rows for rows of len: rows of 2 MB or more for the norms,
   4 MB or more for softmax (a block's slice of a step, 16 or 32 KB, pays for the step's fixed
   latencies). Shorter rows ran faster streamed or in a cluster on an H200 (CHANGELOG). */
template <typename T> static bool rk_grid_wanted(int op, long long len)
{
    return !rk_grid_off && len * (long long)sizeof(T) >= (op == RK_GRID_SOFTMAX ? 4LL << 20 : 2LL << 20);
}

/* The cells and the next tag of a stream of a device: launches on one stream follow each other;
   launches on two streams could run at once, so each stream has its own cells (the first 16
   streams that ask; the others get cudaErrorNotSupported, which the dispatchers answer with the
   streamed kernels). One host thread: this state is not locked. */
struct rk_grid_state {
    int device;
    cudaStream_t stream;
    rk_grid_cell *cells;
    int blocks;
    unsigned next_tag;
};

/* Whether a stream handle stands for a different stream in each host thread (the per-thread
   default stream): their launches could overlap and would share one stream's cells. */
static bool rk_grid_shared_stream(cudaStream_t stream)
{
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
    if (stream == 0) return true;
#endif
    return stream == cudaStreamPerThread;
}

static rk_grid_state *rk_grid_state_of(int device, cudaStream_t stream)
{
    static rk_grid_state states[16];
    static int count;
    for (int i = 0; i < count; i++)
        if (states[i].device == device && states[i].stream == stream) return &states[i];
    if (count == 16) return NULL;
    rk_grid_state *s = &states[count++];
    s->device = device;
    s->stream = stream;
    return s;
}

/* How rk_grid_rows would run rows of len with per_sm blocks an SM: blocks, threads a block, rows a
   group, slots and lag; 0 blocks where it does not (before sm_90, without cooperative launches,
   rows off 16-byte vectors, or too long for a ring of lag + 3 groups). */
struct rk_grid_plan {
    int blocks, threads, group, slots, lag;
    size_t smem;
};

template <typename T, int Op>
static rk_grid_plan rk_grid_plan_for(long long len, int slots, int lag, int group, int per_sm)
{
    rk_grid_plan p = {0, 0, 0, 0, 0, 0};
    const rk_device_facts f = rk_facts();
    const long long optin = f.optin, sm_bytes = f.sm_bytes;
    if (f.major < 9 || !f.coop) return p;
    if (per_sm <= 0) per_sm = 1;
    const int G = per_sm * f.sms, VEC = 16 / (int)sizeof(T);
    const int wb = Op == RK_GRID_LAYERNORM ? 2 : Op == RK_GRID_RMSNORM ? 1 : 0;
    const long long V = len / VEC, slice = (V + G - 1) / G * 16;
    if (len % VEC != 0 || V < G || G > RK_GRID_MAX_BLOCKS || per_sm > 2) return p;
    if (group <= 0) group = per_sm * slice >= (24 << 10) ? 1 : 2; /* 24 KB or more an SM a step */
    long long block_bytes = sm_bytes / per_sm - 1024;             /* the hardware keeps 1 KB a block */
    if (block_bytes > optin) block_bytes = optin;
    const long long room = block_bytes - 4096 - wb * slice; /* 4 KB for the static: statistics, shifts */
    int fit = (int)(room / (group * slice + 8));
    if (fit > RK_GRID_MAX_SLOTS) fit = RK_GRID_MAX_SLOTS;
    if (slots <= 0) slots = fit;
    if (lag < 0) lag = slots >= 5 ? 2 : 1;
    if (slots > fit || slots < lag + 3 || (group != 1 && group != 2)) return p;
    p.blocks = G;
    p.threads = per_sm == 1 ? 512 : 256;
    p.group = group;
    p.slots = slots;
    p.lag = lag;
    p.smem = (size_t)(slots + 2) / 2 * 16 + (size_t)(wb + group * slots) * (size_t)slice;
    return p;
}

/* Whether a block of `kernel` with smem bytes of dynamic shared memory fits on an SM (the
   kernel's limit raised to smem), asked once per kernel and size: the largest size that fitted is
   kept. */
template <typename Kernel> static bool rk_grid_resident(Kernel kernel, size_t smem, int threads, int per_sm)
{
    static rk_memo<size_t, 16> fitted;
    size_t largest = 0;
    int resident = 0;
    if (fitted.find((const void *)kernel, &largest) && smem <= largest) return true;
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, threads, smem) != cudaSuccess ||
        resident < per_sm) {
        cudaGetLastError(); /* a refused size is an answer, not an error for the next call */
        return false;
    }
    fitted.keep((const void *)kernel, smem);
    return true;
}

/* Launches rk_grid_rows<T, Op, R, Threads> (slots, group, per_sm: 0 for the plan's choice, lag: -1):
   cudaErrorNotSupported where it does not run (rk_grid_plan_for; a stream being captured into a
   graph; no room for the cells; fewer SMs than the GPU has), which the dispatchers answer with the
   streamed kernels. */
template <typename T, int Op>
static cudaError_t rk_grid_go(const T *x, const T *w, const T *b, T *y, long long rows, int len, float eps,
                              cudaStream_t stream, int slots = 0, int lag = -1, int group = 0, int per_sm = 0)
{
    const unsigned long long where = reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y) |
                                     (Op != RK_GRID_SOFTMAX ? reinterpret_cast<unsigned long long>(w) : 0) |
                                     (Op == RK_GRID_LAYERNORM ? reinterpret_cast<unsigned long long>(b) : 0);
    const int device = rk_device();
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if ((where & 15) != 0 || device < 0 || rk_grid_shared_stream(stream) ||
        cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone) {
        cudaGetLastError();
        return cudaErrorNotSupported; /* a graph would replay the tags the host chose: not in graphs */
    }
    rk_grid_plan p = {0, 0, 0, 0, 0, 0};
    void (*kernel)(const T *, const T *, const T *, T *, long long, int, float, rk_grid_cell *, unsigned, int, int) =
        NULL;
    for (int k = per_sm > 0 ? per_sm : sizeof(T) == 4 ? 2 : 1; k >= 1 && kernel == NULL; k--) {
        /* two blocks of 256 threads an SM: float32 2-3% faster, bfloat16 2-5% slower on an H200;
           else one of 512 */
        p = rk_grid_plan_for<T, Op>(len, slots, lag, group, k);
        if (p.blocks == 0) continue;
        kernel = p.threads == 512 ? (p.group == 1 ? rk_grid_rows<T, Op, 1, 512> : rk_grid_rows<T, Op, 2, 512>)
                                  : (p.group == 1 ? rk_grid_rows<T, Op, 1, 256> : rk_grid_rows<T, Op, 2, 256>);
        if (!rk_grid_resident(kernel, p.smem, p.threads, k)) kernel = NULL;
        if (per_sm > 0) break;
    }
    rk_grid_state *st = rk_grid_state_of(device, stream);
    if (kernel == NULL || st == NULL) return cudaErrorNotSupported;
    const size_t cells = (size_t)p.blocks * 2 * (2 * RK_GRID_MAX_SLOTS + 4); /* ring groups of up to 2 rows */
    if (st->cells == NULL || st->blocks < p.blocks) {
        if (st->cells) cudaFree(st->cells);
        st->cells = NULL;
        st->blocks = 0;
        if (cudaMalloc(&st->cells, cells * sizeof(rk_grid_cell)) != cudaSuccess) {
            cudaGetLastError(); /* no room for the cells: the streamed kernels instead */
            st->cells = NULL;
            return cudaErrorNotSupported;
        }
        st->blocks = p.blocks;
        st->next_tag = 0xffffffffu; /* the cells are cleared below, in the stream's order */
    }
    unsigned tag = st->next_tag;
    cudaError_t e;
    if ((unsigned long long)tag + (unsigned long long)rows > 0xffffffffULL) { /* new cells, or the tags would wrap */
        if ((e = cudaMemsetAsync(st->cells, 0, cells * sizeof(rk_grid_cell), stream)) != cudaSuccess) return e;
        tag = 1; /* 0 is the cleared cells' */
    }
    st->next_tag = tag + (unsigned)rows; /* no row of a later launch shares a tag with this one's */
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)p.blocks);
    config.blockDim = dim3((unsigned)p.threads);
    config.dynamicSmemBytes = p.smem;
    config.stream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    snprintf(rk_last_where, sizeof rk_last_where, "grid %d x %d, %d row%s a step", p.blocks, p.threads, p.group,
             p.group > 1 ? "s" : "");
    e = cudaLaunchKernelEx(&config, kernel, x, w, b, y, rows, len, eps, st->cells, tag, p.slots, p.lag);
    if (e == cudaErrorCooperativeLaunchTooLarge) { /* fewer SMs than asked (MPS, green contexts) */
        cudaGetLastError();
        return cudaErrorNotSupported;
    }
    return e;
}

/* Rows read in one pass (cross-entropy), streamed: the fewest blocks a row (1, 2, 4, .. up to
   limit) that give a block to at least 7/8 of the SMs. One block a row whenever the rows do that
   (more blocks a row measured slower); 64 rows on 132 SMs: 2. */
static inline int rk_balanced_cluster(long long rows, int limit)
{
    const long long want = (7LL * rk_sm_count() + 7) / 8;
    int c = 1;
    while (c * 2 <= limit && rows * c < want) c *= 2;
    return c;
}

/* Calls run<L>() with the layout for rows of len: the register layouts of the table; then, unless
   the op streams such rows (run.streamed(len): a cluster size, 0 for the table), the cluster
   layout when the GPU runs a large enough cluster, else the streamed one. */
template <typename T, class Run> static cudaError_t rk_by_length(int len, Run run)
{
    if (len <= 32) return run.template go<rk_regs<T, 32>>(1);
    if (len <= 64) return run.template go<rk_regs<T, 64>>(1);
    if (len <= 128) return run.template go<rk_regs<T, 128>>(1);
    if (len <= 256) return run.template go<rk_regs<T, 256>>(1);
    if (len <= 512) return run.template go<rk_regs<T, 512>>(1);
    if (len <= 1024) return run.template go<rk_regs<T, 1024>>(1);
    if (len <= 2048) return run.template go<rk_regs<T, 2048>>(1);
    if (len <= 4096) return run.template go<rk_regs<T, 4096>>(1);
    if (len <= 8192) return run.template go<rk_regs<T, 8192>>(1);
    if (len <= RK_BLOCK_MAX) return run.template go<rk_regs<T, RK_BLOCK_MAX>>(1);
    const int streamed = run.streamed(len);
    if (streamed == 0 && len <= RK_CLUSTER_MAX) {
        typedef typename rk_cluster_layout<T, Run>::type C;
        const int need = (len + C::THREADS * C::PER_THREAD - 1) / (C::THREADS * C::PER_THREAD);
        const int limit = run.template limit<C>(); /* 1: no clusters (the kernel is empty there) */
        if (limit > 1 && limit >= need) return run.template go<C>(need);
    }
    const int limit = run.template limit<rk_stream<T>>();
    const int cluster = streamed == 0 || streamed > limit ? limit : streamed;
    if (cluster > 1) return run.template go<rk_stream<T>>(cluster);
    return run.template go<rk_stream_block<T>>(1);
}

/* The kernel of each op for a layout: register kernels for the table's layouts, streamed ones for
   rk_stream and rk_stream_block. */

template <typename T> struct rk_softmax_run {
    const T *x;
    T *y;
    long long rows;
    int len;
    cudaStream_t stream;
    template <class L> static void (*kernel(void))(const T *, T *, long long, int)
    {
        if constexpr (rk_streamed<L>::value) return rk_softmax_stream<L, T>;
        else
            return rk_softmax_regs<L, T>;
    }
    template <class L> int limit(void) const { return rk_limit_of<L>(kernel<L>()); }
    /* rows of more than 256 KB: streamed, 128 KB of the row a block (most of it kept in shared
       memory); shorter ones from registers (rk_by_length) */
    int streamed(int len) const
    {
        const long long bytes = (long long)len * sizeof(T), share = 128 << 10;
        return bytes > 2 * share ? (int)((bytes + share - 1) / share) : 0;
    }
    template <class L> cudaError_t go(int cluster) const
    {
        if constexpr (rk_streamed<L>::value) {
            const cudaError_t e =
                !rk_grid_wanted<T>(RK_GRID_SOFTMAX, len)
                    ? cudaErrorNotSupported
                    : rk_grid_go<T, RK_GRID_SOFTMAX>(x, (const T *)NULL, (const T *)NULL, y, rows, len, 0.0f, stream);
            if (e != cudaErrorNotSupported) return e;
        }
        const size_t smem = rk_streamed<L>::value ? rk_stream_smem<L>(kernel<L>(), len, cluster) : 0;
        return rk_launch_with<L>(kernel<L>(), rows, cluster, smem, stream, x, y, rows, len);
    }
};

template <typename T> struct rk_norm_run {
    const T *x, *w, *b;
    T *y;
    long long rows;
    int len;
    float eps;
    int center; /* 1: layernorm, 0: rmsnorm */
    cudaStream_t stream;
    template <class L> int limit(void) const
    {
        if constexpr (rk_streamed<L>::value) return rk_limit_of<L>(rk_norm_stream<L, T>);
        else
            return center ? rk_limit_of<L>(rk_layernorm_regs<L, T>) : rk_limit_of<L>(rk_rmsnorm_regs<L, T>);
    }
    int streamed(int) const { return 0; } /* the table's layouts while they hold the row */
    /* rows a persistent cluster holds (rk_norm_cluster_rows) in the layout W, whose blocks take
       W::PER_THREAD values a thread: cudaErrorNotSupported where the GPU runs no cluster that long */
    template <class W> cudaError_t go_persistent(void) const
    {
        void (*kernel)(const T *, const T *, const T *, T *, long long, int, float) =
            center ? rk_norm_cluster_rows<W, T, true> : rk_norm_cluster_rows<W, T, false>;
        const long long per_block = (long long)W::THREADS * W::PER_THREAD;
        const int cluster = (int)((len + per_block - 1) / per_block);
        const size_t smem = (size_t)W::BLOCK * W::VECS * sizeof(uint4) * (center ? 2 : 1);
        const int resident = rk_resident_clusters(kernel, W::BLOCK, cluster, smem);
        if (cluster < 2 || resident < 1) return cudaErrorNotSupported;
        return rk_launch_with<W>(kernel, rows < resident ? rows : resident, cluster, smem, stream, x, w, b, y, rows,
                                 len, eps);
    }
    /* a cluster's rows, where they are whole 16-byte vectors: persistent clusters
       (rk_norm_cluster_rows), 64 bytes of the row a thread (two blocks an SM), or 128 (one block
       an SM, up to 128 registers a thread) for float rows longer than 65536 (on an H200
       1.02 of the copy kernel at 131072 against 0.98 in clusters of 16 of 64 bytes; bfloat16 ran
       faster with 64 bytes at every length). Rows off 16-byte boundaries (element loads) ran
       slower that way (bfloat16 100003: 0.26 of the copy kernel against 0.34) and keep
       rk_norm_rows: cudaErrorNotSupported. */
    cudaError_t go_cluster(void) const
    {
        typedef warpred_row_layout<T, 512, 64 / sizeof(T), 16> W64;
        typedef warpred_row_layout<T, 512, 128 / sizeof(T), 16> W128;
        const unsigned long long where =
            reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y) |
            reinterpret_cast<unsigned long long>(w) | (center ? reinterpret_cast<unsigned long long>(b) : 0);
        if ((where & 15) != 0 || len % W64::VEC != 0) return cudaErrorNotSupported;
        const bool wide_first = sizeof(T) == 4 && len > 65536;
        cudaError_t e = wide_first ? go_persistent<W128>() : go_persistent<W64>();
        if (e == cudaErrorNotSupported) e = wide_first ? go_persistent<W64>() : go_persistent<W128>();
        return e;
    }
    template <class L> cudaError_t go(int cluster) const
    {
        if constexpr (L::CLUSTER > 1 && !rk_streamed<L>::value) {
            const cudaError_t e = go_cluster();
            if (e != cudaErrorNotSupported) return e;
        }
        if constexpr (rk_streamed<L>::value) {
            const cudaError_t e = !rk_grid_wanted<T>(RK_GRID_LAYERNORM, len) ? cudaErrorNotSupported
                                  : center ? rk_grid_go<T, RK_GRID_LAYERNORM>(x, w, b, y, rows, len, eps, stream)
                                           : rk_grid_go<T, RK_GRID_RMSNORM>(x, w, b, y, rows, len, eps, stream);
            if (e != cudaErrorNotSupported) return e;
            return rk_launch_with<L>(rk_norm_stream<L, T>, rows, cluster,
                                     rk_stream_smem<L>(rk_norm_stream<L, T>, len, cluster), stream, x, w, b, y, rows,
                                     len, eps, center);
        } else if constexpr (L::CLUSTER == 1 && L::VECS <= 2) {
            if (center) return rk_launch_grouped<L>(rk_norm_held<L, T, true>, rows, stream, x, w, b, y, rows, len, eps);
            return rk_launch_grouped<L>(rk_norm_held<L, T, false>, rows, stream, x, w, b, y, rows, len, eps);
        } else {
            if (center) return rk_launch<L>(rk_layernorm_regs<L, T>, rows, cluster, stream, x, w, b, y, rows, len, eps);
            return rk_launch<L>(rk_rmsnorm_regs<L, T>, rows, cluster, stream, x, w, y, rows, len, eps);
        }
    }
};

/* Cross-entropy's register layouts: the policy's (L), with twice the bytes a thread where that
   measured faster (top of this file): a segment of 8..32 lanes holding 32 bytes a lane, and a
   block holding 64 bytes a thread or fewer, take half the threads. */
template <class L> struct rk_ce_regs {
    typedef L type;
};
template <typename T, int Threads, int PerThread> struct rk_ce_regs<warpred_row_layout<T, Threads, PerThread, 1>> {
    enum {
        bytes = PerThread * (int)sizeof(T),
        twice = (Threads >= 8 && Threads <= 32 && bytes == 32) || (Threads > 32 && Threads / 2 >= 32 && bytes <= 64)
    };
    typedef warpred_row_layout<T, twice ? Threads / 2 : Threads, twice ? PerThread * 2 : PerThread, 1> type;
};

template <typename T> struct rk_ce_run {
    const T *x;
    const int *targets;
    float *loss;
    int *argmax;
    long long rows;
    int len;
    int mean_slot; /* -1: no mean in the launch */
    cudaStream_t stream;
    template <class L> static void (*kernel(void))(const T *, const int *, float *, int *, long long, int, int)
    {
        if constexpr (rk_streamed<L>::value) return rk_cross_entropy_stream<typename rk_ce_layout<L>::type, T>;
        else
            return rk_cross_entropy_regs<L, T>;
    }
    template <class L> int limit(void) const { return rk_cluster_limit(kernel<L>(), L::BLOCK); }
    /* rows longer than a block's registers hold: one pass, streamed, by as few blocks a row as
       give most SMs a block (nothing is kept, so a cluster's registers would only wait) */
    int streamed(int) const { return rk_balanced_cluster(rows, limit<rk_stream<T>>()); }
    template <class L> cudaError_t launch(int cluster) const
    {
        return rk_launch<L>(kernel<L>(), rows, cluster, stream, x, targets, loss, argmax, rows, len, mean_slot);
    }
    template <class P> cudaError_t go(int cluster) const
    {
        typedef typename rk_ce_regs<P>::type L;
        if constexpr (rk_streamed<L>::value && L::CLUSTER > 1) {
            /* clusters that all run at once with a block of 1024 an SM: blocks of 1024 (on an
               H200, L = 2^20, 64 rows: bfloat16 0.68 -> 0.80 of the read kernel, float32
               0.93-0.95 either way; clusters of 4 x 1024, which do not all run at once, 0.53) */
            typedef rk_ce_stream_wide<T> W;
            if (rows <= rk_resident_clusters(kernel<W>(), W::BLOCK, cluster, 0)) return launch<W>(cluster);
        }
        if constexpr (rk_streamed<L>::value && L::CLUSTER == 1) {
            if (rows >= 4LL * rk_sm_count()) return launch<rk_ce_stream_small<T>>(1);
        }
        return launch<L>(cluster);
    }
};

template <typename T> static cudaError_t rk_check_shape(const T *x, long long rows, int len)
{
    return x == NULL || rows < 1 || len < 1 ? cudaErrorInvalidValue : cudaSuccess;
}

template <typename T> static cudaError_t rk_softmax(const T *x, T *y, long long rows, int len, cudaStream_t stream)
{
    if (rk_check_shape(x, rows, len) != cudaSuccess || y == NULL) return cudaErrorInvalidValue;
    const rk_softmax_run<T> run = {x, y, rows, len, stream};
    return rk_by_length<T>(len, run);
}

template <typename T>
static cudaError_t rk_layernorm(const T *x, const T *w, const T *b, T *y, long long rows, int len, float eps,
                                cudaStream_t stream)
{
    if (rk_check_shape(x, rows, len) != cudaSuccess || !w || !b || !y) return cudaErrorInvalidValue;
    const rk_norm_run<T> run = {x, w, b, y, rows, len, eps, 1, stream};
    return rk_by_length<T>(len, run);
}

template <typename T>
static cudaError_t rk_rmsnorm(const T *x, const T *w, T *y, long long rows, int len, float eps, cudaStream_t stream)
{
    if (rk_check_shape(x, rows, len) != cudaSuccess || !w || !y) return cudaErrorInvalidValue;
    const rk_norm_run<T> run = {x, w, (const T *)NULL, y, rows, len, eps, 0, stream};
    return rk_by_length<T>(len, run);
}

/* How cross-entropy takes its mean: 0 its own kernels (rk_mean_of_cells or rk_mean_of_losses), a
   programmatic dependent launch on sm_90+ (a plain launch before); 1 the same kernels, always a
   plain launch; 2 a second reduction, warpred_device_transform_reduce over the losses. 0 unless a
   benchmark or a test compares them. */
static int rk_mean_mode;

/* The slot of rk_mean_cells that a plan stands for: the first RK_MEAN_SLOTS plans get one each;
   -1 for the others (their means take the losses). One host thread: not locked. */
static int rk_mean_slot(const warpred_device_plan *plan)
{
    static const warpred_device_plan *plans[RK_MEAN_SLOTS];
    static int count;
    for (int i = 0; i < count; i++)
        if (plans[i] == plan) return i;
    if (count == RK_MEAN_SLOTS) return -1;
    plans[count] = plan;
    return count++;
}

/* A launch of the mean's kernel on stream, after the cross-entropy launch. */
template <typename... Params, typename... Args>
static cudaError_t rk_mean_go(void (*kernel)(Params...), unsigned blocks, unsigned threads, cudaStream_t stream,
                              Args... args)
{
    cudaLaunchAttribute attr = {};
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.stream = stream;
    if (rk_mean_mode == 0 && rk_facts().major >= 9) {
        attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr.val.programmaticStreamSerializationAllowed = 1;
        config.attrs = &attr;
        config.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&config, kernel, args...);
}

/* The mean of the launch just made: from its cells where it stored them, else from the losses
   (blocks enough for 8 loads a thread, at most the plan's grid). */
static cudaError_t rk_mean_launch(const warpred_device_plan *plan, int slot, const float *loss, long long rows,
                                  float *mean, cudaStream_t stream)
{
    if (slot >= 0 && rk_last_row_threads > 32 && rk_last_blocks <= RK_MEAN_CELLS)
        return rk_mean_go(rk_mean_of_cells, 1, RK_MEAN_THREADS, stream, slot, (int)rk_last_blocks, rows, mean);
    const long long per_block = 8LL * RK_MEAN_LOSS_THREADS, want = (rows + per_block - 1) / per_block;
    const unsigned blocks = want < (long long)plan->max_blocks ? (unsigned)want : plan->max_blocks;
    return rk_mean_go(rk_mean_of_losses, blocks, RK_MEAN_LOSS_THREADS, stream, loss, rows, (float)(1.0 / (double)rows),
                      plan->scratch, mean);
}

/* loss[r] * (1 / rows), summed: the mean by warpred_device_transform_reduce (rk_mean_mode 2). */
struct rk_scaled {
    float s;
    __device__ float operator()(float x, size_t) const { return x * s; }
};

template <typename T>
static cudaError_t rk_cross_entropy(const T *x, const int *targets, float *loss, int *argmax, long long rows, int len,
                                    const warpred_device_plan *plan, float *mean, cudaStream_t stream)
{
    if (rk_check_shape(x, rows, len) != cudaSuccess || !targets || !loss || !argmax || (mean && !plan))
        return cudaErrorInvalidValue;
    const int slot = mean == NULL || rk_mean_mode == 2 ? -1 : rk_mean_slot(plan);
    const rk_ce_run<T> run = {x, targets, loss, argmax, rows, len, slot, stream};
    cudaError_t err = rk_by_length<T>(len, run);
    if (err != cudaSuccess || mean == NULL) return err;
    if (rk_mean_mode != 2) return rk_mean_launch(plan, slot, loss, rows, mean, stream);
    const rk_scaled scale = {(float)(1.0 / (double)rows)};
    return warpred_device_transform_reduce(plan, loss, (size_t)rows, mean, warpred_op_sum(), scale, stream);
}

#endif /* RK_ROW_KERNELS_CUH */
