// Where the window reads assets/ from: the installed copy beside the program must win over the source tree
// (which the packaged program never has), and $SPHERETEST_ASSETS over both.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ui/model/asset_location.hpp"

namespace st::ui {
namespace {

namespace fs = std::filesystem;

// A scratch install prefix with bin/ and, on request, share/spheretest/assets.
class InstalledPrefix {
 public:
  explicit InstalledPrefix(bool withAssets) {
    root_ = fs::temp_directory_path() /
            ("spheretest-asset-location-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(root_ / "bin");
    if (withAssets) fs::create_directories(assets());
  }
  ~InstalledPrefix() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  InstalledPrefix(const InstalledPrefix&) = delete;
  InstalledPrefix& operator=(const InstalledPrefix&) = delete;

  fs::path program() const { return root_ / "bin" / "spheretest"; }
  fs::path assets() const { return root_ / "share" / "spheretest" / "assets"; }

 private:
  fs::path root_;
};

TEST(AssetLocation, InstalledAssetsBesideTheProgramWinOverTheSourceTree) {
  const InstalledPrefix prefix(true);
  EXPECT_EQ(fs::path(assetsDirectory(nullptr, prefix.program())), prefix.assets());
  EXPECT_EQ(fs::path(assetsDirectory("", prefix.program())), prefix.assets());
}

TEST(AssetLocation, WithoutAnInstalledCopyTheSourceTreeIsUsed) {
  const InstalledPrefix prefix(false);
  EXPECT_EQ(assetsDirectory(nullptr, prefix.program()), SPHERETEST_ASSETS_DIR);
  EXPECT_EQ(assetsDirectory(nullptr, fs::path()), SPHERETEST_ASSETS_DIR);
}

TEST(AssetLocation, TheEnvironmentOverrideWinsOverBoth) {
  const InstalledPrefix prefix(true);
  EXPECT_EQ(assetsDirectory("/elsewhere/assets", prefix.program()), "/elsewhere/assets");
}

TEST(AssetLocation, TheBuildTreeProgramFindsTheSourceTreesAssets) {
  // The program of this build has no installed copy beside it, so its explanations come from the source.
  EXPECT_TRUE(fs::is_regular_file(fs::path(assetsDirectory(nullptr, fs::read_symlink("/proc/self/exe"))) /
                                  "explanations" / "grid.md"));
}

}  // namespace
}  // namespace st::ui
