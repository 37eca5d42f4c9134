#pragma once
/// \file The project's one assertion macro: always on, carries a message, aborts with file and line.

#include <cstdio>
#include <cstdlib>

namespace st::detail {
/// Prints the failed condition and its message, then aborts; never returns.
[[noreturn]] inline void assertFail(const char* condition, const char* message, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: assertion failed: %s: %s\n", file, line, condition, message);
  std::abort();
}
}  // namespace st::detail

/// Checks an internal invariant in every build type; a failure is a bug in spheretest, not bad input.
#define ST_ASSERT(condition, message) \
  ((condition) ? static_cast<void>(0) : ::st::detail::assertFail(#condition, message, __FILE__, __LINE__))

#ifndef NDEBUG
/// Like ST_ASSERT, but compiled out of Release builds: for checks inside hot loops.
#define ST_DEBUG_ASSERT(condition, message) ST_ASSERT(condition, message)
#else
#define ST_DEBUG_ASSERT(condition, message) static_cast<void>(0)
#endif
