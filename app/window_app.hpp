#pragma once
/// \file The interactive window (SDL2 + OpenGL 3.3 + Dear ImGui).

#include <optional>

#include "run_config.hpp"

namespace st::app {

/// Runs the window until the user closes it (or, with --screenshot, after --frames frames).
/// Returns the exit code, or nullopt when no display could be opened (the caller then runs headless).
std::optional<int> runWindowApp(const RunConfig& config);

}  // namespace st::app
