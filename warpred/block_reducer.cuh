/* warpred/block_reducer.cuh - block reductions in a loop, one barrier each.      MIT licensed.

   warpred_block_reduce owns its shared memory, so it passes two barriers per call: the next
   call must not store into cells this call is still reading. A reducer owns two sets of cells
   and alternates between them (which set is next is a register of every thread), so each call
   passes one barrier: what cub::BlockReduce costs with two TempStorage objects used in turn,
   without declaring them.

     WARPRED_BLOCK_REDUCER(name, T, BlockThreads);   declares the reducer `name` for values of T
                                                     and its shared memory; BlockThreads: the
                                                     block size, or 0 to read it at run time
     name.reduce(v, op)              the block's result in thread 0
     name.allreduce(v, op)           the block's result in every thread
     name.reduce_valid(v, op, n)     only threads 0..n-1's values count; result in thread 0
     name.allreduce_valid(v, op, n)  the same, result in every thread
     name.with_size(f)               a run-time-size reducer: calls f(r) once, r a reducer on the
                                     same cells with code for the block's size (below), and
                                     returns what f returns. Put the loop in f: the size is
                                     looked at once for the whole loop instead of in every call

   USAGE
       #include <warpred/block_reducer.cuh>

       __global__ void row_sums(const float *x, int rows, int cols, float *out)   // blocks of 256
       {
           WARPRED_BLOCK_REDUCER(sum, float, 256);              // once, before the loop
           for (int row = blockIdx.x; row < rows; row += gridDim.x) {
               float s = 0.0f;
               for (int c = threadIdx.x; c < cols; c += 256) s += x[(size_t)row * cols + c];
               s = sum.reduce(s, warpred_op_sum());
               if (threadIdx.x == 0) out[row] = s;
           }
       }
       // rows of {1, 2, ..., cols}: out[row] = cols * (cols + 1) / 2

   A kernel for any block size, its loop compiled for the common sizes:

       __global__ void row_maxes(const float *x, int rows, int cols, float *out)  // any block size
       {
           WARPRED_BLOCK_REDUCER(top, float, 0);
           top.with_size([&](auto &r) {                         // r: a reducer for this size
               for (int row = blockIdx.x; row < rows; row += gridDim.x) {
                   float m = -INFINITY;
                   for (int c = threadIdx.x; c < cols; c += blockDim.x)
                       m = fmaxf(m, x[(size_t)row * cols + c]);
                   m = r.reduce(m, warpred_op_max());
                   if (threadIdx.x == 0) out[row] = m;
               }
           });
       }
       // rows of {1, 2, ..., cols}: out[row] = cols

   (Both snippets are compiled and checked in tests/test_block_reducer.cu.)

   WHICH FORM TO CALL
     one reduction in a kernel             warpred_block_reduce<BlockThreads>(v, op): nothing to
                                           declare; two barriers
     a loop of reductions (a row per block  a reducer declared before the loop: one barrier per
       in turn, iterations of a solver)    call
     several values reduced together       one call on a tuple (op_tuple.cuh): one barrier pair
                                           for all of them
     reducers of several types alive at   one WARPRED_BLOCK_REDUCER each: each declares its own
       once, or of one type in two loops   memory, so they never share cells
   The compile-time block size is the faster form of both (and needs less shared memory).

   SEMANTICS  Operations and values as warpred_block_reduce (block_reduce.cuh), with the same
   ORDER: every call gives the bits warpred_block_reduce gives for the same values, block shape
   and operation, and reduce and allreduce give the same bits.

   PRECONDITIONS
     - Declare the reducer where every thread of the block passes, and before the loop, not in
       it: a reducer declared anew starts over on its first set of cells, right after the last
       call may have used that set.
     - Every thread of the block makes every call, in the same order (the sets alternate per
       call). Without NDEBUG the barrier also counts the threads on each set and an assert fires
       when they disagree (one more barrier operand; NDEBUG, or WARPRED_BLOCK_REDUCER_CHECK 0,
       turns the check off).
     - BlockThreads, when not 0, equals the block size; a run-time size is at most
       WARPRED_BLOCK_MAX_THREADS (both checked with assert).

   SHARED MEMORY  Scalars: 2 * (N + 1) * sizeof(T), N the compile-time size or
   WARPRED_BLOCK_MAX_THREADS (2056 bytes for float and <256>). Compound values: 66 * sizeof(T).

   COST  Per call one barrier (a __syncthreads_or for float/double min/max, which also asks
   whether any value is a NaN or a zero); otherwise as warpred_block_reduce: warp 0 folds the
   cells' columns and runs one shuffle tree. allreduce of scalars: every warp folds the columns
   itself (the same operations in the same order, so the same bits) instead of waiting on a
   second barrier for warp 0's result; a block with a partial last warp, which cannot run the
   tree itself, and compound values (whose slots thread 0 folds) take that second barrier. The
   thread's rank and its column length are found once, when the reducer is declared. A
   run-time size picks the code for its size in every call, with a switch on the block size
   (in a tight loop of float sums it added three quarters to the instructions executed); other
   sizes than 64, 128, 256, 512 and 1024, and _valid calls, take code for columns of up to 3, 7,
   15 or 31 cells (the least that holds the longest; each load guarded). with_size picks once
   for the whole loop and compiles f ten times: for 64, 128, 256, 512 and 1024 threads as a
   compile-time size, and for each class of other sizes (33..63, 65..127, 129..255, 257..511,
   513..1023 threads; classes above WARPRED_BLOCK_MAX_THREADS are left out) code for its
   column lengths, close to a compile-time size for sums (min/max guard each load instead).
   Compound values fold warp partials, not columns: their other sizes keep the run-time form
   (six copies of f). The kernel's registers are those of its hungriest path, the code for
   sizes it never runs at included: see block_reduce.cuh on the compile-time size (lowering
   WARPRED_BLOCK_MAX_THREADS leaves out the larger sizes' code).
   Figures: docs/BENCHMARKS.md (bench_block, bench_compound).

   This header needs block_reduce.cuh, warp_reduce.cuh, ops.cuh and its base beside it.
*/
#ifndef WARPRED_BLOCK_REDUCER_CUH
#define WARPRED_BLOCK_REDUCER_CUH

#include "block_reduce.cuh"

#ifndef WARPRED_BLOCK_REDUCER_CHECK
#    ifdef NDEBUG
#        define WARPRED_BLOCK_REDUCER_CHECK 0
#    else
#        define WARPRED_BLOCK_REDUCER_CHECK 1
#    endif
#endif

/* Two sets of cells: a cell per thread for scalars (the raking fold), a slot per warp for
   compound values (the warp-partials fold), each set with one more for a broadcast result.
   Raw bytes, so that types with constructors fit. */
template <typename T, int BlockThreads> struct warpred_block_storage {
    static_assert(BlockThreads >= 0 && BlockThreads <= 1024, "warpred: BlockThreads must be 0 (run time) or 1..1024");
    enum {
        threads = BlockThreads != 0 ? BlockThreads : WARPRED_BLOCK_MAX_THREADS,
        cells = (warpred__is_scalar<T>::value ? threads : 32) + 1
    };
    alignas(T) unsigned char raw[2 * cells * sizeof(T)];
};

#define WARPRED_BLOCK_REDUCER(name, T, BlockThreads)                          \
    __shared__ warpred_block_storage<T, BlockThreads> name##_warpred_storage; \
    warpred_block_reducer<T, BlockThreads> name(name##_warpred_storage)

/* Cells: the cells of one set in the storage the reducer works on (a reducer that with_size
   makes works on its maker's storage, which may hold more than its size needs). ColumnMax: for
   a run-time size, the most cells a lane's column can hold when with_size has bounded the block
   size (1, 3, 7, 15 or 31: blocks of up to 64, 128, 256, 512 or 1024 threads; the last class
   stops at WARPRED_BLOCK_MAX_THREADS), -1 when unknown (always with a compile-time size). */
template <typename T, int BlockThreads = 0, int Cells = warpred_block_storage<T, BlockThreads>::cells,
          int ColumnMax = -1>
class warpred_block_reducer {
    template <typename, int, int, int> friend class warpred_block_reducer;
    typedef warpred_block_storage<T, BlockThreads> storage;
    enum {
        RESULT = Cells - 1,                       /* the broadcast cell of a set */
        most_column = (storage::threads - 1) / 32 /* the most cells a lane's column can hold */
    };
    T *set_;    /* the set the next call uses */
    int other_; /* from it to the other set, in cells: +cells or -cells */
    int tid_, nthreads_;
    int column_; /* scalars, run-time sizes: the cells lane (tid & 31) of warp 0 folds after its own value */

    /* The call's barrier; with the check, also whether every thread is on this set. */
    __device__ __forceinline__ bool barrier_or(bool pred)
    {
#if WARPRED_BLOCK_REDUCER_CHECK
        const int here = __syncthreads_count(other_ > 0);
        WARPRED_ASSERT(here == 0 || here == nthreads_); /* every thread makes every call */
#endif
        return __syncthreads_or(pred) != 0;
    }
    __device__ __forceinline__ void barrier(void)
    {
#if WARPRED_BLOCK_REDUCER_CHECK
        const int here = __syncthreads_count(other_ > 0);
        WARPRED_ASSERT(here == 0 || here == nthreads_);
#else
        __syncthreads();
#endif
    }
    /* The next call takes the other set. */
    __device__ __forceinline__ T *take_set(void)
    {
        T *cells = set_;
        set_ += other_;
        other_ = -other_;
        return cells;
    }
    __device__ __forceinline__ bool whole_warps(void) const
    {
        return BlockThreads != 0 ? BlockThreads % 32 == 0 : (nthreads_ & 31) == 0;
    }

    /* A result r of warp 0 (lane 0) to every thread, for blocks with a partial warp, which
       cannot run warp 0's tree itself: a second barrier (this set's cells stay untouched until
       every thread has passed the next call's first one). */
    __device__ __forceinline__ T broadcast(T *cells, T r)
    {
        if (tid_ == 0) cells[RESULT] = r;
        __syncthreads();
        return cells[RESULT];
    }

    /* A size class's whole block: the longest column (the same in every lane) found among
       the class's lengths, Q down to the least a block of the class has (a power of two), and
       folded with code for it, each lane's column Q or Q - 1 cells (as for a compile-time
       size: only slot Q guarded). */
    template <int Q, bool Votes, typename Op>
    __device__ __forceinline__ T fold_longest(T r, const T *column, Op op, bool plain)
    {
        constexpr int least = ColumnMax >= 16 ? 16 : ColumnMax >= 8 ? 8 : ColumnMax >= 4 ? 4 : ColumnMax >= 2 ? 2 : 1;
        if constexpr (Q > least) {
            if ((nthreads_ - 1) >> 5 != Q) return fold_longest<Q - 1, Votes>(r, column, op, plain);
        }
        return warpred__fold_column_voted<Q, Votes>(r, column, column_ == Q ? Q : Q - 1, op, plain);
    }

    /* Lane L's column of the cells folded in ORDER, with code for its length where one is known:
       a compile-time size (any: block_reduce.cuh's warpred__fold_column_sized); a run-time size
       that with_size bounded (fold_longest, or for min/max code for columns of up to ColumnMax
       cells, each load and step guarded by the lane's length); or a run-time size of whole
       warps, switched on the block size (which the compiler knows to be the same in every
       thread: a switch on a per-lane length made it guard every later shuffle against
       divergence). Other sizes, and counts of values, take the least bound on the longest
       column that holds it (block_reduce.cuh's warpred__fold_column_bounded). */
    template <bool Votes, typename Op>
    __device__ __forceinline__ T fold(T r, const T *column, int counted, Op op, bool plain)
    {
        const int lane = tid_ & 31;
        if (counted == nthreads_) { /* the whole block */
            if constexpr (BlockThreads != 0) {
                return warpred__fold_column_sized<BlockThreads, Votes>(r, column, lane, op, plain);
            } else if constexpr (ColumnMax >= 0) {
                /* min/max (Votes) fold each length twice, plainly and by the IEEE rules: code
                   for every length of the class raised the kernel's registers (float max with
                   blocks of 1024: 32 to 44, half the blocks per SM), so they guard instead */
                if constexpr (Votes) return warpred__fold_column_voted<ColumnMax, Votes>(r, column, column_, op, plain);
                else
                    return fold_longest<ColumnMax, Votes>(r, column, op, plain);
            } else {
                switch (nthreads_) {
                case 64: return warpred__fold_column_sized<64, Votes>(r, column, lane, op, plain);
                case 128: return warpred__fold_column_sized<128, Votes>(r, column, lane, op, plain);
                case 256: return warpred__fold_column_sized<256, Votes>(r, column, lane, op, plain);
                case 512: return warpred__fold_column_sized<512, Votes>(r, column, lane, op, plain);
                case 1024: return warpred__fold_column_sized<1024, Votes>(r, column, lane, op, plain);
                default:
                    return warpred__fold_column_bounded<3, most_column, Votes>(r, column, column_, (nthreads_ - 1) >> 5,
                                                                               op, plain);
                }
            }
        }
        const int k = lane < counted ? (counted - 1 - lane) >> 5 : 0;
        if constexpr (ColumnMax >= 0) return warpred__fold_column_voted<ColumnMax, Votes>(r, column, k, op, plain);
        else
            return warpred__fold_column_bounded<3, most_column, Votes>(r, column, k, (counted - 1) >> 5, op, plain);
    }

    /* Scalars: every thread stores its value, one barrier, then warp 0 (Broadcast with whole
       warps: every warp, starting from warp 0's lane values in the cells) folds its column and
       runs the tree. */
    template <bool Broadcast, typename Op> __device__ __forceinline__ T scalars(T v, Op op, int counted)
    {
        typedef warpred_op_warp<Op, T> W;
        T *cells = take_set();
        cells[tid_] = v; /* warp 0's too, though reduce never reads them: a store under a condition
                            measured slower for int sums */
        bool plain = false;
        if constexpr (W::votes) plain = !barrier_or(tid_ < counted && W::special(v));
        else
            barrier();
        const bool every_warp = Broadcast && whole_warps();
        T r = v;
        if (every_warp || tid_ < 32) {
            const int lane = tid_ & 31;
            if (tid_ >= 32) r = cells[lane];
            r = fold<W::votes>(r, cells + 32 + lane, counted, op, plain);
            r = warpred__warp_reduce_prefix<false>(r, op, 32, counted < 32 ? counted : 32);
            if (every_warp) r = warpred__shfl<WARPRED__SHFL_IDX>(0xffffffffu, r, 0, 32);
        }
        if (Broadcast && !every_warp) r = broadcast(cells, r);
        return r;
    }

    /* Compound values: each warp's tree, one barrier, then the warp results folded as
       block_reduce.cuh folds them, by warp 0 (Broadcast: by every thread or warp that can). */
    template <bool Broadcast, typename Op> __device__ __forceinline__ T compound(T v, Op op, int counted)
    {
        T *slots = take_set();
        const int warp_first = tid_ & ~31, in_warp = counted - warp_first;
        if (in_warp > 0) {
            const int present = nthreads_ - warp_first;
            v = warpred__warp_reduce_prefix<false>(v, op, present < 32 ? present : 32, in_warp < 32 ? in_warp : 32);
            if ((tid_ & 31) == 0) slots[tid_ >> 5] = v;
        }
        barrier();
        const int nwarps = (counted + 31) >> 5;
        if (warpred__member_wise<Op, T>::value && nwarps <= 16) { /* left to right, by thread 0 */
            /* (every thread folding for itself instead of the broadcast's second barrier ran at
               half the rate: 256 threads loading every slot) */
            const T r = tid_ == 0 ? warpred__fold_in_order(slots, op, nwarps) : v;
            return Broadcast ? broadcast(slots, r) : r;
        }
        const bool every_warp = Broadcast && whole_warps();
        T r = v;
        if (every_warp || tid_ < 32) {
            r = slots[(tid_ & 31) < nwarps ? (tid_ & 31) : 0];
            r = warpred__warp_reduce_prefix<false>(r, op, 32, nwarps);
            if (every_warp) r = warpred__shfl<WARPRED__SHFL_IDX>(0xffffffffu, r, 0, 32);
        }
        if (Broadcast && !every_warp) r = broadcast(slots, r);
        return r;
    }

    template <bool Broadcast, typename Op> __device__ __forceinline__ T call(T v, Op op, int counted)
    {
        if constexpr (!warpred__value_ok<T>()) {
            return v;
        } else {
            if (nthreads_ <= 32) return warpred__warp_reduce_prefix<Broadcast>(v, op, nthreads_, counted);
            if constexpr (BlockThreads != 0 && BlockThreads <= 32) return v; /* not reached */
            else if constexpr (warpred__is_scalar<T>::value)
                return scalars<Broadcast>(v, op, counted);
            else
                return compound<Broadcast>(v, op, counted);
        }
    }

    /* The reducer with_size hands out: the maker's cells and place in the alternation. */
    __device__ __forceinline__ warpred_block_reducer(T *set, int other, int tid, int nthreads, int column)
        : set_(set), other_(other), tid_(tid), nthreads_(nthreads), column_(column)
    {}
    template <int N, int Column, typename F> __device__ __forceinline__ auto with_sized(F &f)
    {
        warpred_block_reducer<T, N, Cells, Column> sized(set_, other_, tid_, nthreads_, column_);
        if constexpr (warpred__same<decltype(f(sized)), void>::value) {
            f(sized);
            set_ = sized.set_, other_ = sized.other_;
        } else {
            auto result = f(sized);
            set_ = sized.set_, other_ = sized.other_;
            return result;
        }
    }

    /* f on the reducer for the blocks of a class that are not a power of two: one whose columns
       hold at most Column cells; compound values fold warp partials, not columns, and keep this
       reducer's form. */
    template <int Column, typename F> __device__ __forceinline__ auto with_bounded(F &f)
    {
        if constexpr (warpred__is_scalar<T>::value) return with_sized<0, Column>(f);
        else
            return f(*this);
    }

    /* f on a reducer for the block's size: a power of two compiled as such, any other size
       through its class, the blocks whose columns hold at most Column cells, or the next
       class up; the last class takes every size up to WARPRED_BLOCK_MAX_THREADS. */
    template <int Column, typename F> __device__ __forceinline__ auto with_class(F &f)
    {
        constexpr int most = (storage::threads - 1) / 32, top = 32 * (Column + 1);
        if constexpr (top <= storage::threads) {
            if (nthreads_ == top) return with_sized<top, -1>(f);
        }
        if constexpr (Column >= most) {
            return with_bounded<most>(f);
        } else {
            if (nthreads_ <= top) return with_bounded<Column>(f);
            return with_class<2 * Column + 1>(f);
        }
    }

  public:
    __device__ __forceinline__ explicit warpred_block_reducer(storage &s)
        : set_(reinterpret_cast<T *>(s.raw)), other_(Cells), tid_(warpred__block_thread_rank()),
          nthreads_(warpred__block_size<BlockThreads>()), column_(0)
    {
        static_assert(Cells == storage::cells, "warpred: declare reducers with WARPRED_BLOCK_REDUCER");
        WARPRED_ASSERT(nthreads_ <= storage::threads); /* WARPRED_BLOCK_MAX_THREADS */
        const int lane = tid_ & 31;
        column_ = lane < nthreads_ ? (nthreads_ - 1 - lane) >> 5 : 0;
        /* Kept in registers: otherwise the compiler may read the thread index again in every
           call of the caller's loop (special-register reads are slow). */
        asm("" : "+r"(tid_));
    }

    template <typename Op> __device__ __forceinline__ T reduce(T v, Op op) { return call<false>(v, op, nthreads_); }
    template <typename Op> __device__ __forceinline__ T allreduce(T v, Op op) { return call<true>(v, op, nthreads_); }
    template <typename Op> __device__ __forceinline__ T reduce_valid(T v, Op op, int n)
    {
        WARPRED_ASSERT(n >= 1 && n <= nthreads_);
        return call<false>(v, op, n);
    }
    template <typename Op> __device__ __forceinline__ T allreduce_valid(T v, Op op, int n)
    {
        WARPRED_ASSERT(n >= 1 && n <= nthreads_);
        return call<true>(v, op, n);
    }

    /* f(r) once, r a reducer on these cells with code for the block's size: 64, 128, 256, 512
       and 1024 threads as a compile-time size; any other size over a warp through its class
       (33..63, 65..127, 129..255, 257..511, 513..1023 threads), whose columns hold at most 1, 3,
       7, 15 or 31 cells (classes above WARPRED_BLOCK_MAX_THREADS are not compiled); a warp or
       less keeps this reducer's form. f's calls continue this reducer's alternation, and its
       later calls continue f's. Returns what f returns. */
    template <typename F> __device__ __forceinline__ auto with_size(F f)
    {
        if constexpr (BlockThreads != 0 || ColumnMax >= 0) return f(*this);
        else if (nthreads_ <= 32)
            return f(*this);
        else
            return with_class<1>(f);
    }
};

#endif /* WARPRED_BLOCK_REDUCER_CUH */
