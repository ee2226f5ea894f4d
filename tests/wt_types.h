/* tests/wt_types.h - the host side of the reduction tests: per-type traits, random and
   special inputs, and an independent reference (exact integer math; double precision with an
   explicit NaN/-0 model for floating point) to check device results against. */
#ifndef WT_TYPES_H
#define WT_TYPES_H

#include "wt.h"

enum wt_op { WT_SUM, WT_MIN, WT_MAX, WT_MIN_NUM, WT_MAX_NUM, WT_AND, WT_OR, WT_XOR };
static const char *const wt_op_name[] = {"sum", "min", "max", "min_num", "max_num", "and", "or", "xor"};

/* A user-supplied operation: addition written another way, to exercise the generic path. */
struct wt_user_sum {
    template <typename T> __device__ T operator()(T a, T b) const { return warpred_op_sum()(b, a); }
};

/* Host-side float semantics, written with comparisons rather than bit keys, so that it is an
   independent statement of the documented rule. */
static inline double wt_model(int op, double a, double b)
{
    switch (op) {
    case WT_SUM: return a + b;
    case WT_MAX: if (isnan(a) || isnan(b)) return NAN; break;
    case WT_MIN: if (isnan(a) || isnan(b)) return NAN; break;
    case WT_MAX_NUM: case WT_MIN_NUM:
        if (isnan(a)) return b;
        if (isnan(b)) return a;
        break;
    }
    int want_max = op == WT_MAX || op == WT_MAX_NUM;
    if (a == b) return (signbit(a) != 0) == want_max ? b : a; /* -0 < +0 */
    return (a > b) == want_max ? a : b;
}

static inline double wt_special_double(int i)
{
    static const uint64_t bits[] = {
        0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
        0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull, 0x3ff0000000000000ull,
        0xbff0000000000000ull};
    double d;
    memcpy(&d, &bits[i % 9], 8);
    return d;
}

template <typename T> struct wt_type;

#define WT_INT_TYPE(T, NAME, SIGNED)                                                               \
    template <> struct wt_type<T> {                                                                \
        enum { is_int = 1 };                                                                       \
        static const char *name() { return NAME; }                                                 \
        static uint64_t bits(T v) { uint64_t b = 0; memcpy(&b, &v, sizeof v); return b; }         \
        static T random(int special)                                                               \
        {                                                                                          \
            T v;                                                                                   \
            uint64_t r = wt_rand64();                                                              \
            memcpy(&v, &r, sizeof v);                                                              \
            if (special && wt_rand_below(4) == 0) v = (T)(wt_rand_below(3) - 1); /* -1, 0, 1 */    \
            return v;                                                                              \
        }                                                                                          \
        static T fold(int op, T a, T b)                                                            \
        {                                                                                          \
            switch (op) {                                                                          \
            case WT_SUM: return (T)((uint64_t)a + (uint64_t)b);                                    \
            case WT_MIN: case WT_MIN_NUM: return SIGNED ? ((int64_t)a < (int64_t)b ? a : b)        \
                                                        : ((uint64_t)a < (uint64_t)b ? a : b);      \
            case WT_MAX: case WT_MAX_NUM: return SIGNED ? ((int64_t)a > (int64_t)b ? a : b)        \
                                                        : ((uint64_t)a > (uint64_t)b ? a : b);      \
            case WT_AND: return a & b;                                                             \
            case WT_OR: return a | b;                                                              \
            default: return a ^ b;                                                                 \
            }                                                                                      \
        }                                                                                          \
    };
WT_INT_TYPE(int, "int", 1)
WT_INT_TYPE(unsigned, "unsigned", 0)
WT_INT_TYPE(long long, "long long", 1)
WT_INT_TYPE(unsigned long long, "unsigned long long", 0)
#undef WT_INT_TYPE

/* unit roundoff u, canonical NaN bits, and conversions for each floating-point type */
#define WT_FLOAT_TYPE(T, NAME, U, NANBITS, TO_D, FROM_D, SCALE, TINY)                                         \
    template <> struct wt_type<T> {                                                                \
        enum { is_int = 0 };                                                                       \
        static const char *name() { return NAME; }                                                 \
        static double unit_roundoff() { return U; }                                                \
        static uint64_t nan_bits() { return NANBITS; }                                             \
        static uint64_t bits(T v) { uint64_t b = 0; memcpy(&b, &v, sizeof v); return b; }         \
        static double to_d(T v) { return TO_D(v); }                                                \
        static T from_d(double d) { return FROM_D(d); }                                            \
        static T random(int special)                                                               \
        {                                                                                          \
            if (special && wt_rand_below(8) == 0) return from_d(wt_special_double(wt_rand32()));  \
            if (special && wt_rand_below(16) == 0) /* the smallest subnormals: -ftz must not matter */ \
                return from_d(wt_rand_below(2) ? TINY : -TINY);                                  \
            return from_d((wt_rand_unit() * 2.0 - 1.0) * SCALE);                                    \
        }                                                                                          \
    };
static inline double wt_f2d(float v) { return v; }
static inline float wt_d2f(double d) { return (float)d; }
static inline double wt_d2d(double v) { return v; }
static inline double wt_h2d(__half v) { return __half2float(v); }
static inline __half wt_d2h(double d) { return __float2half_rn((float)d); }
static inline double wt_b2d(__nv_bfloat16 v) { return __bfloat162float(v); }
static inline __nv_bfloat16 wt_d2b(double d) { return __float2bfloat16_rn((float)d); }
/* 16-bit types stay within [-1, 1] so that 1024-element sums cannot overflow __half */
WT_FLOAT_TYPE(float, "float", 0x1p-24, 0x7fffffffull, wt_f2d, wt_d2f, 100.0, 0x1p-149)
WT_FLOAT_TYPE(double, "double", 0x1p-53, 0x7fffffffffffffffull, wt_d2d, wt_d2d, 100.0, 0x1p-1074)
WT_FLOAT_TYPE(__half, "__half", 0x1p-11, 0x7fffull, wt_h2d, wt_d2h, 1.0, 0x1p-24)
WT_FLOAT_TYPE(__nv_bfloat16, "__nv_bfloat16", 0x1p-8, 0x7fffull, wt_b2d, wt_d2b, 1.0, 0x1p-133)
#undef WT_FLOAT_TYPE

/* The expected result of reducing x[0..k-1] with op. */
template <typename T, int IsInt = wt_type<T>::is_int> struct wt_ref;

template <typename T> struct wt_ref<T, 1> {
    T value;
    void fold(int op, const T *x, int k)
    {
        value = x[0];
        for (int i = 1; i < k; i++) value = wt_type<T>::fold(op, value, x[i]);
    }
    /* integers are exact: the bits must match */
    int matches(int, T got, int, char *why, size_t whylen) const
    {
        if (wt_type<T>::bits(got) == wt_type<T>::bits(value)) return 1;
        snprintf(why, whylen, "got %llx, expected %llx", (unsigned long long)wt_type<T>::bits(got),
                 (unsigned long long)wt_type<T>::bits(value));
        return 0;
    }
};

template <typename T> struct wt_ref<T, 0> {
    double value, abs_sum;
    uint64_t single; /* bits of the only input, when there is one: it comes back unchanged */
    int count;
    void fold(int op, const T *x, int k)
    {
        count = k;
        single = wt_type<T>::bits(x[0]);
        value = wt_type<T>::to_d(x[0]);
        abs_sum = fabs(value);
        for (int i = 1; i < k; i++) {
            double xi = wt_type<T>::to_d(x[i]);
            value = wt_model(op, value, xi);
            abs_sum += fabs(xi);
        }
    }
    /* Sums: within k*u*sum|x| (each of the k-1 roundings errs by at most u times a partial
       sum). min/max: the exact bits of the chosen input, or the canonical NaN; a single
       input is returned as it is, NaN payload included. */
    int matches(int op, T got, int k, char *why, size_t whylen) const
    {
        double g = wt_type<T>::to_d(got);
        if (op == WT_SUM) {
            double tol = k * wt_type<T>::unit_roundoff() * abs_sum;
            if (fabs(g - value) <= tol) return 1;
            snprintf(why, whylen, "got %.17g, expected %.17g (tolerance %.3g)", g, value, tol);
            return 0;
        }
        uint64_t want = count == 1 ? single
                        : isnan(value) ? wt_type<T>::nan_bits() : wt_type<T>::bits(wt_type<T>::from_d(value));
        if (wt_type<T>::bits(got) == want) return 1;
        snprintf(why, whylen, "got %.17g (bits %llx), expected %.17g (bits %llx)", g,
                 (unsigned long long)wt_type<T>::bits(got), value, (unsigned long long)want);
        return 0;
    }
};

template <typename T> static int wt_is_poison(T v)
{
    unsigned char p[sizeof(T)];
    memset(p, WT_POISON, sizeof p);
    return memcmp(&v, p, sizeof p) == 0;
}

#endif /* WT_TYPES_H */
