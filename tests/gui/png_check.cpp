// Checks a window screenshot the way a person glancing at it would: it exists, has the window's size, is
// not blank (many distinct colours), and, when given brute force's screenshot of the same scene and frame,
// shows the structure's nodes. Brute force has no nodes, and every structure moves the same circles and
// finds the same pairs and query hits, so in the middle of the window (where no panel sits by default)
// the pixels that are empty background in brute force's picture but not in this one are the structure's
// node outlines and the query's walk through them.
//
// With --same it instead checks that two screenshots are the same picture below a number of top rows (the
// menu bar, whose frame rate differs from run to run): the window drawn on different numbers of threads.
//
// With --share it checks which share of a rectangle of the picture has one colour (within a few levels):
// e.g. that the presentation view leaves the world's middle free of any panel's background and draws no
// menu bar, while the normal view of the same lesson step does cover it.
//
// With --count it counts the pixels of one colour (within a tolerance) in a rectangle and checks that the
// count lies in a range: the query's hits visible over the nodes, a zoomed view's large circles.
//
// With --content-box it checks that everything but the background (its commonest colour) below a number of
// top rows lies within a box of at most the given size: node drawings clipped to the world.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

namespace {

struct Image {
  int width = 0;
  int height = 0;
  unsigned char* rgb = nullptr;
  explicit Image(const char* path) {
    int channels = 0;
    rgb = stbi_load(path, &width, &height, &channels, 3);
  }
  ~Image() { stbi_image_free(rgb); }
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;
  const unsigned char* at(int x, int y) const { return rgb + 3 * (long(y) * width + x); }
};

int usage() {
  std::fprintf(stderr,
               "usage: png_check FILE WIDTH HEIGHT MIN_COLOURS [BRUTE_FILE MIN_NODE_PIXELS]\n"
               "       png_check --same FILE_A FILE_B TOP_ROWS_TO_SKIP\n"
               "       png_check --share FILE X0 Y0 X1 Y1 R,G,B MIN_PERCENT MAX_PERCENT\n"
               "       png_check --count FILE R G B TOLERANCE X0 Y0 X1 Y1 MIN [MAX]\n"
               "       png_check --content-box FILE TOP_ROWS_TO_SKIP MAX_WIDTH MAX_HEIGHT\n");
  return 2;
}

// Whether the share of pixels of colour `rgb` (each channel within 3) in [x0, x1) x [y0, y1) lies within
// [minPercent, maxPercent]; prints it.
int colourShare(const char* path, int x0, int y0, int x1, int y1, const char* rgb, double minPercent,
                double maxPercent) {
  const Image image(path);
  int r = 0, g = 0, b = 0;
  if (image.rgb == nullptr || std::sscanf(rgb, "%d,%d,%d", &r, &g, &b) != 3 || x0 < 0 || y0 < 0 ||
      x1 > image.width || y1 > image.height || x0 >= x1 || y0 >= y1) {
    std::printf("%s: missing, not a PNG, or the region or colour is wrong\n", path);
    return 1;
  }
  long matching = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      const unsigned char* p = image.at(x, y);
      if (std::abs(p[0] - r) <= 3 && std::abs(p[1] - g) <= 3 && std::abs(p[2] - b) <= 3) ++matching;
    }
  }
  const double percent = 100.0 * double(matching) / (double(x1 - x0) * double(y1 - y0));
  const bool ok = percent >= minPercent && percent <= maxPercent;
  std::printf("%s: %.1f%% of %d..%d x %d..%d is %s (wanted %g..%g%%)%s\n", path, percent, x0, x1, y0, y1, rgb,
              minPercent, maxPercent, ok ? "" : ": FAIL");
  return ok ? 0 : 1;
}

std::uint32_t packed(const unsigned char* p) {
  return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16);
}

// Pixels within `tolerance` (sum of the channels' differences) of r, g, b in [x0, x1) x [y0, y1).
int countColour(char** argv, int argc) {
  const Image image(argv[2]);
  if (image.rgb == nullptr) {
    std::printf("%s: missing or not a PNG\n", argv[2]);
    return 1;
  }
  const int r = std::atoi(argv[3]), g = std::atoi(argv[4]), b = std::atoi(argv[5]),
            tolerance = std::atoi(argv[6]);
  const int x0 = std::max(0, std::atoi(argv[7])), y0 = std::max(0, std::atoi(argv[8]));
  const int x1 = std::min(image.width, std::atoi(argv[9])), y1 = std::min(image.height, std::atoi(argv[10]));
  const long least = std::atol(argv[11]);
  const long most = argc > 12 ? std::atol(argv[12]) : -1;
  long n = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      const unsigned char* p = image.at(x, y);
      if (std::abs(p[0] - r) + std::abs(p[1] - g) + std::abs(p[2] - b) <= tolerance) ++n;
    }
  }
  std::printf("%s: %ld pixels of (%d, %d, %d) in x %d..%d, y %d..%d", argv[2], n, r, g, b, x0, x1, y0, y1);
  if (n < least || (most >= 0 && n > most)) {
    std::printf(", outside %ld..%ld\n", least, most);
    return 1;
  }
  std::printf("\n");
  return 0;
}

// Whether everything that is not background below `skipRows` fits a box of maxWidth x maxHeight.
int contentBox(const char* path, int skipRows, int maxWidth, int maxHeight) {
  const Image image(path);
  if (image.rgb == nullptr) {
    std::printf("%s: missing or not a PNG\n", path);
    return 1;
  }
  std::unordered_map<std::uint32_t, long> histogram;
  for (int y = skipRows; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) ++histogram[packed(image.at(x, y))];
  }
  std::uint32_t background = 0;
  long best = -1;
  for (const auto& [colour, n] : histogram) {
    if (n > best) best = n, background = colour;
  }
  int x0 = image.width, y0 = image.height, x1 = -1, y1 = -1;
  for (int y = skipRows; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const unsigned char* p = image.at(x, y);
      const std::uint32_t c = packed(p);
      const int d = std::abs(int(c & 0xff) - int(background & 0xff)) +
                    std::abs(int((c >> 8) & 0xff) - int((background >> 8) & 0xff)) +
                    std::abs(int((c >> 16) & 0xff) - int((background >> 16) & 0xff));
      if (d <= 6) continue;
      x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
    }
  }
  const int w = x1 - x0 + 1, h = y1 - y0 + 1;
  std::printf("%s: drawing within x %d..%d, y %d..%d (%dx%d)", path, x0, x1, y0, y1, w, h);
  if (w > maxWidth || h > maxHeight) {
    std::printf(", larger than %dx%d: something is drawn outside the world\n", maxWidth, maxHeight);
    return 1;
  }
  std::printf("\n");
  return 0;
}

// Whether two screenshots hold the same pixels below their first `skipRows` rows; prints what differs.
int comparePictures(const char* pathA, const char* pathB, int skipRows) {
  const Image a(pathA), b(pathB);
  if (a.rgb == nullptr || b.rgb == nullptr || a.width != b.width || a.height != b.height) {
    std::printf("%s, %s: missing, not PNGs or of different sizes\n", pathA, pathB);
    return 1;
  }
  long differing = 0;
  int x0 = a.width, y0 = a.height, x1 = -1, y1 = -1;
  for (int y = skipRows; y < a.height; ++y) {
    for (int x = 0; x < a.width; ++x) {
      const unsigned char* p = a.at(x, y);
      const unsigned char* q = b.at(x, y);
      if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) continue;
      ++differing;
      x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
    }
  }
  if (differing == 0) {
    std::printf("%s and %s: the same picture below row %d\n", pathA, pathB, skipRows);
    return 0;
  }
  std::printf("%s and %s: %ld pixels differ, within x %d..%d, y %d..%d\n", pathA, pathB, differing, x0, x1,
              y0, y1);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string_view(argv[1]) == "--same")
    return comparePictures(argv[2], argv[3], std::atoi(argv[4]));
  if (argc == 10 && std::string_view(argv[1]) == "--share") {
    return colourShare(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]),
                       std::atoi(argv[6]), argv[7], std::atof(argv[8]), std::atof(argv[9]));
  }
  if ((argc == 12 || argc == 13) && std::string_view(argv[1]) == "--count") return countColour(argv, argc);
  if (argc == 6 && std::string_view(argv[1]) == "--content-box")
    return contentBox(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  if (argc != 5 && argc != 7) return usage();
  const char* path = argv[1];
  const int wantWidth = std::atoi(argv[2]);
  const int wantHeight = std::atoi(argv[3]);
  const std::size_t minColours = std::strtoul(argv[4], nullptr, 10);

  const Image image(path);
  if (image.rgb == nullptr) {
    std::printf("%s: missing or not a PNG\n", path);
    return 1;
  }
  bool ok = true;
  if (image.width != wantWidth || image.height != wantHeight) {
    std::printf("%s: %dx%d, expected %dx%d\n", path, image.width, image.height, wantWidth, wantHeight);
    ok = false;
  }
  std::unordered_set<std::uint32_t> distinct;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const unsigned char* p = image.at(x, y);
      distinct.insert(std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16));
    }
  }
  std::printf("%s: %dx%d, %zu distinct colours", path, image.width, image.height, distinct.size());
  if (distinct.size() < minColours) {
    std::printf("\n%s: fewer than %zu distinct colours: blank or nearly so", path, minColours);
    ok = false;
  }

  if (argc == 7) {
    const Image brute(argv[5]);
    const long minNodePixels = std::atol(argv[6]);
    if (brute.rgb == nullptr || brute.width != image.width || brute.height != image.height) {
      std::printf("\n%s: brute force's screenshot is missing or of another size", argv[5]);
      ok = false;
    } else {
      const int x0 = image.width * 3 / 10, x1 = image.width * 7 / 10;
      const int y0 = image.height / 20, y1 = image.height * 3 / 4;
      // The background is the commonest colour of brute force's picture there.
      std::unordered_map<std::uint32_t, long> histogram;
      for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) {
          const unsigned char* p = brute.at(x, y);
          ++histogram[std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16)];
        }
      }
      std::uint32_t background = 0;
      long best = -1;
      for (const auto& [colour, n] : histogram) {
        if (n > best) {
          best = n;
          background = colour;
        }
      }
      long differing = 0;
      for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) {
          const unsigned char* a = image.at(x, y);
          const unsigned char* b = brute.at(x, y);
          const std::uint32_t bruteColour =
              std::uint32_t(b[0]) | (std::uint32_t(b[1]) << 8) | (std::uint32_t(b[2]) << 16);
          if (bruteColour != background) continue;
          if (std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]) > 12) ++differing;
        }
      }
      std::printf(", %ld node pixels (on brute force's empty background, in the middle)", differing);
      if (differing < minNodePixels) {
        std::printf("\n%s: fewer than %ld: the structure's nodes are not visible", path, minNodePixels);
        ok = false;
      }
    }
  }
  std::printf("\n");
  return ok ? 0 : 1;
}
