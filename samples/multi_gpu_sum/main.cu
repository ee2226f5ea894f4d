/* samples/multi_gpu_sum - one sum over several GPUs through NCCL, with the same bits on every GPU.

   Each GPU holds a shard of the data and reduces it with warpred_device_sum (one launch, bitwise
   deterministic for fixed data, length and device) into a device scalar. The per-GPU partials are then
   combined in two ways:
     (a) ncclAllReduce of the scalars: the usual way. Which order NCCL adds in depends on the
         algorithm, protocol and channel count it picks, so with 3 or more GPUs the last bits may
         differ between message sizes, NCCL versions and topologies.
     (b) deterministically: ncclAllGather of the partials (a copy: no arithmetic inside NCCL), then
         one tiny kernel on every GPU folds partial 0 + partial 1 + ... in rank order. Every GPU
         runs the same float additions in the same order, so all hold the same bits, on every run.
     (c) reproducibly: each GPU reduces its shard to a warpred_rsum<float> accumulator
         (warpred_device_reduce with warpred_op_rsum), the accumulators are all-gathered as bytes
         and merged with warpred_op_rsum on every GPU. The merge is exact and order-free, so the
         result has the same bits for ANY number of GPUs and any shard boundaries: it equals one
         GPU's warpred_device_reduce(..., warpred_op_rsum()) of the whole array (checked here).
   The same is done for int data summed exactly in long long.

   Then the vector all-reduce (the gradient case, warpred/vector_rsum.cuh): K contribution vectors
   of M floats spread over the GPUs, every GPU ends with the element-wise sums, with bits that
   depend only on the set of K vectors: an element-wise max of exponent bytes (ncclUint8, ncclMax),
   each GPU's contributions converted to 64-bit fixed point and summed in one pass, an exact
   ncclReduceScatter of the int64 sums (ncclInt64, ncclSum), one rounding back to float of this GPU's
   share, an ncclAllGather of the floats. Checked against a host model of the rule for two groupings
   of the K vectors over the GPUs (one with an ncclAllReduce of the int64 sums instead) and for one
   GPU holding all K, and timed against ncclAllReduce of the float vector, the same NCCL exchanges
   alone, the all-reduce form, and an all-gather + fold in rank order.

   Two process layouts, one binary (by default both, one after the other):
     sample_multi_gpu_sum --single   one process drives every visible GPU (ncclCommInitAll)
     sample_multi_gpu_sum --procs    one process per GPU, forked from this one; rank 0 makes the
                                     ncclUniqueId and sends it to the others through a pipe, and each
                                     process joins with ncclCommInitRank (what an MPI or Slurm job does)
   Options: --gpus P (use the first P visible GPUs), --quick (small sizes, few repetitions; also
   WARPRED_SAMPLE_QUICK=1), --max K (largest per-GPU size 2^K, default 30), --k K (vectors in the
   vector check, default 16), --vmax V (largest vector length 2^V of the vector timing, default 28).
   WARPRED_SEED repeats a run's data: runs with the same seed print the same "fingerprint" lines on
   any number of GPUs.
   Without a GPU, or with fewer than --gpus asks for, it prints a line starting "SKIPPED:" and exits 0.

   NCCL_NVLS_ENABLE is set to 0 (NVLink SHARP / multicast off) unless the environment already sets it.
   Exit status 0 when every check passed. Build: make (see the sample's README.md). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <nccl.h>
#include <warpred/device_reduce.cuh>
#include <warpred/op_rsum.cuh>
#include <warpred/vector_rsum.cuh>
#include "../common/sample_util.h" /* su_env_flag, su_quick, su_skip, su_median, su_float_bits, su_bits_float */

/* ------------------------------------------------------------------ errors */

static char g_who[32] = "multi_gpu_sum"; /* "rank 1" in the forked processes */

static void die_cuda(const char *call, cudaError_t err, const char *file, int line)
{
    fprintf(stderr, "%s: %s:%d: %s failed: %s (%s)\n", g_who, file, line, call, cudaGetErrorName(err),
            cudaGetErrorString(err));
    exit(1);
}

static void die_nccl(const char *call, ncclResult_t res, const char *file, int line)
{
    fprintf(stderr, "%s: %s:%d: %s failed: %s (%s); NCCL_DEBUG=WARN shows NCCL's own log\n", g_who, file, line, call,
            ncclGetErrorString(res), ncclGetLastError(NULL));
    exit(1);
}

static void die(const char *what)
{
    fprintf(stderr, "%s: %s\n", g_who, what);
    exit(1);
}

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t err_ = (call);                                          \
        if (err_ != cudaSuccess) die_cuda(#call, err_, __FILE__, __LINE__); \
    } while (0)
#define NCCL_CHECK(call)                                                    \
    do {                                                                    \
        ncclResult_t res_ = (call);                                         \
        if (res_ != ncclSuccess) die_nccl(#call, res_, __FILE__, __LINE__); \
    } while (0)
/* a warpred host call that takes `&why` last: its message says what was wrong */
#define WARPRED_CHECK(call)                                                     \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s: %s:%d: %s\n", g_who, __FILE__, __LINE__, why); \
            die_cuda(#call, err_, __FILE__, __LINE__);                          \
        }                                                                       \
    } while (0)
#define LAUNCH_CHECK() CUDA_CHECK(cudaGetLastError()) /* right after a kernel launch */

/* ------------------------------------------------------------------ settings */

enum {
    MAX_GPUS = 16,
    MAX_SIZES = 16,
    XCHG_WORDS = 128, /* 8-byte words a rank can share with the others in one exchange */
    KEY_BITS = 20,    /* data: x = k * 2^-20 with a pseudo-random 20-bit integer k */
    MAX_VK = 64,      /* vectors in the vector check */
    RESHARDINGS = 5,  /* other shardings of the whole array that GPU 0 checks the reproducible sum with */
};

typedef warpred_rsum<float> rsum_t; /* 32 bytes, moved between GPUs as bytes */

typedef struct options {
    int procs;      /* 1: one process per GPU */
    int gpus;       /* 0: every visible GPU */
    int quick;      /* small sizes, few repetitions */
    int max_log2;   /* largest per-GPU size of the timing table: 2^max_log2 */
    int vk;         /* vectors in the vector check */
    size_t vm;      /* their length */
    int vmax_log2;  /* largest vector length of the vector timing: 2^vmax_log2 */
    unsigned seed;  /* data seed; the same in every process */
    size_t check_n; /* elements (over all GPUs) of the correctness check */
    int warmups, reps, bit_runs;
} options;

/* Everything one GPU (one rank) owns. A process holds one of these per GPU it drives. */
typedef struct rank_ctx {
    int rank, nranks, device;
    ncclComm_t comm;     /* all ranks */
    ncclComm_t solo;     /* on rank 0 only: a one-rank communicator for the "1 GPU" timings */
    cudaStream_t stream; /* every operation of this rank, in order */
    cudaEvent_t start, stop;
    warpred_device_plan plan;
    size_t n;        /* elements of the shard in use */
    size_t capacity; /* floats x can hold */
    float *x;        /* the float shard */
    int *xi;         /* the int shard (correctness check only) */
    size_t xi_capacity;
    float *partial;          /* this GPU's local sum (allreduce path) */
    float *gathered;         /* nranks floats; [rank] is this GPU's local sum (deterministic path) */
    float *sum_ar, *sum_det; /* the combined results */
    long long *partial_ll, *gathered_ll, *sum_ll_ar, *sum_ll_det;
    rsum_t *racc;   /* nranks accumulators; [rank] is this GPU's (reproducible path) */
    float *sum_rep; /* the reproducible result */
    float *whole;   /* rank 0: the whole check array, for one GPU's reproducible sum of it */
    rsum_t *whole_acc;
    float *whole_sum;
    /* the vector all-reduce */
    int vk;                    /* contributions this GPU holds now */
    size_t vm;                 /* their length */
    const float *vptr[MAX_VK]; /* host array of device pointers into vx */
    float *vx;                 /* the contributions, vector j at vx + j * vld */
    size_t vld, vx_capacity;   /* elements between vectors; floats vx holds */
    unsigned char *vemax;      /* exponent bytes, all-reduced with max */
    long long *vsum;           /* fixed-point sums, all-reduced with sum */
    float *vout;               /* the result */
    float *vgathered;          /* nranks vectors (the rank-order fold) */
    size_t vm_capacity, vgathered_capacity;
    unsigned long long *xd; /* device side of the exchange buffer */
    union {
        double d[XCHG_WORDS];
        unsigned long long u[XCHG_WORDS];
    } xh; /* host side of the exchange buffer */
} rank_ctx;

/* ------------------------------------------------------------------ data */

/* A pseudo-random 20-bit integer for global element g (integer hash; host and device agree). */
__host__ __device__ static inline unsigned key_of(unsigned long long g, unsigned seed)
{
    unsigned h = (unsigned)g ^ ((unsigned)(g >> 32) * 0x9E3779B9u) ^ (seed * 0x85EBCA6Bu);
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h & ((1u << KEY_BITS) - 1);
}

/* x[j] = k * 2^-20 (exact in float), xi[j] = k - 2^18, for global elements base + j. The ints are
   of both signs but positive on average, so their sums pass 2^31 early: only a 64-bit sum is right. */
__global__ void fill_shard(float *x, int *xi, size_t n, unsigned long long base, unsigned seed)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < n; j += (size_t)gridDim.x * blockDim.x) {
        const unsigned k = key_of(base + j, seed);
        x[j] = (float)k * (1.0f / (1 << KEY_BITS));
        if (xi) xi[j] = (int)k - (1 << (KEY_BITS - 2));
    }
}

/* Host reference: the exact sum of the keys of global elements [base, base + n). */
static unsigned long long key_sum(unsigned long long base, size_t n, unsigned seed)
{
    unsigned long long s = 0;
    for (size_t j = 0; j < n; j++) s += key_of(base + j, seed);
    return s;
}

static double float_sum_of_keys(unsigned long long keys) { return (double)keys / (1 << KEY_BITS); }
/* The exact sum rounded once to float: the integer to float (one rounding), then an exact scaling. */
static float rounded_sum_of_keys(unsigned long long keys) { return ldexpf((float)keys, -KEY_BITS); }
static long long int_sum_of_keys(unsigned long long keys, size_t n)
{
    return (long long)keys - (long long)n * (1 << (KEY_BITS - 2));
}

/* The vector data: contribution j, element i is a float of pseudo-random sign, 24-bit significand and
   exponent in [-40, 40] (80 binades: the float sums of these round), 1 in 64 of them zero. Its bits,
   so that host and device build the same value. */
__host__ __device__ static inline unsigned mix32(unsigned h)
{
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

__host__ __device__ static inline unsigned vec_bits(unsigned j, unsigned long long i, unsigned seed)
{
    const unsigned a = mix32((unsigned)i ^ mix32((unsigned)(i >> 32) ^ mix32(j * 0x9E3779B9u ^ seed)));
    const unsigned b = mix32(a ^ 0x5bd1e995u);
    if ((b & 63) == 0) return 0;
    const unsigned exponent = (unsigned)((int)((b >> 6) % 81) - 40 + 127);
    return (a & 0x80000000u) | (exponent << 23) | (a & 0x7fffffu);
}

__global__ void fill_vector(float *x, size_t m, unsigned j, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x)
        x[i] = __uint_as_float(vec_bits(j, i, seed));
}

/* ------------------------------------------------------------------ the reduction */

/* The deterministic combine: one thread adds the partials in rank order. Every GPU runs it on
   the same gathered values, so every GPU gets the same bits. */
template <typename T> __global__ void fold_in_rank_order(const T *partials, int nranks, T *out)
{
    T s = partials[0];
    for (int r = 1; r < nranks; r++) s += partials[r];
    *out = s;
}

/* The reproducible combine: every GPU merges the gathered accumulators, here in rank order; any order
   gives the same bits (warpred_op_rsum is exact and order-free), which the check phase tests with
   reverse = 1. */
__global__ void fold_rsum(const rsum_t *acc, int count, int reverse, float *out)
{
    rsum_t a = warpred_op_rsum::identity<rsum_t>();
    for (int r = 0; r < count; r++) a = warpred_op_rsum()(a, acc[reverse ? count - 1 - r : r]);
    *out = warpred_rsum_value(a);
}

__global__ void init_rsum(rsum_t *acc, int count)
{
    for (int r = 0; r < count; r++) acc[r] = warpred_op_rsum::identity<rsum_t>();
}

/* The deterministic combine of vectors for a fixed GPU count: rows[0][i] + rows[1][i] + ... in rank order. */
__global__ void fold_rows_in_rank_order(const float *rows, int nrows, size_t m, float *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x) {
        float s = rows[i];
        for (int r = 1; r < nrows; r++) s += rows[(size_t)r * m + i];
        out[i] = s;
    }
}

/* What a plain gradient all-reduce does first: this GPU's k vectors added in float, in index order. */
__global__ void local_float_sum(const float *x, int k, size_t ld, size_t m, float *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x) {
        float s = 0.0f;
        for (int j = 0; j < k; j++) s += x[(size_t)j * ld + i];
        out[i] = s;
    }
}

/* An order-free fingerprint of a vector's bits (element i's bits mixed with i, summed mod 2^64). */
struct bits_hash {
    __device__ unsigned long long operator()(float x, size_t i) const
    {
        const unsigned long long h = ((unsigned long long)mix32((unsigned)i ^ 0x27d4eb2du) << 32) |
                                     mix32(__float_as_uint(x) ^ (unsigned)(i >> 32) * 0x165667b1u);
        return h * 0x9E3779B97F4A7C15ull ^ (h >> 29);
    }
};

static unsigned grid_for(size_t m)
{
    const size_t b = (m + 255) / 256;
    return (unsigned)(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

typedef enum {
    OP_LOCAL,             /* local sum only */
    OP_ALLREDUCE,         /* local sum, then ncclAllReduce of the scalars */
    OP_DETERMINISTIC,     /* local sum, then ncclAllGather + fold in rank order */
    OP_COMBINE_ALLREDUCE, /* the combines alone (on partials already there) */
    OP_COMBINE_DETERMINISTIC,
    OP_REPRODUCIBLE,         /* local warpred_rsum, then ncclAllGather of the bytes + merge */
    OP_COMBINE_REPRODUCIBLE, /* the gather and merge alone */
    OP_V_REPRO,              /* vectors: the reproducible all-reduce (exponents, max, fixed, reduce-scatter, finish of
                       this GPU's share, all-gather) */
    OP_V_EXCHANGES,          /* vectors: the three NCCL calls of OP_V_REPRO alone */
    OP_V_REPRO_AR,           /* vectors: the reproducible all-reduce with one all-reduce of the integers (max, sum) */
    OP_V_FLOAT,              /* vectors: ncclAllReduce of the float vector */
    OP_V_BYTES,              /* vectors: the two NCCL all-reduces of OP_V_REPRO_AR alone (9 bytes per element) */
    OP_V_ORDERED,            /* vectors: ncclAllGather + fold in rank order */
    OP_V_PLAIN,              /* vectors: local float sum of this GPU's vectors + ncclAllReduce (float) */
} op_kind;

static int uses_local_sum(op_kind op) { return op == OP_LOCAL || op == OP_ALLREDUCE || op == OP_DETERMINISTIC; }
static int is_vector_op(op_kind op) { return op >= OP_V_REPRO; }
static int uses_allreduce(op_kind op) { return op == OP_ALLREDUCE || op == OP_COMBINE_ALLREDUCE; }
static int uses_gather(op_kind op) { return op == OP_DETERMINISTIC || op == OP_COMBINE_DETERMINISTIC; }

/* Enqueue one float reduction of c[i].x[0 .. c[i].n) on each of the `count` ranks this process drives,
   over the full communicator, or (solo) over rank 0's one-rank communicator. Nothing waits on the host.
   Several communicators driven from one thread need their NCCL calls inside one group. */
static void enqueue_float(rank_ctx *c, int count, op_kind op, int solo)
{
    const char *why = NULL;
    for (int i = 0; uses_local_sum(op) && i < count; i++) {
        const int slot = solo ? 0 : c[i].rank;
        float *out = op == OP_DETERMINISTIC ? c[i].gathered + slot : c[i].partial;
        CUDA_CHECK(cudaSetDevice(c[i].device));
        WARPRED_CHECK(warpred_device_sum(&c[i].plan, c[i].x, c[i].n, out, c[i].stream, &why));
    }
    if (uses_allreduce(op)) {
        NCCL_CHECK(ncclGroupStart());
        for (int i = 0; i < count; i++)
            NCCL_CHECK(ncclAllReduce(c[i].partial, c[i].sum_ar, 1, ncclFloat, ncclSum, solo ? c[i].solo : c[i].comm,
                                     c[i].stream));
        NCCL_CHECK(ncclGroupEnd());
    }
    if (uses_gather(op)) {
        /* in place: each rank's partial already sits at gathered[rank] */
        NCCL_CHECK(ncclGroupStart());
        for (int i = 0; i < count; i++) {
            const int slot = solo ? 0 : c[i].rank;
            NCCL_CHECK(ncclAllGather(c[i].gathered + slot, c[i].gathered, 1, ncclFloat, solo ? c[i].solo : c[i].comm,
                                     c[i].stream));
        }
        NCCL_CHECK(ncclGroupEnd());
        for (int i = 0; i < count; i++) {
            CUDA_CHECK(cudaSetDevice(c[i].device));
            fold_in_rank_order<<<1, 1, 0, c[i].stream>>>(c[i].gathered, solo ? 1 : c[i].nranks, c[i].sum_det);
            LAUNCH_CHECK();
        }
    }
    if (op == OP_REPRODUCIBLE || op == OP_COMBINE_REPRODUCIBLE) {
        for (int i = 0; op == OP_REPRODUCIBLE && i < count; i++) {
            const int slot = solo ? 0 : c[i].rank;
            CUDA_CHECK(cudaSetDevice(c[i].device));
            WARPRED_CHECK(warpred_device_reduce(&c[i].plan, c[i].x, c[i].n, c[i].racc + slot, warpred_op_rsum(),
                                                c[i].stream, &why));
        }
        /* in place, as bytes: NCCL copies the accumulators and computes nothing */
        NCCL_CHECK(ncclGroupStart());
        for (int i = 0; i < count; i++) {
            const int slot = solo ? 0 : c[i].rank;
            NCCL_CHECK(ncclAllGather(c[i].racc + slot, c[i].racc, sizeof(rsum_t), ncclUint8,
                                     solo ? c[i].solo : c[i].comm, c[i].stream));
        }
        NCCL_CHECK(ncclGroupEnd());
        for (int i = 0; i < count; i++) {
            CUDA_CHECK(cudaSetDevice(c[i].device));
            fold_rsum<<<1, 1, 0, c[i].stream>>>(c[i].racc, solo ? 1 : c[i].nranks, 0, c[i].sum_rep);
            LAUNCH_CHECK();
        }
    }
}

static size_t round_up4(size_t n) { return (n + 3) / 4 * 4; }

/* The elements each rank finishes in the reduce-scatter form: a multiple of 4 (16-byte aligned
   shares); `ranks` shares cover m, and the buffers hold ranks * share elements. */
static size_t split_share(size_t m, int ranks) { return round_up4((m + ranks - 1) / ranks); }

/* The reproducible vector all-reduce on each of the `count` ranks (comms: their communicators, of
   `ranks` ranks), the integers reduce-scattered: each rank sums and finishes only its share of the
   elements, and an all-gather copies the floats to every rank. An all-reduce of the integers moves
   8 bytes per element in both of its halves (a reduce-scatter and an all-gather, inside NCCL);
   this moves 8 in the first and 4 in the second, and each GPU finishes 1/P of the elements. The
   padding past m (under 4 elements per rank) holds zeros, which finish to +0 and are never read.
   exchanges_only: the NCCL calls alone, on whatever the buffers hold (for the timing). */
static void enqueue_vector_repro(rank_ctx *c, int count, const ncclComm_t *comms, int ranks, int exchanges_only)
{
    const char *why = NULL;
    const size_t m = c[0].vm, share = split_share(m, ranks), padded = share * ranks;
    for (int i = 0; i < count && !exchanges_only; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        WARPRED_CHECK(warpred_vector_rsum_exponents(c[i].vptr, c[i].vk, m, c[i].vemax, c[i].stream, &why));
        CUDA_CHECK(cudaMemsetAsync(c[i].vemax + m, 0, padded - m, c[i].stream));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < count; i++)
        NCCL_CHECK(ncclAllReduce(c[i].vemax, c[i].vemax, m, ncclUint8, ncclMax, comms[i], c[i].stream));
    NCCL_CHECK(ncclGroupEnd());
    for (int i = 0; i < count && !exchanges_only; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        WARPRED_CHECK(warpred_vector_rsum_fixed(c[i].vptr, c[i].vk, m, c[i].vemax, c[i].vsum, c[i].stream, &why));
        CUDA_CHECK(cudaMemsetAsync(c[i].vsum + m, 0, (padded - m) * sizeof(long long), c[i].stream));
    }
    /* rank r's share starts at element r * share; with a one-rank communicator r is 0 */
#define MINE(i) ((ranks > 1 ? (size_t)c[i].rank : 0) * share)
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < count; i++)
        NCCL_CHECK(ncclReduceScatter(c[i].vsum, c[i].vsum + MINE(i), share, ncclInt64, ncclSum, comms[i], c[i].stream));
    NCCL_CHECK(ncclGroupEnd());
    for (int i = 0; i < count && !exchanges_only; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        WARPRED_CHECK(warpred_vector_rsum_finish(c[i].vsum + MINE(i), c[i].vemax + MINE(i), share, c[i].vout + MINE(i),
                                                 c[i].stream, &why));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < count; i++)
        NCCL_CHECK(ncclAllGather(c[i].vout + MINE(i), c[i].vout, share, ncclFloat, comms[i], c[i].stream));
    NCCL_CHECK(ncclGroupEnd());
#undef MINE
}

/* The same result through one all-reduce of the integers: every rank finishes every element. */
static void enqueue_vector_repro_allreduce(rank_ctx *c, int count, const ncclComm_t *comms, int exchanges_only)
{
    const char *why = NULL;
    for (int i = 0; i < count && !exchanges_only; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        WARPRED_CHECK(warpred_vector_rsum_exponents(c[i].vptr, c[i].vk, c[i].vm, c[i].vemax, c[i].stream, &why));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < count; i++)
        NCCL_CHECK(ncclAllReduce(c[i].vemax, c[i].vemax, c[i].vm, ncclUint8, ncclMax, comms[i], c[i].stream));
    NCCL_CHECK(ncclGroupEnd());
    for (int i = 0; i < count && !exchanges_only; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        WARPRED_CHECK(warpred_vector_rsum_fixed(c[i].vptr, c[i].vk, c[i].vm, c[i].vemax, c[i].vsum, c[i].stream, &why));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < count; i++)
        NCCL_CHECK(ncclAllReduce(c[i].vsum, c[i].vsum, c[i].vm, ncclInt64, ncclSum, comms[i], c[i].stream));
    NCCL_CHECK(ncclGroupEnd());
    for (int i = 0; i < count && !exchanges_only; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        WARPRED_CHECK(warpred_vector_rsum_finish(c[i].vsum, c[i].vemax, c[i].vm, c[i].vout, c[i].stream, &why));
    }
}

/* One vector operation on each of the `count` ranks (solo: rank 0's one-rank communicator). Each rank's
   contributions are c[i].vptr[0 .. c[i].vk), of c[i].vm floats. */
static void enqueue_vector(rank_ctx *c, int count, op_kind op, int solo)
{
    ncclComm_t comms[MAX_GPUS];
    for (int i = 0; i < count; i++) comms[i] = solo ? c[i].solo : c[i].comm;
    if (op == OP_V_REPRO || op == OP_V_EXCHANGES)
        enqueue_vector_repro(c, count, comms, solo ? 1 : c[0].nranks, op == OP_V_EXCHANGES);
    if (op == OP_V_REPRO_AR || op == OP_V_BYTES) enqueue_vector_repro_allreduce(c, count, comms, op == OP_V_BYTES);
    if (op == OP_V_PLAIN) {
        for (int i = 0; i < count; i++) {
            CUDA_CHECK(cudaSetDevice(c[i].device));
            local_float_sum<<<grid_for(c[i].vm), 256, 0, c[i].stream>>>(c[i].vx, c[i].vk, c[i].vld, c[i].vm, c[i].vout);
            LAUNCH_CHECK();
        }
    }
    if (op == OP_V_FLOAT || op == OP_V_PLAIN) {
        NCCL_CHECK(ncclGroupStart());
        for (int i = 0; i < count; i++)
            NCCL_CHECK(ncclAllReduce(op == OP_V_PLAIN ? c[i].vout : c[i].vx, c[i].vout, c[i].vm, ncclFloat, ncclSum,
                                     comms[i], c[i].stream));
        NCCL_CHECK(ncclGroupEnd());
    }
    if (op == OP_V_ORDERED) {
        NCCL_CHECK(ncclGroupStart());
        for (int i = 0; i < count; i++)
            NCCL_CHECK(ncclAllGather(c[i].vx, c[i].vgathered, c[i].vm, ncclFloat, comms[i], c[i].stream));
        NCCL_CHECK(ncclGroupEnd());
        for (int i = 0; i < count; i++) {
            CUDA_CHECK(cudaSetDevice(c[i].device));
            fold_rows_in_rank_order<<<grid_for(c[i].vm), 256, 0, c[i].stream>>>(c[i].vgathered, solo ? 1 : c[i].nranks,
                                                                                c[i].vm, c[i].vout);
            LAUNCH_CHECK();
        }
    }
}

static void enqueue_op(rank_ctx *c, int count, op_kind op, int solo)
{
    if (is_vector_op(op)) enqueue_vector(c, count, op, solo);
    else
        enqueue_float(c, count, op, solo);
}

/* The int shards c[i].xi[0 .. c[i].n), summed exactly in long long, combined both ways. */
static void enqueue_int_both_ways(rank_ctx *c, int count)
{
    const char *why = NULL;
    for (int i = 0; i < count; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        WARPRED_CHECK(warpred_device_transform_reduce(&c[i].plan, c[i].xi, c[i].n, c[i].partial_ll, warpred_op_sum(),
                                                      warpred_xf_to<long long>(), c[i].stream, &why));
        CUDA_CHECK(cudaMemcpyAsync(c[i].gathered_ll + c[i].rank, c[i].partial_ll, sizeof(long long),
                                   cudaMemcpyDeviceToDevice, c[i].stream));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < count; i++) {
        NCCL_CHECK(ncclAllReduce(c[i].partial_ll, c[i].sum_ll_ar, 1, ncclInt64, ncclSum, c[i].comm, c[i].stream));
        NCCL_CHECK(ncclAllGather(c[i].gathered_ll + c[i].rank, c[i].gathered_ll, 1, ncclInt64, c[i].comm, c[i].stream));
    }
    NCCL_CHECK(ncclGroupEnd());
    for (int i = 0; i < count; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        fold_in_rank_order<<<1, 1, 0, c[i].stream>>>(c[i].gathered_ll, c[i].nranks, c[i].sum_ll_det);
        LAUNCH_CHECK();
    }
}

static void sync_all(rank_ctx *c, int count)
{
    for (int i = 0; i < count; i++) CUDA_CHECK(cudaStreamSynchronize(c[i].stream));
}

static void copy_to_host(void *dst, const void *src, size_t bytes, const rank_ctx *c)
{
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, c->stream));
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
}

/* ------------------------------------------------------------------ host-side exchange among ranks */

/* Every rank contributes c[i].xh (n words) and gets back the element-wise op over all ranks.
   Used for bookkeeping only (timings, bit patterns, check results), never for the sums under test:
   exact for integers (ncclUint64 sum/min/max) and for max of doubles. */
static void exchange(rank_ctx *c, int count, size_t n, ncclDataType_t type, ncclRedOp_t op)
{
    for (int i = 0; i < count; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        CUDA_CHECK(cudaMemcpyAsync(c[i].xd, c[i].xh.u, n * 8, cudaMemcpyHostToDevice, c[i].stream));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < count; i++) NCCL_CHECK(ncclAllReduce(c[i].xd, c[i].xd, n, type, op, c[i].comm, c[i].stream));
    NCCL_CHECK(ncclGroupEnd());
    for (int i = 0; i < count; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        CUDA_CHECK(cudaMemcpyAsync(c[i].xh.u, c[i].xd, n * 8, cudaMemcpyDeviceToHost, c[i].stream));
    }
    sync_all(c, count);
}

/* Every rank has reached this point and its stream is idle. */
static void barrier(rank_ctx *c, int count)
{
    for (int i = 0; i < count; i++) c[i].xh.u[0] = 0;
    exchange(c, count, 1, ncclUint64, ncclSum);
}

/* The sum over all ranks of one integer each rank holds (exact). */
static unsigned long long sum_over_ranks(rank_ctx *c, int count, const unsigned long long *values)
{
    for (int i = 0; i < count; i++) c[i].xh.u[0] = values[i];
    exchange(c, count, 1, ncclUint64, ncclSum);
    return c[0].xh.u[0];
}

/* 1 when every rank passed `ok_per_ctx[i]`. */
static int all_ranks_ok(rank_ctx *c, int count, const int *ok_per_ctx)
{
    unsigned long long failures[MAX_GPUS];
    for (int i = 0; i < count; i++) failures[i] = ok_per_ctx[i] ? 0 : 1;
    return sum_over_ranks(c, count, failures) == 0;
}

/* 1 when the 64-bit word every rank holds is the same everywhere. */
static int same_on_all_ranks(rank_ctx *c, int count, const unsigned long long *words)
{
    unsigned long long lo, hi;
    for (int i = 0; i < count; i++) c[i].xh.u[0] = words[i];
    exchange(c, count, 1, ncclUint64, ncclMin);
    lo = c[0].xh.u[0];
    for (int i = 0; i < count; i++) c[i].xh.u[0] = words[i];
    exchange(c, count, 1, ncclUint64, ncclMax);
    hi = c[0].xh.u[0];
    return lo == hi;
}

/* ------------------------------------------------------------------ timing */

/* Median over opt->reps runs (after warm-ups) of the time from the start to the end of `op` on the
   slowest rank taking part, in microseconds. Each run starts after a barrier, so no rank carries the
   previous run's work into the next; with one process driving several GPUs the measured time includes
   the host's launches one GPU after the other, as it would in an application. */
static double time_op(rank_ctx *c, int count, op_kind op, int solo, const options *opt)
{
    /* solo: only rank 0 works (on its one-rank communicator); the others wait and report 0 */
    const int active = solo ? (c[0].rank == 0 ? 1 : 0) : count;
    for (int w = 0; w < opt->warmups && active; w++) enqueue_op(c, active, op, solo);
    sync_all(c, count);
    double per_run[MAX_GPUS][XCHG_WORDS];
    for (int r = 0; r < opt->reps; r++) {
        barrier(c, count);
        for (int i = 0; i < active; i++) CUDA_CHECK(cudaEventRecord(c[i].start, c[i].stream));
        if (active) enqueue_op(c, active, op, solo);
        for (int i = 0; i < active; i++) CUDA_CHECK(cudaEventRecord(c[i].stop, c[i].stream));
        for (int i = 0; i < count; i++) {
            float ms = 0.0f;
            if (i < active) {
                CUDA_CHECK(cudaEventSynchronize(c[i].stop));
                CUDA_CHECK(cudaEventElapsedTime(&ms, c[i].start, c[i].stop));
            }
            per_run[i][r] = ms * 1000.0;
        }
    }
    for (int i = 0; i < count; i++)
        for (int r = 0; r < opt->reps; r++) c[i].xh.d[r] = per_run[i][r];
    exchange(c, count, (size_t)opt->reps, ncclFloat64, ncclMax); /* each run: the slowest rank */
    double t[XCHG_WORDS];
    memcpy(t, c[0].xh.d, opt->reps * sizeof(double));
    return su_median(t, opt->reps);
}

/* ------------------------------------------------------------------ set-up */

static void *device_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: cudaMalloc of %zu bytes for %s failed: %s%s\n", g_who, bytes, what,
                cudaGetErrorString(err), err == cudaErrorMemoryAllocation ? " (use --max K for smaller shards)" : "");
        exit(1);
    }
    return p;
}

static int vector_table_log2(const options *opt) { return opt->quick ? 16 : opt->vmax_log2; }

/* Buffers, stream, events and the warpred plan of one rank, on its device. The communicators come later. */
static void rank_init(rank_ctx *c, int rank, int nranks, int device, size_t capacity, size_t xi_capacity,
                      const options *opt)
{
    memset(c, 0, sizeof *c);
    c->rank = rank;
    c->nranks = nranks;
    c->device = device;
    c->capacity = capacity;
    c->xi_capacity = xi_capacity;
    CUDA_CHECK(cudaSetDevice(device));
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&c->start));
    CUDA_CHECK(cudaEventCreate(&c->stop));
    const char *why = NULL;
    cudaError_t err = warpred_device_plan_create(&c->plan, 0, &why);
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: warpred_device_plan_create on GPU %d failed: %s (%s)\n", g_who, device,
                cudaGetErrorString(err), why ? why : "no detail");
        exit(1);
    }
    c->x = (float *)device_alloc(capacity * sizeof(float), "the float shard");
    c->xi = (int *)device_alloc(xi_capacity * sizeof(int), "the int shard");
    c->partial = (float *)device_alloc(sizeof(float), "partial");
    c->gathered = (float *)device_alloc(nranks * sizeof(float), "gathered");
    c->sum_ar = (float *)device_alloc(sizeof(float), "sum_ar");
    c->sum_det = (float *)device_alloc(sizeof(float), "sum_det");
    c->partial_ll = (long long *)device_alloc(sizeof(long long), "partial_ll");
    c->gathered_ll = (long long *)device_alloc(nranks * sizeof(long long), "gathered_ll");
    c->sum_ll_ar = (long long *)device_alloc(sizeof(long long), "sum_ll_ar");
    c->sum_ll_det = (long long *)device_alloc(sizeof(long long), "sum_ll_det");
    c->xd = (unsigned long long *)device_alloc(XCHG_WORDS * 8, "the exchange buffer");
    c->racc = (rsum_t *)device_alloc(nranks * sizeof(rsum_t), "the gathered accumulators");
    c->sum_rep = (float *)device_alloc(sizeof(float), "sum_rep");
    if (rank == 0) { /* one GPU's view of the whole check array */
        c->whole = (float *)device_alloc(opt->check_n * sizeof(float), "the whole array (GPU 0)");
        c->whole_acc = (rsum_t *)device_alloc(MAX_GPUS * sizeof(rsum_t), "whole_acc");
        c->whole_sum = (float *)device_alloc(sizeof(float), "whole_sum");
    }
    /* vectors: the check (all K on GPU 0 once), the fingerprint sweep (K / P per GPU) and the timing (1) */
    const size_t table_m = (size_t)1 << vector_table_log2(opt);
    const size_t per_gpu = (size_t)((opt->vk + nranks - 1) / nranks);
    c->vm_capacity = round_up4(opt->vm) > table_m ? round_up4(opt->vm) : table_m;
    c->vm_capacity += 4 * (size_t)nranks; /* the reduce-scatter form's padding */
    c->vx_capacity = (size_t)opt->vk * round_up4(opt->vm);
    if (per_gpu * table_m > c->vx_capacity) c->vx_capacity = per_gpu * table_m;
    c->vgathered_capacity = (size_t)nranks * table_m;
    c->vx = (float *)device_alloc(c->vx_capacity * sizeof(float), "the vectors (use --vmax V for less)");
    c->vemax = (unsigned char *)device_alloc(c->vm_capacity, "vemax");
    c->vsum = (long long *)device_alloc(c->vm_capacity * sizeof(long long), "vsum (use --vmax V for less)");
    c->vout = (float *)device_alloc(c->vm_capacity * sizeof(float), "vout");
    c->vgathered = (float *)device_alloc(c->vgathered_capacity * sizeof(float), "vgathered (use --vmax V for less)");
    /* the combines also run alone in the timings: give them defined inputs */
    CUDA_CHECK(cudaMemsetAsync(c->partial, 0, sizeof(float), c->stream));
    CUDA_CHECK(cudaMemsetAsync(c->gathered, 0, nranks * sizeof(float), c->stream));
    init_rsum<<<1, 1, 0, c->stream>>>(c->racc, nranks);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
}

/* Rank 0's one-rank communicator for the single-GPU rows (the full one when there is one rank). */
static void make_solo_comm(rank_ctx *c)
{
    if (c->rank != 0) return;
    if (c->nranks == 1) {
        c->solo = c->comm;
        return;
    }
    NCCL_CHECK(ncclCommInitAll(&c->solo, 1, &c->device));
}

static void rank_destroy(rank_ctx *c, int count)
{
    /* finalize all communicators of this process in one group (they may depend on each other), then free */
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < count; i++) {
        if (c[i].solo && c[i].solo != c[i].comm) NCCL_CHECK(ncclCommFinalize(c[i].solo));
        NCCL_CHECK(ncclCommFinalize(c[i].comm));
    }
    NCCL_CHECK(ncclGroupEnd());
    for (int i = 0; i < count; i++) {
        if (c[i].solo && c[i].solo != c[i].comm) NCCL_CHECK(ncclCommDestroy(c[i].solo));
        NCCL_CHECK(ncclCommDestroy(c[i].comm));
        CUDA_CHECK(cudaSetDevice(c[i].device));
        void *bufs[] = {c[i].x,          c[i].xi,          c[i].partial,   c[i].gathered,   c[i].sum_ar, c[i].sum_det,
                        c[i].partial_ll, c[i].gathered_ll, c[i].sum_ll_ar, c[i].sum_ll_det, c[i].xd,     c[i].racc,
                        c[i].sum_rep,    c[i].whole,       c[i].whole_acc, c[i].whole_sum,  c[i].vx,     c[i].vemax,
                        c[i].vsum,       c[i].vout,        c[i].vgathered};
        for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++) CUDA_CHECK(cudaFree(bufs[b]));
        CUDA_CHECK(warpred_device_plan_destroy(&c[i].plan));
        CUDA_CHECK(cudaEventDestroy(c[i].start));
        CUDA_CHECK(cudaEventDestroy(c[i].stop));
        CUDA_CHECK(cudaStreamDestroy(c[i].stream));
    }
}

static void fill(rank_ctx *c, size_t n, unsigned long long base, int with_ints, unsigned seed)
{
    CUDA_CHECK(cudaSetDevice(c->device));
    fill_shard<<<1024, 256, 0, c->stream>>>(c->x, with_ints ? c->xi : NULL, n, base, seed);
    LAUNCH_CHECK();
    c->n = n;
}

/* ------------------------------------------------------------------ the correctness check */

/* Float results: the sums of positive values with float accumulation; their relative error grows
   with the count each GPU thread adds in sequence, and stays far below this bound, which is still
   far below a lost or doubled block of data (about 1/blocks). The int sums must be exact. */
static const double FLOAT_TOLERANCE = 1e-4;

static double relative_error(double got, double want) { return want == 0.0 ? got : (got - want) / want; }

/* N elements over the ranks, as even as can be: rank r gets N/P, plus one for r < N%P. */
static size_t shard_length(size_t total, int rank, int nranks)
{
    return total / nranks + ((size_t)rank < total % nranks ? 1 : 0);
}
static size_t shard_start(size_t total, int rank, int nranks)
{
    return (size_t)rank * (total / nranks) + ((size_t)rank < total % nranks ? (size_t)rank : total % nranks);
}

/* GPU 0 alone (rank 0): the reproducible sum of the whole check array in one warpred_device_reduce, and the
   same array cut at RESHARDINGS other sets of random boundaries (2..16 pieces, some empty), each piece
   reduced to an accumulator and the accumulators merged (in rank order, or reversed). Returns 1 when every
   resharding gave the whole array's bits, which go to *whole_bits. */
static int whole_array_check(rank_ctx *c, const options *opt, unsigned *whole_bits)
{
    const char *why = NULL;
    const size_t N = opt->check_n;
    unsigned long long lcg = opt->seed * 2654435761ull + 12345;
    float v;
    CUDA_CHECK(cudaSetDevice(c->device));
    fill_shard<<<1024, 256, 0, c->stream>>>(c->whole, NULL, N, 0, opt->seed);
    LAUNCH_CHECK();
    WARPRED_CHECK(warpred_device_reduce(&c->plan, c->whole, N, c->whole_sum, warpred_op_rsum(), c->stream, &why));
    copy_to_host(&v, c->whole_sum, sizeof v, c);
    *whole_bits = su_float_bits(v);
    int ok = 1;
    for (int t = 0; t < RESHARDINGS; t++) {
        const int parts = 2 + (t * 7) % (MAX_GPUS - 1);
        size_t cut[MAX_GPUS + 1];
        cut[0] = 0;
        cut[parts] = N;
        for (int p = 1; p < parts; p++) {
            cut[p] = su_random(&lcg) % 4 == 0 ? cut[p - 1] : (size_t)(su_lcg_next(&lcg) >> 11) % (N + 1);
            for (int q = p; q > 1 && cut[q] < cut[q - 1]; q--) { /* keep them sorted */
                const size_t tmp = cut[q];
                cut[q] = cut[q - 1];
                cut[q - 1] = tmp;
            }
        }
        for (int p = 0; p < parts; p++)
            WARPRED_CHECK(warpred_device_reduce(&c->plan, c->whole + cut[p], cut[p + 1] - cut[p], c->whole_acc + p,
                                                warpred_op_rsum(), c->stream, &why));
        fold_rsum<<<1, 1, 0, c->stream>>>(c->whole_acc, parts, t & 1, c->whole_sum);
        LAUNCH_CHECK();
        copy_to_host(&v, c->whole_sum, sizeof v, c);
        ok &= su_float_bits(v) == *whole_bits;
    }
    return ok;
}

static int check_phase(rank_ctx *c, int count, const options *opt)
{
    const int P = c[0].nranks;
    const int printer = c[0].rank == 0;
    const size_t N = opt->check_n;
    const unsigned long long keys = key_sum(0, N, opt->seed); /* host reference for the whole array */
    const double want_f = float_sum_of_keys(keys);
    const long long want_i = int_sum_of_keys(keys, N);
    unsigned long long shard_keys[MAX_GPUS];
    for (int i = 0; i < count; i++) {
        const size_t n = shard_length(N, c[i].rank, P), base = shard_start(N, c[i].rank, P);
        shard_keys[i] = key_sum(base, n, opt->seed);
        fill(&c[i], n, base, 1, opt->seed);
    }
    enqueue_float(c, count, OP_ALLREDUCE, 0);
    enqueue_float(c, count, OP_DETERMINISTIC, 0);
    enqueue_float(c, count, OP_REPRODUCIBLE, 0);
    enqueue_int_both_ways(c, count);
    sync_all(c, count);

    /* each rank: its own partials and combined results, checked against the host reference */
    int ok[MAX_GPUS];
    unsigned long long det_bits[MAX_GPUS], ar_bits[MAX_GPUS], rep_bits[MAX_GPUS];
    float det0 = 0.0f, ar0 = 0.0f, rep0 = 0.0f;
    unsigned whole_bits = 0;
    int reshard_ok = 1;
    long long ll_ar0 = 0, ll_det0 = 0;
    for (int i = 0; i < count; i++) memset(c[i].xh.u, 0, sizeof c[i].xh.u);
    for (int i = 0; i < count; i++) {
        float partial, sum_ar, sum_det, sum_rep;
        long long partial_ll, ll_ar, ll_det;
        CUDA_CHECK(cudaSetDevice(c[i].device));
        copy_to_host(&partial, c[i].partial, sizeof partial, &c[i]);
        copy_to_host(&sum_ar, c[i].sum_ar, sizeof sum_ar, &c[i]);
        copy_to_host(&sum_det, c[i].sum_det, sizeof sum_det, &c[i]);
        copy_to_host(&sum_rep, c[i].sum_rep, sizeof sum_rep, &c[i]);
        copy_to_host(&partial_ll, c[i].partial_ll, sizeof partial_ll, &c[i]);
        copy_to_host(&ll_ar, c[i].sum_ll_ar, sizeof ll_ar, &c[i]);
        copy_to_host(&ll_det, c[i].sum_ll_det, sizeof ll_det, &c[i]);
        const long long want_part_i = int_sum_of_keys(shard_keys[i], c[i].n);
        ok[i] = partial_ll == want_part_i && ll_ar == want_i && ll_det == want_i &&
                fabs(relative_error(partial, float_sum_of_keys(shard_keys[i]))) < FLOAT_TOLERANCE &&
                fabs(relative_error(sum_ar, want_f)) < FLOAT_TOLERANCE &&
                fabs(relative_error(sum_det, want_f)) < FLOAT_TOLERANCE;
        /* the data's values lie in op_rsum's window of exact summation: the correctly rounded exact sum */
        ok[i] &= su_float_bits(sum_rep) == su_float_bits(rounded_sum_of_keys(keys));
        if (c[i].rank == 0) {
            reshard_ok = whole_array_check(&c[i], opt, &whole_bits);
            ok[i] &= reshard_ok && whole_bits == su_float_bits(sum_rep);
        }
        det_bits[i] = su_float_bits(sum_det);
        rep_bits[i] = su_float_bits(sum_rep);
        ar_bits[i] = su_float_bits(sum_ar);
        if (c[i].rank == 0) det0 = sum_det, ar0 = sum_ar, rep0 = sum_rep, ll_ar0 = ll_ar, ll_det0 = ll_det;
        /* for rank 0's report: words 4r .. 4r+3 hold rank r's shard length, float partial, int partial, failed */
        unsigned long long *w = c[i].xh.u + 4 * c[i].rank;
        w[0] = c[i].n;
        w[1] = su_float_bits(partial);
        w[2] = (unsigned long long)partial_ll;
        w[3] = ok[i] ? 0 : 1;
    }
    /* every rank filled only its own 4 words, so the sum over ranks collects them all */
    exchange(c, count, 4 * (size_t)P, ncclUint64, ncclSum);
    unsigned long long table[4 * MAX_GPUS];
    memcpy(table, c[0].xh.u, 4 * P * 8);

    const int det_same = same_on_all_ranks(c, count, det_bits);
    const int ar_same = same_on_all_ranks(c, count, ar_bits);
    const int rep_same = same_on_all_ranks(c, count, rep_bits);
    const int all_ok = all_ranks_ok(c, count, ok) && det_same && rep_same;
    if (printer) {
        printf("check: %zu floats and %zu ints over %d GPU%s (uneven shards), host reference exact\n", N, N, P,
               P > 1 ? "s" : "");
        for (int r = 0; r < P; r++) {
            const unsigned long long *w = table + 4 * r;
            printf("  GPU %d: %10llu elements, local float sum %.6f, local int sum %lld%s\n", r, w[0],
                   su_bits_float((unsigned)w[1]), (long long)w[2], w[3] ? "  <- WRONG" : "");
        }
        printf("  float: exact %.6f | ncclAllReduce %.6f (rel. err %.1e) | deterministic %.6f (rel. err %.1e)\n",
               want_f, ar0, relative_error(ar0, want_f), det0, relative_error(det0, want_f));
        printf("  float bits on every GPU: deterministic %s (0x%08x), ncclAllReduce %s (0x%08x)\n",
               det_same ? "identical" : "DIFFER", su_float_bits(det0), ar_same ? "identical" : "differ",
               su_float_bits(ar0));
        printf("  reproducible (warpred_rsum, gathered as bytes, merged): %.6f (0x%08x) %s on every GPU; %s the "
               "correctly\n"
               "    rounded exact sum; one GPU's warpred_device_reduce of the whole array: 0x%08x (%s); %d other\n"
               "    shardings of it on GPU 0 (2..16 pieces, some empty, merged forwards or backwards): %s\n",
               rep0, su_float_bits(rep0), rep_same ? "identical" : "DIFFERS",
               su_float_bits(rep0) == su_float_bits(rounded_sum_of_keys(keys)) ? "equals" : "DIFFERS FROM", whole_bits,
               whole_bits == su_float_bits(rep0) ? "the same bits" : "DIFFERENT", RESHARDINGS,
               reshard_ok ? "the same bits" : "DIFFERENT");
        printf("  fingerprint: reproducible sum of %zu floats, seed %u: 0x%08x (the same on any number of GPUs)\n", N,
               opt->seed, su_float_bits(rep0));
        printf("  int:   exact %lld | ncclAllReduce %lld | deterministic %lld  %s\n", want_i, ll_ar0, ll_det0,
               ll_ar0 == want_i && ll_det0 == want_i ? "(exact)" : "WRONG");
        printf("  %s\n\n", all_ok ? "check passed on every GPU" : "CHECK FAILED (see above)");
    }
    return all_ok;
}

/* ------------------------------------------------------------------ the timing table */

typedef struct size_row {
    int log2n;
    double t_local, t1_ar, t1_det, tp_ar, tp_det, tp_rep;
    int bits_same, value_ok, ar_equals_det;
    int rep_run;                  /* P * n within warpred_rsum_max_count */
    int rep_bits_same, rep_exact; /* the reproducible sum: same bits everywhere, the correctly rounded exact sum */
} size_row;

/* opt->bit_runs reductions both ways: does the deterministic sum have the same bits on every run and
   every GPU, is its value right, and did ncclAllReduce give the same bits? */
static void check_bits(rank_ctx *c, int count, unsigned long long want_keys, size_row *row, const options *opt)
{
    const double want = float_sum_of_keys(want_keys);
    const float want_rounded = rounded_sum_of_keys(want_keys);
    unsigned long long det_bits[MAX_GPUS], ar_differs[MAX_GPUS], rep_bits[MAX_GPUS];
    int stable[MAX_GPUS], value_ok[MAX_GPUS], rep_stable[MAX_GPUS];
    for (int i = 0; i < count; i++) stable[i] = 1, value_ok[i] = 1, ar_differs[i] = 0, rep_stable[i] = 1;
    for (int run = 0; run < opt->bit_runs; run++) {
        enqueue_float(c, count, OP_DETERMINISTIC, 0);
        enqueue_float(c, count, OP_ALLREDUCE, 0);
        if (row->rep_run) enqueue_float(c, count, OP_REPRODUCIBLE, 0);
        for (int i = 0; i < count; i++) {
            float det, ar, rs = want_rounded;
            CUDA_CHECK(cudaSetDevice(c[i].device));
            copy_to_host(&det, c[i].sum_det, sizeof det, &c[i]);
            copy_to_host(&ar, c[i].sum_ar, sizeof ar, &c[i]);
            if (row->rep_run) copy_to_host(&rs, c[i].sum_rep, sizeof rs, &c[i]);
            if (run == 0) rep_bits[i] = su_float_bits(rs);
            rep_stable[i] &= su_float_bits(rs) == rep_bits[i] && su_float_bits(rs) == su_float_bits(want_rounded);
            if (run == 0) det_bits[i] = su_float_bits(det);
            stable[i] &= su_float_bits(det) == det_bits[i];
            value_ok[i] &=
                fabs(relative_error(det, want)) < FLOAT_TOLERANCE && fabs(relative_error(ar, want)) < FLOAT_TOLERANCE;
            ar_differs[i] |= su_float_bits(ar) != su_float_bits(det);
        }
    }
    row->bits_same = all_ranks_ok(c, count, stable) && same_on_all_ranks(c, count, det_bits);
    row->value_ok = all_ranks_ok(c, count, value_ok);
    row->ar_equals_det = sum_over_ranks(c, count, ar_differs) == 0;
    /* exact: the data's sum is exact in double, and the reproducible sum is its correct rounding */
    row->rep_bits_same = all_ranks_ok(c, count, rep_stable) && same_on_all_ranks(c, count, rep_bits);
    row->rep_exact = row->rep_bits_same;
}

static int table_phase(rank_ctx *c, int count, const options *opt)
{
    const int P = c[0].nranks;
    const int printer = c[0].rank == 0;
    int sizes[MAX_SIZES], nsizes = 0;
    if (opt->quick) {
        sizes[nsizes++] = 16;
        sizes[nsizes++] = 20;
    } else {
        for (int k = 20; k <= opt->max_log2; k += 2) sizes[nsizes++] = k;
        if (sizes[nsizes - 1] != opt->max_log2) sizes[nsizes++] = opt->max_log2;
    }
    const size_t nmax = (size_t)1 << sizes[nsizes - 1];

    /* rank r holds global elements [r * nmax, r * nmax + nmax); size n uses the first n of each shard */
    for (int i = 0; i < count; i++) fill(&c[i], nmax, (unsigned long long)c[i].rank * nmax, 0, opt->seed);
    sync_all(c, count);
    /* the exact key sums of every size's data: each rank adds its own prefixes on the host (one pass),
       the integer totals are then summed over the ranks */
    unsigned long long want_keys[MAX_SIZES];
    {
        unsigned long long prefix[MAX_GPUS][MAX_SIZES];
        for (int i = 0; i < count; i++) {
            unsigned long long s = 0;
            size_t done = 0;
            for (int k = 0; k < nsizes; k++) {
                const size_t n = (size_t)1 << sizes[k];
                s += key_sum((unsigned long long)c[i].rank * nmax + done, n - done, opt->seed);
                done = n;
                prefix[i][k] = s;
            }
        }
        for (int k = 0; k < nsizes; k++) {
            unsigned long long v[MAX_GPUS];
            for (int i = 0; i < count; i++) v[i] = prefix[i][k];
            want_keys[k] = sum_over_ranks(c, count, v);
        }
    }

    if (printer) {
        printf("timing: per-GPU size n, median of %d runs after %d warm-ups, us from the start to the end of the\n"
               "whole reduction (local warpred sum + combine) on the slowest GPU; \"1 GPU\" = GPU 0 alone with a\n"
               "one-rank communicator; eff = 1-GPU time / %d-GPU time (ideal 100%%, same n per GPU); vs local =\n"
               "local sum alone / %d-GPU deterministic time; bits: %d runs x %d GPUs of the deterministic sum\n",
               opt->reps, opt->warmups, P, P, opt->bit_runs, P);
        printf(
            "rsum = the reproducible combine (c): local warpred_rsum + all-gather of the bytes + merge; its bits must\n"
            "be the correctly rounded exact sum on every run and GPU (- where %d x n exceeds warpred_rsum_max_count)\n",
            P);
        printf("%7s %8s %9s %9s %9s %9s %8s %8s %8s %9s %9s %8s  %s\n", "n/GPU", "local", "1GPU ar", "1GPU det", "ar",
               "det", "det-ar", "eff det", "vs local", "GB/s det", "rsum", "rsum-det", "bits det / rsum");
    }
    int all_ok = 1, any_ar_differs = 0;
    for (int k = 0; k < nsizes; k++) {
        size_row row;
        memset(&row, 0, sizeof row);
        row.log2n = sizes[k];
        for (int i = 0; i < count; i++) c[i].n = (size_t)1 << sizes[k];
        row.t_local = time_op(c, count, OP_LOCAL, 0, opt);
        row.tp_ar = time_op(c, count, OP_ALLREDUCE, 0, opt);
        row.tp_det = time_op(c, count, OP_DETERMINISTIC, 0, opt);
        row.rep_run = (unsigned long long)P * ((size_t)1 << sizes[k]) <= warpred_rsum_max_count;
        if (row.rep_run) row.tp_rep = time_op(c, count, OP_REPRODUCIBLE, 0, opt);
        if (P > 1) {
            row.t1_ar = time_op(c, count, OP_ALLREDUCE, 1, opt);
            row.t1_det = time_op(c, count, OP_DETERMINISTIC, 1, opt);
        } else {
            row.t1_ar = row.tp_ar;
            row.t1_det = row.tp_det;
        }
        check_bits(c, count, want_keys[k], &row, opt);
        all_ok &= row.bits_same && row.value_ok && (!row.rep_run || row.rep_bits_same);
        any_ar_differs |= !row.ar_equals_det;
        if (printer) {
            char rep_t[32] = "-", rep_d[32] = "-";
            if (row.rep_run) {
                snprintf(rep_t, sizeof rep_t, "%.1f", row.tp_rep);
                snprintf(rep_d, sizeof rep_d, "%.1f", row.tp_rep - row.tp_det);
            }
            printf("%5s%-2d %8.1f %9.1f %9.1f %9.1f %9.1f %8.1f %7.0f%% %7.0f%% %9.0f %9s %8s  %s / %s%s%s\n", "2^",
                   row.log2n, row.t_local, row.t1_ar, row.t1_det, row.tp_ar, row.tp_det, row.tp_det - row.tp_ar,
                   100.0 * row.t1_det / row.tp_det, 100.0 * row.t_local / row.tp_det,
                   (double)P * ((size_t)1 << row.log2n) * sizeof(float) / (row.tp_det * 1e3), rep_t, rep_d,
                   row.bits_same ? "identical" : "DIFFER",
                   !row.rep_run        ? "-"
                   : row.rep_bits_same ? "identical, exact"
                                       : "DIFFER OR WRONG",
                   row.value_ok ? "" : ", VALUE WRONG", row.ar_equals_det ? "" : " (ar differs)");
        }
    }
    /* the combines alone, on partials already in place */
    const double c_ar = time_op(c, count, OP_COMBINE_ALLREDUCE, 0, opt);
    const double c_det = time_op(c, count, OP_COMBINE_DETERMINISTIC, 0, opt);
    const double c_rep = time_op(c, count, OP_COMBINE_REPRODUCIBLE, 0, opt);
    if (printer) {
        printf("combine alone on %d GPU%s: ncclAllReduce of one float %.1f us; ncclAllGather + fold in rank order %.1f "
               "us;\n  ncclAllGather of %d-byte warpred_rsum accumulators + merge %.1f us (%+.1f us against the "
               "rank-order fold)\n",
               P, P > 1 ? "s" : "", c_ar, c_det, (int)sizeof(rsum_t), c_rep, c_rep - c_det);
        if (any_ar_differs)
            printf("(ar differs: on some GPU or run, ncclAllReduce gave other bits than the deterministic combine)\n");
        printf("\n");
    }
    return all_ok;
}

/* ------------------------------------------------------------------ the vector all-reduce */

/* The rule of warpred/vector_rsum.cuh (its manual, SCALE) for element i of the K vectors, on the host in
   long double arithmetic: the reference every GPU's result must match bit for bit. (This data has no
   NaN or infinity; tests/test_vector_rsum.cu covers those.) */
static float model_vector_sum(unsigned long long i, int K, unsigned seed)
{
    int e = 0;
    for (int j = 0; j < K; j++) {
        const int ej = (int)((vec_bits((unsigned)j, i, seed) >> 23) & 0xff);
        e = ej > e ? ej : e;
    }
    int g = (e > 1 ? e : 1) - 173; /* the element's step 2^g */
    if (g < -149) g = -149;
    long long sum = 0;
    for (int j = 0; j < K; j++) {
        const float x = su_bits_float(vec_bits((unsigned)j, i, seed));
        const long double r = ldexpl(fabsl((long double)x), -g), t = floorl(r);
        const long long q = (long long)t | (t != r ? 1 : 0); /* truncated, odd when bits were cut */
        sum += x < 0 ? -q : q;
    }
    return sum == 0 ? 0.0f : (float)ldexpl((long double)sum, g); /* exact, then one rounding */
}

/* Which GPU holds vector j of K in grouping `how`: 0 contiguous blocks of uneven sizes (GPU r's share
   grows with r; GPU 0 may get none), 1 round robin from the last vector, 2 contiguous and even. */
static int owner_of(int j, int K, int P, int how)
{
    if (how == 1) return (K - 1 - j) % P;
    for (int r = P - 1; r > 0; r--) {
        const size_t start =
            how == 0 ? (size_t)K * ((size_t)r * (r + 1) / 2) / ((size_t)P * (P + 1) / 2) : shard_start((size_t)K, r, P);
        if ((size_t)j >= start) return r;
    }
    return 0;
}

/* Fills this GPU's vectors of grouping `how` (all K when all != 0), each of m floats, and points vptr at them. */
static void load_vectors(rank_ctx *c, int how, int K, size_t m, unsigned seed, int all)
{
    CUDA_CHECK(cudaSetDevice(c->device));
    c->vk = 0;
    c->vm = m;
    c->vld = round_up4(m); /* every vector 16-byte aligned: the 4-element path */
    for (int j = 0; j < K; j++) {
        if (!all && owner_of(j, K, c->nranks, how) != c->rank) continue;
        const size_t at = (size_t)c->vk * c->vld;
        if (at + m > c->vx_capacity || m > c->vm_capacity) die("the vectors do not fit the buffers (a bug)");
        fill_vector<<<grid_for(m), 256, 0, c->stream>>>(c->vx + at, m, (unsigned)j, seed);
        LAUNCH_CHECK();
        c->vptr[c->vk++] = c->vx + at;
    }
}

static unsigned long long host_bits_hash(const float *v, size_t m)
{
    unsigned long long h = 1469598103934665603ull; /* FNV-1a over the bytes */
    const unsigned char *b = (const unsigned char *)v;
    for (size_t i = 0; i < m * sizeof(float); i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The fingerprint of vout (order-free, on the device), on the host of every rank i. */
static void device_bits_hash(rank_ctx *c, int count, unsigned long long *hash)
{
    const char *why = NULL;
    for (int i = 0; i < count; i++) {
        CUDA_CHECK(cudaSetDevice(c[i].device));
        WARPRED_CHECK(warpred_device_transform_reduce(&c[i].plan, c[i].vout, c[i].vm, c[i].xd, warpred_op_sum(),
                                                      bits_hash(), c[i].stream, &why));
        copy_to_host(&hash[i], c[i].xd, sizeof hash[i], &c[i]);
    }
}

static size_t count_differing(const float *a, const float *b, size_t m)
{
    size_t n = 0;
    for (size_t i = 0; i < m; i++) n += su_float_bits(a[i]) != su_float_bits(b[i]);
    return n;
}

/* K vectors of M floats in two groupings over the GPUs, and all K on GPU 0 alone: the reproducible
   all-reduce must give the model's bits everywhere; the plain one (local float sums + ncclAllReduce)
   is shown for contrast. */
static int vector_check_phase(rank_ctx *c, int count, const options *opt)
{
    const int P = c[0].nranks, K = opt->vk;
    const size_t M = opt->vm;
    const int printer = c[0].rank == 0;
    float *want = (float *)su_malloc(M * sizeof(float));
    for (size_t i = 0; i < M; i++) want[i] = model_vector_sum(i, K, opt->seed);
    float *got[2][MAX_GPUS], *plain[2][MAX_GPUS], *alone = (float *)su_malloc(M * sizeof(float));
    for (int how = 0; how < 2; how++) {
        for (int i = 0; i < count; i++) load_vectors(&c[i], how, K, M, opt->seed, 0);
        enqueue_vector(c, count, how == 0 ? OP_V_REPRO : OP_V_REPRO_AR, 0); /* both forms */
        for (int i = 0; i < count; i++) {
            got[how][i] = (float *)su_malloc(M * sizeof(float));
            copy_to_host(got[how][i], c[i].vout, M * sizeof(float), &c[i]);
        }
        enqueue_vector(c, count, OP_V_PLAIN, 0);
        for (int i = 0; i < count; i++) {
            plain[how][i] = (float *)su_malloc(M * sizeof(float));
            copy_to_host(plain[how][i], c[i].vout, M * sizeof(float), &c[i]);
        }
    }
    int ok[MAX_GPUS], alone_ok = 1;
    unsigned long long hashes[MAX_GPUS], plain_differs[MAX_GPUS], plain_wrong[MAX_GPUS];
    for (int i = 0; i < count; i++) {
        ok[i] = count_differing(got[0][i], want, M) == 0 && count_differing(got[1][i], want, M) == 0;
        hashes[i] = host_bits_hash(got[0][i], M);
        plain_differs[i] = count_differing(plain[0][i], plain[1][i], M);
        plain_wrong[i] = count_differing(plain[0][i], want, M);
        if (c[i].rank == 0) { /* one GPU holding all K, through a one-rank communicator */
            load_vectors(&c[i], 0, K, M, opt->seed, 1);
            enqueue_vector(&c[i], 1, OP_V_REPRO, 1);
            copy_to_host(alone, c[i].vout, M * sizeof(float), &c[i]);
            alone_ok = count_differing(alone, want, M) == 0;
            ok[i] &= alone_ok;
        }
    }
    const int same = same_on_all_ranks(c, count, hashes);
    const int all_ok = all_ranks_ok(c, count, ok) && same;
    const unsigned long long differs0 = plain_differs[0], wrong0 = plain_wrong[0];
    if (printer) {
        printf("vector check: %d vectors of %zu floats (exponents -40..40), element-wise sums on %d GPU%s\n", K, M, P,
               P > 1 ? "s" : "");
        printf("  vectors per GPU: grouping A (contiguous, uneven):");
        for (int r = 0; r < P; r++)
            printf(" %d", (int)(K * ((size_t)(r + 1) * (r + 2) / 2) / ((size_t)P * (P + 1) / 2)) -
                              (int)(K * ((size_t)r * (r + 1) / 2) / ((size_t)P * (P + 1) / 2)));
        printf("; grouping B: round robin from the last vector\n");
        printf(
            "  reproducible (warpred_vector_rsum; A with ncclReduceScatter + ncclAllGather, B with ncclAllReduce of\n"
            "    the integers): groupings A and B %s the host model's bits on every GPU; GPU 0 holding all %d\n"
            "    alone: %s\n",
            all_ok ? "give exactly" : "DO NOT ALL GIVE", K, alone_ok ? "the same bits" : "DIFFERENT BITS");
        printf("  plain (local float sums + ncclAllReduce float): %llu of %zu elements differ between groupings A and "
               "B,\n    %llu differ from the reproducible result (GPU 0's view)\n",
               differs0, M, wrong0);
        printf("  fingerprint: vector sums, K %d, M %zu, seed %u: 0x%016llx (the same on any number of GPUs)\n", K, M,
               opt->seed, hashes[0]);
        printf("  %s\n\n", all_ok ? "vector check passed on every GPU" : "VECTOR CHECK FAILED");
    }
    for (int how = 0; how < 2; how++)
        for (int i = 0; i < count; i++) free(got[how][i]), free(plain[how][i]);
    free(alone);
    free(want);
    return all_ok;
}

static int vector_sizes(const options *opt, int *sizes)
{
    int n = 0;
    if (opt->quick) {
        sizes[n++] = 10;
        sizes[n++] = 16;
        return n;
    }
    for (int k = 10; k <= opt->vmax_log2; k += 2) sizes[n++] = k;
    if (sizes[n - 1] != opt->vmax_log2) sizes[n++] = opt->vmax_log2;
    return n;
}

/* The fingerprints of the reproducible all-reduce of the same K vectors at every table size, split evenly
   over the GPUs: a run on another number of GPUs with the same seed must print the same lines. Up to
   2^16 elements every GPU also checks its result against the host model. */
static int vector_fingerprints(rank_ctx *c, int count, const options *opt)
{
    const int K = opt->vk, printer = c[0].rank == 0;
    int sizes[MAX_SIZES];
    const int nsizes = vector_sizes(opt, sizes);
    int all_ok = 1;
    if (printer)
        printf(
            "vector fingerprints: the reproducible sums of %d vectors split evenly over the GPUs, seed %u (the same\n"
            "on any number of GPUs; elements up to 2^16 also checked against the host model):\n",
            K, opt->seed);
    for (int k = 0; k < nsizes; k++) {
        const size_t M = (size_t)1 << sizes[k];
        for (int i = 0; i < count; i++) load_vectors(&c[i], 2, K, M, opt->seed, 0);
        enqueue_vector(c, count, OP_V_REPRO, 0);
        unsigned long long hash[MAX_GPUS];
        int ok[MAX_GPUS];
        device_bits_hash(c, count, hash);
        for (int i = 0; i < count; i++) {
            ok[i] = 1;
            if (M > ((size_t)1 << 16)) continue;
            float *v = (float *)su_malloc(M * sizeof(float));
            copy_to_host(v, c[i].vout, M * sizeof(float), &c[i]);
            for (size_t e = 0; e < M && ok[i]; e++)
                ok[i] = su_float_bits(v[e]) == su_float_bits(model_vector_sum(e, K, opt->seed));
            free(v);
        }
        const int same = same_on_all_ranks(c, count, hash), row_ok = all_ranks_ok(c, count, ok) && same;
        all_ok &= row_ok;
        if (printer)
            printf("  M 2^%-2d 0x%016llx %s\n", sizes[k], hash[0],
                   !same     ? "DIFFERS BETWEEN GPUS"
                   : !row_ok ? "WRONG (not the model's bits)"
                             : "(every GPU)");
    }
    if (printer) printf("\n");
    return all_ok;
}

/* One vector of M floats per GPU (vector r on GPU r), timed four ways. */
static int vector_table_phase(rank_ctx *c, int count, const options *opt)
{
    const int P = c[0].nranks, printer = c[0].rank == 0;
    int sizes[MAX_SIZES];
    const int nsizes = vector_sizes(opt, sizes);
    int all_ok = 1;
    if (printer) {
        printf(
            "vector timing: one vector of M floats per GPU, median of %d runs after %d warm-ups, us on the slowest\n"
            "GPU. repro = the reproducible all-reduce (exponents, ncclAllReduce uint8 max, fixed point,\n"
            "ncclReduceScatter int64 sum, finish of this GPU's share, ncclAllGather float); ar form = the same with\n"
            "ncclAllReduce int64 sum and every element finished on every GPU; float = ncclAllReduce(float, sum) of\n"
            "the vector; same bytes = ar form's two ncclAllReduce calls alone (9 bytes per element); exchanges =\n"
            "repro's three NCCL calls alone; ordered = ncclAllGather + fold in rank order; bits: 3 runs x %d GPUs\n"
            "of repro\n",
            opt->reps, opt->warmups, P);
        printf("%7s %9s %9s %9s %10s %9s %9s %11s %10s %10s  %s\n", "M", "repro", "ar form", "float", "same bytes",
               "exchanges", "ordered", "repro/float", "repro/same", "repro/xchg", "bits");
    }
    for (int k = 0; k < nsizes; k++) {
        const size_t M = (size_t)1 << sizes[k];
        for (int i = 0; i < count; i++) {
            CUDA_CHECK(cudaSetDevice(c[i].device));
            c[i].vk = 1;
            c[i].vm = M;
            c[i].vld = M;
            fill_vector<<<grid_for(M), 256, 0, c[i].stream>>>(c[i].vx, M, (unsigned)c[i].rank, opt->seed);
            LAUNCH_CHECK();
            c[i].vptr[0] = c[i].vx;
        }
        sync_all(c, count);
        const double t_rep = time_op(c, count, OP_V_REPRO, 0, opt);
        const double t_ar = time_op(c, count, OP_V_REPRO_AR, 0, opt);
        const double t_float = time_op(c, count, OP_V_FLOAT, 0, opt);
        const double t_bytes = time_op(c, count, OP_V_BYTES, 0, opt);
        const double t_xch = time_op(c, count, OP_V_EXCHANGES, 0, opt);
        const double t_ord = time_op(c, count, OP_V_ORDERED, 0, opt);
        unsigned long long first[MAX_GPUS], hash[MAX_GPUS];
        int stable[MAX_GPUS];
        for (int i = 0; i < count; i++) stable[i] = 1;
        for (int run = 0; run < 3; run++) {
            enqueue_vector(c, count, OP_V_REPRO, 0);
            device_bits_hash(c, count, hash);
            for (int i = 0; i < count; i++) {
                if (run == 0) first[i] = hash[i];
                stable[i] &= hash[i] == first[i];
            }
        }
        const int ok = all_ranks_ok(c, count, stable) && same_on_all_ranks(c, count, first);
        all_ok &= ok;
        if (printer)
            printf("%5s%-2d %9.1f %9.1f %9.1f %10.1f %9.1f %9.1f %11.2f %10.2f %10.2f  %s\n", "2^", sizes[k], t_rep,
                   t_ar, t_float, t_bytes, t_xch, t_ord, t_rep / t_float, t_rep / t_bytes, t_rep / t_xch,
                   ok ? "identical" : "DIFFER");
    }
    if (printer) printf("\n");
    return all_ok;
}

/* ------------------------------------------------------------------ one process, every rank it drives */

static int run_ranks(rank_ctx *c, int count, const options *opt, const char *mode)
{
    const int P = c[0].nranks;
    if (c[0].rank == 0) {
        int version = 0;
        cudaDeviceProp prop;
        NCCL_CHECK(ncclGetVersion(&version));
        CUDA_CHECK(cudaGetDeviceProperties(&prop, c[0].device));
        printf("multi_gpu_sum: %d GPU%s (GPU 0: %s), %s, NCCL %d.%d.%d, NCCL_NVLS_ENABLE=%s, seed %u\n\n", P,
               P > 1 ? "s" : "", prop.name, mode, version / 10000, version / 100 % 100, version % 100,
               getenv("NCCL_NVLS_ENABLE"), opt->seed);
        fflush(stdout);
    }
    int ok = check_phase(c, count, opt);
    fflush(stdout);
    ok &= table_phase(c, count, opt);
    fflush(stdout);
    ok &= vector_check_phase(c, count, opt);
    fflush(stdout);
    ok &= vector_fingerprints(c, count, opt);
    fflush(stdout);
    ok &= vector_table_phase(c, count, opt);
    int oks[MAX_GPUS];
    for (int i = 0; i < count; i++) oks[i] = ok;
    ok = all_ranks_ok(c, count, oks);
    if (c[0].rank == 0) printf("%s\n", ok ? "multi_gpu_sum: PASSED" : "multi_gpu_sum: FAILED");
    fflush(stdout);
    rank_destroy(c, count);
    return ok ? 0 : 1;
}

static size_t largest_shard(const options *opt, int nranks)
{
    const size_t table = (size_t)1 << (opt->quick ? 20 : opt->max_log2);
    const size_t check = shard_length(opt->check_n, 0, nranks);
    return table > check ? table : check;
}

/* Mode 1: this process drives every GPU; ncclCommInitAll makes the P communicators at once. */
static int run_single_process(const options *opt)
{
    const int P = opt->gpus;
    rank_ctx *c = (rank_ctx *)calloc(P, sizeof(rank_ctx));
    ncclComm_t comms[MAX_GPUS];
    int devs[MAX_GPUS];
    if (!c) die("out of host memory");
    for (int r = 0; r < P; r++) devs[r] = r;
    for (int r = 0; r < P; r++)
        rank_init(&c[r], r, P, devs[r], largest_shard(opt, P), shard_length(opt->check_n, 0, P), opt);
    NCCL_CHECK(ncclCommInitAll(comms, P, devs));
    for (int r = 0; r < P; r++) c[r].comm = comms[r];
    make_solo_comm(&c[0]);
    const int rc = run_ranks(c, P, opt, "one process, ncclCommInitAll");
    free(c);
    return rc;
}

/* ------------------------------------------------------------------ mode 2: one process per GPU */

static void write_all(int fd, const void *buf, size_t bytes)
{
    const char *p = (const char *)buf;
    while (bytes > 0) {
        ssize_t w = write(fd, p, bytes);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("writing to the pipe failed");
        p += w;
        bytes -= (size_t)w;
    }
}

/* 1 when all bytes arrived, 0 at end of file (the writer is gone). */
static int read_all(int fd, void *buf, size_t bytes)
{
    char *p = (char *)buf;
    while (bytes > 0) {
        ssize_t r = read(fd, p, bytes);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        p += r;
        bytes -= (size_t)r;
    }
    return 1;
}

/* The body of the forked process of rank `rank`. Rank 0 makes the NCCL unique id and writes one copy
   per other rank into the pipe (ids are 128 bytes, below PIPE_BUF, so each write is atomic and each
   reader takes a whole one); the others read theirs. In a job started by MPI or Slurm this is where the
   launcher's broadcast goes; everything after ncclCommInitRank is the same code as mode 1. */
static int child_main(int rank, int nranks, int id_pipe[2], const options *opt)
{
    snprintf(g_who, sizeof g_who, "rank %d", rank);
    ncclUniqueId id;
    if (rank == 0) {
        close(id_pipe[0]);
        NCCL_CHECK(ncclGetUniqueId(&id));
        for (int r = 1; r < nranks; r++) write_all(id_pipe[1], &id, sizeof id);
        close(id_pipe[1]);
    } else {
        close(id_pipe[1]); /* so that a read sees end of file if rank 0 dies before writing */
        if (!read_all(id_pipe[0], &id, sizeof id)) die("rank 0 exited before sending the NCCL unique id");
        close(id_pipe[0]);
    }
    rank_ctx c;
    rank_init(&c, rank, nranks, rank, largest_shard(opt, nranks), shard_length(opt->check_n, 0, nranks), opt);
    CUDA_CHECK(cudaSetDevice(c.device));
    NCCL_CHECK(ncclCommInitRank(&c.comm, nranks, id, rank));
    make_solo_comm(&c);
    return run_ranks(&c, 1, opt, "one process per GPU, ncclCommInitRank");
}

/* The number of GPUs, asked in a short-lived child so that the parent never initializes CUDA:
   a process that forks after initializing CUDA must not use CUDA in the children. */
static int count_gpus_in_child(void)
{
    int fds[2], n = 0;
    if (pipe(fds) != 0) die("pipe() failed");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die("fork() failed");
    if (pid == 0) {
        close(fds[0]);
        if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
        write_all(fds[1], &n, sizeof n);
        _exit(0);
    }
    close(fds[1]);
    if (!read_all(fds[0], &n, sizeof n)) n = 0;
    close(fds[0]);
    waitpid(pid, NULL, 0);
    return n;
}

/* Mode 2: fork one process per GPU and wait for all; if one fails, stop the others (they would wait
   for it in NCCL forever). */
static int run_processes(const options *opt, int P)
{
    int id_pipe[2];
    pid_t pids[MAX_GPUS];
    int done[MAX_GPUS] = {0};
    if (pipe(id_pipe) != 0) die("pipe() failed");
    fflush(stdout);
    fflush(stderr);
    for (int r = 0; r < P; r++) {
        pids[r] = fork();
        if (pids[r] < 0) die("fork() failed");
        if (pids[r] == 0) exit(child_main(r, P, id_pipe, opt));
    }
    close(id_pipe[0]);
    close(id_pipe[1]);
    int failed = 0;
    for (int left = P; left > 0;) {
        int status = 0;
        pid_t pid = wait(&status);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        int r = 0;
        while (r < P && pids[r] != pid) r++;
        if (r == P) continue;
        done[r] = 1;
        left--;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
        if (!failed) {
            if (WIFSIGNALED(status))
                fprintf(stderr, "%s: rank %d died of signal %d; stopping the other ranks\n", g_who, r,
                        WTERMSIG(status));
            else
                fprintf(stderr, "%s: rank %d failed (exit %d); stopping the other ranks\n", g_who, r,
                        WEXITSTATUS(status));
            for (int o = 0; o < P; o++)
                if (!done[o]) kill(pids[o], SIGTERM);
        }
        failed = 1;
    }
    return failed ? 1 : 0;
}

/* ------------------------------------------------------------------ main */

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--single | --procs] [--gpus P] [--quick] [--max K] [--k K] [--vmax V]\n"
            "  (default)   both modes, one after the other\n"
            "  --single    one process drives every GPU (ncclCommInitAll)\n"
            "  --procs     one process per GPU, forked from this one (ncclGetUniqueId + ncclCommInitRank)\n"
            "  --gpus P    use the first P visible GPUs (default: all; more than visible: SKIPPED)\n"
            "  --quick     per-GPU sizes 2^16 and 2^20 only, few repetitions (also WARPRED_SAMPLE_QUICK=1)\n"
            "  --max K     largest per-GPU size of the timing table is 2^K (20..30, default 30)\n"
            "  --k K       vectors in the vector check and fingerprints (1..64, default 16)\n"
            "  --vmax V    largest vector length of the vector table and fingerprints is 2^V (10..29, default 28)\n"
            "environment: WARPRED_SEED=S repeats a run's data; NCCL_NVLS_ENABLE (set to 0 here unless given)\n",
            argv0);
    exit(2);
}

enum { MODE_BOTH, MODE_SINGLE, MODE_PROCS };

static options parse_options(int argc, char **argv, int *mode)
{
    options o;
    memset(&o, 0, sizeof o);
    o.max_log2 = 30;
    o.vk = 16;
    o.vmax_log2 = 28;
    o.quick = su_quick() || su_env_flag("WARPRED_TEST_QUICK");
    *mode = MODE_BOTH;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--single")) *mode = MODE_SINGLE;
        else if (!strcmp(argv[a], "--procs"))
            *mode = MODE_PROCS;
        else if (!strcmp(argv[a], "--quick"))
            o.quick = 1;
        else if (!strcmp(argv[a], "--gpus") && a + 1 < argc)
            o.gpus = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--max") && a + 1 < argc)
            o.max_log2 = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--k") && a + 1 < argc)
            o.vk = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--vmax") && a + 1 < argc)
            o.vmax_log2 = atoi(argv[++a]);
        else
            usage(argv[0]);
    }
    if (o.gpus < 0 || o.gpus > MAX_GPUS || o.max_log2 < 20 || o.max_log2 > 30 || o.vk < 1 || o.vk > MAX_VK ||
        o.vmax_log2 < 10 || o.vmax_log2 > 29)
        usage(argv[0]);
    const char *s = getenv("WARPRED_SEED");
    o.seed = s && *s ? (unsigned)strtoul(s, NULL, 0) : (unsigned)time(NULL);
    o.check_n = o.quick ? ((size_t)3 << 20) + 7 : ((size_t)3 << 24) + 7; /* odd: the shards differ in length */
    o.vm = o.quick ? ((size_t)1 << 12) + 3 : ((size_t)1 << 20) + 3;      /* not a multiple of 4: the tail path too */
    o.warmups = o.quick ? 1 : 3;
    o.reps = o.quick ? 5 : 25;
    o.bit_runs = 10;
    return o;
}

int main(int argc, char **argv)
{
    int mode;
    options opt = parse_options(argc, argv, &mode);
    /* NVLink SHARP (multicast) stays off on the shared multi-GPU machines; a value the user set wins.
       It must be in the environment before the first ncclCommInit*; forked ranks inherit it. */
    setenv("NCCL_NVLS_ENABLE", "0", 0);

    /* This process forks the ranks of the one-process-per-GPU mode, so it must not initialize CUDA
       before that: the GPU count comes from a short-lived child. */
    const int visible = count_gpus_in_child();
    if (visible < 1) return su_skip("multi_gpu_sum: no usable CUDA device");
    if (opt.gpus > visible) return su_skip("multi_gpu_sum: %d GPUs asked (--gpus), %d visible", opt.gpus, visible);
    if (!opt.gpus) opt.gpus = visible < MAX_GPUS ? visible : MAX_GPUS;
    int rc = 0;
    if (mode != MODE_SINGLE) rc |= run_processes(&opt, opt.gpus); /* forks first, CUDA in this process after */
    if (mode != MODE_PROCS) rc |= run_single_process(&opt);
    return rc;
}
