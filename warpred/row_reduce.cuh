/* warpred/row_reduce.cuh - a row held in registers by a sub-warp, a warp, a block or a cluster, and the
   reductions that every thread of the row needs (softmax, norms, losses).      MIT licensed.

   Row-wise kernels (softmax, LayerNorm, RMSNorm, cross-entropy) need a statistic of the whole row in
   every thread that holds a piece of it, before any output is written. How many threads hold a row
   should follow from its length: a short row is best held by a few lanes of a warp (several rows per
   warp), a longer one by a warp, a block, or the blocks of a thread-block cluster. This header
   makes that a compile-time choice and gives one call for each step:

     warpred_row_layout<T, Threads, PerThread, Cluster>  where a row of T lives: Threads threads of
                               a block (2..32: a segment of a warp, several rows per block; 64..1024:
                               the whole block), PerThread values each (in registers, read with
                               16-byte vectors), Cluster blocks (1: no cluster; 2..16: at most that
                               many blocks of a cluster, the launch chooses how many)
     warpred_row_policy<T, MaxLen>::layout   a layout from a small table, for rows of up to MaxLen
     warpred_row_id<Layout>()         the row this thread works on (rows numbered across the grid)
     warpred_row_rank<Layout>()       this thread's place among the row's threads
     warpred_row_load<Layout>(row, len, v, fill)    row[0..len) into the registers v[PER_THREAD]
                                      (type F: float or double), fill where there is no element
     warpred_row_load_vector<Layout>(row, len, j, q, fill)  vector j of the thread alone (VEC values)
     warpred_row_store<Layout>(row, len, v)         the registers back into row[0..len)
     warpred_row_store_vector<Layout>(row, len, j, q)  vector j of the thread alone
     warpred_row_load_packed<Layout>(row, len, p, fill)  the same elements kept as loaded: p[VECS]
                                      holds the 16-byte vectors (uint4), fill rounded to T
     warpred_row_load_packed_vector<Layout>(row, len, j, fill)  vector j of the thread alone, as
                                      loaded (p[j] above; j may go on past VECS, as for
                                      warpred_row_elem, to stream a longer row)
     warpred_row_unpack<Layout>(p, i) value i of a packed row as float (warpred_row_unpack<Layout,
                                      double> for double): for rows of 2-byte T, half the registers
     warpred_row_elem<Layout>(i)      the element index that register i (0..PER_THREAD-1) holds (i may
                                      go on past PER_THREAD: vector i / VEC, for a loop over a row
                                      longer than the registers hold)
     warpred_row_threads<Layout>()    the threads that hold a row: THREADS times the cluster's blocks
     warpred_row_allreduce<Layout>(x, op)           op over the x of every thread of the row, the
                                      result in all of them: a shuffle butterfly over the
                                      segment (warp_reduce.cuh), warpred_block_allreduce or
                                      warpred_cluster_allreduce (sm_90+)

   USAGE
       #include <warpred/row_reduce.cuh>

       // every row divided by its sum; rows of up to 256 floats: 32 lanes (a warp) per row
       typedef warpred_row_policy<float, 256>::layout rows256;   // 32 threads x 8 values, 8 rows a block

       __global__ void __launch_bounds__(rows256::BLOCK) normalize(const float *x, float *y, int rows, int len)
       {
           const long long row = warpred_row_id<rows256>();
           if (row >= rows) return;                               // whole segments leave together
           float v[rows256::PER_THREAD];
           warpred_row_load<rows256>(x + row * len, len, v, 0.0f); // past the end: 0, the sum's identity
           float s = 0.0f;
           for (int i = 0; i < rows256::PER_THREAD; i++) s += v[i];
           s = warpred_row_allreduce<rows256>(s, warpred_op_sum()); // the row's sum, in every lane
           for (int i = 0; i < rows256::PER_THREAD; i++) v[i] /= s;
           warpred_row_store<rows256>(y + row * len, len, v);
       }
       // normalize<<<(rows + rows256::ROWS_PER_BLOCK - 1) / rows256::ROWS_PER_BLOCK, rows256::BLOCK>>>
       //     (x, y, rows, 5): a row {1, 2, 3, 4, 10} -> {0.05, 0.1, 0.15, 0.2, 0.5}

   (This snippet is compiled and checked in tests/test_row_reduce.cu.)

   LAYOUT  warpred_row_layout<T, Threads, PerThread, Cluster> has these compile-time constants:
     VEC             16 / sizeof(T): the values one 16-byte load brings (float 4, bfloat16 8)
     VECS            PerThread / VEC: the vectors a thread holds (PerThread a multiple of VEC)
     THREADS         Threads: the threads of one block that hold a row
     PER_THREAD      PerThread
     CLUSTER         Cluster: blocks per row at most
     BLOCK           the block size to launch: max(THREADS, 256) for THREADS <= 32 (a warp holds
                     32 / THREADS rows), THREADS otherwise
     ROWS_PER_BLOCK  BLOCK / THREADS for THREADS <= 32, else 1
     CAPACITY        THREADS * PER_THREAD * CLUSTER: the longest row it holds
   Launch ceil(rows / ROWS_PER_BLOCK) blocks of BLOCK threads (1D grid and block); with a cluster
   (CLUSTER > 1), rows * C blocks in clusters of C along x, C <= CLUSTER (C = ceil(len / (THREADS *
   PER_THREAD)) is the fewest that hold the row), the row of a block being blockIdx.x / C.
   The row's threads hold vectors in turn: with N = THREADS * C threads and r a thread's rank, the
   thread's vector j (j = 0 .. VECS-1) covers elements (j * N + r) * VEC ... + VEC - 1, so a warp
   reads 512 consecutive bytes per vector: coalesced 16-byte loads.

   POLICY  warpred_row_policy<T, MaxLen>::layout (PER_THREAD is a multiple of VEC for every T of
   16 bytes or less: float, double, __half, __nv_bfloat16):
       MaxLen <=      16      32      64     128     256     512    1024    2048    4096    8192   16384
       THREADS         2       4       8      16      32      32      32     128     256     512     512
       PER_THREAD      8       8       8       8       8      16      32      16      16      16      32
     and beyond: THREADS 512, PER_THREAD 32, CLUSTER ceil(MaxLen / 16384) rounded up to 2, 4, 8 or
     16 (MaxLen <= 262144; more does not fit in registers: a static_assert). Registers: PER_THREAD
     values of F per thread (32 floats at most) plus the kernel's own.
   warpred_row_policy<T, MaxLen>::packed is the layout for rows held packed: the same table read in
     bytes, so that a thread holds as many bytes as a float row's thread would (for T of 1 or 2
     bytes: the float row of MaxLen * sizeof(T) / 4 values, with 4 / sizeof(T) times its PER_THREAD;
     for larger T, layout itself). A bfloat16 row of 2048 is a warp x 64 values in 32 registers; of
     262144 a cluster of 8 blocks of 512 x 64. Short rows of 2-byte T then pay half the per-row
     work per element, and long ones keep as many bytes in flight as float rows do.

   SEMANTICS
     - warpred_row_load: v[i] = row[warpred_row_elem(i)] converted to F (warpred_xf_to<F>), or fill
       when that index is >= len. A vector wholly inside the row and a row pointer aligned to 16
       bytes: one 16-byte load; otherwise (the tail, or a row whose start is not 16-byte aligned,
       as when len * sizeof(T) is not a multiple of 16) element by element. So any len works, and
       the fill is what the tail reduces as: the operation's identity (0 for sums, -inf for max).
     - warpred_row_store: the same indices, values rounded to T (round to nearest); nothing is
       written at or past len. Where a row of T of 1 or 2 bytes is not 16-byte aligned, a whole
       vector is stored in two 8-byte or four 4-byte accesses where the row's alignment allows.
       A cluster layout's 16-byte stores evict first (st.global.cs: the row is long and written
       once, and that measured faster); the other layouts store plainly.
     - warpred_row_load_packed: the same elements as warpred_row_load (and, for rows of T of 1 or 2
       bytes off a 16-byte boundary, the wider accesses of warpred_row_store), kept
       as T (a 16-byte vector per uint4, element k of vector j at bytes k * sizeof(T)); fill, rounded
       to T, where there is no element. warpred_row_unpack(p, i) is then exactly the value that
       warpred_row_load would have put in v[i] (the same fill where fill is a value of T, such as 0
       or -inf). Unpack where the value is used: the conversion of a bfloat16 or a half is one
       instruction, cheaper than the registers a float copy of the row would take.
     - warpred_row_allreduce<Layout>(x, op): every thread of the row gets op over the x of all the
       row's threads, the same bits in each (a NaN result is NaN in each, its sign and payload
       may differ: double NaNs keep an input's) (the order of the layer used: warp_reduce.cuh's
       butterfly for THREADS <= 32, block_reduce.cuh's and cluster_reduce.cuh's ORDER otherwise).
       Any operation and value those layers take (scalars, pairs, warpred_softmax, warpred_welford,
       warpred_arg, structs). Calls may follow each other with no barrier of yours.
     - warpred_row_id: blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / THREADS (THREADS <= 32),
       blockIdx.x (a block), blockIdx.x / C (a cluster).

   PRECONDITIONS
     - Every thread of the row calls warpred_row_allreduce, converged: for THREADS < 32 the lanes
       of its segment of the warp (a segment whose row does not exist may leave as a whole, as in
       USAGE); for THREADS == 32 the whole warp; for a block or a cluster every thread of it (no
       thread may have left: a row per block, so no row past the end).
     - BLOCK threads per block (a 1D block); with CLUSTER > 1 a cluster of C blocks along x, and
       the calls compiled for sm_90+ only: a build for older archs too keeps them under
       #if WARPRED_HAS_CLUSTERS (cluster_reduce.cuh, OLDER ARCHS).
     - row: a pointer to len elements of T; len >= 1 and len <= THREADS * PER_THREAD * C.

   COST  Loads and stores: one 16-byte access per vector where aligned (all of a thread's loads in
   flight together: they are unrolled); on rows of 1- or 2-byte T aligned to 8 or 4 bytes two or
   four accesses a vector for the packed loads and the stores; element accesses at the tail and
   on other unaligned rows. The
   allreduce: log2(THREADS) shuffle steps for a segment or a warp; the block reduction's two
   __syncthreads() for a block; plus two cluster barriers for a cluster.

   This header needs cluster_reduce.cuh, block_reduce.cuh, warp_reduce.cuh, transforms.cuh, ops.cuh
   and their base beside it (README: Copying a header). Include cuda_bf16.h / cuda_fp16.h before it
   for rows of __nv_bfloat16 / __half.
*/
#ifndef WARPRED_ROW_REDUCE_CUH
#define WARPRED_ROW_REDUCE_CUH

#include "cluster_reduce.cuh"
#include "transforms.cuh"

template <typename T, int Threads, int PerThread, int Cluster = 1> struct warpred_row_layout {
    static_assert(sizeof(T) <= 16 && 16 % sizeof(T) == 0, "warpred_row_layout: T of 1, 2, 4, 8 or 16 bytes");
    static_assert(Threads == 2 || Threads == 4 || Threads == 8 || Threads == 16 ||
                      (Threads >= 32 && Threads <= 1024 && Threads % 32 == 0),
                  "warpred_row_layout: Threads 2, 4, 8, 16, or a multiple of 32 up to 1024");
    static_assert(PerThread >= 1 && PerThread % (16 / sizeof(T)) == 0,
                  "warpred_row_layout: PerThread a multiple of the values of a 16-byte vector (16 / sizeof(T))");
    static_assert(Cluster >= 1 && Cluster <= 16, "warpred_row_layout: Cluster 1..16");
    static_assert(Cluster == 1 || Threads >= 32, "warpred_row_layout: a cluster row needs whole blocks");
    typedef T type;
    enum {
        VEC = (int)(16 / sizeof(T)),
        VECS = PerThread / (int)(16 / sizeof(T)),
        THREADS = Threads,
        PER_THREAD = PerThread,
        CLUSTER = Cluster,
        BLOCK = Threads <= 32 ? 256 : Threads,
        ROWS_PER_BLOCK = Threads <= 32 ? 256 / Threads : 1,
        CAPACITY = Threads * PerThread * Cluster
    };
};

/* ---- the policy table ---- */

__host__ __device__ constexpr int warpred__row_threads(long long n)
{
    return n <= 16     ? 2
           : n <= 32   ? 4
           : n <= 64   ? 8
           : n <= 128  ? 16
           : n <= 1024 ? 32
           : n <= 2048 ? 128
           : n <= 4096 ? 256
                       : 512;
}
__host__ __device__ constexpr int warpred__row_per_thread(long long n)
{
    return n <= 256 ? 8 : n <= 512 ? 16 : n <= 1024 ? 32 : n <= 8192 ? 16 : 32;
}
__host__ __device__ constexpr int warpred__row_cluster(long long n)
{
    return n <= 16384 ? 1 : n <= 32768 ? 2 : n <= 65536 ? 4 : n <= 131072 ? 8 : 16;
}

/* Packed rows of T smaller than 4 bytes: the table at the length of a float row of the same bytes. */
template <typename T, long long MaxLen, bool BySize = (sizeof(T) < 4)> struct warpred__row_packed_layout {
    enum : long long { F = (MaxLen * (long long)sizeof(T) + 3) / 4 };
    typedef warpred_row_layout<T, warpred__row_threads(F), warpred__row_per_thread(F) * (4 / (int)sizeof(T)),
                               warpred__row_cluster(F)>
        type;
};
template <typename T, long long MaxLen> struct warpred__row_packed_layout<T, MaxLen, false> {
    typedef warpred_row_layout<T, warpred__row_threads(MaxLen), warpred__row_per_thread(MaxLen),
                               warpred__row_cluster(MaxLen)>
        type;
};

template <typename T, long long MaxLen> struct warpred_row_policy {
    static_assert(MaxLen >= 1 && MaxLen <= 262144,
                  "warpred_row_policy: rows of 1 to 262144 values fit in the registers of a block or a cluster");
    typedef warpred_row_layout<T, warpred__row_threads(MaxLen), warpred__row_per_thread(MaxLen),
                               warpred__row_cluster(MaxLen)>
        layout;
    typedef typename warpred__row_packed_layout<T, MaxLen>::type packed;
};

/* ---- where this thread is ---- */

/* Blocks holding one row: the cluster's size (read from the hardware), or 1. */
template <class Layout> __device__ __forceinline__ int warpred__row_blocks(void)
{
    if constexpr (Layout::CLUSTER == 1) return 1;
    else {
#if WARPRED_HAS_CLUSTERS
        return (int)warpred__cluster_blocks();
#else
        return warpred__cluster_needs_sm90<0 * Layout::CLUSTER>::value;
#endif
    }
}

template <class Layout> __device__ __forceinline__ int warpred_row_rank(void)
{
    if constexpr (Layout::THREADS <= 32) return (int)(threadIdx.x & (Layout::THREADS - 1));
    else if constexpr (Layout::CLUSTER == 1)
        return (int)threadIdx.x;
    else {
#if WARPRED_HAS_CLUSTERS
        return (int)warpred__cluster_rank() * Layout::THREADS + (int)threadIdx.x;
#else
        return warpred__cluster_needs_sm90<0 * Layout::CLUSTER>::value;
#endif
    }
}

/* The threads that hold one row: THREADS times the blocks of the cluster. */
template <class Layout> __device__ __forceinline__ int warpred_row_threads(void)
{
    return Layout::THREADS * warpred__row_blocks<Layout>();
}

template <class Layout> __device__ __forceinline__ long long warpred_row_id(void)
{
    if constexpr (Layout::THREADS <= 32)
        return (long long)blockIdx.x * Layout::ROWS_PER_BLOCK + (long long)(threadIdx.x / Layout::THREADS);
    else
        return (long long)(blockIdx.x / (unsigned)warpred__row_blocks<Layout>());
}

/* The first element of vector j of this thread. */
template <class Layout> __device__ __forceinline__ long long warpred__row_vector_start(int j)
{
    const long long n = warpred_row_threads<Layout>();
    return ((long long)j * n + warpred_row_rank<Layout>()) * Layout::VEC;
}

template <class Layout> __device__ __forceinline__ long long warpred_row_elem(int i)
{
    return warpred__row_vector_start<Layout>(i / Layout::VEC) + i % Layout::VEC;
}

/* ---- conversions ---- */

template <typename T> struct warpred__row_rounding {
    template <typename F> static __device__ __forceinline__ T from(F x) { return (T)x; }
};
#if defined(__CUDA_BF16_TYPES_EXIST__)
template <> struct warpred__row_rounding<__nv_bfloat16> {
    template <typename F> static __device__ __forceinline__ __nv_bfloat16 from(F x)
    {
        return __float2bfloat16_rn((float)x);
    }
};
#endif
#if defined(__CUDA_FP16_TYPES_EXIST__)
template <> struct warpred__row_rounding<__half> {
    template <typename F> static __device__ __forceinline__ __half from(F x) { return __float2half_rn((float)x); }
};
#endif
template <typename T, typename F> __device__ __forceinline__ T warpred__row_round(F x)
{
    return warpred__row_rounding<T>::from(x);
}

/* The 16 bytes of a vector as VEC values of T. */
template <typename T> struct warpred__row_raw {
    uint4 bits;
    __device__ __forceinline__ T get(int k) const
    {
        T t;
        __builtin_memcpy(&t, reinterpret_cast<const unsigned char *>(&bits) + k * sizeof(T), sizeof(T));
        return t;
    }
    __device__ __forceinline__ void set(int k, T t)
    {
        __builtin_memcpy(reinterpret_cast<unsigned char *>(&bits) + k * sizeof(T), &t, sizeof(T));
    }
};

/* ---- loads and stores ---- */

/* A whole vector of a row that is not 16-byte aligned, for T narrower than 4 bytes (a row of
   2-byte values whose length is not a multiple of 8 starts every other row on an 8-byte
   boundary): two 8-byte or four 4-byte accesses where the row's alignment allows (a = its address
   modulo 16, which every vector of the row shares), else one per value. Wider T are aligned to at
   least 4 bytes, where values are already accessed whole. */
template <typename T> __device__ __forceinline__ uint4 warpred__row_load_unaligned(const T *p, unsigned a)
{
    if ((a & 7u) == 0) {
        const uint2 lo = reinterpret_cast<const uint2 *>(p)[0], hi = reinterpret_cast<const uint2 *>(p)[1];
        return make_uint4(lo.x, lo.y, hi.x, hi.y);
    }
    if ((a & 3u) == 0) {
        const unsigned *q = reinterpret_cast<const unsigned *>(p);
        return make_uint4(q[0], q[1], q[2], q[3]);
    }
    warpred__row_raw<T> raw;
#pragma unroll
    for (int k = 0; k < (int)(16 / sizeof(T)); k++) raw.set(k, p[k]);
    return raw.bits;
}

template <typename T> __device__ __forceinline__ void warpred__row_store_unaligned(T *p, uint4 v, unsigned a)
{
    if ((a & 7u) == 0) {
        reinterpret_cast<uint2 *>(p)[0] = make_uint2(v.x, v.y);
        reinterpret_cast<uint2 *>(p)[1] = make_uint2(v.z, v.w);
    } else if ((a & 3u) == 0) {
        unsigned *q = reinterpret_cast<unsigned *>(p);
        q[0] = v.x, q[1] = v.y, q[2] = v.z, q[3] = v.w;
    } else {
        warpred__row_raw<T> raw;
        raw.bits = v;
#pragma unroll
        for (int k = 0; k < (int)(16 / sizeof(T)); k++) p[k] = raw.get(k);
    }
}

/* A 16-byte store. A cluster's row is long and written once: its stores evict first
   (st.global.cs), which measured faster there; shorter rows measured faster with plain stores. */
template <class Layout> __device__ __forceinline__ void warpred__row_store16(void *p, uint4 v)
{
    if constexpr (Layout::CLUSTER > 1) __stcs(reinterpret_cast<uint4 *>(p), v);
    else
        *reinterpret_cast<uint4 *>(p) = v;
}

template <class Layout, typename T, typename F>
__device__ __forceinline__ void warpred_row_load_vector(const T *row, long long len, int j, F (&q)[Layout::VEC], F fill)
{
    static_assert(warpred__same<T, typename Layout::type>::value, "warpred_row_load: the layout's T");
    const warpred_xf_to<F> to = warpred_xf_to<F>();
    const long long start = warpred__row_vector_start<Layout>(j);
    const bool aligned = (reinterpret_cast<unsigned long long>(row) & 15) == 0;
    if (aligned && start + Layout::VEC <= len) {
        warpred__row_raw<T> raw;
        raw.bits = *reinterpret_cast<const uint4 *>(row + start);
#pragma unroll
        for (int k = 0; k < Layout::VEC; k++) q[k] = to(raw.get(k), 0);
    } else {
#pragma unroll
        for (int k = 0; k < Layout::VEC; k++) q[k] = start + k < len ? to(row[start + k], 0) : fill;
    }
}

template <class Layout, typename T, typename F>
__device__ __forceinline__ void warpred_row_store_vector(T *row, long long len, int j, const F (&q)[Layout::VEC])
{
    static_assert(warpred__same<T, typename Layout::type>::value, "warpred_row_store: the layout's T");
    const long long start = warpred__row_vector_start<Layout>(j);
    const unsigned a = (unsigned)reinterpret_cast<unsigned long long>(row) & 15u;
    const bool full = start + Layout::VEC <= len;
    if (a == 0 && full) {
        warpred__row_raw<T> raw;
#pragma unroll
        for (int k = 0; k < Layout::VEC; k++) raw.set(k, warpred__row_round<T>(q[k]));
        warpred__row_store16<Layout>(row + start, raw.bits);
    } else if (sizeof(T) < 4 && full) {
        warpred__row_raw<T> raw;
#pragma unroll
        for (int k = 0; k < Layout::VEC; k++) raw.set(k, warpred__row_round<T>(q[k]));
        warpred__row_store_unaligned(row + start, raw.bits, a);
    } else {
#pragma unroll
        for (int k = 0; k < Layout::VEC; k++)
            if (start + k < len) row[start + k] = warpred__row_round<T>(q[k]);
    }
}

template <class Layout, typename T, typename F>
__device__ __forceinline__ void warpred_row_load(const T *row, long long len, F (&v)[Layout::PER_THREAD], F fill)
{
#pragma unroll
    for (int j = 0; j < Layout::VECS; j++) {
        F q[Layout::VEC];
        warpred_row_load_vector<Layout>(row, len, j, q, fill);
#pragma unroll
        for (int k = 0; k < Layout::VEC; k++) v[j * Layout::VEC + k] = q[k];
    }
}

template <class Layout, typename T, typename F>
__device__ __forceinline__ void warpred_row_store(T *row, long long len, const F (&v)[Layout::PER_THREAD])
{
#pragma unroll
    for (int j = 0; j < Layout::VECS; j++) {
        F q[Layout::VEC];
#pragma unroll
        for (int k = 0; k < Layout::VEC; k++) q[k] = v[j * Layout::VEC + k];
        warpred_row_store_vector<Layout>(row, len, j, q);
    }
}

/* ---- rows held packed ---- */

template <class Layout, typename T, typename F>
__device__ __forceinline__ uint4 warpred_row_load_packed_vector(const T *row, long long len, int j, F fill)
{
    static_assert(warpred__same<T, typename Layout::type>::value, "warpred_row_load_packed_vector: the layout's T");
    const unsigned a = (unsigned)reinterpret_cast<unsigned long long>(row) & 15u;
    const long long start = warpred__row_vector_start<Layout>(j);
    const bool full = start + Layout::VEC <= len;
    if (a == 0 && full) return *reinterpret_cast<const uint4 *>(row + start);
    if (sizeof(T) < 4 && full) return warpred__row_load_unaligned(row + start, a);
    const T filler = warpred__row_round<T>(fill);
    warpred__row_raw<T> raw;
#pragma unroll
    for (int k = 0; k < Layout::VEC; k++) raw.set(k, start + k < len ? row[start + k] : filler);
    return raw.bits;
}

template <class Layout, typename T, typename F>
__device__ __forceinline__ void warpred_row_load_packed(const T *row, long long len, uint4 (&p)[Layout::VECS], F fill)
{
    static_assert(warpred__same<T, typename Layout::type>::value, "warpred_row_load_packed: the layout's T");
#pragma unroll
    for (int j = 0; j < Layout::VECS; j++) p[j] = warpred_row_load_packed_vector<Layout>(row, len, j, fill);
}

/* A 2-byte value to float in one instruction, kept out of common-subexpression elimination
   (volatile): otherwise the compiler keeps the floats of the first pass over a row for the next
   ones, which takes back the registers that holding the row packed saved. */
template <typename T> struct warpred__row_unpacker {
    template <typename F> static __device__ __forceinline__ F get(uint4 bits, int k)
    {
        warpred__row_raw<T> raw;
        raw.bits = bits;
        return warpred_xf_to<F>()(raw.get(k), 0);
    }
};
__device__ __forceinline__ unsigned warpred__row_word(uint4 v, int w)
{
    return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
}
#if defined(__CUDA_BF16_TYPES_EXIST__)
template <> struct warpred__row_unpacker<__nv_bfloat16> {
    template <typename F> static __device__ __forceinline__ F get(uint4 bits, int k)
    {
        const unsigned w = warpred__row_word(bits, k >> 1);
        unsigned r; /* a bfloat16 is the high half of its float */
        if (k & 1) asm volatile("and.b32 %0, %1, 0xffff0000;" : "=r"(r) : "r"(w));
        else
            asm volatile("shl.b32 %0, %1, 16;" : "=r"(r) : "r"(w));
        return (F)__uint_as_float(r);
    }
};
#endif
#if defined(__CUDA_FP16_TYPES_EXIST__)
template <> struct warpred__row_unpacker<__half> {
    template <typename F> static __device__ __forceinline__ F get(uint4 bits, int k)
    {
        const unsigned w = warpred__row_word(bits, k >> 1);
        float r;
        if (k & 1)
            asm volatile("{ .reg .b16 lo, hi;\n mov.b32 {lo, hi}, %1;\n cvt.f32.f16 %0, hi; }" : "=f"(r) : "r"(w));
        else
            asm volatile("{ .reg .b16 lo, hi;\n mov.b32 {lo, hi}, %1;\n cvt.f32.f16 %0, lo; }" : "=f"(r) : "r"(w));
        return (F)r;
    }
};
#endif

template <class Layout, typename F = float>
__device__ __forceinline__ F warpred_row_unpack(const uint4 (&p)[Layout::VECS], int i)
{
    return warpred__row_unpacker<typename Layout::type>::template get<F>(p[i / Layout::VEC], i % Layout::VEC);
}

/* ---- the reduction ---- */

template <class Layout, typename V, typename Op> __device__ __forceinline__ V warpred_row_allreduce(V x, Op op)
{
    if constexpr (Layout::THREADS <= 32) return warpred_warp_allreduce<Layout::THREADS>(x, op);
    else if constexpr (Layout::CLUSTER == 1)
        return warpred_block_allreduce<Layout::THREADS>(x, op);
    else
        return warpred_cluster_allreduce<Layout::THREADS>(x, op); /* its own error on archs without clusters */
}

#endif /* WARPRED_ROW_REDUCE_CUH */
