/* bench/bench_block.cu - block reductions against cub::BlockReduce, and IEEE min/max against
   `a < b ? b : a`, in one run.

   1. Block sum, float / int / double, 64, 96, 128, 256, 512, 1000 and 1024 threads:
        warpred_block_reduce(v, op)          the block size read at run time (the default call)
        warpred_block_reduce<BS>(v, op)      the block size at compile time
        warpred_block_reducer<T, 0 / BS>    a reducer (block_reducer.cuh) declared before the loop:
                                             one barrier per call, run-time and compile-time size
        cub::BlockReduce<T, BS, BLOCK_REDUCE_WARP_REDUCTIONS>
        cub::BlockReduce<T, BS, BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>
      each CUB algorithm twice: with two TempStorage alternating (its fastest: every reduction in
      flight has its own storage, so CUB needs no extra __syncthreads(); its rule is a barrier
      before a storage is reused, and each call's own barrier comes after the previous call on
      the other storage finished reading), and with one storage and a __syncthreads() after each
      call (what a caller of one TempStorage must write). warpred needs nothing of the caller.
      in two loops:
        throughput  each iteration reduces K_TP = 2 independent fresh values (x_k + i); the
                    results feed accumulators
        latency     a dependent chain: each reduction's input is x + r * s, r the previous
                    result of the same thread (FFMA / DFMA; for int x ^ (r & s))
      One launch = BLOCKS_PER_SM * SMs blocks (2112 on an H100), each thread of each block
      running the loop; rate = reductions (one per block per call) / time, in G reductions/s.
      Ratios, marked * below their target: the reducer <BS> / CUB's better algorithm with two
      storages (1.0; 0.95 for max and max_num), the stateless <BS> / CUB's better algorithm with
      one storage (0.9), and each form's run-time size / its compile-time size (0.9).
   2. IEEE max / max_num (NaN propagates / is ignored, -0 < +0, canonical NaN), float and double,
      both loops:
        warp    warpred_warp_allreduce vs cg::reduce(tile, v, cg::greater<T>()) and an xor
                shuffle butterfly with `a < b ? b : a`; warpred_warp_reduce vs
                cub::WarpReduce<T>::Reduce(v, a < b ? b : a). Rate: one reduction per warp per call.
        block   warpred_block_reduce (run time and <BS>) with warpred_op_max / _max_num vs
                cub::BlockReduce with `a < b ? b : a`, both algorithms, 256 and 1024 threads.
        p:hw / p:cmp  bench-local prototypes of the warp allreduce: one vote first, then a tree
                of hardware max (p:hw) or of compares (p:cmp); kept to compare f64 max.f64 with
                compare-and-select (warpred takes p:hw's tree for float, p:cmp's for double).
      Inputs are positive, never NaN or zero (the common case; warpred's vote finds nothing).
      The table marks with * a max below 0.9x of the `a < b ? b : a` peer (the IEEE rules cost
      a vote per warp) and a max_num below 1.0x.

   Every figure: CUDA events around each launch, the variants of one table row taking turns
   launch by launch (so clock drift falls on all alike), median of REPS after WARMUP. Inputs
   come from memory and every result ends up in memory (nothing folds away); after timing, each
   row's variants are run once more and thread 0's result compared with the first variant's
   (exact for int sums and max, 1e-3 relative for float sums): "MISMATCH" flags a broken harness
   or kernel. Block latency rows are not compared: each thread feeds its own r back, and only
   thread 0 holds the whole block's result, so the chains of other threads differ by algorithm.
   All kernels use __launch_bounds__(block size) and 1D blocks.

   Usage: bench_block [csv path]   (run by `make bench`; about 10 s on an H100)
          bench_block --profile    (each kernel scripts/sass_block.sh studies, launched once, for ncu) */
#include <math.h>
#include <type_traits>
#include <cub/cub.cuh>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <warpred/block_reduce.cuh>
#include <warpred/block_reducer.cuh>
#include "bench_util.h"

namespace cg = cooperative_groups;

enum { K_TP = 2, BLOCKS_PER_SM = 16, WARP_BLOCK = 256, WARMUP = 3, REPS = 25 };

/* ---- operations ---- */

enum { OP_SUM, OP_MAX, OP_MAX_NUM };
static const char *const op_name[] = {"sum", "max", "max_num"};

/* The peers' max: what CUB's and most hand-written warp trees use (not NaN- or -0-aware). */
struct lt_max {
    template <typename T> __device__ __forceinline__ T operator()(const T &a, const T &b) const
    {
        return a < b ? b : a;
    }
};

/* The warpred operation of each OP_ id. */
template <int Op> struct warpred_op_of {
    typedef std::conditional_t<Op == OP_SUM, warpred_op_sum,
                               std::conditional_t<Op == OP_MAX, warpred_op_max, warpred_op_max_num>>
        type;
};

template <typename A, typename B> using same_type = std::is_same<A, B>;

/* Wrapping add for the accumulators (int overflow is not undefined this way). */
template <typename T> __device__ __forceinline__ T acc_add(T a, T b) { return warpred_op_sum()(a, b); }

/* The next input of a chain: one FMA (one LOP3 for int) on the previous result. */
__device__ __forceinline__ float chain_next(float x, float r, float s) { return fmaf(r, s, x); }
__device__ __forceinline__ double chain_next(double x, double r, double s) { return fma(r, s, x); }
__device__ __forceinline__ int chain_next(int x, int r, int s) { return x ^ (r & s); }

/* ---- block level ---- */

enum { V_RT, V_CT, V_RED_RT, V_RED_WS, V_RED_CT, V_CUB_WR, V_CUB_RAKE, V_CUB1_WR, V_CUB1_RAKE, BV };
static const char *const block_variant[] = {"warpred run-time size",
                                            "warpred <BS>",
                                            "warpred reducer, run-time size",
                                            "warpred reducer, run-time size, with_size",
                                            "warpred reducer <BS>",
                                            "CUB warp-reductions",
                                            "CUB raking-commutative",
                                            "CUB warp-reductions, one storage + sync",
                                            "CUB raking-commutative, one storage + sync"};

template <typename T, int V, int BS, int Op> struct block_call;
template <typename T, int BS, int Op> struct block_call<T, V_RT, BS, Op> {
    typedef char storage;
    static __device__ __forceinline__ T run(storage &, T v)
    {
        return warpred_block_reduce(v, typename warpred_op_of<Op>::type());
    }
};
/* The reducer (block_reducer.cuh): declared once before the loop, one barrier per call. */
template <typename T, int Op, int Size> struct block_call_reducer {
    typedef warpred_block_storage<T, Size> storage;
    struct state {
        warpred_block_reducer<T, Size> r;
        __device__ __forceinline__ explicit state(storage *s) : r(s[0]) {}
    };
    static __device__ __forceinline__ T run(state &st, T v) { return run_on(st.r, v); }
    template <typename R> static __device__ __forceinline__ T run_on(R &r, T v)
    {
        return r.reduce(v, typename warpred_op_of<Op>::type());
    }
};
template <typename T, int BS, int Op> struct block_call<T, V_RED_RT, BS, Op> : block_call_reducer<T, Op, 0> {};
/* The run-time-size reducer with the whole loop inside with_size: one switch on the block size. */
template <typename T, int BS, int Op> struct block_call<T, V_RED_WS, BS, Op> : block_call_reducer<T, Op, 0> {
    enum { sized = 1 };
};
template <typename C, typename = void> struct sized_of {
    enum { value = 0 };
};
template <typename C> struct sized_of<C, decltype((void)C::sized)> {
    enum { value = 1 };
};
template <typename T, int BS, int Op> struct block_call<T, V_RED_CT, BS, Op> : block_call_reducer<T, Op, BS> {};
template <typename T, int BS, int Op> struct block_call<T, V_CT, BS, Op> {
    typedef char storage;
    static __device__ __forceinline__ T run(storage &, T v)
    {
        return warpred_block_reduce<BS>(v, typename warpred_op_of<Op>::type());
    }
};
template <typename T, int BS, int Op, cub::BlockReduceAlgorithm A, bool OneStorage = false> struct block_call_cub {
    typedef cub::BlockReduce<T, BS, A> R;
    typedef typename R::TempStorage storage;
    static __device__ __forceinline__ T reduce(storage &s, T v)
    {
        if constexpr (Op == OP_SUM) return R(s).Sum(v);
        else
            return R(s).Reduce(v, lt_max());
    }
    /* OneStorage: CUB used the way a single TempStorage requires, a __syncthreads() after each
       call (what the stateless warpred calls are compared with). */
    static __device__ __forceinline__ T run(storage &s, T v)
    {
        if constexpr (OneStorage) {
            __shared__ storage one;
            const T r = reduce(one, v);
            __syncthreads();
            return (void)s, r;
        } else {
            return reduce(s, v);
        }
    }
};
template <typename T, int BS, int Op>
struct block_call<T, V_CUB_WR, BS, Op> : block_call_cub<T, BS, Op, cub::BLOCK_REDUCE_WARP_REDUCTIONS> {};
template <typename T, int BS, int Op>
struct block_call<T, V_CUB_RAKE, BS, Op> : block_call_cub<T, BS, Op, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY> {};
template <typename T, int BS, int Op>
struct block_call<T, V_CUB1_WR, BS, Op> : block_call_cub<T, BS, Op, cub::BLOCK_REDUCE_WARP_REDUCTIONS, true> {};
template <typename T, int BS, int Op>
struct block_call<T, V_CUB1_RAKE, BS, Op> : block_call_cub<T, BS, Op, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, true> {
};

/* The loops around one block reduction C (block_call, proto_call). Chain: one call site, 2 CUB storages alternating;
   throughput: one storage per reduction in flight. Thread 0 of each block writes its result (the only thread that has
   it); every thread writes, so nothing is dead. */
/* A call with state (the reducer) keeps it across the loop and uses one storage; the others get
   a storage per reduction in flight. */
template <typename C, typename = void> struct state_of {
    enum { stateful = 0 };
    struct type {
        template <typename S> __device__ __forceinline__ explicit type(S *) {}
    };
};
template <typename C> struct state_of<C, decltype((void)sizeof(typename C::state))> {
    enum { stateful = 1 };
    typedef typename C::state type;
};
template <typename C, typename S, typename T>
__device__ __forceinline__ T call(typename state_of<C>::type &st, S &storage, T v)
{
    if constexpr (state_of<C>::stateful) return (void)storage, C::run(st, v);
    else
        return (void)st, C::run(storage, v);
}

template <typename C, typename T, int BS, bool Chain>
__global__ void __launch_bounds__(BS) k_block(const T *in, T *out, T s, int iters)
{
    __shared__ typename C::storage tmp[state_of<C>::stateful ? 1 : K_TP];
    typename state_of<C>::type st(tmp);
    const size_t g = blockIdx.x * (size_t)BS + threadIdx.x, G = (size_t)gridDim.x * BS;
    /* one(storage, v): one reduction; the loops are written once for every variant */
    auto loops = [&](auto one) {
        if constexpr (Chain) {
            const T x = in[g];
            T r = x;
            for (int i = 0; i < iters; i++) r = one(tmp[i & (state_of<C>::stateful ? 0 : 1)], chain_next(x, r, s));
            out[g] = r;
        } else {
            T x[K_TP], acc[K_TP];
#pragma unroll
            for (int k = 0; k < K_TP; k++) x[k] = in[g + k * G], acc[k] = T();
            T step = T();
            for (int i = 0; i < iters; i++) {
#pragma unroll
                for (int k = 0; k < K_TP; k++)
                    acc[k] = acc_add(acc[k], one(tmp[state_of<C>::stateful ? 0 : k], acc_add(x[k], step)));
                step = acc_add(step, (T)1);
            }
            T total = acc[0];
#pragma unroll
            for (int k = 1; k < K_TP; k++) total = acc_add(total, acc[k]);
            out[g] = total;
        }
    };
    if constexpr (sized_of<C>::value)
        st.r.with_size([&](auto &r) { loops([&](auto &, T v) { return C::run_on(r, v); }); });
    else
        loops([&](auto &storage, T v) { return call<C>(st, storage, v); });
}

/* ---- raking prototypes (bench_block --rake): where the second barrier of a self-contained
   raking block sum costs. Scalar sums, whole warps, 1D blocks. Each stores threads 32.. into
   cells, one barrier, then warp 0 folds its columns and shuffles; they differ in how the next
   call's stores are kept off cells warp 0 has not read yet:
     P_LIB      the library (second __syncthreads after warp 0's column fold, its tree after that)
     P_FOLD     second __syncthreads after warp 0's column fold, before its tree
     P_ARRIVE   warp 0 bar.arrive on named barrier 1 after its fold, the others bar.sync there
     P_DB       the caller's cells, alternating between two (as CUB with two TempStorage): no
                second barrier
     P_DB_POPC  P_DB with __syncthreads_count (bar.red.popc) in place of __syncthreads: what a
                barrier that also reduces costs
     P_PARITY   a self-contained double buffer: two sets of cells, each thread keeping the set
                its next call uses in a shared byte of its own, and __syncthreads_count telling
                whether all threads agree (shared memory starts as garbage: when they do not,
                the values are stored again into set 1 behind a second barrier). Tried for the
                library and measured slower than P_FOLD: the reducing barrier and the byte cost
                more than the second barrier they save.
     P_CUB_SYNC cub::BlockReduce raking, one TempStorage and a __syncthreads() after each call */
enum { P_LIB, P_FOLD, P_ARRIVE, P_DB, P_DB_POPC, P_PARITY, P_CUB_RAKE, P_CUB_SYNC, PV };
static const char *const proto_variant[] = {
    "library",           "bar after fold",          "named arrive",     "caller double buffer", "db + bar.red",
    "own double buffer", "CUB raking (2 storages)", "CUB raking + sync"};

template <int BS, typename T> __device__ __forceinline__ T proto_tree(T r)
{
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) r = r + __shfl_down_sync(0xffffffffu, r, o);
    return r;
}

template <int BS, int Mode, typename T> __device__ __forceinline__ T proto_rake(T *cells, T v)
{
    constexpr int K = BS / 32 - 1;
    const int tid = threadIdx.x;
    if constexpr (Mode == P_PARITY) {
        __shared__ T two[2][BS - 32];
        __shared__ unsigned char par[BS];
        const int set = par[tid] & 1;
        T *c = two[set];
        if (tid >= 32) c[tid - 32] = v;
        const int ones = __syncthreads_count(set);
        if (ones != 0 && ones != BS) {
            c = two[1];
            if (tid >= 32) c[tid - 32] = v;
            __syncthreads();
        }
        T r = v;
        if (tid < 32) {
#pragma unroll
            for (int k = 0; k < K; k++) r = r + c[tid + 32 * k];
            r = proto_tree<BS>(r);
        }
        par[tid] = (unsigned char)(ones == 0);
        return r;
    }
    if (tid >= 32) cells[tid - 32] = v;
    if constexpr (Mode == P_DB_POPC) {
        if (__syncthreads_count(tid) == 12345) v += v; /* never true: the count is used, so bar.red stays */
    } else {
        __syncthreads();
    }
    T r = v;
    if constexpr (Mode == P_ARRIVE) {
        if (tid < 32) {
#pragma unroll
            for (int k = 0; k < K; k++) r = r + cells[tid + 32 * k];
            asm volatile("bar.arrive 1, %0;" ::"n"(BS) : "memory");
            r = proto_tree<BS>(r);
        } else {
            asm volatile("bar.sync 1, %0;" ::"n"(BS) : "memory");
        }
        return r;
    } else {
        if (tid < 32) {
#pragma unroll
            for (int k = 0; k < K; k++) r = r + cells[tid + 32 * k];
        }
        if constexpr (Mode == P_FOLD) __syncthreads();
        if (tid < 32) r = proto_tree<BS>(r);
        return r;
    }
}

template <typename T, int V, int BS> struct proto_call {
    typedef T storage[BS - 32];
    static __device__ __forceinline__ T run(storage &s, T v)
    {
        if constexpr (V == P_LIB) return (void)s, warpred_block_reduce<BS>(v, warpred_op_sum());
        else if constexpr (V == P_DB || V == P_DB_POPC)
            return proto_rake<BS, V>(s, v);
        else {
            __shared__ T mine[BS - 32];
            return (void)s, proto_rake<BS, V>(mine, v);
        }
    }
};
template <typename T, int BS, int V> struct proto_call_cub {
    typedef cub::BlockReduce<T, BS, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY> R;
    typedef typename R::TempStorage storage;
    static __device__ __forceinline__ T run(storage &s, T v)
    {
        if constexpr (V == P_CUB_RAKE) {
            return R(s).Sum(v);
        } else {
            __shared__ storage one;
            const T r = R(one).Sum(v);
            __syncthreads();
            return (void)s, r;
        }
    }
};
template <typename T, int BS> struct proto_call<T, P_CUB_RAKE, BS> : proto_call_cub<T, BS, P_CUB_RAKE> {};
template <typename T, int BS> struct proto_call<T, P_CUB_SYNC, BS> : proto_call_cub<T, BS, P_CUB_SYNC> {};

/* ---- warp level ---- */

enum { W_ALL, W_CG, W_LT_TREE, W_RED, W_CUB, W_PROTO_HW, W_PROTO_CMP, WV };
static const char *const warp_variant[] = {"warpred allreduce",
                                           "cg::reduce greater",
                                           "xor tree a<b?b:a",
                                           "warpred reduce",
                                           "cub::WarpReduce a<b?b:a",
                                           "proto: vote first, hw max tree",
                                           "proto: vote first, compare tree"};

/* Prototypes (to choose warpred's warp min/max path): one vote BEFORE the tree asks whether any
   lane holds a NaN or a zero; if none, a plain tree is exact (hardware max, or a compare); if
   any, the library's IEEE allreduce. */
template <bool Compare, typename T, typename O> __device__ __forceinline__ T proto_max_allreduce(T v, O op)
{
    typedef warpred__float_bits<T> B;
    typedef typename warpred__unsigned_of<typename B::S>::type U;
    const bool nan_or_zero = (U)(B::bits(v) & B::magnitude_mask()) - 1u >= (U)B::inf();
    if (__any_sync(0xffffffffu, nan_or_zero)) return warpred_warp_allreduce(v, op);
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const T o = __shfl_xor_sync(0xffffffffu, v, offset);
        v = Compare ? (v < o ? o : v) : warpred__hw_max(v, o);
    }
    return v;
}

template <typename T> __device__ __forceinline__ T lt_butterfly(T v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = lt_max()(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

template <typename T, int V, int Op> struct warp_call {
    typedef typename cub::WarpReduce<T>::TempStorage storage;
    static __device__ __forceinline__ T run(storage &s, cg::thread_block_tile<32> &tile, T v)
    {
        typedef typename warpred_op_of<Op>::type O;
        if constexpr (V == W_ALL) return (void)s, (void)tile, warpred_warp_allreduce(v, O());
        else if constexpr (V == W_CG)
            return (void)s, cg::reduce(tile, v, cg::greater<T>());
        else if constexpr (V == W_LT_TREE)
            return (void)s, (void)tile, lt_butterfly(v);
        else if constexpr (V == W_RED)
            return (void)s, (void)tile, warpred_warp_reduce(v, O());
        else if constexpr (V == W_PROTO_HW)
            return (void)s, (void)tile, proto_max_allreduce<false>(v, O());
        else if constexpr (V == W_PROTO_CMP)
            return (void)s, (void)tile, proto_max_allreduce<true>(v, O());
        else
            return (void)tile, cub::WarpReduce<T>(s).Reduce(v, lt_max());
    }
};

template <typename T, int V, int Op, bool Chain>
__global__ void __launch_bounds__(WARP_BLOCK) k_warp(const T *in, T *out, T s, int iters)
{
    typedef warp_call<T, V, Op> C;
    __shared__ typename C::storage tmp[WARP_BLOCK / 32];
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    typename C::storage &mine = tmp[threadIdx.x / 32];
    const size_t g = blockIdx.x * (size_t)WARP_BLOCK + threadIdx.x, G = (size_t)gridDim.x * WARP_BLOCK;
    if constexpr (Chain) {
        const T x = in[g];
        T r = x;
        for (int i = 0; i < iters; i++) r = C::run(mine, tile, chain_next(x, r, s));
        out[g] = r;
    } else {
        T x[K_TP], acc[K_TP];
#pragma unroll
        for (int k = 0; k < K_TP; k++) x[k] = in[g + k * G], acc[k] = T();
        T step = T();
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < K_TP; k++) acc[k] = acc_add(acc[k], C::run(mine, tile, acc_add(x[k], step)));
            step = acc_add(step, (T)1);
        }
        T total = acc[0];
#pragma unroll
        for (int k = 1; k < K_TP; k++) total = acc_add(total, acc[k]);
        out[g] = total;
    }
}

/* ---- host: launching and timing ---- */

typedef void (*launch_fn)(unsigned blocks, const void *in, void *out, const void *s, int iters);

template <typename T, int V, int BS, int Op, bool Chain>
static void launch_block(unsigned blocks, const void *in, void *out, const void *s, int iters)
{
    k_block<block_call<T, V, BS, Op>, T, BS, Chain><<<blocks, BS>>>((const T *)in, (T *)out, *(const T *)s, iters);
}
template <typename T, int V, int Op, bool Chain>
static void launch_warp(unsigned blocks, const void *in, void *out, const void *s, int iters)
{
    k_warp<T, V, Op, Chain><<<blocks, WARP_BLOCK>>>((const T *)in, (T *)out, *(const T *)s, iters);
}

typedef struct {
    launch_fn fn;
    unsigned blocks;
    const void *in;
    void *out;
    const void *s;
    int iters;
} run_ctx;

static void run_once(void *p)
{
    run_ctx *c = (run_ctx *)p;
    c->fn(c->blocks, c->in, c->out, c->s, c->iters);
}

typedef struct {
    unsigned blocks; /* per launch */
    void *in, *out;  /* K_TP * blocks * 1024 doubles each */
    FILE *csv;
    int mismatches;
} bench_env;

/* The chain's scale s (per block size: keeps the float sums finite) and the loops' iterations
   (about 0.5 ms per launch at the rates an H100 reaches). */
template <typename T> static T chain_scale(int Op, int bs)
{
    if constexpr (same_type<T, int>::value) return (void)Op, (void)bs, 0xff;
    else
        return Op == OP_SUM ? (T)(0.5 / bs) : (T)0.0625;
}
static int chain_iters(int bs)
{
    int n = 262144 / bs;
    return n < 128 ? 128 : n & ~1;
}

/* Thread 0's result of one launch of fn. */
template <typename T> static T result_of(bench_env *e, launch_fn fn, const void *s, int iters)
{
    T r;
    BCHECK(cudaMemset(e->out, 0, sizeof(T)));
    fn(e->blocks, e->in, e->out, s, iters);
    BCHECK(cudaGetLastError());
    BCHECK(cudaMemcpy(&r, e->out, sizeof(T), cudaMemcpyDeviceToHost));
    return r;
}

/* Times fns[0..count) interleaved; rates in G reductions/s (reductions_per_launch each);
   checks thread 0's results agree with fns[0]'s (exact < 0: no check). Returns 0, or 1 on a mismatch. */
template <typename T>
static int time_row(bench_env *e, launch_fn *fns, int count, const void *s, int iters, double reductions_per_launch,
                    int exact, double *rate, float *us)
{
    enum { MAXV = 16 };
    run_ctx ctx[MAXV];
    void *ctxs[MAXV];
    bench_fn once[MAXV];
    float ms[MAXV];
    if (count > MAXV) {
        fprintf(stderr, "bench_block: time_row takes at most %d variants, got %d\n", (int)MAXV, count);
        exit(2);
    }
    for (int v = 0; v < count; v++) {
        ctx[v] = (run_ctx){fns[v], e->blocks, e->in, e->out, s, iters};
        ctxs[v] = &ctx[v];
        once[v] = run_once;
    }
    bench_interleaved_median_ms(once, ctxs, count, WARMUP, REPS, ms);
    for (int v = 0; v < count; v++) {
        us[v] = ms[v] * 1e3f;
        rate[v] = reductions_per_launch / (ms[v] * 1e-3) / 1e9;
    }
    if (exact < 0) return 0; /* not compared */
    const double want = (double)result_of<T>(e, fns[0], s, iters);
    int bad = 0;
    for (int v = 1; v < count; v++) {
        const double got = (double)result_of<T>(e, fns[v], s, iters);
        if (exact ? got != want : !(fabs(got - want) <= 1e-3 * fabs(want))) bad = 1;
    }
    e->mismatches += bad;
    return bad;
}

template <typename T, int V, int BS, bool Chain>
static void launch_proto(unsigned blocks, const void *in, void *out, const void *s, int iters)
{
    k_block<proto_call<T, V, BS>, T, BS, Chain><<<blocks, BS>>>((const T *)in, (T *)out, *(const T *)s, iters);
}

template <typename T, int BS, bool Chain> static void proto_row(bench_env *e, const char *type)
{
    launch_fn fns[PV] = {launch_proto<T, P_LIB, BS, Chain>,      launch_proto<T, P_FOLD, BS, Chain>,
                         launch_proto<T, P_ARRIVE, BS, Chain>,   launch_proto<T, P_DB, BS, Chain>,
                         launch_proto<T, P_DB_POPC, BS, Chain>,  launch_proto<T, P_PARITY, BS, Chain>,
                         launch_proto<T, P_CUB_RAKE, BS, Chain>, launch_proto<T, P_CUB_SYNC, BS, Chain>};
    const T s = chain_scale<T>(OP_SUM, BS);
    const int iters = Chain ? chain_iters(BS) : chain_iters(BS) / 2;
    const double reductions = (double)e->blocks * iters * (Chain ? 1 : K_TP);
    double rate[PV];
    float us[PV];
    const int bad = time_row<T>(e, fns, PV, &s, iters, reductions, Chain ? -1 : same_type<T, int>::value, rate, us);
    printf("| %-6s | %-10s | %4d |", type, Chain ? "latency" : "throughput", BS);
    for (int v = 0; v < PV; v++) printf(" %8.3f |", rate[v]);
    printf("%s\n", bad ? " MISMATCH" : "");
    for (int v = 0; v < PV; v++)
        fprintf(e->csv, "block_proto,\"%s sum %s\",\"%s\",%d,%.3f,%.4f,G reductions/s\n", type,
                Chain ? "latency" : "throughput", proto_variant[v], BS, us[v], rate[v]);
}

template <typename T> __global__ void k_fill(T *x, size_t n);

static void proto_table(bench_env *e, size_t n)
{
    printf("raking prototypes, G block sums/s:\n| type   | loop       | BS   |");
    for (int v = 0; v < PV; v++) printf(" %s |", proto_variant[v]);
    printf("\n");
    k_fill<float><<<1024, 256>>>((float *)e->in, n);
    proto_row<float, 256, false>(e, "float");
    proto_row<float, 256, true>(e, "float");
    proto_row<float, 1024, false>(e, "float");
    proto_row<float, 1024, true>(e, "float");
    k_fill<int><<<1024, 256>>>((int *)e->in, n);
    proto_row<int, 256, false>(e, "int");
    proto_row<int, 256, true>(e, "int");
    proto_row<int, 1024, false>(e, "int");
    proto_row<int, 1024, true>(e, "int");
}

/* The launchers of one block row, in block_variant order. */
template <typename T, int Op, int BS, bool Chain> static void block_launchers(launch_fn (&fns)[BV])
{
    const launch_fn all[BV] = {launch_block<T, V_RT, BS, Op, Chain>,       launch_block<T, V_CT, BS, Op, Chain>,
                               launch_block<T, V_RED_RT, BS, Op, Chain>,   launch_block<T, V_RED_WS, BS, Op, Chain>,
                               launch_block<T, V_RED_CT, BS, Op, Chain>,   launch_block<T, V_CUB_WR, BS, Op, Chain>,
                               launch_block<T, V_CUB_RAKE, BS, Op, Chain>, launch_block<T, V_CUB1_WR, BS, Op, Chain>,
                               launch_block<T, V_CUB1_RAKE, BS, Op, Chain>};
    for (int v = 0; v < BV; v++) fns[v] = all[v];
}

static double max2(double a, double b) { return a > b ? a : b; }

/* A ratio the table prints, with the level below which it is marked *. */
typedef struct {
    const char *name;
    double value, level;
} ratio_col;

/* One row of the block table: the four variants at BS threads. */
template <typename T, int Op, int BS, bool Chain> static void block_row(bench_env *e, const char *type)
{
    launch_fn fns[BV];
    block_launchers<T, Op, BS, Chain>(fns);
    const T s = chain_scale<T>(Op, BS);
    const int iters = Chain ? chain_iters(BS) : chain_iters(BS) / 2;
    const double reductions = (double)e->blocks * iters * (Chain ? 1 : K_TP);
    double rate[BV];
    float us[BV];
    /* A chain feeds each thread's own r back; a block reduce leaves the full result in thread 0
       only, and other threads' partials differ between algorithms: latency rows compare timing, not
       results (the throughput rows check the results). */
    const int bad =
        time_row<T>(e, fns, BV, &s, iters, reductions, Chain ? -1 : same_type<T, int>::value || Op != OP_SUM, rate, us);
    /* The targets: the reducer against CUB's better algorithm with two storages alternating;
       the stateless <BS> call against CUB with one storage and a barrier after each call; each
       run-time size against the same form with the compile-time size. */
    const double cub2 = max2(rate[V_CUB_WR], rate[V_CUB_RAKE]), cub1 = max2(rate[V_CUB1_WR], rate[V_CUB1_RAKE]);
    const ratio_col cols[] = {
        {"reducer <BS> / best CUB", rate[V_RED_CT] / cub2, Op == OP_SUM ? 1.0 : 0.95},
        {"<BS> / best CUB one storage", rate[V_CT] / cub1, 0.9},
        {"run-time / <BS>", rate[V_RT] / rate[V_CT], 0.9},
        {"reducer run-time / reducer <BS>", rate[V_RED_RT] / rate[V_RED_CT], 0.9},
        {"reducer with_size / reducer <BS>", rate[V_RED_WS] / rate[V_RED_CT], 0.9},
    };
    printf("| %-6s %-7s | %-10s | %4d |", type, op_name[Op], Chain ? "latency" : "throughput", BS);
    for (int v = 0; v < BV; v++) printf(" %7.3f |", rate[v]);
    for (int c = 0; c < (int)(sizeof cols / sizeof cols[0]); c++)
        printf(" %5.2f%s |", cols[c].value, cols[c].value < cols[c].level ? "*" : " ");
    printf("%s\n", bad ? " MISMATCH" : "");
    for (int v = 0; v < BV; v++)
        fprintf(e->csv, "block_reduce,\"%s %s %s\",\"%s\",%d,%.3f,%.4f,G reductions/s\n", type, op_name[Op],
                Chain ? "latency" : "throughput", block_variant[v], BS, us[v], rate[v]);
    for (int c = 0; c < (int)(sizeof cols / sizeof cols[0]); c++)
        fprintf(e->csv, "block_reduce_ratio,\"%s %s %s\",\"%s\",%d,,%.4f,ratio\n", type, op_name[Op],
                Chain ? "latency" : "throughput", cols[c].name, BS, cols[c].value);
}

static void block_header(void)
{
    printf(
        "| type op        | loop       | BS   | rt      | <BS>    | red. rt | red. ws | red. BS | CUB w-r | CUB rak | "
        "CUB1 wr | CUB1 rk | red.BS/CUB | <BS>/CUB1 | rt/<BS> | red.rt/red.BS | red.ws/red.BS |\n");
    printf(
        "|----------------|------------|-----:|--------:|--------:|--------:|--------:|--------:|--------:|--------:|"
        "--------:|--------:|------:|------:|------:|------:|------:|\n");
}

template <typename T, bool Chain> static void block_sum_rows(bench_env *e, const char *type)
{
    block_row<T, OP_SUM, 64, Chain>(e, type);
    block_row<T, OP_SUM, 96, Chain>(e, type);
    block_row<T, OP_SUM, 128, Chain>(e, type);
    block_row<T, OP_SUM, 256, Chain>(e, type);
    block_row<T, OP_SUM, 512, Chain>(e, type);
    block_row<T, OP_SUM, 1000, Chain>(e, type);
    block_row<T, OP_SUM, 1024, Chain>(e, type);
}

template <typename T, int Op, bool Chain> static void block_minmax_rows(bench_env *e, const char *type)
{
    block_row<T, Op, 256, Chain>(e, type);
    block_row<T, Op, 1024, Chain>(e, type);
}

/* One row of the warp table. The peers ignore Op (their max is a < b ? b : a either way). */
template <typename T, int Op, bool Chain> static void warp_row(bench_env *e, const char *type)
{
    launch_fn fns[WV] = {launch_warp<T, W_ALL, Op, Chain>,         launch_warp<T, W_CG, OP_MAX, Chain>,
                         launch_warp<T, W_LT_TREE, OP_MAX, Chain>, launch_warp<T, W_RED, Op, Chain>,
                         launch_warp<T, W_CUB, OP_MAX, Chain>,     launch_warp<T, W_PROTO_HW, Op, Chain>,
                         launch_warp<T, W_PROTO_CMP, Op, Chain>};
    const T s = chain_scale<T>(Op, 32);
    const int iters = Chain ? 4096 : 2048;
    const double reductions = (double)e->blocks * (WARP_BLOCK / 32) * iters * (Chain ? 1 : K_TP);
    double rate[WV];
    float us[WV];
    const int bad = time_row<T>(e, fns, WV, &s, iters, reductions, 1, rate, us);
    const double level = Op == OP_MAX ? 0.9 : 1.0;
    const double a = rate[W_ALL] / rate[W_CG], b = rate[W_ALL] / rate[W_LT_TREE], c = rate[W_RED] / rate[W_CUB];
    printf("| %-6s %-7s | %-10s | %7.1f | %7.1f | %7.1f | %7.1f | %7.1f | %5.2f%s | %5.2f%s | %5.2f%s | %7.1f | %7.1f "
           "|%s\n",
           type, op_name[Op], Chain ? "latency" : "throughput", rate[W_ALL], rate[W_CG], rate[W_LT_TREE], rate[W_RED],
           rate[W_CUB], a, a < level ? "*" : " ", b, b < level ? "*" : " ", c, c < level ? "*" : " ", rate[W_PROTO_HW],
           rate[W_PROTO_CMP], bad ? " MISMATCH" : "");
    for (int v = 0; v < WV; v++)
        fprintf(e->csv, "warp_reduce,\"%s %s %s\",\"%s\",32,%.3f,%.4f,G reductions/s\n", type, op_name[Op],
                Chain ? "latency" : "throughput", warp_variant[v], us[v], rate[v]);
}

template <typename T> __global__ void k_fill(T *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const unsigned h = bench_hash((unsigned)i);
        if constexpr (same_type<T, int>::value) x[i] = (int)(h & 1023u);
        else
            x[i] = (T)1 + (T)h * (T)0x1p-32; /* [1, 2): positive, never zero or NaN */
    }
}

/* --profile: each kernel the SASS/ncu analysis looks at (scripts/sass_block.sh), launched once
   with few iterations, nothing timed. */
template <typename T, int Op, int BS, bool Chain> static void profile_block(bench_env *e)
{
    launch_fn fns[BV];
    block_launchers<T, Op, BS, Chain>(fns);
    const T s = chain_scale<T>(Op, BS);
    for (int v = 0; v < BV; v++) fns[v](e->blocks, e->in, e->out, &s, chain_iters(BS) / 8);
    BCHECK(cudaGetLastError());
}
template <typename T, int Op> static void profile_warp(bench_env *e)
{
    launch_fn fns[WV] = {launch_warp<T, W_ALL, Op, true>,         launch_warp<T, W_CG, OP_MAX, true>,
                         launch_warp<T, W_LT_TREE, OP_MAX, true>, launch_warp<T, W_RED, Op, true>,
                         launch_warp<T, W_CUB, OP_MAX, true>,     launch_warp<T, W_PROTO_HW, Op, true>,
                         launch_warp<T, W_PROTO_CMP, Op, true>};
    const T s = chain_scale<T>(Op, 32);
    for (int v = 0; v < WV; v++) fns[v](e->blocks, e->in, e->out, &s, 512);
    BCHECK(cudaGetLastError());
}
static int profile(bench_env *e, size_t n)
{
    k_fill<float><<<1024, 256>>>((float *)e->in, n);
    profile_block<float, OP_SUM, 256, true>(e);
    profile_block<float, OP_SUM, 256, false>(e);
    profile_block<float, OP_SUM, 1024, true>(e);
    profile_block<float, OP_SUM, 1000, true>(e);
    profile_block<float, OP_MAX, 256, true>(e);
    profile_block<float, OP_MAX, 256, false>(e);
    profile_warp<float, OP_MAX>(e);
    profile_warp<float, OP_MAX_NUM>(e);
    k_fill<int><<<1024, 256>>>((int *)e->in, n);
    profile_block<int, OP_SUM, 128, false>(e);
    profile_block<int, OP_SUM, 256, true>(e);
    profile_block<int, OP_SUM, 256, false>(e);
    k_fill<double><<<1024, 256>>>((double *)e->in, n / 2);
    profile_block<double, OP_SUM, 256, true>(e);
    profile_block<double, OP_MAX, 256, true>(e);
    profile_warp<double, OP_MAX>(e);
    profile_warp<double, OP_MAX_NUM>(e);
    BCHECK(cudaDeviceSynchronize());
    printf("profile launches done\n");
    return 0;
}

int main(int argc, char **argv)
{
    bench_env e;
    memset(&e, 0, sizeof e);
    cudaDeviceProp prop;
    BCHECK(cudaGetDeviceProperties(&prop, 0));
    e.blocks = (unsigned)prop.multiProcessorCount * BLOCKS_PER_SM;
    const size_t n = (size_t)K_TP * e.blocks * 1024;
    BCHECK(cudaMalloc(&e.in, n * sizeof(double)));
    BCHECK(cudaMalloc(&e.out, n * sizeof(double)));
    if (argc > 1 && strcmp(argv[1], "--profile") == 0) return profile(&e, n);
    if (argc > 1 && strcmp(argv[1], "--rake") == 0) {
        e.csv = bench_csv_open(argc > 2 ? argv[2] : "bench_block_rake.csv");
        proto_table(&e, n);
        fclose(e.csv);
        return e.mismatches ? 1 : 0;
    }
    e.csv = bench_csv_open(argc > 1 ? argv[1] : "bench_block.csv");
    printf("warpred block and warp reductions vs CUB %d.%d.%d on %s (%d SMs), %u blocks per launch\n"
           "G reductions/s; median of %d launches after %d warm-ups, variants interleaved; throughput loop: %d "
           "independent\n"
           "reductions per iteration; latency loop: each input depends on the previous result. * = ratio below the "
           "level in the heading\n\n",
           CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, prop.name, prop.multiProcessorCount, e.blocks,
           REPS, WARMUP, K_TP);

    printf("1. block sum. Ratios (* below the target): the reducer <BS> / CUB's better algorithm with two storages "
           "(1.0; max 0.95), <BS> / CUB with one storage and a barrier per call (0.9), run-time / <BS> size for "
           "each form (0.9)\n\n");
    block_header();
    k_fill<float><<<1024, 256>>>((float *)e.in, n);
    block_sum_rows<float, false>(&e, "float");
    block_sum_rows<float, true>(&e, "float");
    k_fill<int><<<1024, 256>>>((int *)e.in, n);
    block_sum_rows<int, false>(&e, "int");
    block_sum_rows<int, true>(&e, "int");
    k_fill<double><<<1024, 256>>>((double *)e.in, n / 2);
    block_sum_rows<double, false>(&e, "double");
    block_sum_rows<double, true>(&e, "double");

    printf("\n2. IEEE max (* below 0.9 of a < b ? b : a) and max_num (* below 1.0); block level (CUB with a < b ? b : "
           "a)\n\n");
    block_header();
    k_fill<float><<<1024, 256>>>((float *)e.in, n);
    block_minmax_rows<float, OP_MAX, false>(&e, "float");
    block_minmax_rows<float, OP_MAX, true>(&e, "float");
    block_minmax_rows<float, OP_MAX_NUM, false>(&e, "float");
    block_minmax_rows<float, OP_MAX_NUM, true>(&e, "float");
    k_fill<double><<<1024, 256>>>((double *)e.in, n / 2);
    block_minmax_rows<double, OP_MAX, false>(&e, "double");
    block_minmax_rows<double, OP_MAX, true>(&e, "double");
    block_minmax_rows<double, OP_MAX_NUM, false>(&e, "double");
    block_minmax_rows<double, OP_MAX_NUM, true>(&e, "double");

    printf("\nwarp level (one reduction per warp per call, %d-thread blocks)\n\n", (int)WARP_BLOCK);
    printf("| type op        | loop       | w. all  | cg grtr | lt tree | w. red  | cub lt  | all/cg | all/lt | "
           "red/cub | p:hw    | p:cmp   |\n");
    printf("|----------------|------------|--------:|--------:|--------:|--------:|--------:|-------:|-------:|--------"
           ":|--------:|--------:|\n");
    k_fill<float><<<1024, 256>>>((float *)e.in, n);
    warp_row<float, OP_MAX, false>(&e, "float");
    warp_row<float, OP_MAX, true>(&e, "float");
    warp_row<float, OP_MAX_NUM, false>(&e, "float");
    warp_row<float, OP_MAX_NUM, true>(&e, "float");
    k_fill<double><<<1024, 256>>>((double *)e.in, n / 2);
    warp_row<double, OP_MAX, false>(&e, "double");
    warp_row<double, OP_MAX, true>(&e, "double");
    warp_row<double, OP_MAX_NUM, false>(&e, "double");
    warp_row<double, OP_MAX_NUM, true>(&e, "double");
    BCHECK(cudaGetLastError());

    printf("\n%s\n", e.mismatches ? "RESULTS DIFFER between variants (see MISMATCH rows)"
                                  : "every row's variants agree on thread 0's result");
    BCHECK(cudaFree(e.in));
    BCHECK(cudaFree(e.out));
    fclose(e.csv);
    return e.mismatches ? 1 : 0;
}
