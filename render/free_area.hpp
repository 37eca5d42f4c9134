#pragma once
/// \file Where the world may be shown: the part of the window that the panels leave free.

#include <algorithm>
#include <span>
#include <vector>

namespace st::render {

/// A rectangle of the window in drawable pixels, y down: [x0, x1) x [y0, y1).
struct ScreenRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  /// Width in pixels.
  float width() const { return x1 - x0; }
  /// Height in pixels.
  float height() const { return y1 - y0; }
};

/// The rectangle of `screen` that overlaps no panel and shows a `boxWidth` x `boxHeight` box largest (of
/// equal scales, the larger). Panels cut the window into few pieces, so every rectangle whose edges are the
/// screen's or a panel's is tried. Where the panels leave less than half the scale the whole screen
/// gives (or no strip 100 pixels wide), the whole screen: a world drawn behind panels beats a postage stamp.
inline ScreenRect freeAreaFor(const ScreenRect& screen, std::span<const ScreenRect> panels, float boxWidth,
                              float boxHeight) {
  const float bw = std::max(boxWidth, 1e-6f), bh = std::max(boxHeight, 1e-6f);
  const auto scaleOf = [&](const ScreenRect& r) { return std::min(r.width() / bw, r.height() / bh); };
  std::vector<float> xs{screen.x0, screen.x1}, ys{screen.y0, screen.y1};
  for (const ScreenRect& p : panels) {
    for (float x : {p.x0, p.x1}) xs.push_back(std::clamp(x, screen.x0, screen.x1));
    for (float y : {p.y0, p.y1}) ys.push_back(std::clamp(y, screen.y0, screen.y1));
  }
  for (auto* edges : {&xs, &ys}) {
    std::sort(edges->begin(), edges->end());
    edges->erase(std::unique(edges->begin(), edges->end()), edges->end());
  }
  const auto free = [&](const ScreenRect& r) {
    return std::none_of(panels.begin(), panels.end(), [&](const ScreenRect& p) {
      return p.x0 < r.x1 && p.x1 > r.x0 && p.y0 < r.y1 && p.y1 > r.y0;
    });
  };
  ScreenRect best{};
  float bestScale = -1.0f;
  for (std::size_t a = 0; a < xs.size(); ++a) {
    for (std::size_t b = a + 1; b < xs.size(); ++b) {
      for (std::size_t c = 0; c < ys.size(); ++c) {
        for (std::size_t d = c + 1; d < ys.size(); ++d) {
          const ScreenRect r{xs[a], ys[c], xs[b], ys[d]};
          const float scale = scaleOf(r);
          if (scale < bestScale ||
              (scale == bestScale && r.width() * r.height() <= best.width() * best.height()) || !free(r))
            continue;
          best = r;
          bestScale = scale;
        }
      }
    }
  }
  if (bestScale < 0.5f * scaleOf(screen) || best.width() < 100.0f || best.height() < 100.0f) return screen;
  return best;
}

}  // namespace st::render
