#pragma once
/// \file
/// A small deterministic random generator (xoshiro256** seeded by splitmix64): the same seed gives
/// the same sequence on every platform, which std:: distributions do not promise.

#include <cstdint>

#include "spheretest/hash.hpp"

namespace st {

/// Deterministic 64-bit generator with float helpers.
class Rng {
 public:
  /// Seeds the four words of state from one 64-bit seed.
  explicit Rng(std::uint64_t seed) {
    for (std::uint64_t& word : state_) {
      seed += kGoldenGamma;
      word = mix64(seed);
    }
  }

  /// Next 64 random bits.
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform in [0, 1).
  double unit() { return double(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi) { return static_cast<float>(lo + (double(hi) - lo) * unit()); }
  /// Uniform integer in [0, n), n > 0.
  std::uint64_t below(std::uint64_t n) { return static_cast<std::uint64_t>(unit() * double(n)) % n; }
  /// True with probability p.
  bool chance(double p) { return unit() < p; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

}  // namespace st
