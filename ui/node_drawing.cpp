#include "ui/node_drawing.hpp"

#include <algorithm>
#include <cmath>

#include "render/palette.hpp"

namespace st::ui {

// ---------------------------------------------------------------------------------------------------------
// DepthMap
// ---------------------------------------------------------------------------------------------------------

void DepthMap::reset(const Box& area, float ppu) {
  area_ = area;
  texel_ = kTexelPx / std::max(ppu, 1e-12f);
  width_ = std::clamp(int(std::ceil((area.max.x - area.min.x) / texel_)), 1, 2048);
  height_ = std::clamp(int(std::ceil((area.max.y - area.min.y) / texel_)), 1, 2048);
  // A map clamped to 2048 texels keeps covering the whole area with larger texels.
  texel_ = std::max(
      {texel_, (area.max.x - area.min.x) / float(width_), (area.max.y - area.min.y) / float(height_)});
  deepest_.assign(std::size_t(width_) * std::size_t(height_), std::int8_t(-1));
  outlined_.assign(deepest_.size(), std::int8_t(-1));
}

void DepthMap::add(const NodeInfo& node, bool outlined) {
  if (deepest_.empty()) return;
  const auto depth = static_cast<std::int8_t>(std::clamp(node.depth, 0, 127));
  auto mark = [&](int col, int row) {
    const std::size_t i = index(col, row);
    deepest_[i] = std::max(deepest_[i], depth);
    if (outlined) outlined_[i] = std::max(outlined_[i], depth);
  };
  const Box b = drawnBounds(node);
  // Texel i's centre is at area.min + (i + 0.5) texels: the first and last centres inside the bounds.
  const int c0 = std::max(0, int(std::ceil((b.min.x - area_.min.x) / texel_ - 0.5f)));
  const int c1 = std::min(width_ - 1, int(std::floor((b.max.x - area_.min.x) / texel_ - 0.5f)));
  const int r0 = std::max(0, int(std::ceil((b.min.y - area_.min.y) / texel_ - 0.5f)));
  const int r1 = std::min(height_ - 1, int(std::floor((b.max.y - area_.min.y) / texel_ - 0.5f)));
  if (c0 > c1 || r0 > r1) {
    const float cx = 0.5f * (b.min.x + b.max.x), cy = 0.5f * (b.min.y + b.max.y);
    const int col = int(std::floor((cx - area_.min.x) / texel_)),
              row = int(std::floor((cy - area_.min.y) / texel_));
    if (col >= 0 && col < width_ && row >= 0 && row < height_) mark(col, row);
    return;
  }
  if (node.shape == NodeShape::Box) {
    for (int row = r0; row <= r1; ++row) {
      for (int col = c0; col <= c1; ++col) mark(col, row);
    }
    return;
  }
  const Circle& c = node.circle;
  const float r2 = c.radius * c.radius;
  for (int row = r0; row <= r1; ++row) {
    const float dy = area_.min.y + (float(row) + 0.5f) * texel_ - c.center.y;
    for (int col = c0; col <= c1; ++col) {
      const float dx = area_.min.x + (float(col) + 0.5f) * texel_ - c.center.x;
      if (dx * dx + dy * dy <= r2) mark(col, row);
    }
  }
}

void DepthMap::paint(render::WorldImage& fill, render::WorldImage& haze, int deepest) const {
  for (render::WorldImage* image : {&fill, &haze}) {
    image->area = {area_.min, {area_.min.x + float(width_) * texel_, area_.min.y + float(height_) * texel_}};
    image->width = width_;
    image->height = height_;
    image->texels.resize(deepest_.size());
  }
  std::uint32_t shades[128];
  for (int d = 0; d < 128; ++d) shades[d] = render::depthFill(deepest > 0 ? float(d) / float(deepest) : 0.5f);
  const std::uint32_t hazeColour = render::depthShade(0.0f, 0);
  for (std::size_t i = 0; i < deepest_.size(); ++i) {
    const int d = deepest_[i];
    fill.texels[i] = d < 0 ? 0u : shades[d];
    const int hidden = d - std::max<int>(outlined_[i], 0);
    haze.texels[i] =
        hidden <= 0 ? 0u
                    : render::withAlpha(hazeColour, std::min<std::uint32_t>(
                                                        kHazePerLevel * std::uint32_t(hidden), kHazeMax));
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
