#pragma once
// What the vector loops of the structures may use: SSE2 everywhere on x86-64, and 16-lane AVX-512 code
// compiled beside it (function by function, with a target attribute) and chosen at run time where the CPU
// has it. Nothing here is required for correctness: every vector loop has a plain equivalent.

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

namespace st::simd {

/// Widest vector loops this build and CPU offer: 16 lanes where AVX-512 runs, otherwise 4.
inline int widestVectorLanes() {
#if SPHERETEST_WIDE_LANES
  static const int widest = __builtin_cpu_supports("avx512f") ? 16 : 4;
  return widest;
#else
  return 4;
#endif
}

}  // namespace st::simd
