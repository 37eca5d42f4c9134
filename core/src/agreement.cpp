// The agreement rule shared by the headless runner and the benchmark. See spheretest/agreement.hpp.

#include "spheretest/agreement.hpp"

#include <algorithm>
#include <map>

namespace st {

std::vector<Judgement> judgeAnswers(std::span<const std::uint64_t> answers,
                                    std::optional<std::size_t> reference) {
  std::vector<Judgement> judged(answers.size());
  const std::size_t others = answers.empty() ? 0 : answers.size() - 1;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    Judgement& j = judged[i];
    if (reference) {
      j.verdict = i == *reference                     ? Verdict::Reference
                  : answers[i] == answers[*reference] ? Verdict::Agrees
                                                      : Verdict::Disagrees;
      continue;
    }
    std::map<std::uint64_t, std::size_t> votes;
    for (std::size_t o = 0; o < answers.size(); ++o) {
      if (o != i) ++votes[answers[o]];
    }
    // Fewer than three others leave no majority: two structures outvote nobody, and a tie has no winner.
    const auto top = std::max_element(votes.begin(), votes.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    if (others >= 3 && top->second * 2 > others) {
      j.verdict = answers[i] == top->first ? Verdict::Agrees : Verdict::Disagrees;
      j.supporters = top->second;
      continue;
    }
    j.verdict = Verdict::Unchecked;
    for (std::size_t o = 0; o < answers.size(); ++o) {
      if (o != i && answers[o] != answers[i]) {
        j.verdict = Verdict::Disputed;
        j.differing = o;
        break;
      }
    }
  }
  return judged;
}

}  // namespace st
