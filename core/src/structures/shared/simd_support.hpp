#pragma once
// The only place the structures touch vector intrinsics. Vector loops are written against the lane types
// below (as Box2D v3 writes its solver against b2FloatW), so each loop reads as arithmetic on lanes and the
// instruction sets stay in one file:
//
// - four float or int lanes, or two double lanes: SSE2, which every x86-64 CPU has, or plain arrays on
//   other targets (the same results, one lane at a time, so nothing depends on the CPU's vector unit);
// - sixteen float or int lanes, or eight double lanes: AVX-512, for functions compiled beside the rest with
//   a target attribute (SPHERETEST_WIDE) and chosen at run time where the CPU has it (widestVectorLanes).
//
// Each operation is one instruction of its instruction set, always inlined, so a loop written with them
// compiles to the code the intrinsics themselves would give. Nothing here is needed for correctness: every
// vector loop has a plain equivalent.

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif
#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SPHERETEST_WIDE_LANES 1
#else
#define SPHERETEST_WIDE_LANES 0
#endif
// GCC takes the deliberately undefined start value of some AVX-512 intrinsics (_mm512_undefined_*) for an
// uninitialised read; the 16-lane code is wrapped in these. Clang has no such warning.
#if defined(__GNUC__) && !defined(__clang__)
#define SPHERETEST_WIDE_CODE_BEGIN \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define SPHERETEST_WIDE_CODE_END _Pragma("GCC diagnostic pop")
#else
#define SPHERETEST_WIDE_CODE_BEGIN
#define SPHERETEST_WIDE_CODE_END
#endif
// Marks a function compiled for AVX-512; only such functions may use the 16-lane types.
#define SPHERETEST_WIDE [[gnu::target("avx512f")]]
// The same for the always-inlined helpers of such functions.
#define SPHERETEST_WIDE_INLINE [[gnu::target("avx512f"), gnu::always_inline]] inline
// A small function the hot loops need inlined even where the compiler's estimate says otherwise.
#define SPHERETEST_ALWAYS_INLINE [[gnu::always_inline]] inline
// A function whose callees are all inlined into it (a kernel built from lane helpers).
#define SPHERETEST_FLATTEN [[gnu::flatten]]

namespace st::simd {

/// Asks the CPU to start loading the cache line at `address` ahead of its use; only a hint, it changes no
/// result (an address past an array's end is never read).
[[gnu::always_inline]] inline void prefetch(const void* address) {
  __builtin_prefetch(address);
}

/// The number of set bits of a lane mask.
[[gnu::always_inline]] inline unsigned bitCount(std::uint32_t mask) {
  return static_cast<unsigned>(__builtin_popcount(mask));
}

/// The index of the lowest set bit of a non-zero mask (the next lane to handle).
[[gnu::always_inline]] inline unsigned lowestSetBit(std::uint32_t mask) {
  return static_cast<unsigned>(__builtin_ctz(mask));
}

/// The index of the lowest set bit of a non-zero 64-bit mask.
[[gnu::always_inline]] inline unsigned lowestSetBit64(std::uint64_t mask) {
  return static_cast<unsigned>(__builtin_ctzll(mask));
}

/// The number of zero bits above the highest set bit of a non-zero 64-bit value.
[[gnu::always_inline]] inline unsigned leadingZeros64(std::uint64_t value) {
  return static_cast<unsigned>(__builtin_clzll(value));
}

/// Widest vector loops this build and CPU offer: 16 lanes where AVX-512 runs, otherwise 4.
inline int widestVectorLanes() {
#if SPHERETEST_WIDE_LANES
  static const int widest = __builtin_cpu_supports("avx512f") ? 16 : 4;
  return widest;
#else
  return 4;
#endif
}

// ---------------------------------------------------------------------------------------------------------
// Four lanes: SSE2, or plain arrays
// ---------------------------------------------------------------------------------------------------------

#if defined(__SSE2__)

/// Whether the four-lane types run on a vector unit (loops that only pay off vectorised check this).
inline constexpr bool kNativeLanes = true;

/// Four float lanes.
struct FloatW4 {
  __m128 v;  ///< the lanes
};
/// Four 32-bit integer lanes.
struct IntW4 {
  __m128i v;  ///< the lanes
};
/// Two double lanes.
struct DoubleW2 {
  __m128d v;  ///< the lanes
};

/// Every lane `a`.
[[gnu::always_inline]] inline FloatW4 splatF4(float a) {
  return {_mm_set1_ps(a)};
}
/// Lanes a, b, c, d in order.
[[gnu::always_inline]] inline FloatW4 setF4(float a, float b, float c, float d) {
  return {_mm_setr_ps(a, b, c, d)};
}
/// Every lane's bits set: the true of a comparison.
[[gnu::always_inline]] inline FloatW4 allTrueF4() {
  return {_mm_castsi128_ps(_mm_set1_epi32(-1))};
}
/// Four floats from memory, any alignment.
[[gnu::always_inline]] inline FloatW4 loadF4(const float* p) {
  return {_mm_loadu_ps(p)};
}
/// Lane-wise sum.
[[gnu::always_inline]] inline FloatW4 add(FloatW4 a, FloatW4 b) {
  return {_mm_add_ps(a.v, b.v)};
}
/// Lane-wise difference.
[[gnu::always_inline]] inline FloatW4 sub(FloatW4 a, FloatW4 b) {
  return {_mm_sub_ps(a.v, b.v)};
}
/// Lane-wise product.
[[gnu::always_inline]] inline FloatW4 mul(FloatW4 a, FloatW4 b) {
  return {_mm_mul_ps(a.v, b.v)};
}
/// Lane-wise bitwise and (of comparison results).
[[gnu::always_inline]] inline FloatW4 bitAnd(FloatW4 a, FloatW4 b) {
  return {_mm_and_ps(a.v, b.v)};
}
/// Lanes where a <= b (false for a NaN), as all ones or all zeros.
[[gnu::always_inline]] inline FloatW4 lessEqual(FloatW4 a, FloatW4 b) {
  return {_mm_cmple_ps(a.v, b.v)};
}
/// Lanes where a >= b (false for a NaN), as all ones or all zeros.
[[gnu::always_inline]] inline FloatW4 greaterEqual(FloatW4 a, FloatW4 b) {
  return {_mm_cmpge_ps(a.v, b.v)};
}
/// The sign bit of every lane as a 4-bit mask, lane 0 lowest.
[[gnu::always_inline]] inline unsigned signMask(FloatW4 a) {
  return static_cast<unsigned>(_mm_movemask_ps(a.v));
}
/// Transposes four rows of four lanes: lane j of row i becomes lane i of row j.
[[gnu::always_inline]] inline void transpose(FloatW4& r0, FloatW4& r1, FloatW4& r2, FloatW4& r3) {
  _MM_TRANSPOSE4_PS(r0.v, r1.v, r2.v, r3.v);
}

/// Four 32-bit integers from memory, any alignment.
[[gnu::always_inline]] inline IntW4 loadI4(const std::uint32_t* p) {
  return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))};
}
/// Lanes where a == b, as all ones or all zeros.
[[gnu::always_inline]] inline IntW4 equal(IntW4 a, IntW4 b) {
  return {_mm_cmpeq_epi32(a.v, b.v)};
}
/// The sign bit of every lane as a 4-bit mask, lane 0 lowest.
[[gnu::always_inline]] inline unsigned signMask(IntW4 a) {
  return static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(a.v)));
}
/// Lane `Lane` (0 to 3).
template <int Lane>
[[gnu::always_inline]] inline std::int32_t lane(IntW4 a) {
  if constexpr (Lane == 0) {
    return _mm_cvtsi128_si32(a.v);
  } else {
    return _mm_cvtsi128_si32(_mm_shuffle_epi32(a.v, _MM_SHUFFLE(3, 2, 1, Lane)));
  }
}

/// Lanes a, b.
[[gnu::always_inline]] inline DoubleW2 setD2(double a, double b) {
  return {_mm_set_pd(b, a)};
}
/// Lanes a, b, widened from float.
[[gnu::always_inline]] inline DoubleW2 widenD2(float a, float b) {
  return {_mm_cvtps_pd(_mm_setr_ps(a, b, 0.0f, 0.0f))};
}
/// Every lane `a`.
[[gnu::always_inline]] inline DoubleW2 splatD2(double a) {
  return {_mm_set1_pd(a)};
}
/// Lane-wise product.
[[gnu::always_inline]] inline DoubleW2 mul(DoubleW2 a, DoubleW2 b) {
  return {_mm_mul_pd(a.v, b.v)};
}
/// Lane-wise a < b ? a : b (so b where either is a NaN).
[[gnu::always_inline]] inline DoubleW2 min(DoubleW2 a, DoubleW2 b) {
  return {_mm_min_pd(a.v, b.v)};
}
/// Lane-wise a > b ? a : b (so b where either is a NaN).
[[gnu::always_inline]] inline DoubleW2 max(DoubleW2 a, DoubleW2 b) {
  return {_mm_max_pd(a.v, b.v)};
}
/// floor() of both lanes, which must lie within the 32-bit range, into integer lanes 0 and 1 (lanes 2 and 3
/// hold nothing of use): truncation, less one where it rounded up, as baseline x86-64 has no rounding
/// instruction.
[[gnu::always_inline]] inline IntW4 floorToInt(DoubleW2 a) {
  const __m128i truncated = _mm_cvttpd_epi32(a.v);
  const __m128i above = _mm_castpd_si128(_mm_cmpgt_pd(_mm_cvtepi32_pd(truncated), a.v));
  // The comparison's 64-bit all-ones lanes hold -1 in their low 32 bits: gather those two words.
  return {_mm_add_epi32(truncated, _mm_shuffle_epi32(above, _MM_SHUFFLE(3, 3, 2, 0)))};
}

#else

/// Whether the four-lane types run on a vector unit (loops that only pay off vectorised check this).
inline constexpr bool kNativeLanes = false;

/// Four float lanes.
struct FloatW4 {
  float v[4];  ///< the lanes
};
/// Four 32-bit integer lanes.
struct IntW4 {
  std::int32_t v[4];  ///< the lanes
};
/// Two double lanes.
struct DoubleW2 {
  double v[2];  ///< the lanes
};

/// Every lane `a`.
inline FloatW4 splatF4(float a) {
  return {{a, a, a, a}};
}
/// Lanes a, b, c, d in order.
inline FloatW4 setF4(float a, float b, float c, float d) {
  return {{a, b, c, d}};
}
/// Every lane's bits set: the true of a comparison.
inline FloatW4 allTrueF4() {
  const float t = __builtin_bit_cast(float, ~std::uint32_t{0});
  return {{t, t, t, t}};
}
/// Four floats from memory, any alignment.
inline FloatW4 loadF4(const float* p) {
  return {{p[0], p[1], p[2], p[3]}};
}
/// Lane-wise sum.
inline FloatW4 add(FloatW4 a, FloatW4 b) {
  return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]}};
}
/// Lane-wise difference.
inline FloatW4 sub(FloatW4 a, FloatW4 b) {
  return {{a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2], a.v[3] - b.v[3]}};
}
/// Lane-wise product.
inline FloatW4 mul(FloatW4 a, FloatW4 b) {
  return {{a.v[0] * b.v[0], a.v[1] * b.v[1], a.v[2] * b.v[2], a.v[3] * b.v[3]}};
}
/// Lane-wise bitwise and (of comparison results).
inline FloatW4 bitAnd(FloatW4 a, FloatW4 b) {
  FloatW4 r;
  for (int i = 0; i < 4; ++i) {
    r.v[i] = __builtin_bit_cast(
        float, __builtin_bit_cast(std::uint32_t, a.v[i]) & __builtin_bit_cast(std::uint32_t, b.v[i]));
  }
  return r;
}
/// Lanes where a <= b (false for a NaN), as all ones or all zeros.
inline FloatW4 lessEqual(FloatW4 a, FloatW4 b) {
  const float t = __builtin_bit_cast(float, ~std::uint32_t{0});
  return {{a.v[0] <= b.v[0] ? t : 0.0f, a.v[1] <= b.v[1] ? t : 0.0f, a.v[2] <= b.v[2] ? t : 0.0f,
           a.v[3] <= b.v[3] ? t : 0.0f}};
}
/// Lanes where a >= b (false for a NaN), as all ones or all zeros.
inline FloatW4 greaterEqual(FloatW4 a, FloatW4 b) {
  return lessEqual(b, a);
}
/// The sign bit of every lane as a 4-bit mask, lane 0 lowest.
inline unsigned signMask(FloatW4 a) {
  unsigned m = 0;
  for (int i = 0; i < 4; ++i) m |= (__builtin_bit_cast(std::uint32_t, a.v[i]) >> 31) << i;
  return m;
}
/// Transposes four rows of four lanes: lane j of row i becomes lane i of row j.
inline void transpose(FloatW4& r0, FloatW4& r1, FloatW4& r2, FloatW4& r3) {
  FloatW4* rows[4] = {&r0, &r1, &r2, &r3};
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) {
      const float t = rows[i]->v[j];
      rows[i]->v[j] = rows[j]->v[i];
      rows[j]->v[i] = t;
    }
  }
}

/// Four 32-bit integers from memory, any alignment.
inline IntW4 loadI4(const std::uint32_t* p) {
  return {{static_cast<std::int32_t>(p[0]), static_cast<std::int32_t>(p[1]), static_cast<std::int32_t>(p[2]),
           static_cast<std::int32_t>(p[3])}};
}
/// Lanes where a == b, as all ones or all zeros.
inline IntW4 equal(IntW4 a, IntW4 b) {
  return {{a.v[0] == b.v[0] ? -1 : 0, a.v[1] == b.v[1] ? -1 : 0, a.v[2] == b.v[2] ? -1 : 0,
           a.v[3] == b.v[3] ? -1 : 0}};
}
/// The sign bit of every lane as a 4-bit mask, lane 0 lowest.
inline unsigned signMask(IntW4 a) {
  unsigned m = 0;
  for (int i = 0; i < 4; ++i) m |= (static_cast<std::uint32_t>(a.v[i]) >> 31) << i;
  return m;
}
/// Lane `Lane` (0 to 3).
template <int Lane>
inline std::int32_t lane(IntW4 a) {
  return a.v[Lane];
}

/// Lanes a, b.
inline DoubleW2 setD2(double a, double b) {
  return {{a, b}};
}
/// Lanes a, b, widened from float.
inline DoubleW2 widenD2(float a, float b) {
  return {{double(a), double(b)}};
}
/// Every lane `a`.
inline DoubleW2 splatD2(double a) {
  return {{a, a}};
}
/// Lane-wise product.
inline DoubleW2 mul(DoubleW2 a, DoubleW2 b) {
  return {{a.v[0] * b.v[0], a.v[1] * b.v[1]}};
}
/// Lane-wise a < b ? a : b (so b where either is a NaN).
inline DoubleW2 min(DoubleW2 a, DoubleW2 b) {
  return {{a.v[0] < b.v[0] ? a.v[0] : b.v[0], a.v[1] < b.v[1] ? a.v[1] : b.v[1]}};
}
/// Lane-wise a > b ? a : b (so b where either is a NaN).
inline DoubleW2 max(DoubleW2 a, DoubleW2 b) {
  return {{a.v[0] > b.v[0] ? a.v[0] : b.v[0], a.v[1] > b.v[1] ? a.v[1] : b.v[1]}};
}
/// floor() of both lanes, which must lie within the 32-bit range, into integer lanes 0 and 1 (lanes 2 and 3
/// hold nothing of use).
inline IntW4 floorToInt(DoubleW2 a) {
  IntW4 r{{0, 0, 0, 0}};
  for (int i = 0; i < 2; ++i) {
    const auto truncated = static_cast<std::int32_t>(a.v[i]);
    r.v[i] = truncated - (double(truncated) > a.v[i] ? 1 : 0);
  }
  return r;
}

#endif

// ---------------------------------------------------------------------------------------------------------
// Sixteen lanes: AVX-512, inside SPHERETEST_WIDE functions only
// ---------------------------------------------------------------------------------------------------------

#if SPHERETEST_WIDE_LANES
SPHERETEST_WIDE_CODE_BEGIN

/// One bit per lane of sixteen, lane 0 lowest.
using Mask16 = __mmask16;
/// One bit per lane of eight, lane 0 lowest.
using Mask8 = __mmask8;

/// Sixteen float lanes.
struct FloatW16 {
  __m512 v;  ///< the lanes
};
/// Sixteen 32-bit integer lanes (or, where an operation says so, eight 64-bit ones).
struct IntW16 {
  __m512i v;  ///< the lanes
};
/// Eight double lanes.
struct DoubleW8 {
  __m512d v;  ///< the lanes
};

/// Every lane `a`.
SPHERETEST_WIDE_INLINE FloatW16 splatF16(float a) {
  return {_mm512_set1_ps(a)};
}
/// Every lane zero.
SPHERETEST_WIDE_INLINE FloatW16 zeroF16() {
  return {_mm512_setzero_ps()};
}
/// Sixteen floats from memory, any alignment.
SPHERETEST_WIDE_INLINE FloatW16 loadF16(const float* p) {
  return {_mm512_loadu_ps(p)};
}
/// The lanes of `m` from memory (the others zero and not read), any alignment.
SPHERETEST_WIDE_INLINE FloatW16 loadF16(Mask16 m, const float* p) {
  return {_mm512_maskz_loadu_ps(m, p)};
}
/// Lane-wise sum.
SPHERETEST_WIDE_INLINE FloatW16 add(FloatW16 a, FloatW16 b) {
  return {_mm512_add_ps(a.v, b.v)};
}
/// Lane-wise difference.
SPHERETEST_WIDE_INLINE FloatW16 sub(FloatW16 a, FloatW16 b) {
  return {_mm512_sub_ps(a.v, b.v)};
}
/// Lane-wise product.
SPHERETEST_WIDE_INLINE FloatW16 mul(FloatW16 a, FloatW16 b) {
  return {_mm512_mul_ps(a.v, b.v)};
}
/// Lane-wise a * b + c, rounded once.
SPHERETEST_WIDE_INLINE FloatW16 mulAdd(FloatW16 a, FloatW16 b, FloatW16 c) {
  return {_mm512_fmadd_ps(a.v, b.v, c.v)};
}
/// Lanes where a <= b (false for a NaN).
SPHERETEST_WIDE_INLINE Mask16 lessEqual(FloatW16 a, FloatW16 b) {
  return _mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ);
}
/// Lanes of `m` where a <= b (false for a NaN).
SPHERETEST_WIDE_INLINE Mask16 lessEqual(Mask16 m, FloatW16 a, FloatW16 b) {
  return _mm512_mask_cmp_ps_mask(m, a.v, b.v, _CMP_LE_OQ);
}
/// Writes the lanes of `m` to consecutive floats from `p`, lowest first.
SPHERETEST_WIDE_INLINE void compressStore(float* p, Mask16 m, FloatW16 a) {
  _mm512_mask_compressstoreu_ps(p, m, a.v);
}
/// `base` with the lanes of `m` replaced by the lowest lanes of `a`, in order.
SPHERETEST_WIDE_INLINE FloatW16 expand(FloatW16 base, Mask16 m, FloatW16 a) {
  return {_mm512_mask_expand_ps(base.v, m, a.v)};
}
/// Lane i takes lane index[i] of the 32 lanes of a then b (bit 4 of the index picks b).
SPHERETEST_WIDE_INLINE FloatW16 permute(FloatW16 a, IntW16 index, FloatW16 b) {
  return {_mm512_permutex2var_ps(a.v, index.v, b.v)};
}
/// `base` with lane i of the lanes of `m` replaced by lane index[i] of `a`.
SPHERETEST_WIDE_INLINE FloatW16 permute(FloatW16 base, Mask16 m, IntW16 index, FloatW16 a) {
  return {_mm512_mask_permutexvar_ps(base.v, m, index.v, a.v)};
}
/// The same bits as integer lanes.
SPHERETEST_WIDE_INLINE IntW16 bitsAsInt(FloatW16 a) {
  return {_mm512_castps_si512(a.v)};
}
/// Lanes 8 Half .. 8 Half + 7 (Half 0 or 1) widened to double.
template <int Half>
SPHERETEST_WIDE_INLINE DoubleW8 widenHalf(FloatW16 a) {
  if constexpr (Half == 0) {
    return {_mm512_cvtps_pd(_mm512_castps512_ps256(a.v))};
  } else {
    return {_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a.v), 1)))};
  }
}

/// Every lane `a`.
SPHERETEST_WIDE_INLINE IntW16 splatI16(std::int32_t a) {
  return {_mm512_set1_epi32(a)};
}
/// Every lane zero.
SPHERETEST_WIDE_INLINE IntW16 zeroI16() {
  return {_mm512_setzero_si512()};
}
/// Lanes a0 .. a15 in order.
SPHERETEST_WIDE_INLINE IntW16 setI16(std::int32_t a0, std::int32_t a1, std::int32_t a2, std::int32_t a3,
                                     std::int32_t a4, std::int32_t a5, std::int32_t a6, std::int32_t a7,
                                     std::int32_t a8, std::int32_t a9, std::int32_t a10, std::int32_t a11,
                                     std::int32_t a12, std::int32_t a13, std::int32_t a14, std::int32_t a15) {
  return {_mm512_setr_epi32(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15)};
}
/// Sixteen 32-bit integers from memory, any alignment.
SPHERETEST_WIDE_INLINE IntW16 loadI16(const std::uint32_t* p) {
  return {_mm512_loadu_si512(p)};
}
/// The lanes of `m` from memory (the others zero and not read), any alignment.
SPHERETEST_WIDE_INLINE IntW16 loadI16(Mask16 m, const std::uint32_t* p) {
  return {_mm512_maskz_loadu_epi32(m, p)};
}
/// Sixteen signed bytes from memory, any alignment, sign-extended to the lanes.
SPHERETEST_WIDE_INLINE IntW16 loadSignedBytesI16(const std::uint8_t* p) {
  return {_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))};
}
/// Writes the 64 bytes of the lanes to `p`, any alignment.
SPHERETEST_WIDE_INLINE void store(void* p, IntW16 a) {
  _mm512_storeu_si512(p, a.v);
}
/// Lane-wise sum (modulo 2^32).
SPHERETEST_WIDE_INLINE IntW16 add(IntW16 a, IntW16 b) {
  return {_mm512_add_epi32(a.v, b.v)};
}
/// Lane-wise difference (modulo 2^32).
SPHERETEST_WIDE_INLINE IntW16 sub(IntW16 a, IntW16 b) {
  return {_mm512_sub_epi32(a.v, b.v)};
}
/// Lane-wise minimum, unsigned.
SPHERETEST_WIDE_INLINE IntW16 minUnsigned(IntW16 a, IntW16 b) {
  return {_mm512_min_epu32(a.v, b.v)};
}
/// Lane-wise maximum, unsigned.
SPHERETEST_WIDE_INLINE IntW16 maxUnsigned(IntW16 a, IntW16 b) {
  return {_mm512_max_epu32(a.v, b.v)};
}
/// Lanes where a == b.
SPHERETEST_WIDE_INLINE Mask16 equal(IntW16 a, IntW16 b) {
  return _mm512_cmpeq_epi32_mask(a.v, b.v);
}
/// The lanes of `m` moved to the lowest lanes, in order, the rest zero.
SPHERETEST_WIDE_INLINE IntW16 compress(Mask16 m, IntW16 a) {
  return {_mm512_maskz_compress_epi32(m, a.v)};
}
/// Writes the lanes of `m` to consecutive integers from `p`, lowest first.
SPHERETEST_WIDE_INLINE void compressStore(std::uint32_t* p, Mask16 m, IntW16 a) {
  _mm512_mask_compressstoreu_epi32(p, m, a.v);
}
/// `base` with the lanes of `m` replaced by the lowest lanes of `a`, in order.
SPHERETEST_WIDE_INLINE IntW16 expand(IntW16 base, Mask16 m, IntW16 a) {
  return {_mm512_mask_expand_epi32(base.v, m, a.v)};
}
/// Lane i takes lane index[i] of `a`.
SPHERETEST_WIDE_INLINE IntW16 permute(IntW16 index, IntW16 a) {
  return {_mm512_permutexvar_epi32(index.v, a.v)};
}
/// Lane i takes lane i - Shift (1 to 15), the first Shift lanes zero.
template <int Shift>
SPHERETEST_WIDE_INLINE IntW16 shiftLanesUp(IntW16 a) {
  return {_mm512_alignr_epi32(a.v, _mm512_setzero_si512(), 16 - Shift)};
}
/// Lane 0.
SPHERETEST_WIDE_INLINE std::int32_t firstLane(IntW16 a) {
  return _mm512_cvtsi512_si32(a.v);
}
/// Eight 64-bit lanes from lanes 8 Half .. 8 Half + 7 (Half 0 or 1) of two: low[k] | high[k] << 32, the
/// layout of a pair of 32-bit fields in memory.
template <int Half>
SPHERETEST_WIDE_INLINE IntW16 zipHalf(IntW16 low, IntW16 high) {
  if constexpr (Half == 0) {
    return {_mm512_or_si512(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(low.v)),
                            _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(high.v)), 32))};
  } else {
    return {
        _mm512_or_si512(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(low.v, 1)),
                        _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(high.v, 1)), 32))};
  }
}
/// The 64-bit lanes of `m` moved to the lowest lanes, in order, the rest zero.
SPHERETEST_WIDE_INLINE IntW16 compress64(Mask8 m, IntW16 a) {
  return {_mm512_maskz_compress_epi64(m, a.v)};
}

/// Every lane `a`.
SPHERETEST_WIDE_INLINE DoubleW8 splatD8(double a) {
  return {_mm512_set1_pd(a)};
}
/// Lane-wise sum.
SPHERETEST_WIDE_INLINE DoubleW8 add(DoubleW8 a, DoubleW8 b) {
  return {_mm512_add_pd(a.v, b.v)};
}
/// Lane-wise difference.
SPHERETEST_WIDE_INLINE DoubleW8 sub(DoubleW8 a, DoubleW8 b) {
  return {_mm512_sub_pd(a.v, b.v)};
}
/// Lane-wise product.
SPHERETEST_WIDE_INLINE DoubleW8 mul(DoubleW8 a, DoubleW8 b) {
  return {_mm512_mul_pd(a.v, b.v)};
}
/// Lanes of `m` where a <= b (false for a NaN).
SPHERETEST_WIDE_INLINE Mask8 lessEqual(Mask8 m, DoubleW8 a, DoubleW8 b) {
  return _mm512_mask_cmp_pd_mask(m, a.v, b.v, _CMP_LE_OQ);
}

SPHERETEST_WIDE_CODE_END
#endif

}  // namespace st::simd
