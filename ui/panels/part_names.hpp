#pragma once
/// \file Names of the parts other parts ask about (DemoContext::isShown), kept in one place.

namespace st::ui::part_names {

inline constexpr const char* kQueryTrace = "Query visited / pruned";  ///< overlay drawing the walk
inline constexpr const char* kCandidates = "Candidates and hits";     ///< overlay marking tested circles

}  // namespace st::ui::part_names
