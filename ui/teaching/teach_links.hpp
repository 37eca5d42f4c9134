#pragma once
/// \file How the teaching panels reach each other and how a run is told, from its environment, which of
/// them to open (screenshots of a given panel, claim or step need no clicking):
///
///   SPHERETEST_OPEN_PANELS="Claims,Split view"   the panels listed are open, every other panel is closed;
///                                                overlays listed are shown, "-Name" hides one
///   SPHERETEST_TEACH="claim=seed-003;split=enneatree;step=40"
///                                                start-up requests read by the teaching panels (see each)
///
/// A lesson step replaces the requests while the window runs (postTeachRequests): every panel reads them
/// again then, through the same code that reads SPHERETEST_TEACH at start.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ui/model/compare_runner.hpp"
#include "ui/model/lesson.hpp"
#include "ui/panels/demo_part.hpp"

namespace st::ui {

/// Names of the teaching panels, for menus, links and SPHERETEST_OPEN_PANELS.
namespace teach_names {
inline constexpr const char* kExplain = "Explain";       ///< per-structure explanation
inline constexpr const char* kStep = "Step through";     ///< query step-through
inline constexpr const char* kSplit = "Split view";      ///< two structures side by side
inline constexpr const char* kCompare = "Compare";       ///< every structure on the current frame
inline constexpr const char* kClaims = "Claims";         ///< the source documents' claims, measured
inline constexpr const char* kExport = "Export";         ///< screenshot and CSV
inline constexpr const char* kLesson = "Lesson";         ///< the open lesson's step
inline constexpr const char* kStartHere = "Start here";  ///< the list of lessons
}  // namespace teach_names

/// What the teaching panels hand each other within one window (the parts have no other shared place).
struct TeachBoard {
  std::optional<CompareResult> comparison;  ///< the Compare panel's latest result, for the CSV export
  std::string claimToShow;                  ///< a claim id another panel asked the Claims panel to run
  std::string requests;                     ///< the requests in force: $SPHERETEST_TEACH, then a lesson's
  std::uint64_t requestsGeneration = 1;     ///< changes whenever `requests` is replaced
  std::string lessonToOpen;                 ///< a lesson file to open (the command line, Start here)
  std::size_t lessonStep = 0;               ///< the step to open it at, 0-based
  int lessonMove = 0;                       ///< steps to move the open lesson by (the keys: Back -1, Next +1)
};

/// The window's board.
TeachBoard& teachBoard();

/// The names a lesson may use: the registry's structures and the registered panels and overlays.
LessonVocabulary lessonVocabulary(const StructureRegistry& registry);

/// Splits `text` at `separator`, trimming spaces around each piece and dropping empty pieces.
std::vector<std::string> splitList(std::string_view text, char separator);

/// Applies a SPHERETEST_OPEN_PANELS list (see the file comment) to the parts.
void applyOpenPanels(std::span<PartSlot> parts, std::string_view list);

/// Applies $SPHERETEST_OPEN_PANELS when it is set (the window calls this once at start).
void applyOpenPanelsFromEnvironment(std::span<PartSlot> parts);

/// The value of `key` in a "key=value;key=value" list, or "" when absent.
std::string requestValue(std::string_view requests, std::string_view key);

/// The value of `key` in the requests in force ($SPHERETEST_TEACH, or a lesson step's), or "" when absent.
std::string teachRequest(std::string_view key);

/// Replaces the requests in force; every teaching panel reads them again at its next update.
void postTeachRequests(std::string requests);

/// Whether the requests changed since `seen` (0 at first: they are read once at start); updates `seen`.
bool teachRequestsChanged(std::uint64_t& seen);

}  // namespace st::ui
