#include "render/circle_splat.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "render/palette.hpp"
#include "render/shader.hpp"

namespace st::render {
namespace {

// A quad over the written rectangle that copies the image's texels 1:1 (premultiplied alpha).
const char* kVertexShader = R"(#version 330 core
uniform vec4 uRect;      // x0, y0, x1, y1 in pixels, y up
uniform vec2 uViewport;  // pixels
out vec2 vUv;
void main() {
  vec2 corner = vec2((gl_VertexID & 1) == 0 ? uRect.x : uRect.z, (gl_VertexID & 2) == 0 ? uRect.y : uRect.w);
  vUv = corner / uViewport;
  gl_Position = vec4(vUv * 2.0 - 1.0, 0.0, 1.0);
}
)";

// Two channels per multiply: red and blue in one word, green and alpha in the other, each scaled by
// t / 256 with t in [0, 256].
inline std::uint32_t scalePacked(std::uint32_t c, std::uint32_t t) {
  const std::uint32_t rb = (((c & 0x00ff00ffu) * t) >> 8) & 0x00ff00ffu;
  const std::uint32_t ga = (((c >> 8) & 0x00ff00ffu) * t) & 0xff00ff00u;
  return rb | ga;
}

// v clamped to [0, 1], written so that a loop of it becomes vector minimum and maximum instructions.
inline float unit(float v) {
  v = v > 0.0f ? v : 0.0f;
  return v < 1.0f ? v : 1.0f;
}

inline std::uint32_t lerpPacked(std::uint32_t a, std::uint32_t b, std::uint32_t t) {
  return scalePacked(a, 256u - t) + scalePacked(b, t);
}

}  // namespace

CircleSplatter::~CircleSplatter() = default;

std::string CircleSplatter::init() {
  if (std::string error = quad_.init(kVertexShader, "splat program"); !error.empty()) return error;
  locRect_ = gl::GetUniformLocation(quad_.program, "uRect");
  locViewport_ = gl::GetUniformLocation(quad_.program, "uViewport");
  return "";
}

void CircleSplatter::resize(int width, int height) {
  width_ = width;
  height_ = height;
  image_.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), 0u);
  dirtyX0_ = dirtyY0_ = 0;
  dirtyX1_ = dirtyY1_ = -1;
  gl::BindTexture(GL_TEXTURE_2D, quad_.texture);
  gl::TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  gl::BindTexture(GL_TEXTURE_2D, 0);
}

void CircleSplatter::clearRows(int y0, int y1) {
  y0 = std::max(y0, staleY0_);
  y1 = std::min(y1, staleY1_);
  if (staleX1_ < staleX0_) return;
  for (int y = y0; y <= y1; ++y) {
    std::memset(image_.data() + static_cast<std::size_t>(y) * width_ + staleX0_, 0,
                static_cast<std::size_t>(staleX1_ - staleX0_ + 1) * sizeof(std::uint32_t));
  }
}

// Tiny circles: radius from kStampMinRadius in steps of 1/kStampRadiusSteps pixel, centres in 1/kStampPlaces
// of a pixel, a window of kStampSide x kStampSide pixels around the pixel holding the centre. Rounding a
// centre by at most 1/16 pixel and a radius by 1/32 changes no pixel visibly, and a lookup replaces the
// square roots of the general path.
constexpr float kStampMinRadius = 0.5f;
constexpr int kStampRadiusSteps = 16;
constexpr int kStampRadii = 13;  // 0.5 .. 1.25 pixels
constexpr int kStampPlaces = 8;
constexpr int kStampSide = 5;

void CircleSplatter::buildStamps(float rimPx) {
  stampRimPx_ = rimPx;
  stampCells_.clear();
  stampStart_.clear();
  for (int r = 0; r < kStampRadii; ++r) {
    const float radiusPx = kStampMinRadius + float(r) / float(kStampRadiusSteps);
    const float reach = radiusPx + 0.5f;
    const float rimWidth = std::min(rimPx, std::max(0.4f * radiusPx, 0.6f));
    for (int qy = 0; qy < kStampPlaces; ++qy) {
      for (int qx = 0; qx < kStampPlaces; ++qx) {
        stampStart_.push_back(static_cast<std::uint32_t>(stampCells_.size()));
        // The centre's place within its pixel, and the window's pixels around that pixel.
        const float cx = (float(qx) + 0.5f) / float(kStampPlaces),
                    cy = (float(qy) + 0.5f) / float(kStampPlaces);
        for (int wy = 0; wy < kStampSide; ++wy) {
          for (int wx = 0; wx < kStampSide; ++wx) {
            const float dx = float(wx - kStampSide / 2) + 0.5f - cx,
                        dy = float(wy - kStampSide / 2) + 0.5f - cy;
            const float d = std::sqrt(dx * dx + dy * dy);
            const auto coverage = static_cast<std::uint16_t>(unit(reach - d) * 256.0f);
            if (coverage == 0) continue;
            const auto rim = static_cast<std::uint16_t>(unit(d - (radiusPx - rimWidth) + 0.5f) * 256.0f);
            stampCells_.push_back(
                {static_cast<std::uint8_t>(wx), static_cast<std::uint8_t>(wy), coverage, rim});
          }
        }
      }
    }
  }
  stampStart_.push_back(static_cast<std::uint32_t>(stampCells_.size()));
}

bool CircleSplatter::splatTiny(const Pending& p, Dirty& dirty) {
  const std::uint32_t rimAlpha = p.rim >> 24;
  if ((p.fill >> 24) != 255u || (rimAlpha != 0u && rimAlpha != 255u)) return false;
  const float step = (p.radiusPx - kStampMinRadius) * float(kStampRadiusSteps);
  if (step < -0.5f || step > float(kStampRadii) - 0.5f) return false;
  const int ix = static_cast<int>(std::floor(p.sx)), iy = static_cast<int>(std::floor(p.sy));
  const int x0 = ix - kStampSide / 2, y0 = iy - kStampSide / 2;
  if (x0 < 0 || y0 < 0 || x0 + kStampSide > width_ || y0 + kStampSide > height_) return false;
  const int r = std::clamp(static_cast<int>(step + 0.5f), 0, kStampRadii - 1);
  const int qx = std::min(static_cast<int>((p.sx - float(ix)) * float(kStampPlaces)), kStampPlaces - 1);
  const int qy = std::min(static_cast<int>((p.sy - float(iy)) * float(kStampPlaces)), kStampPlaces - 1);
  const std::size_t stamp =
      (std::size_t(r) * kStampPlaces + std::size_t(qy)) * kStampPlaces + std::size_t(qx);
  const StampCell* cell = stampCells_.data() + stampStart_[stamp];
  const StampCell* end = stampCells_.data() + stampStart_[stamp + 1];
  const std::uint32_t fill = p.fill, rimColour = p.rim | 0xff000000u;
  std::uint32_t* origin = image_.data() + std::size_t(y0) * std::size_t(width_) + std::size_t(x0);
  for (; cell != end; ++cell) {
    std::uint32_t& pixel = origin[std::size_t(cell->y) * std::size_t(width_) + cell->x];
    const std::uint32_t alpha8 = cell->coverage;
    const std::uint32_t rim8 = rimAlpha == 0u ? 0u : cell->rim;
    if (alpha8 >= 256u && rim8 == 0u) {
      pixel = fill;
      continue;
    }
    pixel = scalePacked(lerpPacked(fill, rimColour, rim8), alpha8) + scalePacked(pixel, 256u - alpha8);
  }
  // The window is a little larger than what the circle covers: a dirty rectangle only has to hold it.
  dirty.x0 = std::min(dirty.x0, x0);
  dirty.y0 = std::min(dirty.y0, y0);
  dirty.x1 = std::max(dirty.x1, x0 + kStampSide - 1);
  dirty.y1 = std::max(dirty.y1, y0 + kStampSide - 1);
  return true;
}

void CircleSplatter::splat(const Pending& p, float rimPx, Dirty& dirty) {
  if (splatTiny(p, dirty)) return;
  const float sx = p.sx, sy = p.sy, radiusPx = p.radiusPx;
  const float reach = radiusPx + 0.5f;
  const int y0 = std::max(0, static_cast<int>(std::floor(sy - reach)));
  const int y1 = std::min(height_ - 1, static_cast<int>(std::floor(sy + reach)));
  const int xMin = std::max(0, static_cast<int>(std::floor(sx - reach)));
  const int xMax = std::min(width_ - 1, static_cast<int>(std::floor(sx + reach)));
  if (xMin > xMax || y0 > y1) return;
  dirty.x0 = std::min(dirty.x0, xMin);
  dirty.y0 = std::min(dirty.y0, y0);
  dirty.x1 = std::max(dirty.x1, xMax);
  dirty.y1 = std::max(dirty.y1, y1);

  // The same rules as the fragment shader: coverage from the distance to the rim, then the rim band.
  const float fillAlpha = alphaOf(p.fill);
  const float rimAlpha = alphaOf(p.rim);
  const std::uint32_t fillOpaque = p.fill | 0xff000000u;
  const std::uint32_t rimOpaque = p.rim | 0xff000000u;
  const float rimWidth = std::min(rimPx, std::max(0.4f * radiusPx, 0.6f));
  const float outer = reach * reach;
  // Each row in two passes: the coverage and rim of all its pixels at once, in a loop free of branches that
  // the compiler turns into vector instructions (square roots four at a time), then the stores.
  float alphas[kMaxRowPixels];
  float rims[kMaxRowPixels];
  for (int y = y0; y <= y1; ++y) {
    const float dy = float(y) + 0.5f - sy;
    const float span2 = outer - dy * dy;
    if (span2 <= 0.0f) continue;
    // Only the pixels whose centres can lie inside this row's chord.
    const float span = std::sqrt(span2);
    const int x0 = std::max(xMin, static_cast<int>(std::floor(sx - span - 0.5f)));
    const int x1 = std::min({xMax, static_cast<int>(std::ceil(sx + span - 0.5f)), x0 + kMaxRowPixels - 1});
    const int n = x1 - x0 + 1;
    const float first = float(x0) + 0.5f - sx;
    for (int k = 0; k < n; ++k) {
      const float dx = first + float(k);
      const float d = std::sqrt(dx * dx + dy * dy);
      const float inRim = unit(d - (radiusPx - rimWidth) + 0.5f) * rimAlpha;
      alphas[k] = (fillAlpha > inRim ? fillAlpha : inRim) * unit(reach - d);
      rims[k] = inRim;
    }
    std::uint32_t* row = image_.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + x0;
    for (int k = 0; k < n; ++k) {
      const float alpha = alphas[k];
      if (alpha <= 0.0f) continue;
      const auto alpha8 = static_cast<std::uint32_t>(alpha * 256.0f);
      const auto rim8 = static_cast<std::uint32_t>(rims[k] * 256.0f);
      if (alpha8 >= 256u && rim8 == 0u) {
        row[k] = fillOpaque;
        continue;
      }
      const std::uint32_t colour = lerpPacked(fillOpaque, rimOpaque, rim8);
      row[k] = scalePacked(colour, alpha8) + scalePacked(row[k], 256u - alpha8);
    }
  }
}

void CircleSplatter::draw(std::span<const CircleInstance> circles, const Camera& camera,
                          const CircleStyle& style, std::vector<CircleInstance>& large,
                          TaskScheduler& workers) {
  const int width = static_cast<int>(camera.width());
  const int height = static_cast<int>(camera.height());
  if (width != width_ || height != height_) resize(width, height);
  // Only last frame's rectangle holds anything, so only it needs clearing.
  staleX0_ = dirtyX0_;
  staleY0_ = dirtyY0_;
  staleX1_ = dirtyX1_;
  staleY1_ = dirtyY1_;

  const float scale = camera.pixelsPerUnit();
  const Vec2 center = camera.center();
  const float halfW = 0.5f * float(width), halfH = 0.5f * float(height);
  // Circles come in id order, which is random on screen: splatting them so would miss the cache on nearly
  // every row of every circle. Bucketing them into bands of rows, and each band into tiles of columns,
  // first keeps the pixels being written in cache, and lets the workers draw bands three apart at once (a
  // circle reaches at most into the bands beside its own). Within a tile the id order stands; between
  // tiles and bands only which of two overlapping circles lies on top can change, the same on any number of
  // workers.
  constexpr int kBandRows = 16;
  constexpr int kTileColumns = 64;
  static_assert(kMaxRadiusPx + 1.5f < float(kBandRows),
                "a circle must not reach past the neighbouring bands");
  const int bands = height_ / kBandRows + 1;
  const int tiles = width_ / kTileColumns + 1;
  const int buckets = bands * tiles;
  auto bucketOf = [&](float sx, float sy) {
    const int band = std::clamp(static_cast<int>(sy) / kBandRows, 0, bands - 1);
    const int tile = std::clamp(static_cast<int>(sx) / kTileColumns, 0, tiles - 1);
    return static_cast<std::size_t>(band * tiles + tile);
  };
  // Pieces of the circle array, a cut that depends only on its length: each finds its small circles on
  // screen and counts them per band, then places them in the band-ordered array.
  constexpr std::size_t kPieces = 64;
  const std::size_t pieceSize = std::max<std::size_t>((circles.size() + kPieces - 1) / kPieces, 4096);
  const std::size_t pieceCount = (circles.size() + pieceSize - 1) / pieceSize;
  if (pieces_.size() < pieceCount) pieces_.resize(pieceCount);
  workers.parallelFor(pieceCount, 1, [&](std::size_t first, std::size_t last, unsigned) {
    for (std::size_t p = first; p < last; ++p) {
      Piece& piece = pieces_[p];
      piece.pending.clear();
      piece.large.clear();
      piece.perBand.assign(static_cast<std::size_t>(buckets), 0u);
      const std::size_t end = std::min(circles.size(), (p + 1) * pieceSize);
      for (std::size_t i = p * pieceSize; i < end; ++i) {
        const CircleInstance& c = circles[i];
        const float radiusPx = std::max(c.radius * scale, style.minRadiusPx);
        if (radiusPx > kMaxRadiusPx) {
          piece.large.push_back(c);
          continue;
        }
        const float sx = (c.x - center.x) * scale + halfW, sy = (c.y - center.y) * scale + halfH;
        if (sx < -radiusPx - 1.0f || sy < -radiusPx - 1.0f || sx > float(width_) + radiusPx + 1.0f ||
            sy > float(height_) + radiusPx + 1.0f) {
          continue;
        }
        piece.pending.push_back({sx, sy, radiusPx, c.fill, c.rim});
        ++piece.perBand[bucketOf(sx, sy)];
      }
    }
  });
  // Where each bucket starts, and where each piece's circles of a bucket go within it (perBand becomes that).
  // A band's buckets follow each other, so a band is one range of the sorted circles.
  bandStart_.assign(static_cast<std::size_t>(bands) + 1, 0u);
  std::uint32_t total = 0;
  for (int b = 0; b < buckets; ++b) {
    if (b % tiles == 0) bandStart_[b / tiles] = total;
    for (std::size_t p = 0; p < pieceCount; ++p) {
      const std::uint32_t n = pieces_[p].perBand[b];
      pieces_[p].perBand[b] = total;
      total += n;
    }
  }
  bandStart_[bands] = total;
  sorted_.resize(total);
  workers.parallelFor(pieceCount, 1, [&](std::size_t first, std::size_t last, unsigned) {
    for (std::size_t p = first; p < last; ++p) {
      for (const Pending& pending : pieces_[p].pending)
        sorted_[pieces_[p].perBand[bucketOf(pending.sx, pending.sy)]++] = pending;
    }
  });
  for (std::size_t p = 0; p < pieceCount; ++p)
    large.insert(large.end(), pieces_[p].large.begin(), pieces_[p].large.end());
  // Last frame's rows first, then the bands in three rounds: bands of one round are three apart, so no two
  // of them write the same row. The rounds run in the same order on any number of workers.
  workers.parallelFor(static_cast<std::size_t>(bands), 4, [&](std::size_t first, std::size_t last, unsigned) {
    clearRows(int(first) * kBandRows, int(last) * kBandRows - 1);
  });
  bandDirty_.assign(static_cast<std::size_t>(bands), Dirty{width_, height_, -1, -1});
  if (style.rimPx != stampRimPx_) buildStamps(style.rimPx);
  for (int round = 0; round < 3; ++round) {
    const std::size_t inRound = static_cast<std::size_t>((bands - round + 2) / 3);
    workers.parallelFor(inRound, 1, [&](std::size_t first, std::size_t last, unsigned) {
      for (std::size_t k = first; k < last; ++k) {
        const std::size_t b = 3 * k + static_cast<std::size_t>(round);
        for (std::uint32_t i = bandStart_[b]; i < bandStart_[b + 1]; ++i)
          splat(sorted_[i], style.rimPx, bandDirty_[b]);
      }
    });
  }
  dirtyX0_ = width_;
  dirtyY0_ = height_;
  dirtyX1_ = dirtyY1_ = -1;
  for (const Dirty& d : bandDirty_) {
    dirtyX0_ = std::min(dirtyX0_, d.x0);
    dirtyY0_ = std::min(dirtyY0_, d.y0);
    dirtyX1_ = std::max(dirtyX1_, d.x1);
    dirtyY1_ = std::max(dirtyY1_, d.y1);
  }
  if (dirtyX1_ < dirtyX0_) return;

  const int w = dirtyX1_ - dirtyX0_ + 1, h = dirtyY1_ - dirtyY0_ + 1;
  gl::BindTexture(GL_TEXTURE_2D, quad_.texture);
  gl::PixelStorei(GL_UNPACK_ROW_LENGTH, width_);
  gl::TexSubImage2D(GL_TEXTURE_2D, 0, dirtyX0_, dirtyY0_, w, h, GL_RGBA, GL_UNSIGNED_BYTE,
                    image_.data() + static_cast<std::size_t>(dirtyY0_) * width_ + dirtyX0_);
  gl::PixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  gl::UseProgram(quad_.program);
  gl::Uniform4f(locRect_, float(dirtyX0_), float(dirtyY0_), float(dirtyX1_ + 1), float(dirtyY1_ + 1));
  gl::Uniform2f(locViewport_, float(width_), float(height_));
  gl::Uniform1i(gl::GetUniformLocation(quad_.program, "uImage"), 0);
  gl::BindVertexArray(quad_.vao);
  gl::BlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  gl::DrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  gl::BlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  gl::BindVertexArray(0);
  gl::BindTexture(GL_TEXTURE_2D, 0);
}

}  // namespace st::render
