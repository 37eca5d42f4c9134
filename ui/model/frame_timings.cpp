#include "ui/model/frame_timings.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/palette.hpp"

namespace st::ui {

const char* phaseName(Phase phase) {
  switch (phase) {
    case Phase::Simulate:
      return "simulate";
    case Phase::Update:
      return "structure update";
    case Phase::Pairs:
      return "pairs";
    case Phase::Queries:
      return "queries";
    case Phase::Draw:
      return "draw";
    case Phase::Ui:
      return "UI";
    case Phase::Swap:
      return "swap / wait";
  }
  return "";
}

const char* phaseDescription(Phase phase) {
  switch (phase) {
    case Phase::Simulate:
      return "Simulation::step: moving the circles";
    case Phase::Update:
      return "updateBatch + maintain on the structure";
    case Phase::Pairs:
      return "findPairs: every overlapping pair";
    case Phase::Queries:
      return "the Query panel's query (timed run plus traced run) and other per-frame part work";
    case Phase::Draw:
      return "building circle instances and overlays, issuing the GL draws";
    case Phase::Ui:
      return "building and rendering the ImGui panels";
    case Phase::Swap:
      return "SwapWindow: the driver finishing the frame, and vsync waiting when it is on";
  }
  return "";
}

std::uint32_t phaseColour(Phase phase) {
  using render::rgba;
  switch (phase) {
    case Phase::Simulate:
      return rgba(90, 160, 255);
    case Phase::Update:
      return rgba(255, 170, 60);
    case Phase::Pairs:
      return rgba(240, 80, 90);
    case Phase::Queries:
      return rgba(80, 220, 140);
    case Phase::Draw:
      return rgba(200, 120, 255);
    case Phase::Ui:
      return rgba(240, 230, 100);
    case Phase::Swap:
      return rgba(130, 130, 140);
  }
  return 0;
}

float niceCeiling(float v) {
  static constexpr float kSteps[] = {0.05f,   0.1f, 0.2f, 0.5f, 1,   2,    4,    8,   16.667f,
                                     33.333f, 50,   100,  200,  500, 1000, 2000, 5000};
  for (float step : kSteps) {
    if (v <= step) return step;
  }
  return std::ceil(v / 1000.0f) * 1000.0f;
}

float plotCeiling(const FrameTimings& timings, std::size_t first, float (*value)(const FrameRecord&),
                  float floor) {
  std::vector<float> values;
  for (std::size_t i = first; i < timings.size(); ++i) {
    if (!timings.isStartup(i)) values.push_back(value(timings.at(i)));
  }
  if (values.empty()) return niceCeiling(floor);
  const auto at = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) * 9 / 10);
  std::nth_element(values.begin(), at, values.end());
  return niceCeiling(std::max(1.25f * *at, floor));
}

}  // namespace st::ui
