#include "ui/model/asset_location.hpp"

#include <cstdlib>
#include <system_error>

namespace st::ui {

std::string assetsDirectory(const char* overrideDir, const std::filesystem::path& executable) {
  if (overrideDir != nullptr && *overrideDir != '\0') return overrideDir;
  // An installed program uses its own data even where the source tree it was built from is still present.
  if (!executable.empty()) {
    const std::filesystem::path installed = executable.parent_path() / SPHERETEST_INSTALLED_ASSETS;
    std::error_code ignored;
    if (std::filesystem::is_directory(installed, ignored)) return installed.lexically_normal().string();
  }
  return SPHERETEST_ASSETS_DIR;
}

std::string assetsDirectory() {
  // Linux names the running executable here; elsewhere the path is empty and the fallbacks apply.
  std::error_code ignored;
  return assetsDirectory(std::getenv("SPHERETEST_ASSETS"),
                         std::filesystem::read_symlink("/proc/self/exe", ignored));
}

}  // namespace st::ui
