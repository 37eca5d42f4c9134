#pragma once
/// \file Where the app's data directory (assets/) is: set by the user, installed beside the program, or the
/// source tree the program was built from.

#include <filesystem>
#include <string>

namespace st::ui {

/// The assets directory: `overrideDir` when non-empty; else the installed one relative to `executable`
/// (`bin/../share/spheretest/assets`) when it exists; else the source tree's, compiled in.
std::string assetsDirectory(const char* overrideDir, const std::filesystem::path& executable);

/// The assets directory of this process: $SPHERETEST_ASSETS, the installed one, or the source tree's.
std::string assetsDirectory();

}  // namespace st::ui
