/* warpred/value.cuh - which values warpred reduces, and how to make your own type reducible.
   MIT licensed, see LICENSE.

   A reduction moves values between lanes (shuffles), through shared memory and through global
   memory. A scalar (types.cuh: int, unsigned, long, unsigned long, long long, unsigned long
   long, float, double, __half, __nv_bfloat16) moves as it is. Any other value is a struct whose
   members are values; the layers move it member by member, so its padding is never read or
   written. warpred_value<T> says which members a struct has:

     template <> struct warpred_value<my_type> {
         template <typename F> static __device__ void members(my_type &x, F &f) { f(x.a); f(x.b); }
     };

   or, in a struct you write yourself, a member function does the same:

     struct my_type { float a; int b;
                      template <typename F> __device__ void warpred_members(F &f) { f(a); f(b); } };

   Members are visited in the order f sees them; every member of the struct that a reduction
   should carry must be visited. A member may itself be a struct with warpred_value. Out of the
   box: the scalars, the CUDA vector types int2/3/4, uint2/3/4, float2/3/4, long2/3, ulong2/3,
   longlong2/3, ulonglong2/3, double2/3 (members x, y, z, w), and the types of the op_*.cuh
   headers.

   USAGE
       #include <warpred/warp_reduce.cuh>

       struct particle { float x, y, z; };           // 12 bytes
       template <> struct warpred_value<particle> {
           template <typename F> static __device__ void members(particle &p, F &f) { f(p.x); f(p.y); f(p.z); }
       };

       __global__ void centre(const particle *p, particle *out)   // one warp
       {
           particle s = warpred_warp_reduce(p[threadIdx.x], warpred_op_sum());   // member by member
           if (threadIdx.x == 0) *out = s;
       }
       // p[i] = {i, 1, -i}: *out = {496, 32, -496}

   (This snippet is compiled and checked in tests/test_values.cu.)

   OPERATIONS ON YOUR TYPE  The built-in operations of ops.cuh work member by member on every
   value (sum of a float2 is the sum of its x and of its y; max follows the IEEE rules in each
   member; and/or/xor need integer members). Your own operation works on your type as on any
   other (operation.cuh).

   ANYTHING ELSE  A type that is neither a scalar nor described here stops the compilation at
   the reduction with one static_assert saying what to do.

   This header needs types.cuh, config.cuh and version.h beside it.
*/
#ifndef WARPRED_VALUE_CUH
#define WARPRED_VALUE_CUH

#include "types.cuh"

/* ---- the protocol ---- */

/* Not a value unless specialised (or T has a warpred_members member function, below). */
template <typename T, typename = void> struct warpred_value {};

struct warpred__probe {
    template <typename M> __device__ void operator()(M &) const {}
};

template <typename T>
struct warpred_value<T, typename warpred__void<decltype(warpred__declval<T &>().warpred_members(
                            warpred__declval<warpred__probe &>()))>::type> {
    template <typename F> static __device__ __forceinline__ void members(T &x, F &f) { x.warpred_members(f); }
};

/* Whether T has members described by warpred_value. */
template <typename T, typename = void> struct warpred__has_members {
    enum { value = 0 };
};
template <typename T>
struct warpred__has_members<T, typename warpred__void<decltype(warpred_value<T>::members(
                                   warpred__declval<T &>(), warpred__declval<warpred__probe &>()))>::type> {
    enum { value = 1 };
};

template <typename T> struct warpred__is_value {
    enum { value = warpred__is_scalar<T>::value || warpred__has_members<T>::value };
};

/* The one message for a type that is not a value. A class template, instantiated once per type,
   so that the message is printed once however many layers the type went through. */
template <typename T> struct warpred__require_value {
    static_assert(
        warpred__is_value<T>::value,
        "warpred: this type is not a reducible value. Scalars: int, unsigned, long, unsigned long, long long, "
        "unsigned long long, float, double, __half, __nv_bfloat16 (widen char/short to int). For a struct, "
        "describe its members with a warpred_value<T> specialisation or a warpred_members member function "
        "(see warpred/value.cuh).");
    enum { value = warpred__is_value<T>::value };
};

/* Every public entry point asks this first and compiles nothing else for a rejected type. */
template <typename T> __host__ __device__ constexpr bool warpred__value_ok(void)
{
    return warpred__require_value<T>::value != 0;
}

/* ---- the CUDA vector types ---- */

#define WARPRED__VECTOR2(V)                                                                                  \
    template <> struct warpred_value<V> {                                                                    \
        template <typename F> static __device__ __forceinline__ void members(V &v, F &f) { f(v.x), f(v.y); } \
    }
#define WARPRED__VECTOR3(V)                                                                                          \
    template <> struct warpred_value<V> {                                                                            \
        template <typename F> static __device__ __forceinline__ void members(V &v, F &f) { f(v.x), f(v.y), f(v.z); } \
    }
#define WARPRED__VECTOR4(V)                                                              \
    template <> struct warpred_value<V> {                                                \
        template <typename F> static __device__ __forceinline__ void members(V &v, F &f) \
        {                                                                                \
            f(v.x), f(v.y), f(v.z), f(v.w);                                              \
        }                                                                                \
    }
WARPRED__VECTOR2(int2);
WARPRED__VECTOR3(int3);
WARPRED__VECTOR4(int4);
WARPRED__VECTOR2(uint2);
WARPRED__VECTOR3(uint3);
WARPRED__VECTOR4(uint4);
WARPRED__VECTOR2(float2);
WARPRED__VECTOR3(float3);
WARPRED__VECTOR4(float4);
WARPRED__VECTOR2(long2);
WARPRED__VECTOR3(long3);
WARPRED__VECTOR2(ulong2);
WARPRED__VECTOR3(ulong3);
WARPRED__VECTOR2(longlong2);
WARPRED__VECTOR3(longlong3);
WARPRED__VECTOR2(ulonglong2);
WARPRED__VECTOR3(ulonglong3);
WARPRED__VECTOR2(double2);
WARPRED__VECTOR3(double3);
#undef WARPRED__VECTOR2
#undef WARPRED__VECTOR3
#undef WARPRED__VECTOR4

/* ---- walking a value (for the layers) ---- */

/* f(s) on every scalar inside x, depth first, in member order. */
template <typename T, typename F> __device__ __forceinline__ void warpred__each_scalar(T &x, F &f);

template <typename F> struct warpred__scalar_walker {
    F *f;
    template <typename M> __device__ __forceinline__ void operator()(M &m) const { warpred__each_scalar(m, *f); }
};

template <typename T, typename F> __device__ __forceinline__ void warpred__each_scalar(T &x, F &f)
{
    if constexpr (warpred__is_scalar<T>::value) {
        f(x);
    } else {
        warpred__scalar_walker<F> walk = {&f};
        warpred_value<T>::members(x, walk);
    }
}

/* f(xm, ym) for each direct member xm of x and the member ym at the same place in y. */
template <typename F> struct warpred__pair_walker {
    char *x0;
    const char *y0;
    F *f;
    template <typename M> __device__ __forceinline__ void operator()(M &m) const
    {
        (*f)(m, *reinterpret_cast<const M *>(y0 + ((char *)&m - x0)));
    }
};

template <typename T, typename F> __device__ __forceinline__ void warpred__each_member_pair(T &x, const T &y, F &f)
{
    warpred__pair_walker<F> walk = {(char *)&x, (const char *)&y, &f};
    warpred_value<T>::members(x, walk);
}

#endif /* WARPRED_VALUE_CUH */
