/* warpred/atomic_argminmax.cuh - argmax / argmin of many blocks or kernels in one slot.      MIT licensed.

   When blocks (or separate kernels) each find a candidate and all must publish into one
   place, a value-index pair has to change atomically. These pack the pair into one 64-bit
   word whose unsigned integer order is the argmax (argmin) order, so one atomicMax settles
   it: exact, and the same whatever order the updates arrive in.

     void warpred_atomic_argmax(unsigned long long *slot, T value, unsigned index)
     void warpred_atomic_argmin(...), warpred_atomic_argmax_num(...), warpred_atomic_argmin_num(...)
          T: float, int or unsigned; index: 0 .. 2^32 - 2
     warpred_arg<T, long long> warpred_arg_slot_decode<Op, T>(unsigned long long slot)
          Op: warpred_op_argmax, _argmin, _argmax_num or _argmin_num (the one that filled it);
          __host__ __device__, so a copied-back slot decodes on the host too
     WARPRED_ARG_SLOT_EMPTY  the value to initialise a slot with (0); it decodes to index -1

   USAGE
       #include <warpred/atomic_argminmax.cuh>
       #include <warpred/block_reduce.cuh>

       __global__ void argmax_all(const float *x, int n, unsigned long long *slot)  // slot = EMPTY
       {
           int i = blockIdx.x * blockDim.x + threadIdx.x;
           warpred_arg<float, int> mine = i < n ? warpred_make_arg(x[i], i)
                                                 : warpred_op_argmax::identity<warpred_arg<float, int> >();
           mine = warpred_block_reduce(mine, warpred_op_argmax());
           if (threadIdx.x == 0 && mine.index >= 0) warpred_atomic_argmax(slot, mine.value, (unsigned)mine.index);
       }
       // host: copy *slot back; warpred_arg_slot_decode<warpred_op_argmax, float>(slot)
       // x = {1, 5, -2, 5}: {5, 1}   (ties: the lowest index)

   (This snippet is compiled and checked in tests/test_atomic_argminmax.cu.)

   RULES  those of warpred_op_argmax and friends (op_argminmax.cuh): -0 < +0, ties go to the
   lowest index, the propagating forms make the first NaN win, the _num forms let every number
   beat NaN (an all-NaN input gives the first NaN). A NaN decodes as the canonical NaN
   (0x7fffffff): the slot keeps its index, not its payload.

   HOW  The high 32 bits hold an order key of the value (for floats: the bit pattern with
   every bit of a negative number flipped and the sign bit of a positive one set, so that
   unsigned order is numeric order; NaN pinned to the top or the bottom; for argmin the key is
   inverted), the low 32 bits the inverted index (so the lowest index is the largest). An
   empty slot is 0, below every update. One 64-bit atomicMax, preceded by a plain read that
   skips it when the slot already holds something better.

   This header needs op_argminmax.cuh, ops.cuh and its base beside it (README: Copying a header).
*/
#ifndef WARPRED_ATOMIC_ARGMINMAX_CUH
#define WARPRED_ATOMIC_ARGMINMAX_CUH

#include "op_argminmax.cuh"

#define WARPRED_ARG_SLOT_EMPTY 0ull

/* The 32 bits of a value's key: unsigned order = the op's preference (larger wins). */
template <bool IsMax, bool Num, typename T> __host__ __device__ __forceinline__ unsigned warpred__slot_key(T value)
{
    static_assert(warpred__same<T, float>::value || warpred__same<T, int>::value || warpred__same<T, unsigned>::value,
                  "warpred_atomic_argmax/argmin: float, int or unsigned values");
    unsigned ordered; /* unsigned order = numeric order */
    if constexpr (warpred__same<T, float>::value) {
        unsigned bits;
#ifdef __CUDA_ARCH__
        bits = __float_as_uint(value);
#else
        __builtin_memcpy(&bits, &value, sizeof bits);
#endif
        if ((bits & 0x7fffffffu) > 0x7f800000u) return Num ? 0u : 0xffffffffu; /* NaN: loses, or wins */
        ordered = (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
    } else if constexpr (warpred__same<T, int>::value) {
        ordered = (unsigned)value ^ 0x80000000u;
    } else {
        ordered = value;
    }
    return IsMax ? ordered : ~ordered;
}

template <bool IsMax, bool Num, typename T>
__device__ __forceinline__ void warpred__atomic_arg(unsigned long long *slot, T value, unsigned index)
{
    WARPRED_ASSERT(index != 0xffffffffu && ((unsigned long long)slot & 7) == 0);
    const unsigned long long packed = (unsigned long long)warpred__slot_key<IsMax, Num>(value) << 32 | (unsigned)~index;
    if (*(volatile unsigned long long *)slot >= packed) return; /* already something better: no atomic */
    atomicMax(slot, packed);
}

template <typename T>
__device__ __forceinline__ void warpred_atomic_argmax(unsigned long long *slot, T value, unsigned index)
{
    warpred__atomic_arg<true, false>(slot, value, index);
}
template <typename T>
__device__ __forceinline__ void warpred_atomic_argmin(unsigned long long *slot, T value, unsigned index)
{
    warpred__atomic_arg<false, false>(slot, value, index);
}
template <typename T>
__device__ __forceinline__ void warpred_atomic_argmax_num(unsigned long long *slot, T value, unsigned index)
{
    warpred__atomic_arg<true, true>(slot, value, index);
}
template <typename T>
__device__ __forceinline__ void warpred_atomic_argmin_num(unsigned long long *slot, T value, unsigned index)
{
    warpred__atomic_arg<false, true>(slot, value, index);
}

template <bool IsMax, bool Num, typename T>
__host__ __device__ __forceinline__ warpred_arg<T, long long> warpred__slot_decode(unsigned long long slot)
{
    warpred_arg<T, long long> r;
    const unsigned key = (unsigned)(slot >> 32), ordered = IsMax ? key : ~key;
    r.index = slot == WARPRED_ARG_SLOT_EMPTY ? -1 : (long long)(unsigned)~(unsigned)slot;
    if constexpr (warpred__same<T, float>::value) {
        unsigned bits = (ordered & 0x80000000u) ? ordered & 0x7fffffffu : ~ordered;
        if (key == (Num ? 0u : 0xffffffffu)) bits = 0x7fffffffu; /* NaN (or, empty and _num: NaN too) */
        if (slot == WARPRED_ARG_SLOT_EMPTY && !Num) bits = IsMax ? 0xff800000u : 0x7f800000u; /* -inf / +inf */
#ifdef __CUDA_ARCH__
        r.value = __uint_as_float(bits);
#else
        __builtin_memcpy(&r.value, &bits, sizeof bits);
#endif
    } else if constexpr (warpred__same<T, int>::value) {
        r.value = (int)(ordered ^ 0x80000000u);
    } else {
        r.value = ordered;
    }
    return r;
}

/* Decodes a slot filled by the atomic that matches Op. An empty slot gives index -1 and Op's
   identity value (argmax: -inf, argmin: +inf, _num forms: NaN; integers: lowest / largest). */
template <typename Op, typename T>
__host__ __device__ __forceinline__ warpred_arg<T, long long> warpred_arg_slot_decode(unsigned long long slot)
{
    if constexpr (warpred__same<Op, warpred_op_argmax>::value) return warpred__slot_decode<true, false, T>(slot);
    else if constexpr (warpred__same<Op, warpred_op_argmin>::value)
        return warpred__slot_decode<false, false, T>(slot);
    else if constexpr (warpred__same<Op, warpred_op_argmax_num>::value)
        return warpred__slot_decode<true, true, T>(slot);
    else {
        static_assert(warpred__same<Op, warpred_op_argmin_num>::value,
                      "warpred_arg_slot_decode: Op is warpred_op_argmax, _argmin, _argmax_num or _argmin_num");
        return warpred__slot_decode<false, true, T>(slot);
    }
}

#endif /* WARPRED_ATOMIC_ARGMINMAX_CUH */
