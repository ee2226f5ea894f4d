/* warpred/grid_reduce.cuh - one result for a whole grid, in a single launch.      MIT licensed.

   Your kernel computes one partial value per thread, then every thread of the grid calls

     bool warpred_grid_reduce(T v, Op op, warpred_grid_scratch scratch, T *out)

   once, at its end (warpred_grid_reduce<BlockThreads>(...) when the block size is known at
   compile time, as for warpred_block_reduce). Each block reduces its threads' values and stores one partial; the last
   block to finish folds the partials and writes *out. It returns true in exactly one thread
   (thread 0 of that last block, after it wrote *out), false everywhere else.

   USAGE
       #include <warpred/grid_reduce.cuh>

       // squared error, in one launch: out = sum (y - t)^2
       __global__ void squared_error(const float *y, const float *t, size_t n,
                                     warpred_grid_scratch scratch, float *out)
       {
           float acc = 0.0f;
           for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
                i += (size_t)gridDim.x * blockDim.x) {
               float d = y[i] - t[i];
               acc += d * d;
           }
           warpred_grid_reduce(acc, warpred_op_sum(), scratch, out);
       }

       // host side, once:
       warpred_grid_scratch scratch;
       const char *why;
       if (warpred_grid_scratch_create(&scratch, 1024, sizeof(float), &why) != cudaSuccess)
           fprintf(stderr, "grid scratch: %s\n", why);
       // any number of launches, no reset in between:
       squared_error<<<1024, 256>>>(y, t, n, scratch, out);
       // y = {1, 2, 3}, t = {0, 0, 0}: *out == 14
       warpred_grid_scratch_destroy(&scratch);

   (This snippet is compiled and checked in tests/test_grid_reduce.cu.)

   SCRATCH  warpred_grid_scratch (declared in grid_scratch.h, which host-only .c/.cpp files
   can include) holds `partials` (room for `capacity` values of the reduced type:
   warpred_grid_scratch_bytes(capacity, sizeof(T)) bytes) and two 32-bit counter words that
   must be zero before the first launch. The last block sets the ticket word back to zero, so
   launches may follow each other with no memset. warpred_grid_scratch_create allocates both
   and zeroes the counter; or point the fields at memory of your own. One scratch serves one
   launch at a time: launches that may overlap (other streams, graphs run concurrently) each
   need their own.

   TOO MANY BLOCKS  A launch with more blocks than scratch.capacity never writes out of
   bounds, with or without NDEBUG: no block writes a partial, *out is not written, every thread
   returns false, and the status word records it; warpred_grid_scratch_status(&scratch, &why)
   on the host then returns cudaErrorInvalidValue with a message (and clears it). The check is
   one comparison per thread (`make bench` shows no measurable cost).

   DETERMINISM  For a fixed grid size, block size and per-thread values the result is bitwise
   identical on every run: no floating-point atomics are involved; the last block folds the
   partials in a fixed order (its thread t takes partials t, t + f, t + 2f, ... in turn, f
   fixed by the grid and block sizes) and then runs the fixed warp or block reduction tree.
   Which block happens to finish last does not matter.

   MEMORY ORDERING  A block's thread 0 stores its partial, then takes a ticket with
   atom.acq_rel.gpu (an atomic add that is both a release and an acquire at GPU scope). The
   counter's atomics form one chain, so the thread that draws the last ticket has
   synchronized with every earlier ticket's release: every partial is visible to it. A
   barrier (__syncwarp or __syncthreads, both of which order memory among their threads)
   passes that on to the threads that fold the partials, which read them with ld.global.cg
   (from L2, past the non-coherent L1) for good measure. One block: no partials and no
   counter at all.

   COST  After its block reduction, each block's thread 0 does one store and one atomic.
   Up to 8 partials per lane of a warp (256 blocks for blocks of 32+ threads), the last
   block's warp 0 folds them and the other warps of every block return at once; beyond that
   the whole last block folds them, then reduces. Either way the partials are loaded in one
   trip to L2 for grids of up to 8 blocks per thread of a block (values of up to 8 bytes;
   compound values of 9..32 bytes: 64 bytes' worth per thread; larger: one at a time).

   OPERATIONS AND TYPES  those of block_reduce.cuh: the operations of ops.cuh or your own;
   int, unsigned, long long, unsigned long long, float, double, __half, __nv_bfloat16 and the
   compound types of op_*.cuh (argmin/argmax, tuples, Welford, softmax).

   PRECONDITIONS  Every thread of every block calls it exactly once per launch, from code all
   of them reach (it contains __syncthreads()). 1D, 2D or 3D grids and blocks; the number of
   blocks (gridDim.x * gridDim.y * gridDim.z) is at most scratch.capacity (else: TOO MANY
   BLOCKS above) and below 2^32.

   CONFIGURATION  see ops.cuh (WARPRED_ASSERT, WARPRED_NO_REDUX, WARPRED_NO_NAN_MINMAX).

   This header needs grid_scratch.h, block_reduce.cuh, warp_reduce.cuh and ops.cuh beside it.
*/
#ifndef WARPRED_GRID_REDUCE_CUH
#define WARPRED_GRID_REDUCE_CUH

#include "block_reduce.cuh"
#include "grid_scratch.h"
#ifndef __CUDACC_RTC__
#  include <string.h> /* memcpy (the tagged partials), which NVRTC has built in */
#endif

/* Partials are read once, by another block than the one that wrote them: through L2, past the
   non-coherent L1. Compound values member by member (their padding is never read: it was never
   written); each member lands at its own offset in the result. */
template <typename T> __device__ __forceinline__ T warpred__load_cg(const T *p);

struct warpred__load_member_cg {
    const char *from;
    char *to;
    template <typename M> __device__ __forceinline__ void operator()(M &member) const
    {
        const long long offset = (const char *)&member - from;
        *reinterpret_cast<M *>(to + offset) = warpred__load_cg(&member);
    }
};

template <typename T> __device__ __forceinline__ T warpred__load_cg(const T *p)
{
    if constexpr (warpred__is_scalar<T>::value) {
        return __ldcg(p);
    } else {
        T r;
        const warpred__load_member_cg load = {(const char *)p, (char *)&r};
        warpred__visit(*const_cast<T *>(p), load); /* visits p's members in place; only reads them */
        return r;
    }
}

/* atomicAdd with acquire-release semantics at GPU scope: the release half publishes this
   thread's earlier stores (the partial) with the ticket, the acquire half makes the stores
   published with every earlier ticket visible to this thread's later loads. */
__device__ __forceinline__ unsigned warpred__ticket(unsigned *counter)
{
    unsigned ticket;
    asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], 1;" : "=r"(ticket) : "l"(counter) : "memory");
    return ticket;
}

/* Thread `first` of `stride` folds partials first, first + stride, ... (first < n) in that
   order. The first K are loaded together (eight values of up to 8 bytes; 64 bytes of larger
   compound values, so that a 1024-thread block still fits in the registers), so up to
   K * stride partials cost one trip to L2; more (only for grids far larger than one wave) go
   through the loop. */
template <typename T> struct warpred__in_flight {
    enum { value = sizeof(T) <= 8 ? 8 : sizeof(T) <= 32 ? 64 / sizeof(T) : 1 };
};

template <typename T, typename Op>
__device__ __forceinline__ T warpred__fold_partials(const T *partials, unsigned n, unsigned first, unsigned stride, Op op)
{
    enum { K = warpred__in_flight<T>::value };
    T x[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        if (first + k * stride < n) x[k] = warpred__load_cg(&partials[first + k * stride]);
    T acc = x[0];
#pragma unroll
    for (int k = 1; k < K; k++)
        if (first + k * stride < n) acc = op(acc, x[k]);
    for (unsigned b = first + K * stride; b < n; b += stride) acc = op(acc, warpred__load_cg(&partials[b]));
    return acc;
}

template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ bool warpred_grid_reduce(T v, Op op, warpred_grid_scratch scratch, T *out)
{
    __shared__ unsigned last_block;
    const unsigned nblocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const int tid = warpred__block_thread_rank();
    const int nthreads = warpred__block_size<BlockThreads>();
    T *partials = (T *)scratch.partials;
    WARPRED_ASSERT(scratch.counter != 0 && partials != 0);
    if (nblocks > scratch.capacity) { /* never write past the partials, NDEBUG or not: tell the host */
        if (block == 0 && tid == 0) atomicOr(&scratch.counter[1], WARPRED_GRID_STATUS_OVERFLOW);
        return false;
    }

    v = warpred_block_reduce<BlockThreads>(v, op);
    if (nblocks == 1) { /* the only block is the last one: no partials, no counter */
        if (tid == 0) *out = v;
        return tid == 0;
    }
    /* Few partials: warp 0 of the last block folds them alone (one load trip per lane, no
       block barrier), and the other warps of every block leave now. Many: the whole last
       block folds them, so the loads still take one trip. */
    const int warp_lanes = nthreads < 32 ? nthreads : 32;
    const bool by_warp = nblocks <= (unsigned)warpred__in_flight<T>::value * warp_lanes;
    const int folders = by_warp ? warp_lanes : nthreads;
    if (tid >= folders) return false;
    unsigned is_last = 0;
    if (tid == 0) {
        partials[block] = v;
        is_last = warpred__ticket(scratch.counter) == nblocks - 1;
    }
    /* A barrier carries thread 0's acquire on to the threads that fold (bar.warp.sync and
       bar.sync both order memory among their threads), so their loads see every partial. */
    if (by_warp) {
        const unsigned warp0 = warpred__first_lanes(folders);
        __syncwarp(warp0);
        is_last = __shfl_sync(warp0, is_last, 0);
    } else {
        if (tid == 0) last_block = is_last;
        __syncthreads();
        is_last = last_block;
    }
    if (!is_last) return false;

    const int holders = nblocks < (unsigned)folders ? (int)nblocks : folders;
    T acc = v;
    if (tid < holders) acc = warpred__fold_partials(partials, nblocks, (unsigned)tid, (unsigned)folders, op);
    acc = warpred__block_reduce_prefix<false, BlockThreads>(acc, op, folders, holders);
    if (tid == 0) {
        *out = acc;
        *scratch.counter = 0; /* ready for the next launch; nobody else touches it in this one */
    }
    return tid == 0;
}

/* ---- epoch-tagged partials: internal, the tail of warpred_device_reduce ----

   warpred__grid_reduce_tagged is what device_reduce.cuh calls instead of warpred_grid_reduce:
   no ticket atomic, no counter reset, no fence. Every block's thread 0 stores its block total
   into its own slot of the scratch with this launch's tag in every 8-byte word of it; the last
   block (the poller, linear index nblocks - 1), after its own block reduction, polls the slots
   until each carries the tag, folds them in a fixed order, and advances the epoch word for the
   next launch. Its scratch comes from
   warpred__grid_scratch_create_tagged (grid_scratch.h: the layout), zeroed once; the tag lives
   in device memory and is advanced by the kernel, so graph replays and back-to-back launches
   need nothing from the host.

     T total;   // every thread of the grid, once, at the end of the kernel:
     if (warpred__grid_reduce_tagged<BlockThreads>(v, op, scratch, warpred__grid_launch_tag(scratch), total))
         use(total);

   It returns true in thread 0 of the last block only, with total = the grid's result.

   THE WORDS  A value of B bytes is cut into 32-bit chunks, each stored as (tag << 32) | chunk
   in an 8-byte word: one word for B <= 4 (a float, an int, a __half), pairs of words written
   and read as 16-byte vectors for more (the last pair's spare word carries the tag too). Each
   8-byte word is accessed single-copy atomically (an aligned 64-bit access; a 16-byte vector
   access counts as two such, in no order), so a word carrying this launch's tag holds this
   launch's chunk; a slot whose every word carries the tag holds this launch's value. Every
   word of the scratch always holds a tag in its high half, whatever the value type of the
   launch that wrote it (the layouts of different types overlap), so a stale word can pass only
   if its tag equals the current one.

   MEMORY ORDER  All the accesses are .relaxed.gpu: strong, so they go to L2 (never a stale L1
   line) and a word is never torn. No release/acquire is needed: the value travels in the same
   single-copy-atomic access as its tag, and nothing else is published. The epoch word is read
   (relaxed) by every block before it stores and written (relaxed) by the poller only after it
   has seen every block's word; each block's stored tag is computed from its read of the epoch
   (a data dependency, which the hardware never speculates past), so no block can read the
   epoch the poller writes in the same launch. The next launch reads it after the kernel
   boundary, which orders everything.

   WRAP  Tags are 32 bits and the epoch counts launches of more than one block. A word not
   written for 2^32 such launches would carry a current-looking tag; so each launch whose tag
   is a multiple of 2^31 (its low 31 bits zero) ends with the poller setting the tag of every word
   of the scratch (all `capacity`, whichever layout wrote them) to its own. After that every
   word's tag lies within the last 2^31 tags, never equal to the next 2^31 launches' tags.

   DEADLOCK FREEDOM  Only the poller waits; every other block stores once and leaves, never
   waiting for anything. The blocks the poller waits for therefore always get onto the GPU: all
   of them are resident at once when the grid is at most one wave (warpred_device_reduce's
   grid never exceeds it), and beyond that the places of finished blocks free up while the
   poller occupies one. The poller is the last block rather than block 0 because blocks are
   started in index order in practice: it starts after all the others, and even a tool that
   ran the blocks one at a time in that order (a sanitizer) would find every slot written.
   (The ticket scheme of warpred_grid_reduce needs no such argument: nobody waits there.)

   DETERMINISM  Block b stores into slot b + 1 and the poller's own total is slot 0 (it stays
   in its thread 0's registers). The poller's thread t folds slots t, t + f, t + 2f, ... (f =
   32 or the block size, fixed by the grid size) in that order, then the fixed warp or block
   tree: the order of warpred_grid_reduce's last block, which depends on the grid size only. */

template <typename T> struct warpred__tagged_layout {
    enum {
        stride = WARPRED__TAGGED_STRIDE(sizeof(T)), /* words per slot */
        /* slots polled together per thread: 2 one-word slots, else 1. Registers decide: with the
           block layer of e84e34f, 4 one-word slots took device_reduce.cuh's float-max and int-sum
           kernels from 32 to 40 registers and 2 two-word slots its double sum from 40 to 48 (a
           block per SM less each time); these fit where the ticket tail did (32, 32, 32, 40). */
        in_flight = stride == 1 ? 2 : 1,
        by_warp_per_lane = 2 * in_flight /* up to this many slots per lane, warp 0 folds alone */
    };
    static_assert(stride == 1 || stride % 2 == 0, "warpred: slots of more than one word are 16-byte pairs");
};

/* The launch's tag: every thread reads the epoch (one coalesced load per warp). Called as
   the argument of warpred__grid_reduce_tagged, its load overlaps the block reduction; read at
   the kernel's start instead, the tag held a register through the main loop and took the
   float-max and double-sum kernels from 32 to 40 registers. */
__device__ __forceinline__ unsigned warpred__grid_launch_tag(warpred_grid_scratch scratch)
{
    unsigned epoch;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(epoch) : "l"(scratch.counter + WARPRED__GRID_EPOCH) : "memory");
    return epoch + 1u;
}

__device__ __forceinline__ unsigned long long warpred__tag_word(unsigned tag, unsigned chunk)
{
    return (unsigned long long)tag << 32 | chunk;
}
__device__ __forceinline__ unsigned warpred__word_tag(unsigned long long w) { return (unsigned)(w >> 32); }

__device__ __forceinline__ void warpred__store_word(unsigned long long *p, unsigned long long w)
{
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
}
__device__ __forceinline__ void warpred__store_words2(unsigned long long *p, unsigned long long a, unsigned long long b)
{
    asm volatile("st.relaxed.gpu.global.v2.b64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}
__device__ __forceinline__ unsigned long long warpred__load_word(const unsigned long long *p)
{
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    return w;
}
__device__ __forceinline__ void warpred__load_words2(const unsigned long long *p, unsigned long long &a, unsigned long long &b)
{
    asm volatile("ld.relaxed.gpu.global.v2.b64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

/* A block's value into its slot, every word tagged. */
template <typename T> __device__ __forceinline__ void warpred__store_tagged(unsigned long long *slot, const T &v, unsigned tag)
{
    typedef warpred__tagged_layout<T> L;
    unsigned chunk[L::stride];
#pragma unroll
    for (int j = 0; j < L::stride; j++) chunk[j] = 0;
    memcpy(chunk, &v, sizeof(T));
    if constexpr (L::stride == 1) {
        warpred__store_word(slot, warpred__tag_word(tag, chunk[0]));
    } else {
#pragma unroll
        for (int j = 0; j < L::stride; j += 2)
            warpred__store_words2(slot + j, warpred__tag_word(tag, chunk[j]), warpred__tag_word(tag, chunk[j + 1]));
    }
}

template <typename T> __device__ __forceinline__ T warpred__untag(const unsigned long long (&w)[warpred__tagged_layout<T>::stride])
{
    typedef warpred__tagged_layout<T> L;
    unsigned chunk[L::stride];
#pragma unroll
    for (int j = 0; j < L::stride; j++) chunk[j] = (unsigned)w[j];
    T v;
    memcpy(&v, chunk, sizeof(T));
    return v;
}

template <int Words> __device__ __forceinline__ bool warpred__tagged_with(const unsigned long long (&w)[Words], unsigned tag)
{
    bool all = true;
#pragma unroll
    for (int j = 0; j < Words; j++) all &= warpred__word_tag(w[j]) == tag;
    return all;
}

/* Slots base, base + stride, ... (K of them, those below count) as values, once each carries
   `tag`; slot 0 is the caller's own value (never stored). Each round loads again every slot
   that still lacks the tag, all of them in flight together, so the last one to land costs one
   more round trip, not one per slot behind it. */
template <int K, typename T>
__device__ __forceinline__ void warpred__await_slots(const unsigned long long *words, unsigned count, unsigned base, unsigned stride,
                                                     unsigned tag, const T &own, T (&x)[K])
{
    typedef warpred__tagged_layout<T> L;
    unsigned long long w[K][L::stride];
#pragma unroll
    for (int k = 0; k < K; k++) {
        const unsigned b = base + k * stride;
        const bool wanted = b != 0 && b < count; /* a slot to load; the rest count as tagged */
#pragma unroll
        for (int j = 0; j < L::stride; j++) w[k][j] = warpred__tag_word(wanted ? tag - 1u : tag, 0);
    }
    bool pending = true;
    while (pending) {
#pragma unroll
        for (int k = 0; k < K; k++) {
            if (warpred__tagged_with(w[k], tag)) continue;
            const unsigned long long *slot = words + (size_t)(base + k * stride) * L::stride;
            if constexpr (L::stride == 1) {
                w[k][0] = warpred__load_word(slot);
            } else {
#pragma unroll
                for (int j = 0; j < L::stride; j += 2) warpred__load_words2(slot + j, w[k][j], w[k][j + 1]);
            }
        }
        pending = false;
#pragma unroll
        for (int k = 0; k < K; k++) pending |= !warpred__tagged_with(w[k], tag);
    }
#pragma unroll
    for (int k = 0; k < K; k++) x[k] = base + k * stride == 0 ? own : warpred__untag<T>(w[k]);
}

/* Thread `first` of `stride` folds slots first, first + stride, ... (first < count) in that
   order, as warpred__fold_partials does. */
template <typename T, typename Op>
__device__ __forceinline__ T warpred__fold_tagged(const unsigned long long *words, unsigned count, unsigned first, unsigned stride,
                                                  unsigned tag, const T &own, Op op)
{
    enum { K = warpred__tagged_layout<T>::in_flight };
    T x[K];
    warpred__await_slots<K>(words, count, first, stride, tag, own, x);
    T acc = x[0];
#pragma unroll
    for (int k = 1; k < K; k++)
        if (first + k * stride < count) acc = op(acc, x[k]);
    for (unsigned base = first + K * stride; base < count; base += K * stride) {
        warpred__await_slots<K>(words, count, base, stride, tag, own, x);
#pragma unroll
        for (int k = 0; k < K; k++)
            if (base + k * stride < count) acc = op(acc, x[k]);
    }
    return acc;
}

/* Once every 2^31 tags: every word of the scratch gets this launch's tag (see WRAP above).
   The callers' loads of the words are all done: their values met in the reduction before. */
__device__ __forceinline__ void warpred__refresh_tags(warpred_grid_scratch scratch, unsigned tag, int tid, int threads)
{
    unsigned long long *words = (unsigned long long *)scratch.partials;
    for (unsigned i = (unsigned)tid; i < scratch.capacity; i += (unsigned)threads) warpred__store_word(words + i, warpred__tag_word(tag, 0));
}

template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ bool warpred__grid_reduce_tagged(T v, Op op, warpred_grid_scratch scratch, unsigned tag, T &total)
{
    typedef warpred__tagged_layout<T> L;
    const unsigned nblocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const int tid = warpred__block_thread_rank();
    const int nthreads = warpred__block_size<BlockThreads>();
    unsigned long long *words = (unsigned long long *)scratch.partials;
    WARPRED_ASSERT(scratch.counter != 0 && words != 0);
    if ((unsigned long long)nblocks * L::stride > scratch.capacity) { /* never write past the words: tell the host */
        if (block == 0 && tid == 0) atomicOr(&scratch.counter[1], WARPRED_GRID_STATUS_OVERFLOW);
        return false;
    }

    v = warpred_block_reduce<BlockThreads>(v, op);
    if (nblocks == 1) { /* the only block: no slots, and the epoch stays (this launch used no tag) */
        if (tid == 0) total = v;
        return tid == 0;
    }
    if (block != nblocks - 1) {
        if (tid == 0) warpred__store_tagged(words + (size_t)(block + 1) * L::stride, v, tag);
        return false;
    }
    /* The poller. Few slots: warp 0 polls and folds them alone (at most two rounds per lane, no
       block barrier); many: the whole block, so that the loads still take one or two rounds. */
    const int warp_lanes = nthreads < 32 ? nthreads : 32;
    const bool by_warp = nblocks <= (unsigned)L::by_warp_per_lane * warp_lanes;
    const int folders = by_warp ? warp_lanes : nthreads;
    if (tid >= folders) return false;
    const int holders = nblocks < (unsigned)folders ? (int)nblocks : folders;
    T acc = v; /* slot 0, the poller's own total: in thread 0, which folds it first */
    if (tid < holders) acc = warpred__fold_tagged(words, nblocks, (unsigned)tid, (unsigned)folders, tag, v, op);
    acc = warpred__block_reduce_prefix<false, BlockThreads>(acc, op, folders, holders);
    if ((tag & 0x7fffffffu) == 0) warpred__refresh_tags(scratch, tag, tid, folders);
    if (tid == 0) {
        total = acc;
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(scratch.counter + WARPRED__GRID_EPOCH), "r"(tag) : "memory");
    }
    return tid == 0;
}

#endif /* WARPRED_GRID_REDUCE_CUH */
