/* tests/wt_exact.h - the exact sum of float and double values, for checking the reproducible sum
   (warpred/op_rsum.cuh) against something that cannot be wrong in the same way. Plain host C with
   no CUDA and no test-harness dependency.

   The sum is kept as one big two's complement fixed-point integer whose bit k weighs 2^(k-1074):
   bit 0 is the smallest double subnormal, bit 2097 the top bit of DBL_MAX, and the 34 64-bit limbs
   (2176 bits) leave 77 bits of carry room above 2^1024 (2^77 values of DBL_MAX). Every finite
   double (so every float) is an integer multiple of 2^-1074, so adding one is exact: no value,
   order or cancellation loses a bit. Non-finite inputs are only counted.

   The result is then rounded once, to nearest with ties to even, directly to the target format
   (p mantissa bits, normal exponents emin..emax, gradual underflow; never through double first,
   which would round twice), with the rules of the manual of warpred/op_rsum.cuh (its top comment,
   SEMANTICS):
     - any NaN, or both +inf and -inf                 -> the canonical NaN (all payload bits set)
     - +inf (with finite values)                      -> +inf;  -inf alike
     - an exact total of zero (also only -0 values)   -> +0
     - a finite total beyond the format               -> +-inf (it rounds to infinity)
   The helpers at the end measure a result against it: the spacing of a format at a value, the
   number of steps between two values, and the check of a result in three strictnesses
   (WT_EXACT_BOUND: the documented error bound; WT_EXACT_WINDOW: values summed exactly before the
   final rounding; WT_EXACT_BITS: the correctly rounded bits).

   Keep this file free of anything that warpred's device code uses: it is the independent side. */
#ifndef WT_EXACT_H
#define WT_EXACT_H

#include <stdint.h>
#include <string.h>
#include <math.h>
#include <stdio.h>

enum {
    WT_EXACT_LIMBS = 34, /* 2176 bits */
    WT_EXACT_BIAS = 1074 /* bit k weighs 2^(k - WT_EXACT_BIAS) */
};

typedef struct wt_exact {
    uint64_t limb[WT_EXACT_LIMBS]; /* the finite part, two's complement, limb 0 least significant */
    int nan, pos_inf, neg_inf;     /* non-finite inputs seen */
    long long count;               /* values added (every kind) */
    double max_abs;                /* the largest |x| among the finite values added */
} wt_exact;

/* A binary floating-point format: p significand bits (with the hidden one), normal exponents
   emin..emax. The smallest spacing (subnormals) is 2^(emin - p + 1). */
typedef struct wt_exact_format {
    int p, emin, emax;
} wt_exact_format;
static const wt_exact_format wt_exact_float_format = {24, -126, 127};
static const wt_exact_format wt_exact_double_format = {53, -1022, 1023};

static inline void wt_exact_clear(wt_exact *a) { memset(a, 0, sizeof *a); }

/* Adds (negative == 0) or subtracts mag * 2^(pos - WT_EXACT_BIAS), carrying or borrowing as far
   as it goes. pos >= 0; the limbs of mag must lie inside the integer. */
static inline void wt_exact__add_at(wt_exact *a, uint64_t mag, int pos, int negative)
{
    const int first = pos / 64, shift = pos % 64;
    const uint64_t part[2] = {mag << shift, shift ? mag >> (64 - shift) : 0};
    uint64_t carry = 0;
    for (int i = first; i < WT_EXACT_LIMBS; i++) {
        const int k = i - first;
        if (k >= 2 && carry == 0) break;
        const uint64_t v = k < 2 ? part[k] : 0, old = a->limb[i];
        if (!negative) {
            const uint64_t s = old + v, s2 = s + carry;
            carry = (uint64_t)((s < v) | (s2 < s));
            a->limb[i] = s2;
        } else {
            const uint64_t d = old - v, d2 = d - carry;
            carry = (uint64_t)((old < v) | (d < carry));
            a->limb[i] = d2;
        }
    }
}

/* Adds 2^e (or subtracts it when negative), e >= -1074. */
static inline void wt_exact__add_pow2(wt_exact *a, int e, int negative)
{
    wt_exact__add_at(a, 1, e + WT_EXACT_BIAS, negative);
}

/* Adds one value: finite values exactly into the integer, non-finite ones to the flags. A float
   converts to double exactly, so this serves both types. */
static inline void wt_exact_add(wt_exact *a, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const int negative = (int)(bits >> 63);
    const int e = (int)((bits >> 52) & 0x7ff);
    const uint64_t frac = bits & ((1ull << 52) - 1);
    a->count++;
    if (e == 0x7ff) {
        if (frac != 0) a->nan = 1;
        else if (negative)
            a->neg_inf = 1;
        else
            a->pos_inf = 1;
        return;
    }
    if (fabs(x) > a->max_abs) a->max_abs = fabs(x);
    if (e == 0) { /* zero or subnormal: frac * 2^-1074 */
        if (frac) wt_exact__add_at(a, frac, 0, negative);
        return;
    }
    /* normal: (2^52 + frac) * 2^(e - 1075) */
    wt_exact__add_at(a, frac | (1ull << 52), e - 1075 + WT_EXACT_BIAS, negative);
}

static inline int wt_exact__negative(const wt_exact *a) { return (int)(a->limb[WT_EXACT_LIMBS - 1] >> 63); }

static inline int wt_exact_is_zero(const wt_exact *a)
{
    for (int i = 0; i < WT_EXACT_LIMBS; i++)
        if (a->limb[i]) return 0;
    return 1;
}

/* -1, 0 or 1: the sign of the finite part. */
static inline int wt_exact_sign(const wt_exact *a) { return wt_exact__negative(a) ? -1 : wt_exact_is_zero(a) ? 0 : 1; }

/* The magnitude of the finite part, into mag[] (limbs as in wt_exact). */
static inline void wt_exact__magnitude(const wt_exact *a, uint64_t mag[WT_EXACT_LIMBS])
{
    memcpy(mag, a->limb, sizeof a->limb);
    if (!wt_exact__negative(a)) return;
    uint64_t carry = 1; /* ~x + 1 */
    for (int i = 0; i < WT_EXACT_LIMBS; i++) {
        mag[i] = ~mag[i] + carry;
        carry = carry && mag[i] == 0;
    }
}

static inline int wt_exact__bit(const uint64_t mag[WT_EXACT_LIMBS], int k)
{
    return (int)((mag[k / 64] >> (k % 64)) & 1);
}

/* Bits lo..lo+count-1 of mag as an integer (count <= 63). */
static inline uint64_t wt_exact__field(const uint64_t mag[WT_EXACT_LIMBS], int lo, int count)
{
    uint64_t v = 0;
    for (int k = lo + count - 1; k >= lo; k--) v = (v << 1) | (uint64_t)wt_exact__bit(mag, k);
    return v;
}

/* Any bit set below bit k (k may be <= 0: nothing below). */
static inline int wt_exact__any_below(const uint64_t mag[WT_EXACT_LIMBS], int k)
{
    if (k <= 0) return 0;
    for (int i = 0; i < k / 64; i++)
        if (mag[i]) return 1;
    return k % 64 && (mag[k / 64] & ((1ull << (k % 64)) - 1)) != 0;
}

/* The finite part rounded to nearest, ties to even, into format f: returned as a double that
   holds the rounded value exactly (or +-inf when it rounds beyond the format). A zero total is
   +0. Non-finite flags are not looked at here. */
static inline double wt_exact_round_finite(const wt_exact *a, wt_exact_format f)
{
    uint64_t mag[WT_EXACT_LIMBS];
    wt_exact__magnitude(a, mag);
    const int negative = wt_exact__negative(a);
    int top = -1;
    for (int i = WT_EXACT_LIMBS - 1; i >= 0 && top < 0; i--)
        if (mag[i])
            for (int b = 63; b >= 0; b--)
                if ((mag[i] >> b) & 1) {
                    top = i * 64 + b;
                    break;
                }
    if (top < 0) return 0.0; /* exact zero: +0 whatever the signs of the zeros added */
    /* q: the exponent of the last place kept; the value is m * 2^q after rounding */
    const int e_top = top - WT_EXACT_BIAS;
    int q = e_top - (f.p - 1);
    if (q < f.emin - (f.p - 1)) q = f.emin - (f.p - 1); /* gradual underflow: fixed spacing */
    const int lo = q + WT_EXACT_BIAS;                   /* >= 0 for float and double */
    uint64_t m = wt_exact__field(mag, lo, top - lo + 1);
    const int round_bit = lo > 0 ? wt_exact__bit(mag, lo - 1) : 0;
    const int sticky = wt_exact__any_below(mag, lo - 1);
    if (round_bit && (sticky || (m & 1))) m++;
    if (m == (1ull << f.p)) { /* carried into a new binade */
        m >>= 1;
        q++;
    }
    int m_top = 63;
    while (!((m >> m_top) & 1)) m_top--;
    if (q + m_top > f.emax) return negative ? -INFINITY : INFINITY;
    const double v = ldexp((double)m, q); /* exact: m < 2^53, q >= -1074 */
    return negative ? -v : v;
}

/* 1 when the result is decided by non-finite inputs; *bits gets it (as bits of the format of
   `bytes` bytes: 4 or 8). */
static inline int wt_exact__nonfinite(const wt_exact *a, int bytes, uint64_t *bits)
{
    const uint64_t nan = bytes == 4 ? 0x7fffffffull : 0x7fffffffffffffffull;
    const uint64_t inf = bytes == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
    const uint64_t sign = bytes == 4 ? 0x80000000ull : 0x8000000000000000ull;
    if (a->nan || (a->pos_inf && a->neg_inf)) *bits = nan;
    else if (a->pos_inf)
        *bits = inf;
    else if (a->neg_inf)
        *bits = inf | sign;
    else
        return 0;
    return 1;
}

/* The contract's result, correctly rounded, as bits (canonical NaN). */
static inline uint32_t wt_exact_float_bits(const wt_exact *a)
{
    uint64_t b;
    if (wt_exact__nonfinite(a, 4, &b)) return (uint32_t)b;
    const float v = (float)wt_exact_round_finite(a, wt_exact_float_format); /* exact conversion */
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static inline uint64_t wt_exact_double_bits(const wt_exact *a)
{
    uint64_t b;
    if (wt_exact__nonfinite(a, 8, &b)) return b;
    const double v = wt_exact_round_finite(a, wt_exact_double_format);
    memcpy(&b, &v, sizeof b);
    return b;
}

static inline float wt_exact_float(const wt_exact *a)
{
    const uint32_t u = wt_exact_float_bits(a);
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static inline double wt_exact_double(const wt_exact *a)
{
    const uint64_t u = wt_exact_double_bits(a);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* ------------------------------------------------------------------------------------------
   measuring a result
   ------------------------------------------------------------------------------------------ */

/* The spacing of format f at v (finite): 2^(exponent of v - p + 1), the spacing just above |v|;
   for zero and subnormal v the subnormal spacing. */
static inline double wt_exact_ulp(double v, wt_exact_format f)
{
    int e = f.emin;
    if (v != 0) {
        int fe;
        frexp(v, &fe); /* |v| in [2^(fe-1), 2^fe) */
        if (fe - 1 > e) e = fe - 1;
    }
    return ldexp(1.0, e - (f.p - 1));
}

/* How many steps apart a and b are along the finite values of their format, in increasing order,
   with -0 and +0 one point (a float and the next one up: 1; the smallest subnormals either side of
   zero: 2). Both must be finite. Positions are the bits read as sign-magnitude integers. */
static inline unsigned long long wt_exact__steps(uint64_t a, uint64_t b, uint64_t sign)
{
    const int64_t pa = (a & sign) ? -(int64_t)(a & ~sign) : (int64_t)a;
    const int64_t pb = (b & sign) ? -(int64_t)(b & ~sign) : (int64_t)b;
    return pa > pb ? (uint64_t)pa - (uint64_t)pb : (uint64_t)pb - (uint64_t)pa;
}

static inline unsigned long long wt_exact_steps_float(float a, float b)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    return wt_exact__steps(ua, ub, 0x80000000ull);
}

static inline unsigned long long wt_exact_steps_double(double a, double b)
{
    uint64_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    return wt_exact__steps(ua, ub, 0x8000000000000000ull);
}

/* (exact finite part) - v for a finite double v, rounded to double. */
static inline double wt_exact_minus(const wt_exact *a, double v)
{
    wt_exact d = *a;
    wt_exact_add(&d, -v);
    return wt_exact_round_finite(&d, wt_exact_double_format);
}

/* The documented error bound's second term, n * M * 2^-bits (bits: 36 for float, 54 for double;
   warpred/op_rsum.cuh, ACCURACY), with n every value added and M the largest finite |x|. */
static inline double wt_exact_bound_term(const wt_exact *a, int bits)
{
    return (double)a->count * a->max_abs * ldexp(1.0, -bits);
}

/* A result checked against the exact sum. */
typedef struct wt_exact_verdict {
    int ok;
    double err_ulps;          /* |got - exact| / ulp(got), 0 when non-finite rules decided */
    unsigned long long steps; /* steps from the correctly rounded result (finite results) */
    char why[320];
} wt_exact_verdict;

/* How strictly a result is held to the exact sum (warpred/op_rsum.cuh, SEMANTICS and ACCURACY):
     WT_EXACT_BOUND   the error bound: |got - exact| <= ulp(got) + n * M * 2^-36 (float) / 2^-54
                      (double)
     WT_EXACT_WINDOW  data whose values all lie within the window of exact summation (lowest set
                      bit at least M * 2^-35 (float) / M * 2^-53 (double)): summed exactly, then
                      rounded once, so a sum that F can hold exactly (1 from {2^30, 1, -2^30},
                      DBL_MAX from DBL_MAX + DBL_MAX - DBL_MAX, a zero total: +0) must come out
                      with exactly those bits, a total that overflows F must be the infinity, and
                      any other within 1 ulp(got)
     WT_EXACT_BITS    the correctly rounded bits, nothing else
   Non-finite inputs decide the bits in every mode, and a zero result of a zero total must be +0. */
enum { WT_EXACT_BOUND = 0, WT_EXACT_WINDOW = 1, WT_EXACT_BITS = 2 };

/* got (as a double holding the value, and as bits of `bytes` bytes) against a, in mode (above).
   Where the bound applies to a finite exact total, a result of +-inf is accepted only when the
   total lies within the bound's second term of the overflow threshold (the half-way point
   2^(emax+1) - 2^(emax-p)), and a finite result of an overflowing total only within the bound
   of the total. */
static inline wt_exact_verdict wt_exact__check(const wt_exact *a, double got, uint64_t got_bits, uint64_t want_bits,
                                               double want, int bytes, wt_exact_format f, int bound_bits, int mode)
{
    wt_exact_verdict r;
    memset(&r, 0, sizeof r);
    uint64_t nonfinite;
    const int decided = wt_exact__nonfinite(a, bytes, &nonfinite);
    const int digits = bytes == 4 ? 9 : 17;
    int held = 0; /* F holds the exact total exactly */
    if (!decided && isfinite(want)) {
        wt_exact d = *a;
        wt_exact_add(&d, -want);
        held = wt_exact_is_zero(&d);
    }
    /* a zero total is +0 in every mode, never -0 */
    const int zero_total = held && want == 0 && got == 0;
    const int must_be_exact = mode == WT_EXACT_BITS || zero_total || (mode == WT_EXACT_WINDOW && (held || isinf(want)));
    if (decided || must_be_exact || got_bits == want_bits) {
        r.ok = got_bits == want_bits;
        if (!r.ok)
            snprintf(r.why, sizeof r.why, "got %.*g (bits %llx), expected exactly %.*g (bits %llx)%s", digits, got,
                     (unsigned long long)got_bits, digits, want, (unsigned long long)want_bits,
                     decided                 ? " (non-finite inputs decide)"
                     : mode == WT_EXACT_BITS ? " (correctly rounded)"
                     : held                  ? " (the exact sum, which the type holds)"
                                             : " (the exact sum overflows)");
        else if (!decided && isfinite(got))
            r.err_ulps = fabs(wt_exact_minus(a, got)) / wt_exact_ulp(got, f);
        return r;
    }
    const double term = mode == WT_EXACT_WINDOW ? 0 : wt_exact_bound_term(a, bound_bits);
    if (isnan(got)) {
        snprintf(r.why, sizeof r.why, "got NaN for finite inputs, expected %.*g", digits, want);
        return r;
    }
    if (isinf(got)) {
        /* |exact| - threshold, exactly, then rounded */
        wt_exact m = *a;
        const int neg = wt_exact__negative(&m);
        if (neg != (got < 0)) {
            snprintf(r.why, sizeof r.why, "got %g, expected %.*g (wrong sign)", got, digits, want);
            return r;
        }
        if (neg) { /* m = -m */
            wt_exact z;
            wt_exact_clear(&z);
            uint64_t mag[WT_EXACT_LIMBS];
            wt_exact__magnitude(&m, mag);
            memcpy(z.limb, mag, sizeof mag);
            m = z;
        }
        wt_exact__add_pow2(&m, f.emax + 1, 1);
        wt_exact__add_pow2(&m, f.emax - f.p, 0);
        const double below = -wt_exact_round_finite(&m, wt_exact_double_format); /* > 0: short of it */
        r.ok = below <= term;
        r.err_ulps = INFINITY;
        if (!r.ok)
            snprintf(r.why, sizeof r.why,
                     "got %g, expected %.*g: the exact total is %.3g below the overflow threshold, "
                     "beyond %s %.3g",
                     got, digits, want, below,
                     mode == WT_EXACT_WINDOW ? "the exact window's" : "the bound's n*M*2^-k =", term);
        return r;
    }
    const double err = fabs(wt_exact_minus(a, got)), ulp = wt_exact_ulp(got, f);
    const double tol = (ulp + term) * (1 + 0x1p-40); /* err and tol are each rounded once */
    r.err_ulps = err / ulp;
    r.steps = isinf(want)  ? ~0ull
              : bytes == 4 ? wt_exact_steps_float((float)got, (float)want)
                           : wt_exact_steps_double(got, want);
    r.ok = err <= tol;
    if (!r.ok)
        snprintf(r.why, sizeof r.why,
                 "got %.*g (bits %llx), exact sum rounds to %.*g: error %.4g = %.3g ulp, more than "
                 "ulp %.3g + %s%d = %.3g (n %lld, M %.3g)",
                 digits, got, (unsigned long long)got_bits, digits, want, err, r.err_ulps, ulp,
                 mode == WT_EXACT_WINDOW ? "0 (values inside the exact window), not n*M*2^-" : "n*M*2^-", bound_bits,
                 term, a->count, a->max_abs);
    return r;
}

static inline wt_exact_verdict wt_exact_check_float(const wt_exact *a, float got, int mode)
{
    uint32_t gb;
    memcpy(&gb, &got, sizeof gb);
    return wt_exact__check(a, got, gb, wt_exact_float_bits(a), wt_exact_float(a), 4, wt_exact_float_format, 36, mode);
}

static inline wt_exact_verdict wt_exact_check_double(const wt_exact *a, double got, int mode)
{
    uint64_t gb;
    memcpy(&gb, &got, sizeof gb);
    return wt_exact__check(a, got, gb, wt_exact_double_bits(a), wt_exact_double(a), 8, wt_exact_double_format, 54,
                           mode);
}

#endif /* WT_EXACT_H */
