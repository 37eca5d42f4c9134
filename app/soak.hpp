#pragma once
/// \file The long-run check: the window switches structure at a fixed interval for a given time and, on every
/// switch, checks that no circle was lost or moved by the switch and that the new structure's pairs equal
/// brute force's; memory is sampled at each switch so growth shows.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "ui/model/demo_model.hpp"

namespace st::app {

/// Drives and checks a soak run; the window calls afterFrame() once per frame.
class SoakMonitor {
 public:
  /// Runs for `seconds`, switching every `switchEverySeconds` of wall time (the brute-force check excluded).
  SoakMonitor(double seconds, double switchEverySeconds);

  /// Checks the frame after a switch and switches when due; returns the exit code once the run is over.
  std::optional<int> afterFrame(ui::DemoModel& model);

 private:
  bool checkSwitchFrame(ui::DemoModel& model);
  void switchStructure(ui::DemoModel& model);
  static std::size_t residentBytes();

  double seconds_;
  double switchEvery_;
  std::uint64_t start_ = 0;
  std::uint64_t nextSwitch_ = 0;
  bool checkPending_ = false;
  std::size_t switches_ = 0;
  std::size_t failures_ = 0;
  std::size_t circlesBefore_ = 0;
  std::size_t rssFirst_ = 0;
  std::size_t rssMin_ = 0;
  std::size_t rssMax_ = 0;
  std::size_t rssLast_ = 0;
};

}  // namespace st::app
