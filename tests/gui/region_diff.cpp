// Compares a rectangle of two pictures of the same size that a lossy codec may have blurred: counts the
// pixels whose largest channel difference exceeds a tolerance, and fails when there are more than allowed.
// The clip test uses it to check that a video's frame shows what a screenshot of the same frame shows
// where the recording's progress box is drawn on screen, so that the box is not in the clip.

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr, "usage: region_diff A.png B.png X0 Y0 X1 Y1 TOLERANCE MAX_PIXELS\n");
    return 2;
  }
  int wa = 0, ha = 0, wb = 0, hb = 0, channels = 0;
  unsigned char* a = stbi_load(argv[1], &wa, &ha, &channels, 3);
  unsigned char* b = stbi_load(argv[2], &wb, &hb, &channels, 3);
  const int x0 = std::atoi(argv[3]), y0 = std::atoi(argv[4]), x1 = std::atoi(argv[5]),
            y1 = std::atoi(argv[6]);
  const int tolerance = std::atoi(argv[7]);
  const long allowed = std::atol(argv[8]);
  if (a == nullptr || b == nullptr || wa != wb || ha != hb || x0 < 0 || y0 < 0 || x1 > wa || y1 > ha ||
      x0 >= x1 || y0 >= y1) {
    std::printf("%s, %s: missing, of different sizes, or the rectangle is outside them\n", argv[1], argv[2]);
    return 1;
  }
  long differing = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      const unsigned char* p = a + 3 * (long(y) * wa + x);
      const unsigned char* q = b + 3 * (long(y) * wa + x);
      const int d = std::max({std::abs(p[0] - q[0]), std::abs(p[1] - q[1]), std::abs(p[2] - q[2])});
      differing += d > tolerance;
    }
  }
  stbi_image_free(a);
  stbi_image_free(b);
  std::printf("%s against %s in (%d,%d)-(%d,%d): %ld pixels differ by more than %d (at most %ld allowed)\n",
              argv[1], argv[2], x0, y0, x1, y1, differing, tolerance, allowed);
  return differing <= allowed ? 0 : 1;
}
