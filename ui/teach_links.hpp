#pragma once
/// \file How the teaching panels reach each other and how a run is told, from its environment, which of
/// them to open (screenshots of a given panel, claim or step need no clicking):
///
///   SPHERETEST_OPEN_PANELS="Claims,Split view"   the panels listed are open, every other panel is closed;
///                                                overlays listed are shown, "-Name" hides one
///   SPHERETEST_TEACH="claim=seed-003;split=enneatree;step=40"
///                                                start-up requests read by the teaching panels (see each)

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ui/compare_runner.hpp"
#include "ui/demo_part.hpp"

namespace st::ui {

/// Names of the teaching panels, for menus, links and SPHERETEST_OPEN_PANELS.
namespace teach_names {
inline constexpr const char* kExplain = "Explain";    ///< per-structure explanation
inline constexpr const char* kStep = "Step through";  ///< query step-through
inline constexpr const char* kSplit = "Split view";   ///< two structures side by side
inline constexpr const char* kCompare = "Compare";    ///< every structure on the current frame
inline constexpr const char* kClaims = "Claims";      ///< the source documents' claims, measured
inline constexpr const char* kExport = "Export";      ///< screenshot and CSV
}  // namespace teach_names

/// What the teaching panels hand each other within one window (the parts have no other shared place).
struct TeachBoard {
  std::optional<CompareResult> comparison;  ///< the Compare panel's latest result, for the CSV export
  std::string claimToShow;                  ///< a claim id another panel asked the Claims panel to run
};

/// The window's board.
TeachBoard& teachBoard();

/// Splits `text` at `separator`, trimming spaces around each piece and dropping empty pieces.
std::vector<std::string> splitList(std::string_view text, char separator);

/// Applies a SPHERETEST_OPEN_PANELS list (see the file comment) to the parts.
void applyOpenPanels(std::span<PartSlot> parts, std::string_view list);

/// Applies $SPHERETEST_OPEN_PANELS when it is set (the window calls this once at start).
void applyOpenPanelsFromEnvironment(std::span<PartSlot> parts);

/// The value of `key` in a "key=value;key=value" list, or "" when absent.
std::string requestValue(std::string_view requests, std::string_view key);

/// The value of `key` in $SPHERETEST_TEACH, or "" when absent.
std::string teachRequest(std::string_view key);

}  // namespace st::ui
