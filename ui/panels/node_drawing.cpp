#include "ui/panels/node_drawing.hpp"

#include <algorithm>
#include <cmath>

#include "render/palette.hpp"

namespace st::ui {

// ---------------------------------------------------------------------------------------------------------
// NodeRaster
// ---------------------------------------------------------------------------------------------------------

namespace {

/// Circles of a smaller radius, in pixels, are outlined sharp and cheap.
constexpr float kSharpCircleBelowPx = 24.0f;

std::uint32_t premultiplied(std::uint32_t c) {
  const std::uint32_t a = c >> 24;
  auto scale = [a](std::uint32_t v) { return (v * a + 127u) / 255u; };
  return scale(c & 0xffu) | (scale((c >> 8) & 0xffu) << 8) | (scale((c >> 16) & 0xffu) << 16) | (a << 24);
}

// Premultiplied `src` over premultiplied `dst`.
std::uint32_t over(std::uint32_t src, std::uint32_t dst) {
  if (dst == 0u) return src;
  const std::uint32_t keep = 255u - (src >> 24);
  auto channel = [&](int shift) {
    return std::min(255u, ((src >> shift) & 0xffu) + (((dst >> shift) & 0xffu) * keep + 127u) / 255u)
           << shift;
  };
  return channel(0) | channel(8) | channel(16) | channel(24);
}

}  // namespace

bool NodeRaster::reset(const Box& world, const render::Camera& camera) {
  const Box view = camera.visibleWorld();
  const Box shown{{std::max(view.min.x, world.min.x), std::max(view.min.y, world.min.y)},
                  {std::min(view.max.x, world.max.x), std::min(view.max.y, world.max.y)}};
  width_ = height_ = depthWidth_ = depthHeight_ = 0;
  if (!(shown.min.x < shown.max.x && shown.min.y < shown.max.y)) return false;
  // On whole screen pixels, so that a texel of the outlines is exactly a pixel of the window.
  const Vec2 topLeft = camera.worldToScreen({shown.min.x, shown.max.y});
  const Vec2 bottomRight = camera.worldToScreen({shown.max.x, shown.min.y});
  const float px0 = std::max(std::floor(topLeft.x), 0.0f), py0 = std::max(std::floor(topLeft.y), 0.0f);
  const float px1 = std::min(std::ceil(bottomRight.x), camera.width());
  const float py1 = std::min(std::ceil(bottomRight.y), camera.height());
  width_ = std::clamp(int(px1 - px0), 0, 8192);
  height_ = std::clamp(int(py1 - py0), 0, 8192);
  if (width_ == 0 || height_ == 0) return false;
  area_ = {camera.screenToWorld(px0, py0 + float(height_)), camera.screenToWorld(px0 + float(width_), py0)};
  pixel_ = 1.0f / camera.pixelsPerUnit();
  depthWidth_ = (width_ + kDepthTexelPx - 1) / kDepthTexelPx;
  depthHeight_ = (height_ + kDepthTexelPx - 1) / kDepthTexelPx;
  deepest_.assign(std::size_t(depthWidth_) * std::size_t(depthHeight_), std::int8_t(-1));
  outlined_.assign(deepest_.size(), std::int8_t(-1));
  lines_.assign(std::size_t(width_) * std::size_t(height_), 0u);
  return true;
}

void NodeRaster::addDepth(const NodeInfo& node, bool outlined) {
  if (deepest_.empty()) return;
  const auto depth = static_cast<std::int8_t>(std::clamp(node.depth, 0, 127));
  const float texel = pixel_ * float(kDepthTexelPx);
  const Box b = drawnBounds(node);
  // Texel i's centre is at area.min + (i + 0.5) texels: the first and last centres inside the bounds.
  const int c0 = std::max(0, int(std::ceil((b.min.x - area_.min.x) / texel - 0.5f)));
  const int c1 = std::min(depthWidth_ - 1, int(std::floor((b.max.x - area_.min.x) / texel - 0.5f)));
  const int r0 = std::max(0, int(std::ceil((b.min.y - area_.min.y) / texel - 0.5f)));
  const int r1 = std::min(depthHeight_ - 1, int(std::floor((b.max.y - area_.min.y) / texel - 0.5f)));
  auto mark = [&](std::size_t i) {
    deepest_[i] = std::max(deepest_[i], depth);
    if (outlined) outlined_[i] = std::max(outlined_[i], depth);
  };
  if (c0 > c1 || r0 > r1) {
    const float cx = 0.5f * (b.min.x + b.max.x), cy = 0.5f * (b.min.y + b.max.y);
    const int col = int(std::floor((cx - area_.min.x) / texel)),
              row = int(std::floor((cy - area_.min.y) / texel));
    if (col >= 0 && col < depthWidth_ && row >= 0 && row < depthHeight_) mark(depthIndex(col, row));
    return;
  }
  if (node.shape == NodeShape::Box) {
    for (int row = r0; row <= r1; ++row) {
      std::int8_t* d = deepest_.data() + depthIndex(c0, row);
      for (int k = 0; k <= c1 - c0; ++k) d[k] = std::max(d[k], depth);
      if (!outlined) continue;
      std::int8_t* o = outlined_.data() + depthIndex(c0, row);
      for (int k = 0; k <= c1 - c0; ++k) o[k] = std::max(o[k], depth);
    }
    return;
  }
  const Circle& c = node.circle;
  const float r2 = c.radius * c.radius;
  for (int row = r0; row <= r1; ++row) {
    const float dy = area_.min.y + (float(row) + 0.5f) * texel - c.center.y;
    for (int col = c0; col <= c1; ++col) {
      const float dx = area_.min.x + (float(col) + 0.5f) * texel - c.center.x;
      if (dx * dx + dy * dy <= r2) mark(depthIndex(col, row));
    }
  }
}

void NodeRaster::outline(const Box& box, std::uint32_t colour) {
  if (lines_.empty()) return;
  // The pixel holding each edge, as a one-pixel line along it lights it; neighbours share theirs.
  const int left = int(std::floor((box.min.x - area_.min.x) / pixel_));
  const int right = int(std::floor((box.max.x - area_.min.x) / pixel_));
  const int bottom = int(std::floor((box.min.y - area_.min.y) / pixel_));
  const int top = int(std::floor((box.max.y - area_.min.y) / pixel_));
  if (right < 0 || left >= width_ || top < 0 || bottom >= height_) return;
  const std::uint32_t src = premultiplied(colour);
  auto put = [&](int x, int y) {
    std::uint32_t& dst = lines_[std::size_t(y) * std::size_t(width_) + std::size_t(x)];
    dst = over(src, dst);
  };
  const int x0 = std::max(left, 0), x1 = std::min(right, width_ - 1);
  const int y0 = std::max(bottom, 0), y1 = std::min(top, height_ - 1);
  for (const int y : {bottom, top}) {
    if (y < 0 || y >= height_ || (y == top && top == bottom)) continue;
    for (int x = x0; x <= x1; ++x) put(x, y);
  }
  for (const int x : {left, right}) {
    if (x < 0 || x >= width_ || (x == right && right == left)) continue;
    for (int y = std::max(y0, bottom + 1); y <= std::min(y1, top - 1); ++y) put(x, y);
  }
}

void NodeRaster::outline(const Circle& circle, std::uint32_t colour) {
  if (lines_.empty()) return;
  const float cx = (circle.center.x - area_.min.x) / pixel_, cy = (circle.center.y - area_.min.y) / pixel_;
  const float r = circle.radius / pixel_;
  if (r > 8192.0f || cx + r + 1.0f < 0.0f || cx - r - 1.0f > float(width_) || cy + r + 1.0f < 0.0f ||
      cy - r - 1.0f > float(height_))
    return;
  if (r < kSharpCircleBelowPx) {
    // Small circles, thousands of them in a sphere tree at 100,000 circles: one pixel per step around the
    // circle, without square roots (the midpoint circle), sharp rather than soft.
    const std::uint32_t src = premultiplied(colour);
    const int x0 = int(std::floor(cx)), y0 = int(std::floor(cy)), radius = std::max(1, int(std::lround(r)));
    auto put = [&](int x, int y) {
      if (x < 0 || x >= width_ || y < 0 || y >= height_) return;
      std::uint32_t& dst = lines_[std::size_t(y) * std::size_t(width_) + std::size_t(x)];
      dst = over(src, dst);
    };
    int x = radius, y = 0, err = 1 - radius;
    while (x >= y) {
      put(x0 + x, y0 + y), put(x0 - x, y0 + y), put(x0 + x, y0 - y), put(x0 - x, y0 - y);
      if (x != y) put(x0 + y, y0 + x), put(x0 - y, y0 + x), put(x0 + y, y0 - x), put(x0 - y, y0 - x);
      ++y;
      if (err < 0) {
        err += 2 * y + 1;
      } else {
        --x;
        err += 2 * (y - x) + 1;
      }
    }
    return;
  }
  // The pixels within a pixel of the circle, each as opaque as it is close: per row, the two short runs
  // between the circles of radius r + 1 and r - 1.
  const float outer = r + 1.0f, inner = std::max(r - 1.0f, 0.0f);
  const std::uint32_t alpha = colour >> 24;
  const int y0 = std::max(0, int(std::floor(cy - outer))),
            y1 = std::min(height_ - 1, int(std::ceil(cy + outer)));
  for (int y = y0; y <= y1; ++y) {
    const float dy = float(y) + 0.5f - cy;
    if (std::fabs(dy) > outer) continue;
    const float xo = std::sqrt(outer * outer - dy * dy);
    const float xi = std::fabs(dy) < inner ? std::sqrt(inner * inner - dy * dy) : 0.0f;
    for (const float side : {-1.0f, 1.0f}) {
      const float from = side < 0.0f ? cx - xo : cx + xi, to = side < 0.0f ? cx - xi : cx + xo;
      const int x0 = std::max(0, int(std::floor(from))), x1 = std::min(width_ - 1, int(std::floor(to)));
      for (int x = x0; x <= x1; ++x) {
        const float dx = float(x) + 0.5f - cx;
        const float near = 1.0f - std::fabs(std::sqrt(dx * dx + dy * dy) - r);
        if (near <= 0.0f) continue;
        std::uint32_t& dst = lines_[std::size_t(y) * std::size_t(width_) + std::size_t(x)];
        dst = over(premultiplied(render::withAlpha(colour, std::uint32_t(float(alpha) * near))), dst);
      }
    }
  }
}

void NodeRaster::paint(render::WorldImage& fill, render::WorldImage& overImage, int deepest,
                       bool withFill) const {
  if (width_ == 0) return;
  const float texel = pixel_ * float(kDepthTexelPx);
  if (withFill) {
    fill.area = {area_.min,
                 {area_.min.x + float(depthWidth_) * texel, area_.min.y + float(depthHeight_) * texel}};
    fill.width = depthWidth_;
    fill.height = depthHeight_;
    fill.premultiplied = false;
    fill.texels.resize(deepest_.size());
    std::uint32_t shades[128];
    for (int d = 0; d < 128; ++d)
      shades[d] = render::depthFill(deepest > 0 ? float(d) / float(deepest) : 0.5f);
    for (std::size_t i = 0; i < deepest_.size(); ++i)
      fill.texels[i] = deepest_[i] < 0 ? 0u : shades[deepest_[i]];
  }
  overImage.area = area_;
  overImage.width = width_;
  overImage.height = height_;
  overImage.premultiplied = true;
  overImage.texels.resize(lines_.size());
  std::uint32_t haze[kHazeMax / kHazePerLevel + 2];
  for (std::uint32_t k = 0; k < std::size(haze); ++k)
    haze[k] =
        premultiplied(render::withAlpha(render::depthShade(0.0f), std::min(k * kHazePerLevel, kHazeMax)));
  std::vector<std::uint32_t> hazeRow(static_cast<std::size_t>(depthWidth_));
  for (int y = 0; y < height_; ++y) {
    const int row = y / kDepthTexelPx;
    if (y % kDepthTexelPx == 0) {
      for (int col = 0; col < depthWidth_; ++col) {
        const std::size_t i = depthIndex(col, row);
        const int hidden = withFill ? deepest_[i] - std::max<int>(outlined_[i], 0) : 0;
        hazeRow[std::size_t(col)] =
            hidden <= 0 ? 0u : haze[std::min<std::size_t>(std::size_t(hidden), std::size(haze) - 1)];
      }
    }
    const std::uint32_t* line = lines_.data() + std::size_t(y) * std::size_t(width_);
    std::uint32_t* out = overImage.texels.data() + std::size_t(y) * std::size_t(width_);
    for (int x = 0; x < width_; ++x) {
      const std::uint32_t under = hazeRow[std::size_t(x / kDepthTexelPx)];
      out[x] = line[x] == 0u ? under : over(line[x], under);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// PatchGrid
// ---------------------------------------------------------------------------------------------------------

void PatchGrid::reset(const Box& view, float ppu, float patchPx) {
  view_ = view;
  cellWorld_ = std::max(patchPx, 1.0f) / std::max(ppu, 1e-12f);
  columns_ = std::clamp(int(std::ceil((view.max.x - view.min.x) / cellWorld_)), 1, 4096);
  rows_ = std::clamp(int(std::ceil((view.max.y - view.min.y) / cellWorld_)), 1, 4096);
  counts_.assign(std::size_t(columns_) * std::size_t(rows_), 0);
  used_ = 0;
}

void PatchGrid::add(const Box& bounds) {
  if (counts_.empty()) return;
  const float cx = 0.5f * (bounds.min.x + bounds.max.x), cy = 0.5f * (bounds.min.y + bounds.max.y);
  if (!(cx >= view_.min.x && cx <= view_.max.x && cy >= view_.min.y && cy <= view_.max.y)) return;
  const int col = std::clamp(int((cx - view_.min.x) / cellWorld_), 0, columns_ - 1);
  const int row = std::clamp(int((cy - view_.min.y) / cellWorld_), 0, rows_ - 1);
  std::uint8_t& n = counts_[std::size_t(row) * std::size_t(columns_) + std::size_t(col)];
  if (n == 0) ++used_;
  n = std::uint8_t(std::min(255, n + 1));
}

void PatchGrid::fill(render::ShapeBatch& out, std::uint32_t colour, std::uint32_t minAlpha,
                     std::uint32_t maxAlpha) const {
  if (used_ == 0) return;
  for (int row = 0; row < rows_; ++row) {
    for (int col = 0; col < columns_; ++col) {
      const std::uint8_t n = counts_[std::size_t(row) * std::size_t(columns_) + std::size_t(col)];
      if (n == 0) continue;
      const std::uint32_t alpha = std::min<std::uint32_t>(minAlpha + 4u * (n - 1u), maxAlpha);
      const Vec2 min{view_.min.x + float(col) * cellWorld_, view_.min.y + float(row) * cellWorld_};
      out.boxFill({min, {min.x + cellWorld_, min.y + cellWorld_}}, render::withAlpha(colour, alpha));
    }
  }
}

}  // namespace st::ui
