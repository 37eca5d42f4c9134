#pragma once
/// \file
/// The one 64-bit mixing function of the project (the splitmix64 finaliser), behind the random generator's
/// seeding, the pair-set and query hashes, and the grid's hash of cells outside its window: one function,
/// so that every hash in the project has the same, well-known statistics.

#include <cstdint>

namespace st {

/// 2^64 divided by the golden ratio, made odd: splitmix64's increment, added to or multiplied into seeds
/// so that consecutive ones land far apart.
inline constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;

/// The splitmix64 finaliser: a bijection of 64-bit values in which every input bit flips about half of the
/// output bits.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

}  // namespace st
