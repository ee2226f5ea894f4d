/* warpred/cluster_reducer.cuh - cluster allreduces in a loop, with no cluster barrier per call
   (sm_90+).      MIT licensed.

   warpred_cluster_allreduce (cluster_reduce.cuh) passes two cluster barriers per call. Their
   arrive has release semantics, so each waits for every memory access the thread has in flight,
   global loads and stores included: in a loop that loads the next row while it reduces this
   one, every call waits for those loads. A cluster reducer sends each block's total into the
   shared memory of every block of the cluster (st.async, which completes an mbarrier of the
   receiving block), as warpred_cluster_allreduce_once does, with two mailboxes used in turn, so
   that calls may follow each other in a loop: no cluster barrier after the first call.

     WARPRED_CLUSTER_REDUCER(name, T, BlockThreads);   every thread of the cluster, once, before
                                                       the loop: declares the reducer `name` for
                                                       values of T and its shared memory, and
                                                       tells the cluster it is ready;
                                                       BlockThreads: the block size, or 0 to read
                                                       it at run time
     name.allreduce(v, op)      the cluster's result in every thread of every block, bitwise the
                                same as warpred_cluster_allreduce<BlockThreads>(v, op) gives

   USAGE
       #include <warpred/cluster_reducer.cuh>

       // each row divided by its sum; clusters of 4 blocks of 256 threads take rows in turn
       __global__ void divide_rows_by_sums(float *x, int rows, int cols)
       {
       #if WARPRED_HAS_CLUSTERS                        // a build that also makes sm_75/80 code
           const int clusters = gridDim.x / 4, rank = blockIdx.x % 4;
           WARPRED_CLUSTER_REDUCER(sum, float, 256);
           for (int row = blockIdx.x / 4; row < rows; row += clusters) {
               float s = 0.0f;
               for (int c = rank * 256 + threadIdx.x; c < cols; c += 4 * 256) s += x[(size_t)row * cols + c];
               const float total = sum.allreduce(s, warpred_op_sum());
               for (int c = rank * 256 + threadIdx.x; c < cols; c += 4 * 256) x[(size_t)row * cols + c] /= total;
           }
       #endif
       }
       // launched in clusters of 4 along x, no more clusters than rows (every cluster calls):
       // rows of {1, 2, ..., 3000} -> {1 / 4501500, ..., 3000 / 4501500}

   (This snippet is compiled and checked in tests/test_cluster_reducer.cu.)

   WHICH TO CALL
     one reduction per kernel                     warpred_cluster_allreduce_once
     a loop of reductions with loads in flight    a cluster reducer
     the result in one block only, or reductions  warpred_cluster_reduce / _allreduce
       beside the once form in one kernel
   Measured on an H200 in the row samples' LayerNorm and RMSNorm (clusters that keep w and b in
   shared memory and take rows in turn, loading the next row during each reduction): the
   reducer's loop took less time than warpred_cluster_allreduce's at every length tried
   (CHANGELOG has the figures).

   CLUSTER SHAPES, ORDER, OPERATIONS AND VALUES  those of cluster_allreduce_once.cuh: 1D, 2D and
   3D clusters of up to WARPRED_CLUSTER_ONCE_MAX_BLOCKS (16) blocks, blocks of any shape of 1 to
   1024 threads, launches without a cluster size (each block a cluster of one); the totals
   folded in cluster_reduce.cuh's ORDER; any operation over any value, sent as 4-byte words.

   PRECONDITIONS
     - Every thread of every block of the cluster declares the reducer once, then makes the same
       sequence of allreduce calls (the same count; in each call the same op everywhere, which
       may change from call to call), from code that all of them reach; no block of the cluster
       has exited before its last call. A reducer that is declared must be called at least
       once (its declaration arrives on a cluster barrier that the first call waits on), and
       at most 2^32 - 1 times (the call count is 32 bits). Pass it by reference (it is not
       copyable: a copy's count would go its own way).
     - One cluster reducer in a kernel (each declaration arrives on the cluster barrier, which
       a second arrival before the first call's wait would break): for several values, one
       reducer of a tuple (op_tuple.cuh).
     - No warpred_cluster_allreduce_once in the same kernel (it arrives on the same barrier);
       warpred_cluster_reduce / _allreduce may come before the declaration or after the first
       call, not between them (their barrier would pair with the declaration's arrival).
     - BlockThreads, when not 0, equals the block size (assert), as for warpred_block_reduce.
     - T is one macro argument: a type with a comma (warpred_arg<float, int>, a tuple) needs a
       typedef first.

   SHARED MEMORY  two 8-byte mbarriers and 2 x 17 slots of the value's size (rounded up to 4
   bytes), declared by the macro; the block reduction's own (block_reduce.cuh).

   COST  Each call: the block reduction (two __syncthreads() for blocks of more than 32
   threads), then thread 0 sends the block's total to every block (one st.async per 4-byte word
   and block) and every thread waits on its block's mbarrier; each warp folds the totals (a
   partial last warp: the first warp folds, and a __syncthreads() hands the result on). The
   first call also waits on the declaration's cluster barrier. A cluster of one block sends
   nothing: its total, through shared memory. Why two mailboxes: a block may send call c + 1's
   total while another block still waits for call c's; it can send call c + 2's only after
   every block has sent it call c + 1's, which each block does after it read call c's totals.

   OLDER ARCHS  as cluster_reduce.cuh: a reducer compiled for sm_75 or sm_80 stops the build with
   one error; put it under #if WARPRED_HAS_CLUSTERS in a build for several archs.

   This header needs cluster_allreduce_once.cuh, cluster_reduce.cuh, block_reduce.cuh,
   warp_reduce.cuh, ops.cuh and its base beside it (README: Copying a header).
*/
#ifndef WARPRED_CLUSTER_REDUCER_CUH
#define WARPRED_CLUSTER_REDUCER_CUH

#include "cluster_allreduce_once.cuh"

/* A reducer's shared memory: an mbarrier and the slots of each mailbox (block r's total in slot
   r; slot WARPRED_CLUSTER_ONCE_MAX_BLOCKS holds the result for a block with a partial warp). */
template <typename T> struct warpred__cluster_mail {
    unsigned long long barrier[2];
    alignas(16) unsigned slots[2][(WARPRED_CLUSTER_ONCE_MAX_BLOCKS + 1) * warpred__once_words<T>::value];
};

template <typename T, int BlockThreads> struct warpred_cluster_reducer {
    warpred__cluster_mail<T> *mail;
    unsigned calls; /* the same in every thread: the mailbox is calls % 2, its phase calls / 2 */

    warpred_cluster_reducer(const warpred_cluster_reducer &) = delete;
    warpred_cluster_reducer &operator=(const warpred_cluster_reducer &) = delete;
    __device__ __forceinline__ explicit warpred_cluster_reducer(warpred__cluster_mail<T> &m) : mail(&m), calls(0)
    {
#if WARPRED_HAS_CLUSTERS
        if (warpred__block_thread_rank() == 0) {
            for (int i = 0; i < 2; i++)
                asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(warpred__shared_address(&m.barrier[i]))
                             : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        }
        asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
#else
        (void)warpred__cluster_needs_sm90<0 * (int)sizeof(T)>::value;
#endif
    }

    template <typename Op> __device__ __forceinline__ T allreduce(T v, Op op)
    {
#if WARPRED_HAS_CLUSTERS
        if constexpr (!warpred__value_ok<T>()) return v;
        else
            return send_and_fold(v, op);
#else
        (void)op;
        return v;
#endif
    }

#if WARPRED_HAS_CLUSTERS
  private:
    template <typename Op> __device__ __forceinline__ T send_and_fold(T v, Op op)
    {
        enum { W = warpred__once_words<T>::value };
        const unsigned box = calls & 1, parity = (calls >> 1) & 1;
        const int tid = warpred__block_thread_rank();
        const int nthreads = warpred__block_size<BlockThreads>();
        const unsigned n = warpred__cluster_blocks();
        WARPRED_ASSERT(n <= WARPRED_CLUSTER_ONCE_MAX_BLOCKS);
        v = warpred__block_reduce_prefix<false, BlockThreads>(v, op, nthreads, nthreads);
        if (calls == 0) asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); /* every block is ready */
        calls++;
        unsigned *slots = mail->slots[box], *cell = slots + WARPRED_CLUSTER_ONCE_MAX_BLOCKS * W;
        const auto total = [slots](unsigned r) {
            T t;
            memcpy(&t, slots + r * W, sizeof(T));
            return t;
        };
        if (n == 1) { /* no st.async in a cluster of one block (cluster_allreduce_once.cuh) */
            if (tid == 0) memcpy(cell, &v, sizeof(T));
            __syncthreads();
            return total(WARPRED_CLUSTER_ONCE_MAX_BLOCKS);
        }
        if (nthreads <= 32) /* the lanes' reads of the last call's totals before lane 0 sends */
            __syncwarp(nthreads == 32 ? 0xffffffffu : (1u << nthreads) - 1u);
        const unsigned bar = warpred__shared_address(&mail->barrier[box]);
        if (tid == 0) {
            const unsigned slot = warpred__shared_address(slots + warpred__cluster_rank() * W);
            unsigned words[W];
            words[W - 1] = 0;
            memcpy(words, &v, sizeof(T));
            for (unsigned to = 0; to < n; to++) {
                const unsigned remote_slot = warpred__cluster_address(slot, to);
                const unsigned remote_bar = warpred__cluster_address(bar, to);
#    pragma unroll
                for (int w = 0; w < W; w++)
                    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(
                                     remote_slot + 4 * w),
                                 "r"(words[w]), "r"(remote_bar)
                                 : "memory");
            }
            asm volatile("{\n\t.reg .b64 state;\n\t"
                         "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n\t}" ::"r"(bar),
                         "r"(n * W * 4u)
                         : "memory");
        }
        unsigned done;
        do {
            asm volatile("{\n\t.reg .pred p;\n\t"
                         "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
                         "selp.u32 %0, 1, 0, p;\n\t}"
                         : "=r"(done)
                         : "r"(bar), "r"(parity)
                         : "memory");
        } while (!done);
        const int lanes = nthreads < 32 ? nthreads : 32;
        if (nthreads < 32 || nthreads % 32 == 0) /* whole warps: each folds for itself */
            return warpred__cluster_fold_totals<true, BlockThreads>(total, v, tid % 32, lanes, n, op);
        if (tid < 32) { /* a partial last warp: the first warp folds for the block */
            v = warpred__cluster_fold_totals<true, BlockThreads>(total, v, tid, 32, n, op);
            if (tid == 0) memcpy(cell, &v, sizeof(T));
        }
        __syncthreads();
        return total(WARPRED_CLUSTER_ONCE_MAX_BLOCKS);
    }
#endif
};

#define WARPRED_CLUSTER_REDUCER(name, T, BlockThreads)       \
    __shared__ warpred__cluster_mail<T> name##_warpred_mail; \
    warpred_cluster_reducer<T, BlockThreads> name(name##_warpred_mail)

#endif /* WARPRED_CLUSTER_REDUCER_CUH */
