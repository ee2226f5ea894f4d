/* warpred/device_rows_kernel.cuh - the kernels behind device_rows.cuh.      MIT licensed.

   device_rows.cuh's host functions choose a strategy and launch one of these; this header
   holds them apart from the host code, so that NVRTC (which compiles no host code) and other
   launchers can use them. Every kernel reads slices of the input with the element readers
   below (16-byte loads where the slice's address allows, several loads in flight), takes each
   transformed element into the operation's accumulator (operation.cuh), combines the
   accumulators through the warp and block layers' entry points and stores g(finish(total), k).

   Kernels (S: the plan's scratch, below):
     warpred__rows_lanes_kernel<W>     W lanes per row, U rows in flight per group
     warpred__rows_block_kernel        a block per row, rows in turn (a block reducer)
     warpred__rows_split_kernel        chunks of a row over several blocks; the row's last
                                       block folds the chunks' partials in chunk order
     warpred__columns_kernel           a column (or 16 bytes of columns) per thread, rows over
                                       the block's threads and over several blocks
     warpred__ranges_kernel            a warp's tiles of ranges folded together through shared
                                       memory; long ranges cut in chunks that every warp
                                       takes (see RANGES below)
     warpred__slices_identity_kernel   g(identity) into every slice of an empty shape

   This header needs block_reducer.cuh, cluster_reduce.cuh, grid_reduce.cuh (the tickets),
   device_reduce_kernel.cuh (its 16-byte reader) and what they need beside it.
*/
#ifndef WARPRED_DEVICE_ROWS_KERNEL_CUH
#define WARPRED_DEVICE_ROWS_KERNEL_CUH

#include "block_reducer.cuh"
#include "cluster_reduce.cuh"
#include "grid_reduce.cuh" /* warpred__ticket, warpred__load_cg, warpred__fold_partials */
#include "device_reduce_kernel.cuh" /* the 16-byte reader (warpred__per_vector, warpred__device_take_vector) and warpred__store_whole */
#ifndef __CUDACC_RTC__
#    include <string.h> /* memcpy, which NVRTC has built in */
#endif

enum {
    WARPRED_ROWS_THREADS = 256,         /* block size of every kernel here */
    WARPRED_ROWS_RANGE_CHUNK = 1 << 13, /* elements per chunk of a long range */
    WARPRED_ROWS_QUEUE = 1 << 16        /* chunks of long ranges that every warp can take, at once */
};

/* The scratch of a plan. counters: [0, counters) tickets (a split row's, a column tile's and its
   runs of parts'), zero between launches (the last user of each sets it back); then
   WARPRED__ROWS_WORDS words of the ranges queue. partials: `capacity` values of up to
   value_bytes each. queue: WARPRED_ROWS_QUEUE entries, one per queued chunk (entry c: chunk c's
   range), so that a chunk's number leads to its range in one read. */
typedef struct warpred__rows_entry {
    unsigned long long range; /* the range's index */
    unsigned long long begin; /* its first element */
    unsigned long long len;   /* its length */
    unsigned chunks;          /* WARPRED_ROWS_RANGE_CHUNK elements each, the last shorter */
    unsigned base;            /* its chunks' numbers, and their partials: base .. base + chunks - 1 */
    unsigned done;            /* in entry base: chunks whose partials are stored */
    unsigned pad;
} warpred__rows_entry;

/* The queue's words. QUEUED (64 bits): chunk numbers handed out, taken in one atomic a warp;
   TAKEN: chunk numbers taken by helpers; CUT: the complement of the first chunk number that no
   entry holds (0: none cut); LISTED: warps that have queued all their long ranges; EXITED,
   STARTED: blocks done, begun; TILES: WARPRED__ROWS_STREAMS counters of 64 bits, each of the
   last quarter's tiles of ranges taken by its warps. Each counter has a 128-byte line of its
   own: thousands of warps read LISTED while they wait, and the atomics of the warps queueing
   long ranges, on a counter sharing that line, queued up behind those reads (while every other
   warp waited for them). */
enum {
    WARPRED__ROWS_LINE = 32,  /* words in 128 bytes */
    WARPRED__ROWS_QUEUED = 0, /* and 1 */
    WARPRED__ROWS_TAKEN = 1 * WARPRED__ROWS_LINE,
    WARPRED__ROWS_CUT = 2 * WARPRED__ROWS_LINE,
    WARPRED__ROWS_LISTED = 3 * WARPRED__ROWS_LINE,
    WARPRED__ROWS_EXITED = 4 * WARPRED__ROWS_LINE,
    WARPRED__ROWS_STARTED = 5 * WARPRED__ROWS_LINE,
    WARPRED__ROWS_TILES = 6 * WARPRED__ROWS_LINE, /* 64 bits each, a line apart */
    WARPRED__ROWS_STREAMS = 8,                    /* counters of the last quarter's tiles: fewer atomics on each */
    WARPRED__ROWS_WORDS = WARPRED__ROWS_TILES + WARPRED__ROWS_STREAMS * WARPRED__ROWS_LINE
};

typedef struct warpred__rows_scratch {
    void *partials;
    unsigned *counters;
    warpred__rows_entry *queue;
    unsigned capacity; /* partials */
    unsigned tickets;  /* counters before the queue words */
} warpred__rows_scratch;

/* T without const, volatile or reference: the type a transform's result is accumulated as. */
template <typename T> struct warpred__decay {
    typedef T type;
};
template <typename T> struct warpred__decay<T &> : warpred__decay<T> {};
template <typename T> struct warpred__decay<T &&> : warpred__decay<T> {};
template <typename T> struct warpred__decay<const T> : warpred__decay<T> {};
template <typename T> struct warpred__decay<volatile T> : warpred__decay<T> {};

/* A finish that stores the result as it is. */
struct warpred_fin_identity {
    template <typename R> __device__ __forceinline__ R operator()(R r, size_t) const { return r; }
};

/* A load that later loads cannot pass (ld.acquire at GPU scope). */
__device__ __forceinline__ unsigned warpred__load_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Lane q of w folds partials q, q + w, ... < n (n >= 1 when q == 0) in that order, eight loads
   in flight; lanes with none keep the accumulator's start. */
template <typename Acc, typename Op>
__device__ __forceinline__ typename Acc::type warpred__rows_fold_strided(const typename Acc::type *partials, size_t n,
                                                                         unsigned q, unsigned w, Op op)
{
    typedef typename Acc::type A;
    enum { B = 8 };
    A acc = Acc::start();
    for (size_t k = q; k < n; k += (size_t)B * w) {
        A x[B];
#pragma unroll
        for (int b = 0; b < B; b++)
            if (k + b * w < n) x[b] = warpred__load_cg(&partials[k + b * w]);
        acc = k == q ? x[0] : op(acc, x[0]);
#pragma unroll
        for (int b = 1; b < B; b++)
            if (k + b * w < n) acc = op(acc, x[b]);
    }
    return acc;
}

/* ---- element readers ---- */

/* Lane q of a group of w lanes takes its share of p[0 .. n), whose first element has index
   `first` in its slice: single elements up to the first 16-byte boundary, 16-byte loads with
   V in flight (lane q: loads q, q + w, ...), single elements after the last. For T that does
   not divide 16: single elements, V in flight. */
template <typename T, typename Acc, int V, typename Op, typename F>
__device__ __forceinline__ void warpred__rows_take(typename Acc::type &acc, const T *__restrict__ p, size_t n,
                                                   size_t first, unsigned q, unsigned w, Op op, F f)
{
    enum { K = warpred__per_vector<T>::value };
    if constexpr (K != 0) {
        const size_t misalign = ((size_t)p % 16) / sizeof(T);
        size_t head = misalign ? K - misalign : 0;
        if (head > n) head = n;
        for (size_t i = q; i < head; i += w) Acc::absorb(op, acc, f(p[i], first + i));
        const uint4 *__restrict__ vec = (const uint4 *)(p + head);
        const size_t nv = (n - head) / K;
        size_t j = q;
        for (; j + (size_t)(V - 1) * w < nv; j += (size_t)V * w) {
            uint4 raw[V];
#pragma unroll
            for (int u = 0; u < V; u++) raw[u] = __ldg(&vec[j + u * w]);
#pragma unroll
            for (int u = 0; u < V; u++)
                warpred__device_take_vector<T, Acc>(acc, raw[u], first + head + (j + u * w) * K, op, f);
        }
        for (; j < nv; j += w) warpred__device_take_vector<T, Acc>(acc, __ldg(&vec[j]), first + head + j * K, op, f);
        for (size_t i = head + nv * K + q; i < n; i += w) Acc::absorb(op, acc, f(p[i], first + i));
    } else {
        size_t i = q;
        for (; i + (size_t)(V - 1) * w < n; i += (size_t)V * w) {
            T e[V];
#pragma unroll
            for (int u = 0; u < V; u++) e[u] = p[i + u * w];
#pragma unroll
            for (int u = 0; u < V; u++) Acc::absorb(op, acc, f(e[u], first + i + u * w));
        }
        for (; i < n; i += w) Acc::absorb(op, acc, f(p[i], first + i));
    }
}

/* The finished result of slice k, as out holds it. */
template <typename Acc, typename O, typename G>
__device__ __forceinline__ O warpred__rows_result(const typename Acc::type &total, size_t k, G g)
{
    return (O)g(Acc::finish(total), k);
}

/* The finished result of slice k into out[k]. */
template <typename Acc, typename O, typename G>
__device__ __forceinline__ void warpred__rows_store(O *out, size_t k, const typename Acc::type &total, G g)
{
    warpred__store_whole(out + k, warpred__rows_result<Acc, O>(total, k, g));
}

/* ---- rows: W lanes per row ---- */

/* Rows in flight per group: as many as keep the accumulators in registers. */
template <typename A> struct warpred__rows_in_flight {
    enum { value = sizeof(A) <= 8 ? 4 : sizeof(A) <= 16 ? 2 : 1 };
};

/* Blocks an SM that the lanes kernel is compiled for (__launch_bounds__; registers a thread:
   64 at 4 blocks, 80 at 3, 128 at 2), measured on an H200 over 2^26 floats or doubles: groups
   of several lanes over floats or smaller, and doubles a warp a row, at 4 (float max and argmax
   rows of 16 to 4096 elements up to 1.2x faster than at 3, sums as fast); doubles in groups
   narrower than a warp at 3 (at 4: slower); a lane a row at 3, or 2 for doubles (at 4 they
   spill). Accumulators above 8 bytes: 2 (one or two rows in flight need fewer registers). */
template <int W, typename T, typename A> struct warpred__rows_lanes_blocks {
    enum { value = sizeof(A) > 8 ? 2 : W == 1 ? (sizeof(T) > 4 ? 2 : 3) : sizeof(T) <= 4 || W == 32 ? 4 : 3 };
};

/* Rows of S 16-byte loads (S = 1 or 2, and a tail of fewer than K elements), a lane a row
   (thread t: rows t, t + G, ...), for accumulators the lanes kernel keeps one row of in flight
   (over 16 bytes): the loads of 4 / S rows issued together, then each row absorbed, finished
   and stored in turn with one accumulator live. In the lanes kernel a lane waited on its one
   row's load or two (reproducible sums of rows of 4 floats ran at 0.55 of the plain sum's speed
   on an H200). A row is absorbed in the lanes kernel's order (the same bits); compiled for two
   blocks an SM, as the lanes kernel is for such accumulators. The host takes it only for
   results of up to 8 bytes (device_rows.cuh says where it measured faster). */
template <int S, typename T, typename R, typename Op, typename F, typename O, typename G>
__global__ void __launch_bounds__(WARPRED_ROWS_THREADS, 2)
    warpred__rows_short_kernel(const T *__restrict__ in, size_t rows, size_t cols, size_t ld, O *out, Op op, F f, G g)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    enum { K = warpred__per_vector<T>::value, ROWS = 4 / S };
    const size_t thread = blockIdx.x * (size_t)WARPRED_ROWS_THREADS + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * WARPRED_ROWS_THREADS;
    for (size_t r0 = thread; r0 < rows; r0 += ROWS * threads) {
        uint4 raw[ROWS][S];
#pragma unroll
        for (int u = 0; u < ROWS; u++)
#pragma unroll
            for (int v = 0; v < S; v++)
                if (r0 + u * threads < rows) raw[u][v] = __ldg((const uint4 *)(in + (r0 + u * threads) * ld) + v);
#pragma unroll
        for (int u = 0; u < ROWS; u++) {
            const size_t r = r0 + u * threads;
            if (r >= rows) break;
            typename Acc::type acc = Acc::start();
#pragma unroll
            for (int v = 0; v < S; v++) warpred__device_take_vector<T, Acc>(acc, raw[u][v], v * K, op, f);
            for (size_t i = S * K; i < cols; i++) Acc::absorb(op, acc, f(in[r * ld + i], i));
            warpred__rows_store<Acc>(out, r, acc, g);
        }
    }
}

/* Groups of W lanes; group g takes rows g, g + G, ... (G groups in the grid), U at a time. Rows
   whose every start is 16 bytes aligned (`aligned`) are read in 16-byte loads, V = 4 / U a row
   in flight per lane step (U V together: with one load a row, reproducible sums, one row in
   flight, waited on each load; rows of 32 floats, a lane each, took 110 us instead of 92 on an
   H200; a lane absorbs its loads in the same order either way); others one element at a time.
   A warp's groups of more than one lane with accumulators of up to 8 bytes take their turns
   together (a group past the last row takes none), so that every lane of the warp calls the
   trees: they shuffle with the whole warp's mask, without an __activemask() vote first, and the
   U trees interleave. */
template <int W, typename T, typename R, typename Op, typename F, typename O, typename G>
__global__ void __launch_bounds__(WARPRED_ROWS_THREADS,
                                  warpred__rows_lanes_blocks<W, T, typename warpred_op_accumulator<Op, R>::type>::value)
    warpred__rows_lanes_kernel(const T *__restrict__ in, size_t rows, size_t cols, size_t ld, bool aligned, O *out,
                               Op op, F f, G g)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    enum {
        U = warpred__rows_in_flight<A>::value,
        V = 4 / U, /* 16-byte loads in flight a row and lane */
        K = warpred__per_vector<T>::value
    };
    const size_t thread = blockIdx.x * (size_t)WARPRED_ROWS_THREADS + threadIdx.x;
    const size_t group = thread / W, groups = (size_t)gridDim.x * (WARPRED_ROWS_THREADS / W);
    /* larger accumulators (warpred_rsum, Welford) keep each group's own turns and
       warpred_warp_reduce's trees: with whole-warp trees the kernel took 56 registers instead
       of 46-48, and reproducible sums of rows of 64..512 floats ran 12-16% longer on an H200 */
    constexpr bool WHOLE = W > 1 && U == 4;                           /* U == 4: accumulators of up to 8 bytes */
    const size_t warp_group = WHOLE ? thread / 32 * (32 / W) : group; /* the warp's first group */
    const unsigned q = threadIdx.x % W;
    for (size_t turn = warp_group; turn < rows; turn += U * groups) {
        const size_t r0 = turn + (group - warp_group);
        A acc[U];
        const T *p[U];
        bool live[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            acc[u] = Acc::start();
            live[u] = r0 + u * groups < rows;
            p[u] = in + (live[u] ? r0 + u * groups : 0) * ld;
        }
        if constexpr (K != 0) {
            if (aligned) {
                const size_t nv = cols / K;
                size_t j = q;
                if constexpr (V > 1) /* fewer rows in flight: more loads a row, absorbed in the same order */
                    for (; j + (size_t)(V - 1) * W < nv; j += (size_t)V * W) {
                        uint4 raw[V][U];
#pragma unroll
                        for (int v = 0; v < V; v++)
#pragma unroll
                            for (int u = 0; u < U; u++)
                                if (live[u]) raw[v][u] = __ldg((const uint4 *)p[u] + j + v * W);
#pragma unroll
                        for (int v = 0; v < V; v++)
#pragma unroll
                            for (int u = 0; u < U; u++)
                                if (live[u])
                                    warpred__device_take_vector<T, Acc>(acc[u], raw[v][u], (j + v * W) * K, op, f);
                    }
                for (; j < nv; j += W) {
                    uint4 raw[U];
#pragma unroll
                    for (int u = 0; u < U; u++)
                        if (live[u]) raw[u] = __ldg((const uint4 *)p[u] + j);
#pragma unroll
                    for (int u = 0; u < U; u++)
                        if (live[u]) warpred__device_take_vector<T, Acc>(acc[u], raw[u], j * K, op, f);
                }
                for (size_t i = nv * K + q; i < cols; i += W)
#pragma unroll
                    for (int u = 0; u < U; u++)
                        if (live[u]) Acc::absorb(op, acc[u], f(p[u][i], i));
            }
        }
        if (K == 0 || !aligned) {
            for (size_t i = q; i < cols; i += W) {
                T e[U];
#pragma unroll
                for (int u = 0; u < U; u++)
                    if (live[u]) e[u] = p[u][i];
#pragma unroll
                for (int u = 0; u < U; u++)
                    if (live[u]) Acc::absorb(op, acc[u], f(e[u], i));
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            if constexpr (WHOLE) acc[u] = warpred__warp_reduce_whole<false, W>(acc[u], op);
            else
                acc[u] = warpred_warp_reduce<W>(acc[u], op);
        }
        if (q == 0)
#pragma unroll
            for (int u = 0; u < U; u++)
                if (live[u]) warpred__rows_store<Acc>(out, r0 + u * groups, acc[u], g);
    }
}

/* ---- rows shorter than a 16-byte load ---- */

/* The N results in words of type W (uint4, uint2) when they fill them whole and out is so
   aligned (`out_misalign`: (size_t)out % 16 of the kernel's first output); false when not. */
template <typename W, int N, typename O>
__device__ __forceinline__ bool warpred__rows_store_words(O *out, const O (&res)[N], unsigned out_misalign)
{
    enum { WORDS = N * sizeof(O) / sizeof(W) };
    if constexpr (N * sizeof(O) % sizeof(W) == 0) {
        if (out_misalign % sizeof(W) == 0) {
            W w[WORDS];
            memcpy(w, res, sizeof w);
#pragma unroll
            for (unsigned i = 0; i < WORDS; i++) ((W *)out)[i] = w[i];
            return true;
        }
    }
    return false;
}

/* N results of consecutive slices into out[0 .. N): in 16-byte (or 8-byte) stores where they
   can (warpred__rows_store_words), else one at a time. One store per result left a warp's 32
   stores spread over 32 sectors: argmax rows of one float (8-byte results) ran 10x slower than
   the read ceiling on an H200. */
template <int N, typename O>
__device__ __forceinline__ void warpred__rows_store_run(O *out, const O (&res)[N], unsigned out_misalign)
{
    if (warpred__rows_store_words<uint4>(out, res, out_misalign)) return;
    if (warpred__rows_store_words<uint2>(out, res, out_misalign)) return;
#pragma unroll
    for (int i = 0; i < N; i++) warpred__store_whole(out + i, res[i]);
}

/* Contiguous rows (ld == cols) of P elements, P dividing K: each 16-byte load holds K / P whole
   rows; thread t takes loads t, t + G, ... and stores their rows' results together. A row's
   elements go in as one batch (warpred_rsum: its first batch sets its bin, where one element at
   a time would lift it). The last rows, past the last whole load, one element at a time. (Two
   loads in flight a thread measured no faster.) */
template <int P, typename T, typename R, typename Op, typename F, typename O, typename G>
__global__ void __launch_bounds__(WARPRED_ROWS_THREADS)
    warpred__rows_packed_kernel(const T *__restrict__ in, size_t rows, O *out, Op op, F f, G g)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    enum { K = warpred__per_vector<T>::value, PER = K / P };
    const size_t t0 = blockIdx.x * (size_t)WARPRED_ROWS_THREADS + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * WARPRED_ROWS_THREADS;
    const size_t nv = rows / PER;
    const unsigned out_misalign = (unsigned)((size_t)out % 16);
    const uint4 *__restrict__ vec = (const uint4 *)in;
    for (size_t j = t0; j < nv; j += threads) {
        T e[K];
        const uint4 raw = __ldg(&vec[j]);
        memcpy(e, &raw, 16);
        O res[PER];
#pragma unroll
        for (int r = 0; r < PER; r++) {
            A acc = Acc::start();
            warpred__device_take_span<P, T, Acc>(acc, e + r * P, 0, op, f);
            res[r] = warpred__rows_result<Acc, O>(acc, j * PER + r, g);
        }
        warpred__rows_store_run<PER>(out + j * PER, res, out_misalign);
    }
    for (size_t r = nv * PER + t0; r < rows; r += threads) {
        A acc = Acc::start();
        for (int i = 0; i < P; i++) Acc::absorb(op, acc, f(in[r * P + i], (size_t)i));
        warpred__rows_store<Acc>(out, r, acc, g);
    }
}

/* ---- rows: a block per row ---- */

template <typename T, typename R, typename Op, typename F, typename O, typename G>
__global__ void __launch_bounds__(WARPRED_ROWS_THREADS)
    warpred__rows_block_kernel(const T *__restrict__ in, size_t rows, size_t cols, size_t ld, O *out, Op op, F f, G g)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    WARPRED_BLOCK_REDUCER(block, A, WARPRED_ROWS_THREADS);
    for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
        A acc = Acc::start();
        warpred__rows_take<T, Acc, 4>(acc, in + r * ld, cols, 0, threadIdx.x, WARPRED_ROWS_THREADS, op, f);
        acc = block.reduce(acc, op);
        if (threadIdx.x == 0) warpred__rows_store<Acc>(out, r, acc, g);
    }
}

/* ---- rows: a cluster per row ---- */

/* Clusters of C blocks along x; cluster i takes rows i, i + clusters, ...; the block of rank b
   takes loads b * 256 + t, b * 256 + t + C * 256, ... of the row (thread t). Compiled empty
   for archs without clusters (the host launches it only on sm_90 and newer). */
template <int C, typename T, typename R, typename Op, typename F, typename O, typename G>
__global__ void __launch_bounds__(WARPRED_ROWS_THREADS)
    warpred__rows_cluster_kernel(const T *__restrict__ in, size_t rows, size_t cols, size_t ld, O *out, Op op, F f, G g)
{
#if WARPRED_HAS_CLUSTERS
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    const unsigned rank = blockIdx.x % C;
    const size_t clusters = gridDim.x / C;
    for (size_t r = blockIdx.x / C; r < rows; r += clusters) {
        A acc = Acc::start();
        warpred__rows_take<T, Acc, 4>(acc, in + r * ld, cols, 0, rank * WARPRED_ROWS_THREADS + threadIdx.x,
                                      C * WARPRED_ROWS_THREADS, op, f);
        acc = warpred__cluster_fold<false, WARPRED_ROWS_THREADS>(acc, op);
        if (rank == 0 && threadIdx.x == 0) warpred__rows_store<Acc>(out, r, acc, g);
    }
#endif
}

/* ---- rows: several blocks per row ---- */

/* The block's partials of one slice, stored by its blocks in turn, folded by the last: thread t
   folds partials t, t + 256, ... in that order, then the block tree. Returns the total in thread
   0 of the block that stored the last partial (and sets the slice's ticket back to zero), false
   elsewhere. Every thread of the block calls with its own value's block total in thread 0. */
template <typename A, typename Op, typename Reducer>
__device__ __forceinline__ bool warpred__rows_fold_chunks(A &total, Op op, Reducer &block, A *partials, unsigned chunk,
                                                          unsigned chunks, unsigned *ticket)
{
    bool last = false;
    if (threadIdx.x == 0) {
        partials[chunk] = total;
        last = warpred__ticket(ticket) == chunks - 1;
    }
    /* the barrier carries thread 0's acquire to the block's other threads */
    if (!__syncthreads_or(last)) return false;
    A acc = warpred_op_accumulator<Op, A>::start();
    if (threadIdx.x < chunks) acc = warpred__fold_partials(partials, chunks, threadIdx.x, WARPRED_ROWS_THREADS, op);
    acc = block.reduce(acc, op);
    if (threadIdx.x == 0) *ticket = 0;
    total = acc;
    return threadIdx.x == 0;
}

/* Row r is cut in `chunks` chunks of `chunk` elements (the last shorter); item i = r * chunks +
   c; blocks take items in turn. */
template <typename T, typename R, typename Op, typename F, typename O, typename G>
__global__ void __launch_bounds__(WARPRED_ROWS_THREADS)
    warpred__rows_split_kernel(const T *__restrict__ in, size_t rows, size_t cols, size_t ld, size_t chunk,
                               unsigned chunks, warpred__rows_scratch s, O *out, Op op, F f, G g)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    WARPRED_BLOCK_REDUCER(block, A, WARPRED_ROWS_THREADS);
    A *partials = (A *)s.partials;
    for (size_t item = blockIdx.x; item < rows * chunks; item += gridDim.x) {
        const size_t r = item / chunks, c = item % chunks;
        const size_t first = c * chunk, n = cols - first < chunk ? cols - first : chunk;
        A acc = Acc::start();
        warpred__rows_take<T, Acc, 4>(acc, in + r * ld + first, n, first, threadIdx.x, WARPRED_ROWS_THREADS, op, f);
        acc = block.reduce(acc, op);
        if (warpred__rows_fold_chunks(acc, op, block, partials + r * chunks, (unsigned)c, chunks, &s.counters[r]))
            warpred__rows_store<Acc>(out, r, acc, g);
    }
}

/* ---- columns ---- */

/* Partials of column groups: part p's value of column c at partials[p * stride + c], stride =
   cols rounded up to whole groups of C, so that a group's C values lie together (16-byte
   aligned where C values make whole 16-byte pieces). */
template <int C> __host__ __device__ __forceinline__ size_t warpred__columns_stride(size_t cols)
{
    return (cols + C - 1) / C * C;
}

/* The C values of a column group at p into x (16-byte loads where they make whole pieces, else
   value by value; through L2: other blocks wrote them). */
template <int C, typename A> __device__ __forceinline__ void warpred__columns_load_group(A (&x)[C], const A *p)
{
    enum { BYTES = C * (int)sizeof(A) };
    if constexpr (BYTES % 16 == 0) {
        uint4 raw[BYTES / 16];
#pragma unroll
        for (int k = 0; k < BYTES / 16; k++) raw[k] = __ldcg((const uint4 *)p + k);
        memcpy(x, raw, BYTES);
    } else {
#pragma unroll
        for (int j = 0; j < C; j++) x[j] = warpred__load_cg(p + j);
    }
}

/* Part lane `first` of `step` folds parts first, first + step, ... < parts of the column group
   at `group` (each part's C values a stride apart) into acc, in that order, about 64 bytes of
   loads in flight (a lane folds a few parts: the runs keep them few; more bytes cost the main
   loop registers). Lanes with none keep acc. */
template <int C, typename A, typename Op>
__device__ __forceinline__ void warpred__columns_fold_parts(A (&acc)[C], const A *group, size_t stride, unsigned first,
                                                            unsigned step, unsigned parts, Op op)
{
    enum { BYTES = C * (int)sizeof(A), B = BYTES <= 16 ? 4 : BYTES <= 32 ? 2 : 1 };
    for (unsigned p0 = first; p0 < parts; p0 += B * step) {
        A x[B][C];
#pragma unroll
        for (int b = 0; b < B; b++)
            if (p0 + b * step < parts) warpred__columns_load_group<C>(x[b], group + (size_t)(p0 + b * step) * stride);
#pragma unroll
        for (int b = 0; b < B; b++)
            if (p0 + b * step < parts)
#pragma unroll
                for (int j = 0; j < C; j++) acc[j] = p0 + b * step == first ? x[b][j] : op(acc[j], x[b][j]);
    }
}

/* The Y lanes of each column group (thread (x, y): threadIdx.x = y * X + x; threads past X * Y
   take no part) meet: a pairwise tree in shared memory (lane y takes lane y + h, h the powers of
   two below Y, falling), the result in lane y = 0. YC: Y when known at compile time (a power of
   two), else 0. */
template <int YC, int C, typename A, typename Op>
__device__ __forceinline__ void warpred__columns_meet(A (&acc)[C], A *cells, unsigned x, unsigned y, unsigned X,
                                                      unsigned Y, Op op)
{
    if (YC || y < Y)
#pragma unroll
        for (int j = 0; j < C; j++) cells[(y * X + x) * C + j] = acc[j];
    unsigned h = YC / 2;
    if (!YC && Y > 1)
        for (h = 1; 2 * h < Y;) h *= 2;
#pragma unroll
    for (; h >= 1; h /= 2) {
        __syncthreads();
        if (y < h && (YC || y + h < Y))
#pragma unroll
            for (int j = 0; j < C; j++) {
                acc[j] = op(acc[j], cells[((y + h) * X + x) * C + j]);
                cells[(y * X + x) * C + j] = acc[j];
            }
    }
}

/* Parts a run that one block folds (the columns kernel's partials are folded in two levels
   beyond one run). */
enum { WARPRED__COLUMNS_FAN = 16 };

/* After this block's stores: its ticket on counter (acquire-release, by thread 0), true in
   every thread of the block that takes ticket of - 1 (the last of `of`). Every thread calls. */
__device__ __forceinline__ bool warpred__block_last(unsigned *counter, unsigned of)
{
    __syncthreads(); /* every store of this block made before thread 0 takes the ticket */
    bool last = false;
    if (threadIdx.x == 0) last = warpred__ticket(counter) == of - 1;
    /* the barrier carries thread 0's acquire to the block's other threads */
    return __syncthreads_or(last);
}

/* A block covers X column groups (of K columns each when 16-byte loads fit, else of one; X <=
   WARPRED_ROWS_THREADS, chosen by the host, XC if not 0) and Y = 256 / X row lanes; block (x, y)
   of the grid takes column groups [x * X, x * X + X) over the rows of its y-th part (rows /
   gridDim.y of them). Each thread folds its rows in turn, the row lanes meet in shared memory
   (a tree over the lanes), and with several parts the partials are folded: lane y takes parts
   y, y + Y, ... of each thread's columns in order, and the part lanes meet in the same tree. */
template <int XC, int C, typename T, typename R, typename Op, typename F, typename O, typename G>
__global__ void __launch_bounds__(WARPRED_ROWS_THREADS)
    warpred__columns_kernel(const T *__restrict__ in, size_t rows, size_t cols, size_t ld, unsigned x_groups,
                            size_t part_rows, warpred__rows_scratch s, O *out, Op op, F f, G g)
{
    /* XC: X known at compile time (the full tiles of wide matrices: the divisions and the
       addressing folded, fewer registers), or 0: X = x_groups */
    const unsigned X = XC ? (unsigned)XC : x_groups;
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    enum { U = 8 };
    __shared__ A cells[WARPRED_ROWS_THREADS * C];
    const unsigned x = threadIdx.x % X, y = threadIdx.x / X, Y = WARPRED_ROWS_THREADS / X;
    const size_t c0 = ((size_t)blockIdx.x * X + x) * C; /* this thread's first column */
    const size_t r_begin = (size_t)blockIdx.y * part_rows;
    const size_t r_end = r_begin + part_rows < rows ? r_begin + part_rows : rows;
    A acc[C];
    enum { YC = XC ? WARPRED_ROWS_THREADS / XC : 0 };       /* the row lanes, where known at compile time */
    const size_t stride = warpred__columns_stride<C>(cols); /* between parts' partials */
    const auto meet = [&]() { warpred__columns_meet<YC>(acc, cells, x, y, X, Y, op); };
    /* acc: the column group's values over n stored parts from `from`, met in row lane 0 */
    const auto fold_and_meet = [&](const A *from, unsigned n) {
#pragma unroll
        for (int j = 0; j < C; j++) acc[j] = Acc::start();
        if (c0 < cols && y < Y) warpred__columns_fold_parts<C>(acc, from + c0, stride, y, Y, n, op);
        meet();
    };
    const auto store_results = [&]() {
        if (y == 0)
#pragma unroll
            for (int j = 0; j < C; j++)
                if (c0 + j < cols) warpred__rows_store<Acc>(out, c0 + j, acc[j], g);
    };
#pragma unroll
    for (int j = 0; j < C; j++) acc[j] = Acc::start();
    if (c0 < cols && y < Y) {
        size_t r = r_begin + y;
        if constexpr (C > 1) {
            if (c0 + C <= cols) { /* a whole 16-byte group: the host checked its alignment */
                for (; r + (U - 1) * Y < r_end; r += U * Y) {
                    uint4 raw[U];
#pragma unroll
                    for (int u = 0; u < U; u++) raw[u] = __ldg((const uint4 *)(in + (r + u * Y) * ld + c0));
#pragma unroll
                    for (int u = 0; u < U; u++) {
                        T e[C];
                        memcpy(e, &raw[u], 16);
#pragma unroll
                        for (int j = 0; j < C; j++) Acc::absorb(op, acc[j], f(e[j], r + u * Y));
                    }
                }
                for (; r < r_end; r += Y) {
                    uint4 raw = __ldg((const uint4 *)(in + r * ld + c0));
                    T e[C];
                    memcpy(e, &raw, 16);
#pragma unroll
                    for (int j = 0; j < C; j++) Acc::absorb(op, acc[j], f(e[j], r));
                }
            } else { /* the last, partial group */
                for (; r < r_end; r += Y)
#pragma unroll
                    for (int j = 0; j < C; j++)
                        if (c0 + j < cols) Acc::absorb(op, acc[j], f(in[r * ld + c0 + j], r));
            }
        } else {
            for (; r + (U - 1) * Y < r_end; r += U * Y) {
                T e[U];
#pragma unroll
                for (int u = 0; u < U; u++) e[u] = in[(r + u * Y) * ld + c0];
#pragma unroll
                for (int u = 0; u < U; u++) Acc::absorb(op, acc[0], f(e[u], r + u * Y));
            }
            for (; r < r_end; r += Y) Acc::absorb(op, acc[0], f(in[r * ld + c0], r));
        }
    }
    meet();
    if (gridDim.y == 1) {
        store_results();
        return;
    }
    /* several parts: each block's partials (a whole group's C values, those past cols too, so
       that a folding block reads only stored values); the last block of each run of
       WARPRED__COLUMNS_FAN parts folds the run's partials into the run's value, and the last
       run's folding block folds the runs' values (one run: the parts' partials directly), so
       that no block reads more than about FAN parts' worth while the others wait */
    A *partials = (A *)s.partials;
    const unsigned parts = gridDim.y, runs = (parts + WARPRED__COLUMNS_FAN - 1) / WARPRED__COLUMNS_FAN;
    const unsigned folded = runs > 1 ? runs : parts; /* the values the last block folds */
    if (y == 0 && c0 < cols)
#pragma unroll
        for (int j = 0; j < C; j++) partials[blockIdx.y * stride + c0 + j] = acc[j];
    if (runs > 1) {
        const unsigned run = blockIdx.y / WARPRED__COLUMNS_FAN, first = run * WARPRED__COLUMNS_FAN;
        const unsigned n = parts - first < WARPRED__COLUMNS_FAN ? parts - first : WARPRED__COLUMNS_FAN;
        unsigned *run_counter = &s.counters[gridDim.x + (size_t)blockIdx.x * runs + run];
        if (!warpred__block_last(run_counter, n)) return;
        fold_and_meet(partials + first * stride, n);
        A *run_values = partials + (size_t)parts * stride;
        if (y == 0 && c0 < cols)
#pragma unroll
            for (int j = 0; j < C; j++) run_values[run * stride + c0 + j] = acc[j];
        if (threadIdx.x == 0) *run_counter = 0;
        partials = run_values;
    }
    if (!warpred__block_last(&s.counters[blockIdx.x], folded)) return;
    fold_and_meet(partials, folded);
    store_results();
    if (threadIdx.x == 0) s.counters[blockIdx.x] = 0;
}

/* ---- ranges ---- */

/* RANGES  A warp takes tiles of 32 G ranges (G = N, warpred__tile_groups: 4 for most types;
   G = 1 when there are fewer such tiles than warps; tile t: ranges 32 G t .. 32 G t + 32 G - 1),
   or of 8 ranges (lanes 8..31 idle) where tiles of 32 would be 1 to 2 a warp or fewer than a
   quarter of the warps (warpred__ranges_kernel says why); the first three quarters of the
   tiles in turn, the rest from counters (step 2 in warpred__ranges_kernel), each lane reading
   the offsets of G ranges. By length:
   - up to WARPRED_ROWS_RANGE_CHUNK elements (with fewer tiles of 32 than warps: up to a window,
     warpred__tile_shape: 32 J elements, 512 floats): the tile's ranges are read together, as
     one sequence, a window at a time (below); their count does not matter, only their
     elements, and a range of several windows streams through like many short ones;
   - longer: cut in chunks of WARPRED_ROWS_RANGE_CHUNK elements. A chunk's value is the warp's
     tree over its lanes' shares; the range's result: lane q folds chunks q, q + 32, ... in
     that order, then the warp's tree. That definition does not depend on who computes a
     chunk, so every warp shares the work: each first reads the offsets of its share of the
     tiles (warp, warp + warps, ...) and queues their long ranges (numbers for their chunks,
     and an entry each in the queue, while the queue and the partials have room; with fewer
     tiles of 32 than warps also the ranges above a window, of one chunk; a long range without
     room it computes at once, chunk by chunk in registers, to the same bits), then does
     tiles, then takes queued chunks by number from another (a run of up to 8 at a time
     when there are many) until none is left; a range of one chunk is stored by the warp that
     reads it, else the warp that stores a range's last partial folds them. Before taking
     chunks a warp waits for every warp to have queued (a bounded time while some block of the
     grid has not started). */

/* Chunk c of a range starting at p (length n) by the warp: its value in every lane. */
template <typename T, typename Acc, typename Op, typename F>
__device__ __forceinline__ typename Acc::type warpred__range_chunk(const T *__restrict__ p, size_t n, size_t c, Op op,
                                                                   F f)
{
    const size_t first = c * WARPRED_ROWS_RANGE_CHUNK;
    const size_t len = n - first < WARPRED_ROWS_RANGE_CHUNK ? n - first : WARPRED_ROWS_RANGE_CHUNK;
    typename Acc::type acc = Acc::start();
    warpred__rows_take<T, Acc, 8>(acc, p + first, len, first, threadIdx.x % 32, 32, op, f);
    acc = warpred_warp_reduce<32>(acc, op);
    return warpred__shfl<WARPRED__SHFL_IDX>(0xffffffffu, acc, 0, 32);
}

/* Range k's first element (*b) and length: 0 when end[k] <= begin[k]. */
__device__ __forceinline__ size_t warpred__range_length(const size_t *__restrict__ begin,
                                                        const size_t *__restrict__ end, size_t k, size_t *b)
{
    const size_t first = begin[k], last = end[k];
    *b = first;
    return last > first ? last - first : 0;
}

/* The offsets of the tile of `groups` groups of 32 ranges from k0 (lane q's range of group i:
   k0 + 32 i + q, for q < lanes): n[i] its length, b[i] its first element; 0 and 0 past the
   groups, the lanes or count. */
template <int N>
__device__ __forceinline__ void warpred__tile_offsets(const size_t *__restrict__ begin, const size_t *__restrict__ end,
                                                      size_t count, size_t k0, int groups, unsigned lanes,
                                                      size_t (&b)[N], size_t (&n)[N])
{
    const unsigned q = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < N; i++) {
        const size_t k = k0 + 32 * i + q;
        b[i] = n[i] = 0;
        if (i < groups && q < lanes && k < count) n[i] = warpred__range_length(begin, end, k, &b[i]);
    }
}

/* The warp queues the long ranges its lanes hold (want: range k, n elements from b, n above a
   chunk, or above a window with fewer tiles than warps) for every warp's shared chunks, with one
   atomic for all: true in a lane whose range got room for its chunks' entries and partials (the
   entries are then written, one per chunk). Every lane of the warp calls. A lane asks only while
   a plain read says there may be room, so that the count of chunks handed out stays near the
   queue's size however many ranges there are. */
__device__ __forceinline__ bool warpred__rows_queue_ranges(warpred__rows_scratch s, unsigned *words, bool want,
                                                           size_t k, size_t b, size_t n)
{
    const unsigned l = threadIdx.x % 32, full = 0xffffffffu;
    unsigned long long *queued = (unsigned long long *)&words[WARPRED__ROWS_QUEUED];
    const unsigned long long chunks = (n + WARPRED_ROWS_RANGE_CHUNK - 1) / WARPRED_ROWS_RANGE_CHUNK;
    if (want) {
        const unsigned long long seen = *(volatile unsigned long long *)queued;
        want = seen + chunks <= s.capacity;
    }
    if (!__any_sync(full, want)) return false;
    /* the lanes' chunks in lane order: an inclusive scan, one atomic */
    const unsigned long long mine = want ? chunks : 0;
    unsigned long long upto = mine;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const unsigned long long up = __shfl_up_sync(full, upto, d);
        if (l >= (unsigned)d) upto += up;
    }
    unsigned long long got = 0;
    if (l == 31) got = atomicAdd(queued, upto);
    const unsigned long long base = __shfl_sync(full, got, 31) + upto - mine;
    const bool room = want && base + chunks <= s.capacity;
    const unsigned first = base < s.capacity ? (unsigned)base : s.capacity;
    if (want && !room) atomicMax(&words[WARPRED__ROWS_CUT], ~first);
    /* each queued range's entries, one per chunk: a range of one chunk by its own lane, all
       lanes at once; a longer one by the whole warp (a huge range has thousands), one range
       after another. done starts at 0 before any warp takes a chunk (they wait for every warp's
       count, warpred__rows_wait_listed, whose release covers these writes) */
    if (room && chunks == 1) {
        const warpred__rows_entry en = {k, b, n, 1u, first, 0, 0};
        s.queue[first] = en;
    }
    for (unsigned todo = __ballot_sync(full, room && chunks > 1); todo; todo &= todo - 1) {
        const int from = __ffs(todo) - 1;
        warpred__rows_entry en;
        en.range = __shfl_sync(full, (unsigned long long)k, from);
        en.begin = __shfl_sync(full, (unsigned long long)b, from);
        en.len = __shfl_sync(full, (unsigned long long)n, from);
        en.chunks = __shfl_sync(full, (unsigned)chunks, from);
        en.base = __shfl_sync(full, first, from);
        en.done = 0;
        en.pad = 0;
        for (unsigned c = l; c < en.chunks; c += 32) s.queue[en.base + c] = en;
    }
    return room;
}

/* The warp has queued its long ranges: counted, after every lane's queue writes. */
__device__ __forceinline__ void warpred__rows_listed(unsigned *words)
{
    __syncwarp();
    if (threadIdx.x % 32 == 0) {
        __threadfence(); /* a release of the warp's writes (ordered before it by the barrier) */
        atomicAdd(&words[WARPRED__ROWS_LISTED], 1u);
    }
}

/* Waits until all `warps` have queued their long ranges: true then, in every lane, and the
   queue's entries are complete for the warp. Without the wait, warps with no ranges of their
   own found the queue still empty and left the owners to chunk alone. While some block of the
   grid has not started (another kernel holding SMs), the wait ends too when the count has not
   moved for 20 us, because the warp must not wait on warps that cannot start: false then, and
   this warp does not help (the last warp to be counted always finds the queue complete, so every
   queued chunk is still taken). Once every block has started, every warp not yet counted is
   running and will be, so the wait is unbounded: a bound there let every other warp leave when
   the few warps queueing the ranges' chunks took longer than it (thousands of entries each). */
__device__ __forceinline__ bool warpred__rows_wait_listed(unsigned *words, unsigned warps)
{
    unsigned seen;
    if (threadIdx.x % 32 == 0 && (seen = warpred__load_acquire(&words[WARPRED__ROWS_LISTED])) < warps) {
        unsigned long long moved, now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(moved));
        unsigned nap = 256;
        do {
            __nanosleep(nap);
            if (nap < 2048) nap *= 2;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
            const unsigned count = warpred__load_acquire(&words[WARPRED__ROWS_LISTED]);
            if (count != seen) {
                seen = count;
                moved = now;
            }
        } while (seen < warps &&
                 (now - moved < 20000 || *(volatile unsigned *)&words[WARPRED__ROWS_STARTED] >= gridDim.x));
    }
    __syncwarp();
    return __all_sync(0xffffffffu, warpred__load_acquire(&words[WARPRED__ROWS_LISTED]) >= warps);
}

/* Every warp: queued chunks, taken in their numbers' order from one counter, K consecutive ones
   at a time (more when there are many chunks a warp: the counter's atomics would queue up), until
   none is left; the warp storing a range's last partial folds them and stores the range's result.
   The next run's first number, and within a run the next chunk's entry, are on their way while
   a chunk is read. */
template <typename T, typename Acc, typename Op, typename F, typename O, typename G>
__device__ __forceinline__ void warpred__rows_take_chunks(const T *__restrict__ in, warpred__rows_scratch s,
                                                          unsigned *words, unsigned warps, O *out, Op op, F f, G g)
{
    typedef typename Acc::type A;
    const unsigned q = threadIdx.x % 32, full = 0xffffffffu;
    const unsigned long long handed = *(volatile unsigned long long *)&words[WARPRED__ROWS_QUEUED];
    const unsigned cut = ~*(volatile unsigned *)&words[WARPRED__ROWS_CUT];
    const unsigned total = handed < cut ? (unsigned)handed : cut; /* chunks that entries hold */
    if (total == 0) return;
    const unsigned per_warp = total / (4 * warps), K = per_warp < 1 ? 1 : per_warp > 8 ? 8 : per_warp;
    A *partials = (A *)s.partials;
    unsigned next = 0, c = 0, end = 0; /* next: in lane 0, the counter's answer on its way; [c, end): this run */
    warpred__rows_entry en;
    /* a run from the number asked for before, the next run's number asked for now */
    const auto start_run = [&]() -> bool {
        c = __shfl_sync(full, next, 0);
        if (c >= total) return false;
        if (q == 0) next = atomicAdd(&words[WARPRED__ROWS_TAKEN], K);
        end = c + K < total ? c + K : total;
        en = s.queue[c];
        return true;
    };
    if (q == 0) next = atomicAdd(&words[WARPRED__ROWS_TAKEN], K);
    if (!start_run()) return;
    for (;;) {
        /* within a run, the next chunk's entry on its way while this one is read (the next run's
           first number is not waited for here: it is on its way from the counter) */
        const bool in_run = c + 1 < end;
        warpred__rows_entry en2 = en;
        if (in_run) en2 = s.queue[c + 1];
        const A v = warpred__range_chunk<T, Acc>(in + en.begin, en.len, c - en.base, op, f);
        if (en.chunks == 1) { /* the range's value, as when its owner reduces it (warpred__range_by_warp) */
            if (q == 0) warpred__rows_store<Acc>(out, en.range, v, g);
        } else {
            unsigned last = 0;
            if (q == 0) {
                partials[c] = v;
                last = warpred__ticket(&s.queue[en.base].done) == en.chunks - 1;
            }
            /* bar.warp.sync orders memory among the warp: the first lane's acquire covers all */
            __syncwarp();
            if (__shfl_sync(full, last, 0)) {
                const A total_v = warpred_warp_reduce<32>(
                    warpred__rows_fold_strided<Acc>(partials + en.base, en.chunks, q, 32, op), op);
                if (q == 0) warpred__rows_store<Acc>(out, en.range, total_v, g);
            }
        }
        if (in_run) {
            c++;
            en = en2;
        } else if (!start_run())
            return;
    }
}

/* Element i of a small array whose index the compiler cannot unroll: selects, no local memory. */
template <typename V, int N> __device__ __forceinline__ V warpred__pick(const V (&a)[N], int i)
{
    V v = a[0];
#pragma unroll
    for (int j = 1; j < N; j++)
        if (i == j) v = a[j];
    return v;
}

/* A range by its warp alone (in registers): up to a chunk, one chunk; longer, chunk by chunk,
   to the same bits as through the queue (lane q folds chunks q, q + 32, ... in order, then the
   warp's tree). */
template <typename T, typename Acc, typename Op, typename F, typename O, typename G>
__device__ __forceinline__ void warpred__range_by_warp(const T *__restrict__ in, size_t k, size_t b, size_t n, O *out,
                                                       Op op, F f, G g)
{
    typedef typename Acc::type A;
    const unsigned q = threadIdx.x % 32;
    if (n <= WARPRED_ROWS_RANGE_CHUNK) {
        const A v = warpred__range_chunk<T, Acc>(in + b, n, 0, op, f);
        if (q == 0) warpred__rows_store<Acc>(out, k, v, g);
        return;
    }
    const size_t chunks = (n + WARPRED_ROWS_RANGE_CHUNK - 1) / WARPRED_ROWS_RANGE_CHUNK;
    A acc = Acc::start();
    for (size_t c = 0; c < chunks; c++) {
        const A v = warpred__range_chunk<T, Acc>(in + b, n, c, op, f);
        if (c % 32 == q) acc = c < 32 ? v : op(acc, v);
    }
    acc = warpred_warp_reduce<32>(acc, op);
    if (q == 0) warpred__rows_store<Acc>(out, k, acc, g);
}

/* The ranges of groups of 32 from k0 that the masks name (bit l of todo[i]: range k0 + 32 i + l),
   each by the whole warp: one copy of this code for every group (a smaller kernel, fewer
   instruction cache misses), the offsets read again (nothing kept in registers meanwhile). */
template <typename T, typename Acc, int N, typename Op, typename F, typename O, typename G>
__device__ __forceinline__ void warpred__ranges_by_warp(const T *__restrict__ in, const size_t *__restrict__ begin,
                                                        const size_t *__restrict__ end, size_t k0,
                                                        const unsigned (&todo)[N], O *out, Op op, F f, G g)
{
#pragma unroll 1
    for (int i = 0; i < N; i++)
        for (unsigned left = warpred__pick(todo, i); left; left &= left - 1) {
            const size_t k = k0 + 32 * i + __ffs(left) - 1;
            size_t rb;
            const size_t rn = warpred__range_length(begin, end, k, &rb);
            warpred__range_by_warp<T, Acc>(in, k, rb, rn, out, op, f, g);
        }
}

/* ---- ranges: a warp's tile of ranges ---- */

/* A tile: the ranges of up to a chunk (or a window, warpred__ranges_kernel) among 32 N
   consecutive ranges (warpred__tile_groups); longer ones are reduced apart. Window by window (WIN
   elements) the warp loads the tile's elements in order, coalesced, into shared memory (the next
   window's loads in flight while this one is folded); lane l folds the window's elements
   l * J .. l * J + J - 1 in order, across range boundaries (warpred__tile_ranges). */
template <typename T> struct warpred__tile_shape {
    enum {
        J = sizeof(T) >= 64       ? 1
            : 64 / sizeof(T) > 16 ? 16
                                  : (int)(64 / sizeof(T)), /* a lane's elements */
        WIN = 32 * J,                                      /* a window's */
        /* a span is read back in 16-byte pieces when it is made of them; the pad after each span
           then makes its stride an odd number of pieces (no bank conflicts among the 8 lanes of
           a 16-byte read), else one element (none among 32 lanes reading elements) */
        VEC = sizeof(T) <= 16 && 16 % sizeof(T) == 0 && (J * sizeof(T)) % 16 == 0,
        PAD = !VEC                            ? 1
              : (J * sizeof(T) / 16) % 2 == 0 ? (int)(16 / sizeof(T))
                                              : 0,
        SPAN = J + PAD,   /* a span's slots in shared memory */
        SLOTS = 32 * SPAN /* a window's */
    };
};

/* A tile's groups of 32 ranges (N: 4, 2 or 1), as many as fit in a warp's share of 48 KB with
   the window: more ranges a tile fill its windows when ranges are short. */
template <typename T, typename A> struct warpred__tile_groups {
    enum {
        ROOM = 6144 - (int)(warpred__tile_shape<T>::SLOTS * sizeof(T)) - 4 * 129 - 4 * 32,
        GROUP = 32 * (int)(sizeof(A) + sizeof(size_t) + sizeof(unsigned)),
        N = ROOM >= 4 * GROUP   ? 4
            : ROOM >= 2 * GROUP ? 2
                                : 1
    };
};

/* A warp's shared memory: a window of T, the tile's ranges with elements (pre, first), their
   results (res: A each), in raw bytes (no T or A constructed), and the window's range starts
   (marks: bit i of word l, a range begins at element l * J + i of the window; each lane clears
   its word once it has read it). */
template <typename T, typename A> struct warpred__tile_smem {
    enum { N = warpred__tile_groups<T, A>::N };
    alignas(alignof(T) > 16 ? alignof(T) : 16) unsigned char window[warpred__tile_shape<T>::SLOTS * sizeof(T)];
    alignas(alignof(A) > 8 ? alignof(A) : 8) unsigned char results[32 * N * sizeof(A)];
    unsigned pre[32 * N + 1];
    unsigned marks[32];
    size_t first[32 * N];
    __device__ __forceinline__ T *stage(void) { return (T *)window; }
    __device__ __forceinline__ A *res(void) { return (A *)results; }
};

/* The tile range holding element j of the tile (0 <= j < pre[32 N]): the last s with
   pre[s] <= j (the entries after the last range hold the tile's count, which no j reaches). */
template <int N> __device__ __forceinline__ unsigned warpred__tile_find(const unsigned *pre, unsigned j)
{
    unsigned s = 0;
#pragma unroll
    for (unsigned step = 16 * N; step >= 1; step /= 2)
        if (pre[s + step] <= j) s += step;
    return s;
}

/* Where the tile's elements lie: in pieces that each lie back to back in `in` (a long range,
   excluded from the tile, or ranges out of order break the sequence): element j of the tile is
   in[off[p] + j] for the last piece p with at[p] <= j. Up to RUNS pieces are kept in registers
   (count: how many; more, and count is RUNS + 1: a search per element in the tile's offsets). */
struct warpred__tile_runs {
    enum { RUNS = 2 };
    unsigned at[RUNS];
    size_t off[RUNS];
    int count;
};

/* Window [w0, w1) of the tile into registers: lane l loads elements w0 + l + 32 i (x[i]). One
   piece: one add gives the address, and a full window needs no bound checks; a few: a select
   per piece; many: a search per element. */
template <typename T, typename A>
__device__ __forceinline__ void warpred__tile_load(T (&x)[warpred__tile_shape<T>::J], const T *__restrict__ in,
                                                   const warpred__tile_smem<T, A> &sm, unsigned w0, unsigned w1,
                                                   const warpred__tile_runs &runs)
{
    enum { J = warpred__tile_shape<T>::J, WIN = warpred__tile_shape<T>::WIN, RUNS = warpred__tile_runs::RUNS };
    const unsigned l = threadIdx.x % 32;
    if (runs.count == 1 && w1 - w0 == WIN) {
        const T *__restrict__ p = in + runs.off[0] + w0 + l;
#pragma unroll
        for (int i = 0; i < J; i++) x[i] = p[32 * i];
        return;
    }
    if (runs.count <= RUNS) {
#pragma unroll
        for (int i = 0; i < J; i++) {
            const unsigned j = w0 + l + 32 * i;
            size_t at = 0;
#pragma unroll
            for (int p = 0; p < RUNS; p++)
                if (j >= runs.at[p]) at = runs.off[p];
            if (j < w1) x[i] = in[at + j];
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < J; i++) {
        const unsigned j = w0 + l + 32 * i;
        if (j < w1) {
            const unsigned s = warpred__tile_find<warpred__tile_smem<T, A>::N>(sm.pre, j);
            x[i] = in[sm.first[s] + (j - sm.pre[s])];
        }
    }
}

/* The tile's pieces (warpred__tile_runs) from its ranges with elements (lane l's range of group
   i: number c[i] in the tile, first element b[i], first tile element pre[i], len[i] elements, 0
   for none), after sm.pre and sm.first hold them. Every lane of the warp calls. */
template <typename T, typename A, int N>
__device__ __forceinline__ warpred__tile_runs warpred__tile_pieces(const warpred__tile_smem<T, A> &sm,
                                                                   const unsigned (&c)[N], const size_t (&b)[N],
                                                                   const unsigned (&pre)[N], const unsigned (&len)[N],
                                                                   unsigned m)
{
    enum { RUNS = warpred__tile_runs::RUNS };
    const unsigned full = 0xffffffffu;
    warpred__tile_runs runs;
    runs.count = 1;
    runs.at[0] = 0;
    runs.off[0] = m != 0 ? sm.first[0] : 0;
#pragma unroll
    for (int p = 1; p < RUNS; p++) {
        runs.at[p] = ~0u; /* no element reaches it */
        runs.off[p] = 0;
    }
#pragma unroll
    for (int i = 0; i < N; i++) {
        /* a piece begins where a range does not continue the one before it */
        const bool breaks = len[i] != 0 && c[i] != 0 && b[i] - pre[i] != sm.first[c[i] - 1] - sm.pre[c[i] - 1];
        for (unsigned todo = __ballot_sync(full, breaks); todo; todo &= todo - 1) {
            const int from = __ffs(todo) - 1;
            const unsigned at = __shfl_sync(full, pre[i], from);
            const size_t off = __shfl_sync(full, (unsigned long long)(b[i] - pre[i]), from);
#pragma unroll
            for (int p = 1; p < RUNS; p++)
                if (runs.count == p) {
                    runs.at[p] = at;
                    runs.off[p] = off;
                }
            if (runs.count <= RUNS) runs.count++;
        }
    }
    return runs;
}

/* The shared-memory slot of x[i] of lane l: element u = l + 32 i of the window is element u % J
   of span u / J (spans SPAN slots apart). */
template <typename T> __device__ __forceinline__ unsigned warpred__tile_slot(unsigned l, int i)
{
    enum { J = warpred__tile_shape<T>::J, SPAN = warpred__tile_shape<T>::SPAN };
    if (32 % J == 0) return (l / J + i * (32 / J)) * SPAN + l % J; /* constant steps in i */
    const unsigned u = l + 32 * i;
    return u / J * SPAN + u % J;
}

/* The loaded window [w0, w1) into shared memory, span after span, and its range starts into
   the marks (start[i]: the first tile element of lane l's range of group i, ~0 for none). FULL:
   a whole window. */
template <bool FULL, typename T, typename A, int N>
__device__ __forceinline__ void warpred__tile_put(const T (&x)[warpred__tile_shape<T>::J], warpred__tile_smem<T, A> &sm,
                                                  unsigned w0, unsigned w1, const unsigned (&start)[N])
{
    enum { J = warpred__tile_shape<T>::J };
    const unsigned l = threadIdx.x % 32;
    T *stage = sm.stage();
    __syncwarp(); /* every lane has read the window and its marks before, and cleared them */
#pragma unroll
    for (int i = 0; i < J; i++)
        if (FULL || w0 + l + 32 * i < w1) stage[warpred__tile_slot<T>(l, i)] = x[i];
#pragma unroll
    for (int i = 0; i < N; i++)
        if (start[i] - w0 < w1 - w0) atomicOr(&sm.marks[(start[i] - w0) / J], 1u << ((start[i] - w0) % J));
    __syncwarp();
}

/* Span [lo, hi) (staged at sp) folded in order into acc: where a range begins (bit i of mask:
   at lo + i) the open range's value goes to res[r++] first (an index, not a pointer: shared
   stores with 32-bit addresses). begin: the open range's first element
   (for the transform's index). FULL: hi = lo + J, and the span read in 16-byte pieces when it
   is made of them; else the places past hi fold the span's last element again (with its index:
   the transform sees only elements and indices of the range), but the result is not kept: a
   select, not a branch, per element. */
template <bool FULL, typename T, typename Acc, typename Op, typename F>
__device__ __forceinline__ void warpred__span_fold(const T *sp, unsigned lo, unsigned hi, unsigned mask,
                                                   unsigned &begin, typename Acc::type *res, unsigned &r,
                                                   typename Acc::type &acc, Op op, F f)
{
    typedef typename Acc::type A;
    enum {
        J = warpred__tile_shape<T>::J,
        VEC = FULL && warpred__tile_shape<T>::VEC,
        E = VEC ? 16 / sizeof(T) : 1 /* elements a read */
    };
#pragma unroll
    for (int i0 = 0; i0 < J; i0 += E) {
        T v[E];
        if constexpr (VEC) {
            const uint4 w = ((const uint4 *)sp)[i0 / E];
            __builtin_memcpy(v, &w, sizeof w);
        } else
            v[0] = sp[FULL || lo + i0 < hi ? i0 : (int)(hi - 1 - lo)];
#pragma unroll
        for (int e = 0; e < E; e++) {
            const int i = i0 + e;
            if ((mask >> i) & 1) { /* only below hi */
                res[r++] = acc;
                acc = Acc::start();
                begin = lo + i;
            }
            const bool in_span = FULL || lo + i < hi;
            A t = acc;
            Acc::absorb(op, t, f(v[e], (in_span ? lo + i : hi - 1) - begin));
            if (in_span) acc = t;
        }
    }
}

/* The tile's ranges (n[i]: lane l's range k0 + 32 i + l, its length in the tile, 0 for empty
   and long ones; b[i]: its first element), window after window, results stored. The ranges with
   elements are numbered in order (c) so that every boundary in the tile starts the next one;
   each window's starts are marked in shared memory (a bit each), so a lane's span gets the bit
   mask of the boundaries in it in one read, and the lanes before it count theirs with a ballot
   per bit of the counts; the lane folds its J elements without a branch, leaving a range's
   result (or, for the first range of the span when it began before, its part) in res[c]. Every
   lane of the warp calls. */
template <typename T, typename Acc, typename Op, typename F, typename O, typename G>
__device__ __forceinline__ void
warpred__tile_ranges(const T *__restrict__ in, warpred__tile_smem<T, typename Acc::type> &sm, size_t k0,
                     const unsigned (&n)[warpred__tile_smem<T, typename Acc::type>::N],
                     const size_t (&b)[warpred__tile_smem<T, typename Acc::type>::N], O *out, Op op, F f, G g)
{
    typedef typename Acc::type A;
    enum {
        J = warpred__tile_shape<T>::J,
        WIN = warpred__tile_shape<T>::WIN,
        SPAN = warpred__tile_shape<T>::SPAN,
        N = warpred__tile_smem<T, A>::N
    };
    const unsigned l = threadIdx.x % 32, full = 0xffffffffu;
    /* numbers and first elements within the tile (an inclusive scan of the lengths a group) */
    unsigned c[N], pre[N], m = 0, total = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        const unsigned with = __ballot_sync(full, n[i] != 0);
        c[i] = m + __popc(with & ((1u << l) - 1));
        m += __popc(with);
        unsigned p = n[i];
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const unsigned up = __shfl_up_sync(full, p, d);
            if (l >= (unsigned)d) p += up;
        }
        pre[i] = total + p - n[i];
        total += __shfl_sync(full, p, 31);
    }
    __syncwarp(); /* the previous tile's reads of pre, first and res are done */
#pragma unroll
    for (int i = 0; i < N; i++)
        if (n[i] != 0) {
            sm.pre[c[i]] = pre[i];
            sm.first[c[i]] = b[i];
        }
    for (unsigned i = m + l; i <= 32 * N; i += 32) sm.pre[i] = total; /* past the last range: searches stop */
    __syncwarp();
    const warpred__tile_runs runs = warpred__tile_pieces(sm, c, b, pre, n, m);
    /* from here on a range without elements here has number and start ~0 (fewer registers) */
#pragma unroll
    for (int i = 0; i < N; i++)
        if (n[i] == 0) c[i] = pre[i] = ~0u;
    bool carried = false;
    A carry = Acc::start();
    unsigned seen = 0; /* the tile's ranges that began before this window */
    T x[J];
    if (total > 0) warpred__tile_load<T>(x, in, sm, 0, total < WIN ? total : WIN, runs);
    for (unsigned w0 = 0; w0 < total; w0 += WIN) {
        const unsigned w1 = total - w0 < WIN ? total : w0 + WIN;
        const bool whole = w1 - w0 == WIN; /* the same in every lane: one fold's code runs */
        if (whole) warpred__tile_put<true, T>(x, sm, w0, w1, pre);
        else
            warpred__tile_put<false, T>(x, sm, w0, w1, pre);
        /* the next window's loads in flight while this one is folded */
        if (w1 < total) warpred__tile_load<T>(x, in, sm, w1, total - w1 < WIN ? total : w1 + WIN, runs);
        const unsigned lo = w0 + l * J, hi = lo + J < w1 ? lo + J : w1;
        /* the starts in this lane's span; those in the lanes before, counted bit by bit of the
           counts (independent ballots, not a chain of shuffles) */
        const unsigned marks = sm.marks[l], starts = __popc(marks);
        sm.marks[l] = 0;
        unsigned earlier_starts = seen;
#pragma unroll
        for (int bit = 0; (1 << bit) <= J; bit++) {
            const unsigned with = __ballot_sync(full, (starts >> bit) & 1u);
            earlier_starts += __popc(with & ((1u << l) - 1)) << bit;
            seen += __popc(with) << bit;
        }
        /* acc: the part of the range open at the span's end; head: the span's first range began
           before the span and ends in it (res[s0] holds its part) */
        A acc = Acc::start();
        bool open = false, head = false, back = false; /* back: acc continues an earlier lane's */
        unsigned s0 = 0;
        if (lo < hi) {
            const bool before = !(marks & 1u); /* the range at lo began in an earlier span */
            const unsigned mask = marks & ~1u; /* bit i: a range begins at lo + i */
            s0 = earlier_starts - before;      /* the range holding lo */
            unsigned begin = sm.pre[s0];
            const T *sp = sm.stage() + l * SPAN;
            unsigned s = s0;
            if (whole) warpred__span_fold<true, T, Acc>(sp, lo, hi, mask, begin, sm.res(), s, acc, op, f);
            else
                warpred__span_fold<false, T, Acc>(sp, lo, hi, mask, begin, sm.res(), s, acc, op, f);
            const bool ends = sm.pre[s + 1] == hi;
            if (ends) sm.res()[s] = acc;
            open = !ends;
            head = before && (mask != 0 || ends);
            back = open && before && mask == 0;
        }
        /* segmented scan over the lanes: c = the open range's part from its first element in
           this window to the end of this lane's span (order kept) */
        A part = acc;
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const A up = warpred__shfl<WARPRED__SHFL_IDX>(full, part, (int)l - d, 32);
            const bool up_back = __shfl_up_sync(full, back, d);
            if (l >= (unsigned)d && back) {
                part = op(up, part);
                back = up_back;
            }
        }
        if (back && carried) part = op(carry, part);
        /* a head ends the range that the lanes before carry in */
        A earlier = warpred__shfl<WARPRED__SHFL_IDX>(full, part, (int)l - 1, 32);
        if (l == 0) earlier = carry;
        if (head) sm.res()[s0] = op(earlier, sm.res()[s0]);
        const unsigned last = (w1 - w0 - 1) / J;
        carried = __shfl_sync(full, open, last);
        carry = warpred__shfl<WARPRED__SHFL_IDX>(full, part, (int)last, 32);
    }
    __syncwarp(); /* every result in res */
#pragma unroll
    for (int i = 0; i < N; i++)
        if (c[i] != ~0u) warpred__rows_store<Acc>(out, k0 + 32 * i + l, sm.res()[c[i]], g);
}

template <typename T, typename R, typename Op, typename F, typename O, typename G>
__global__ void __launch_bounds__(WARPRED_ROWS_THREADS, 3)
    warpred__ranges_kernel(const T *__restrict__ in, const size_t *__restrict__ begin, const size_t *__restrict__ end,
                           size_t count, warpred__rows_scratch s, O *out, Op op, F f, G g)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    enum {
        CHUNK = WARPRED_ROWS_RANGE_CHUNK,
        WIN = warpred__tile_shape<T>::WIN,
        N = warpred__tile_smem<T, A>::N,
        TILE = 32 * N
    };
    static_assert(sizeof(T) <= 64, "warpred_device_reduce_ranges: input elements may be at most 64 bytes (the "
                                   "tiles' shared memory holds 64 of them a warp)");
    static_assert(sizeof(T) > 64 || sizeof(warpred__tile_smem<T, A>) * (WARPRED_ROWS_THREADS / 32) + 64 <= 48 * 1024,
                  "warpred_device_reduce_ranges: with elements of more than 48 bytes the accumulator may be at most 48 "
                  "bytes (a block's tiles must fit in 48 KB of shared memory): reduce fewer fields at once");
    __shared__ warpred__tile_smem<T, A> tiles[WARPRED_ROWS_THREADS / 32];
    warpred__tile_smem<T, A> &sm = tiles[threadIdx.x / 32];
    /* warps numbered block after block (warp w of block b: w * blocks + b), so that the first
       tiles lie on different SMs: the long ranges every warp waits for are queued by the owners
       of the first tiles when there are few, and one SM's warps wrote all their entries */
    const size_t warp = (size_t)(threadIdx.x / 32) * gridDim.x + blockIdx.x;
    const size_t warps = (size_t)gridDim.x * (WARPRED_ROWS_THREADS / 32);
    const unsigned q = threadIdx.x % 32, mask = 0xffffffffu;
    unsigned *words = s.counters + s.tickets;
    sm.marks[q] = 0;
    if (threadIdx.x == 0) atomicAdd(&words[WARPRED__ROWS_STARTED], 1u);

    /* Tiles of `groups` groups of 32 ranges: N while there are at least as many such tiles as
       warps, else 1 (four times the tiles to share among the warps); and tiles of a group of 8
       ranges (lanes 8..31 idle: a tile of a few windows wastes little) where tiles of 32 are
       fewer than 2 a warp yet at least one (a warp's tiles of long ranges then take so long that
       whichever warps get a second one decide the time), or fewer than a quarter of the warps (the
       warps queueing long ranges, the others waiting for them, then queue 8 each instead of 32) */
    const int groups = (count + TILE - 1) / TILE < warps ? 1 : N;
    const size_t tiles32 = (count + 31) / 32;
    const unsigned lanes = groups == 1 && ((tiles32 >= warps && tiles32 < 2 * warps) || 4 * tiles32 < warps) ? 8 : 32;
    const size_t tile = lanes * (size_t)groups;
    /* 1. queue the long ranges of this warp's share (tiles warp, warp + warps, ...), so that
       every warp can take their chunks: above a chunk; with fewer tiles of 32 than warps (the
       owners alone would leave most warps idle), above a window. A long range the queue has no
       room for is reduced now by this warp alone, in registers (to the same bits). */
    const size_t shared_above = tiles32 < warps ? (size_t)WIN : (size_t)CHUNK;
    /* the next tile's offsets on their way while this one's are looked at */
    size_t next_b[N], next_n[N];
    if (warp * tile < count) warpred__tile_offsets(begin, end, count, warp * tile, groups, lanes, next_b, next_n);
    for (size_t k0 = warp * tile; k0 < count; k0 += warps * tile) {
        size_t b[N], n[N];
#pragma unroll
        for (int i = 0; i < N; i++) {
            b[i] = next_b[i];
            n[i] = next_n[i];
        }
        if (k0 + warps * tile < count)
            warpred__tile_offsets(begin, end, count, k0 + warps * tile, groups, lanes, next_b, next_n);
        unsigned alone[N];
#pragma unroll
        for (int i = 0; i < N; i++) {
            const bool queued = warpred__rows_queue_ranges(s, words, n[i] > shared_above, k0 + 32 * i + q, b[i], n[i]);
            alone[i] = __ballot_sync(mask, n[i] > shared_above && !queued);
        }
        warpred__ranges_by_warp<T, Acc>(in, begin, end, k0, alone, out, op, f, g);
    }
    warpred__rows_listed(words);

    /* 2. tiles of ranges: the first three quarters in turn (warp, warp + warps, ...: the tiles
       scanned in 1, whose offsets this SM has just read), the rest from WARPRED__ROWS_STREAMS
       counters (warp w's: tiles fixed + w % STREAMS + STREAMS j) until none is left, so that
       warps whose tiles took long are not waited for. Each tile: its ranges of up to shared_above
       elements together (the longer ones were dealt with in 1) */
    const size_t ntiles = (count + tile - 1) / tile, fixed = ntiles - ntiles / 4;
    const unsigned stream = (unsigned)(warp % WARPRED__ROWS_STREAMS);
    unsigned long long *taken = (unsigned long long *)&words[WARPRED__ROWS_TILES + WARPRED__ROWS_LINE * stream];
    unsigned long long asked = 0; /* in lane 0: the counter's answer, on its way */
    const auto ask = [&]() {
        if (q == 0) asked = atomicAdd(taken, 1ull);
    };
    const auto answer = [&]() -> size_t {
        return fixed + stream + WARPRED__ROWS_STREAMS * (size_t)__shfl_sync(mask, asked, 0);
    };
    if (warp >= fixed) ask();
    for (size_t t = warp < fixed ? warp : answer(); t < ntiles; t = t + warps < fixed ? t + warps : answer()) {
        if (t + warps >= fixed) ask(); /* the next tile's number on its way while this one is read */
        const size_t k0 = t * tile;
        size_t b[N], n[N];
        unsigned in_tile[N];
        warpred__tile_offsets(begin, end, count, k0, groups, lanes, b, n);
#pragma unroll
        for (int i = 0; i < N; i++) {
            if (i < groups && q < lanes && k0 + 32 * i + q < count && n[i] == 0)
                warpred__rows_store<Acc>(out, k0 + 32 * i + q, warpred__identity<Op, A>(), g);
            in_tile[i] = n[i] <= shared_above ? (unsigned)n[i] : 0u;
        }
        warpred__tile_ranges<T, Acc>(in, sm, k0, in_tile, b, out, op, f, g);
    }

    /* 3. the queued chunks, every warp taking them from one counter */
    if (warpred__rows_wait_listed(words, (unsigned)warps))
        warpred__rows_take_chunks<T, Acc>(in, s, words, (unsigned)warps, out, op, f, g);

    /* 4. the last block out sets the queue back to empty for the next launch (not through
       warpred__block_last: with it one range of 2^25 among 2^20 of 1..64 elements took 94.4
       and 94.8 us instead of 90.8-90.9 in two runs of bench_segmented on an H200) */
    __shared__ bool last_block;
    __syncthreads();
    if (threadIdx.x == 0) last_block = warpred__ticket(&words[WARPRED__ROWS_EXITED]) == gridDim.x - 1;
    __syncthreads();
    if (!last_block) return;
    for (unsigned i = threadIdx.x; i < WARPRED__ROWS_WORDS; i += WARPRED_ROWS_THREADS) words[i] = 0;
}

/* ---- empty shapes ---- */

template <typename R, typename Op, typename O, typename G>
__global__ void warpred__slices_identity_kernel(size_t count, O *out, Op, G g)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
        warpred__rows_store<Acc>(out, k, warpred__identity<Op, typename Acc::type>(), g);
}

#endif /* WARPRED_DEVICE_ROWS_KERNEL_CUH */
