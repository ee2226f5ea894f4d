/* tests/wt_types.h - the host side of the tests: per-type traits (bits, special values, random
   inputs), the one host statement of the IEEE min/max rule (the reductions and the atomics
   both check against it), and an independent reduction reference (exact integer math; double
   precision with an explicit NaN/-0 model for floating point) to check device results
   against. */
#ifndef WT_TYPES_H
#define WT_TYPES_H

#include <warpred/ops.cuh> /* the operation types that wt_op_of names */
#include "wt.h"

/* The reference's name for each operation. Tests name the operation once, as the device type;
   the reference takes its code from wt_op_of<Op>::code, so the two cannot be paired wrongly. */
enum wt_op { WT_SUM, WT_MIN, WT_MAX, WT_MIN_NUM, WT_MAX_NUM, WT_AND, WT_OR, WT_XOR };
static const char *const wt_op_name[] = {"sum", "min", "max", "min_num", "max_num", "and", "or", "xor"};

/* A user-supplied operation: addition written another way, to exercise the generic path. */
struct wt_user_sum {
    template <typename T> __device__ T operator()(T a, T b) const { return warpred_op_sum()(b, a); }
};

template <typename Op> struct wt_op_of; /* no code for an operation the reference does not model */
#define WT_OP_OF(OP, CODE)            \
    template <> struct wt_op_of<OP> { \
        enum { code = CODE };         \
    };
WT_OP_OF(warpred_op_sum, WT_SUM)
WT_OP_OF(warpred_op_min, WT_MIN)
WT_OP_OF(warpred_op_max, WT_MAX)
WT_OP_OF(warpred_op_min_num, WT_MIN_NUM)
WT_OP_OF(warpred_op_max_num, WT_MAX_NUM)
WT_OP_OF(warpred_op_and, WT_AND)
WT_OP_OF(warpred_op_or, WT_OR)
WT_OP_OF(warpred_op_xor, WT_XOR)
WT_OP_OF(wt_user_sum, WT_SUM)
#undef WT_OP_OF

/* The other way, for tests that name operations by code: wt_op_type<WT_MAX>::type is
   warpred_op_max. */
template <int Code> struct wt_op_type;
#define WT_OP_TYPE(CODE, OP)              \
    template <> struct wt_op_type<CODE> { \
        typedef OP type;                  \
    };
WT_OP_TYPE(WT_SUM, warpred_op_sum)
WT_OP_TYPE(WT_MIN, warpred_op_min)
WT_OP_TYPE(WT_MAX, warpred_op_max)
WT_OP_TYPE(WT_MIN_NUM, warpred_op_min_num)
WT_OP_TYPE(WT_MAX_NUM, warpred_op_max_num)
WT_OP_TYPE(WT_AND, warpred_op_and)
WT_OP_TYPE(WT_OR, warpred_op_or)
WT_OP_TYPE(WT_XOR, warpred_op_xor)
#undef WT_OP_TYPE

/* The one host statement of IEEE 754-2019 maximum/minimum (NaN propagates) and
   maximumNumber/minimumNumber (num: NaN is missing data), with -0 < +0. Written with C
   comparisons rather than bit keys, so that it is independent of the device code. Answers
   which operand is the result: a, b, or "a NaN" (the caller decides which NaN: a reduction
   returns the canonical one, an atomic has storage rules of its own). Floats and 16-bit
   types convert to double exactly, so one double version serves every type. */
enum wt_pick { WT_PICK_A, WT_PICK_B, WT_PICK_NAN };

static inline enum wt_pick wt_minmax_pick(int want_max, int num, double a, double b)
{
    if (isnan(a) || isnan(b)) {
        if (!num || (isnan(a) && isnan(b))) return WT_PICK_NAN;
        return isnan(a) ? WT_PICK_B : WT_PICK_A;
    }
    if (a == b) return (signbit(a) != 0) == want_max ? WT_PICK_B : WT_PICK_A; /* -0 < +0 */
    return (a > b) == want_max ? WT_PICK_A : WT_PICK_B;
}

static inline int wt_op_is_max(int op) { return op == WT_MAX || op == WT_MAX_NUM; }
static inline int wt_op_is_min(int op) { return op == WT_MIN || op == WT_MIN_NUM; }
static inline int wt_op_is_num(int op) { return op == WT_MIN_NUM || op == WT_MAX_NUM; }

/* Host-side floating-point reduction step: sums in double, min/max by the rule above (any
   NaN result is NaN; matches() turns it into the canonical bits). */
static inline double wt_model(int op, double a, double b)
{
    if (op == WT_SUM) return a + b;
    switch (wt_minmax_pick(wt_op_is_max(op), wt_op_is_num(op), a, b)) {
    case WT_PICK_A: return a;
    case WT_PICK_B: return b;
    default: return NAN;
    }
}

/* Special values of each floating-point type, as bit patterns, indexed by these names. */
enum wt_special {
    WT_SP_ZERO,
    WT_SP_NEG_ZERO,
    WT_SP_ONE,
    WT_SP_NEG_ONE,
    WT_SP_INF,
    WT_SP_NEG_INF,
    WT_SP_QNAN,
    WT_SP_NEG_QNAN,
    WT_SP_SNAN,
    WT_SP_TINY,
    WT_SP_NEG_TINY, /* the smallest subnormals: -ftz must not matter */
    WT_SP_MAX,
    WT_SP_LOWEST, /* the largest finite values */
    WT_NSPECIAL
};
static const uint64_t wt_special_float[WT_NSPECIAL] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
                                                       0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x00000001,
                                                       0x80000001, 0x7f7fffff, 0xff7fffff};
static const uint64_t wt_special_double[WT_NSPECIAL] = {0x0ull,
                                                        0x8000000000000000ull,
                                                        0x3ff0000000000000ull,
                                                        0xbff0000000000000ull,
                                                        0x7ff0000000000000ull,
                                                        0xfff0000000000000ull,
                                                        0x7ff8000000000000ull,
                                                        0xfff8000000000000ull,
                                                        0x7ff0000000000001ull,
                                                        0x1ull,
                                                        0x8000000000000001ull,
                                                        0x7fefffffffffffffull,
                                                        0xffefffffffffffffull};
static const uint64_t wt_special_half[WT_NSPECIAL] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00,
                                                      0xfe00, 0x7c01, 0x0001, 0x8001, 0x7bff, 0xfbff};
static const uint64_t wt_special_bfloat16[WT_NSPECIAL] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0,
                                                          0xffc0, 0x7f81, 0x0001, 0x8001, 0x7f7f, 0xff7f};

template <typename T> struct wt_type;

#define WT_INT_TYPE(T, NAME, SIGNED)                                                                                  \
    template <> struct wt_type<T> {                                                                                   \
        enum { is_int = 1 };                                                                                          \
        static const char *name() { return NAME; }                                                                    \
        static uint64_t bits(T v)                                                                                     \
        {                                                                                                             \
            uint64_t b = 0;                                                                                           \
            memcpy(&b, &v, sizeof v);                                                                                 \
            return b;                                                                                                 \
        }                                                                                                             \
        static T random(int special)                                                                                  \
        {                                                                                                             \
            T v;                                                                                                      \
            uint64_t r = wt_rand64();                                                                                 \
            memcpy(&v, &r, sizeof v);                                                                                 \
            if (special && wt_rand_below(4) == 0) v = (T)(wt_rand_below(3) - 1); /* -1, 0, 1 */                       \
            return v;                                                                                                 \
        }                                                                                                             \
        static T fold(int op, T a, T b)                                                                               \
        {                                                                                                             \
            switch (op) {                                                                                             \
            case WT_SUM: return (T)((uint64_t)a + (uint64_t)b);                                                       \
            case WT_MIN:                                                                                              \
            case WT_MIN_NUM: return SIGNED ? ((int64_t)a < (int64_t)b ? a : b) : ((uint64_t)a < (uint64_t)b ? a : b); \
            case WT_MAX:                                                                                              \
            case WT_MAX_NUM: return SIGNED ? ((int64_t)a > (int64_t)b ? a : b) : ((uint64_t)a > (uint64_t)b ? a : b); \
            case WT_AND: return a & b;                                                                                \
            case WT_OR: return a | b;                                                                                 \
            default: return a ^ b;                                                                                    \
            }                                                                                                         \
        }                                                                                                             \
    };
WT_INT_TYPE(int, "int", 1)
WT_INT_TYPE(unsigned, "unsigned", 0)
WT_INT_TYPE(long long, "long long", 1)
WT_INT_TYPE(unsigned long long, "unsigned long long", 0)
#undef WT_INT_TYPE

/* unit roundoff u, canonical NaN bits, special values, and conversions for each
   floating-point type */
#define WT_FLOAT_TYPE(T, NAME, U, NANBITS, SPECIAL, TO_D, FROM_D, SCALE)                             \
    template <> struct wt_type<T> {                                                                  \
        enum { is_int = 0 };                                                                         \
        static const char *name() { return NAME; }                                                   \
        static double unit_roundoff() { return U; }                                                  \
        static uint64_t nan_bits() { return NANBITS; }                                               \
        static uint64_t sign_bit() { return 1ull << (8 * sizeof(T) - 1); }                           \
        static uint64_t bits(T v)                                                                    \
        {                                                                                            \
            uint64_t b = 0;                                                                          \
            memcpy(&b, &v, sizeof v);                                                                \
            return b;                                                                                \
        }                                                                                            \
        static T from_bits(uint64_t b)                                                               \
        {                                                                                            \
            T v;                                                                                     \
            memcpy((void *)&v, &b, sizeof v);                                                        \
            return v;                                                                                \
        }                                                                                            \
        static T special(int i) { return from_bits(SPECIAL[i]); }                                    \
        static double to_d(T v) { return TO_D(v); }                                                  \
        static T from_d(double d) { return FROM_D(d); }                                              \
        static T random(int special_values)                                                          \
        {                                                                                            \
            if (special_values && wt_rand_below(8) == 0) return special(wt_rand_below(WT_NSPECIAL)); \
            if (special_values && wt_rand_below(16) == 0)                                            \
                return special(wt_rand_below(2) ? WT_SP_TINY : WT_SP_NEG_TINY);                      \
            return from_d((wt_rand_unit() * 2.0 - 1.0) * SCALE);                                     \
        }                                                                                            \
    };
static inline double wt_f2d(float v) { return v; }
static inline float wt_d2f(double d) { return (float)d; }
static inline double wt_d2d(double v) { return v; }
static inline double wt_h2d(__half v) { return __half2float(v); }
static inline __half wt_d2h(double d) { return __float2half_rn((float)d); }
static inline double wt_b2d(__nv_bfloat16 v) { return __bfloat162float(v); }
static inline __nv_bfloat16 wt_d2b(double d) { return __float2bfloat16_rn((float)d); }
/* 16-bit types stay within [-1, 1] so that 1024-element sums cannot overflow __half */
WT_FLOAT_TYPE(float, "float", 0x1p-24, 0x7fffffffull, wt_special_float, wt_f2d, wt_d2f, 100.0)
WT_FLOAT_TYPE(double, "double", 0x1p-53, 0x7fffffffffffffffull, wt_special_double, wt_d2d, wt_d2d, 100.0)
WT_FLOAT_TYPE(__half, "__half", 0x1p-11, 0x7fffull, wt_special_half, wt_h2d, wt_d2h, 1.0)
WT_FLOAT_TYPE(__nv_bfloat16, "__nv_bfloat16", 0x1p-8, 0x7fffull, wt_special_bfloat16, wt_b2d, wt_d2b, 1.0)
#undef WT_FLOAT_TYPE

/* The value an exact atomic max/min stores (warpred/atomic_minmax.cuh, RULES), as bits: op is
   WT_MAX for fmaximum, WT_MIN for fminimum, WT_MAX_NUM / WT_MIN_NUM for the _num forms; x is
   in memory, v the argument. wt_minmax_pick decides; where it answers "a NaN", the atomics'
   storage rules say which: a NaN in memory stays as it is, bits unchanged; a NaN argument
   stores the function's NaN, all payload bits set, positive for fmaximum and negative for
   fminimum. */
template <typename F> static uint64_t wt_atomic_stored(int op, F x, F v)
{
    typedef wt_type<F> W;
    switch (wt_minmax_pick(wt_op_is_max(op), wt_op_is_num(op), W::to_d(x), W::to_d(v))) {
    case WT_PICK_A: return W::bits(x);
    case WT_PICK_B: return W::bits(v);
    default: break;
    }
    if (isnan(W::to_d(x))) return W::bits(x);
    return wt_op_is_max(op) ? W::nan_bits() : W::nan_bits() | W::sign_bit();
}

/* The operations the reduction tests run on each kind of type: run(Op(), special) for each.
   Floating point: min/max with and without special values; sums (and a user-written sum)
   without (a sum has no NaN rule to check). Integers: every operation, both ways. */
template <typename Run> static void wt_each_float_op(Run run)
{
    for (int special = 0; special < 2; special++) {
        run(warpred_op_min(), special);
        run(warpred_op_max(), special);
        run(warpred_op_min_num(), special);
        run(warpred_op_max_num(), special);
    }
    run(warpred_op_sum(), 0);
    run(wt_user_sum(), 0);
}

template <typename Run> static void wt_each_int_op(Run run)
{
    for (int special = 0; special < 2; special++) {
        run(warpred_op_sum(), special);
        run(warpred_op_min(), special);
        run(warpred_op_max(), special);
        run(warpred_op_min_num(), special);
        run(warpred_op_max_num(), special);
        run(warpred_op_and(), special);
        run(warpred_op_or(), special);
        run(warpred_op_xor(), special);
        run(wt_user_sum(), special);
    }
}

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
        uint64_t want = count == 1     ? single
                        : isnan(value) ? wt_type<T>::nan_bits()
                                       : wt_type<T>::bits(wt_type<T>::from_d(value));
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

/* Whether got is the result of reducing in[pos[0]], ..., in[pos[k-1]] (k >= 1) with op, as
   wt_ref says; if not, why says how it is not. The check of the drivers in wt_kernels.h. */
template <typename T> static int wt_ref_check(int op, const T *in, const int *pos, int k, T got, char *why, size_t len)
{
    T *vals = (T *)calloc(k > 0 ? k : 1, sizeof(T));
    if (vals == NULL) fail_msg("out of host memory");
    for (int j = 0; j < k; j++) vals[j] = in[pos[j]];
    wt_ref<T> ref;
    ref.fold(op, vals, k);
    char sub[300];
    const int ok = ref.matches(op, got, k, sub, sizeof sub);
    if (!ok) snprintf(why, len, "%s over %d values: %s", wt_op_name[op], k, sub);
    free(vals);
    return ok;
}

/* Scalars with the same bits. */
template <typename T> static int wt_same_bits(T a, T b) { return wt_type<T>::bits(a) == wt_type<T>::bits(b); }

#endif /* WT_TYPES_H */
