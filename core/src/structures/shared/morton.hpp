#pragma once

// Z-order (Morton) keys: the bits of two coordinates interleaved, so that sorting by the key keeps
// neighbours in the plane near each other in memory.

#include <cstdint>

namespace st {

/// Spreads the low 32 bits of `v` to the even bit positions (one axis of a 64-bit Z-order key).
constexpr std::uint64_t spreadEvenBits(std::uint64_t v) {
  v &= 0x00000000ffffffffull;
  v = (v | (v << 16)) & 0x0000ffff0000ffffull;
  v = (v | (v << 8)) & 0x00ff00ff00ff00ffull;
  v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0full;
  v = (v | (v << 2)) & 0x3333333333333333ull;
  return (v | (v << 1)) & 0x5555555555555555ull;
}

/// Gathers the even bits of `v` into the low 32 (the inverse of spreadEvenBits).
constexpr std::uint64_t compactEvenBits(std::uint64_t v) {
  v &= 0x5555555555555555ull;
  v = (v | (v >> 1)) & 0x3333333333333333ull;
  v = (v | (v >> 2)) & 0x0f0f0f0f0f0f0f0full;
  v = (v | (v >> 4)) & 0x00ff00ff00ff00ffull;
  v = (v | (v >> 8)) & 0x0000ffff0000ffffull;
  return (v | (v >> 16)) & 0x00000000ffffffffull;
}

/// The 32-bit Z-order key of a cell whose coordinates are below 2^16 (higher bits are dropped).
constexpr std::uint32_t mortonKey16(std::uint32_t x, std::uint32_t y) {
  return static_cast<std::uint32_t>(spreadEvenBits(x & 0xffffu) | (spreadEvenBits(y & 0xffffu) << 1));
}

static_assert(mortonKey16(0xffffu, 0) == 0x55555555u && mortonKey16(0, 1) == 2u && mortonKey16(3, 0) == 5u);
static_assert(compactEvenBits(spreadEvenBits(0x89abcdefu)) == 0x89abcdefu);

}  // namespace st
