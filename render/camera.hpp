#pragma once
/// \file The 2D view: which world point sits at the window's centre and how many pixels a world unit takes.
///
/// Screen coordinates are drawable pixels with y down (as SDL and ImGui report them); world y points up.

#include <algorithm>
#include <cmath>

#include "spheretest/geometry.hpp"

namespace st::render {

/// Pan/zoom camera over the world plane.
class Camera {
 public:
  /// Sets the viewport size in drawable pixels (called on every resize; the centre stays put).
  void setViewport(float widthPx, float heightPx) {
    width_ = std::max(widthPx, 1.0f);
    height_ = std::max(heightPx, 1.0f);
  }
  /// Viewport width in pixels.
  float width() const { return width_; }
  /// Viewport height in pixels.
  float height() const { return height_; }
  /// World point at the viewport's centre.
  Vec2 center() const { return {static_cast<float>(centerX_), static_cast<float>(centerY_)}; }
  /// Pixels per world unit.
  float pixelsPerUnit() const { return static_cast<float>(scale_); }

  /// Places the camera so the whole box shows with a small margin.
  void fit(const Box& box) { fitInto(box, 0.0f, 0.0f, width_, height_); }

  /// Places the camera so the whole box shows with a small margin inside the viewport pixels
  /// [x0, x1) x [y0, y1) (y down), e.g. the part of the window no panel covers.
  void fitInto(const Box& box, float x0, float y0, float x1, float y1) {
    const double w = std::max(double(box.max.x) - box.min.x, 1e-6);
    const double h = std::max(double(box.max.y) - box.min.y, 1e-6);
    scale_ = clampScale(0.94 * std::min(std::max(x1 - x0, 1.0f) / w, std::max(y1 - y0, 1.0f) / h));
    // The box's centre goes to the region's centre, which lies off the viewport's centre by this much.
    centerX_ = 0.5 * (double(box.min.x) + box.max.x) - (0.5 * (double(x0) + x1) - 0.5 * width_) / scale_;
    centerY_ = 0.5 * (double(box.min.y) + box.max.y) + (0.5 * (double(y0) + y1) - 0.5 * height_) / scale_;
  }

  /// World point under a screen pixel.
  Vec2 screenToWorld(float sx, float sy) const {
    return {static_cast<float>(centerX_ + (sx - 0.5 * width_) / scale_),
            static_cast<float>(centerY_ - (sy - 0.5 * height_) / scale_)};
  }
  /// Screen pixel of a world point.
  Vec2 worldToScreen(Vec2 w) const {
    return {static_cast<float>(0.5 * width_ + (w.x - centerX_) * scale_),
            static_cast<float>(0.5 * height_ - (w.y - centerY_) * scale_)};
  }
  /// The world box the viewport shows.
  Box visibleWorld() const {
    const Vec2 a = screenToWorld(0, height_);
    const Vec2 b = screenToWorld(width_, 0);
    return {a, b};
  }

  /// Moves the view by a screen-space drag.
  void panPixels(float dx, float dy) {
    centerX_ -= dx / scale_;
    centerY_ += dy / scale_;
  }
  /// Zooms by `factor` keeping the world point under (sx, sy) fixed.
  void zoomAround(float sx, float sy, float factor) {
    const Vec2 before = screenToWorld(sx, sy);
    scale_ = clampScale(scale_ * factor);
    const Vec2 after = screenToWorld(sx, sy);
    centerX_ += double(before.x) - after.x;
    centerY_ += double(before.y) - after.y;
  }

 private:
  // Far enough both ways to inspect a single tiny circle or a world of 1e7 units, near enough that
  // float world coordinates in the shaders keep sub-pixel precision.
  static double clampScale(double s) { return std::clamp(s, 1e-7, 2e3); }

  double centerX_ = 0.0;
  double centerY_ = 0.0;
  double scale_ = 1.0;
  float width_ = 1.0f;
  float height_ = 1.0f;
};

}  // namespace st::render
