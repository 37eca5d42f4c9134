#pragma once
/// \file
/// How several structures' answers to the same question are checked against each other: against brute force
/// where it ran, else against a majority of at least three others, else not at all.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace st {

/// The verdict on one structure's answer.
enum class Verdict {
  Agrees,     ///< the same as brute force's, or as the answer of more than half of three or more others
  Disagrees,  ///< differs from brute force's, or from that majority's
  Disputed,   ///< differs from some other answer, with no brute force or majority to settle which is right
  Unchecked,  ///< the same as every other answer, but too few of them to call that a check
  Reference,  ///< brute force's own answer, which the others are checked against
};

/// One answer's verdict and what it rests on.
struct Judgement {
  Verdict verdict = Verdict::Unchecked;  ///< the verdict
  std::size_t supporters = 0;  ///< Agrees / Disagrees by majority: how many others gave the accepted answer
  std::size_t differing = 0;   ///< Disputed: the index of an other answer that differs
};

/// Judges each of `answers` (hashes of one question's answer, one per structure); `reference` is the index
/// of brute force's answer when it ran. Without it an answer is checked only against the answer of more than
/// half of the others, and only when there are at least three others.
std::vector<Judgement> judgeAnswers(std::span<const std::uint64_t> answers,
                                    std::optional<std::size_t> reference);

}  // namespace st
