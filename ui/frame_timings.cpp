#include "ui/frame_timings.hpp"

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

}  // namespace st::ui
