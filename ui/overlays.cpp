// The overlays: layers drawn over the world, each toggled on its own from the Overlays menu or panel.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "render/palette.hpp"
#include "ui/demo_part.hpp"
#include "ui/imgui_util.hpp"
#include "ui/part_names.hpp"

namespace st::ui {
namespace {

using render::CircleInstance;
namespace colours = render::colours;

bool boxVisible(const Box& box, const Box& view) {
  return boxesOverlap(box, view);
}

// ---------------------------------------------------------------------------------------------------------
// Structure nodes
// ---------------------------------------------------------------------------------------------------------

// Nodes smaller than a few pixels would only paint a solid mesh over the circles (and cost a software
// rasterizer dearly): below `minNodePx` a node only darkens the patch of screen it falls in, one filled
// square per patch however many nodes it holds, so the places where the structure is fine still show; or,
// with patches off, it is skipped. Zooming in brings the nodes back one by one.
class NodesOverlay final : public DemoPart {
 public:
  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    const Box view = ctx.camera.visibleWorld();
    const float ppu = ctx.camera.pixelsPerUnit();
    drawn_ = small_ = 0;
    const int lo = oneLevel_ ? minDepth_ : std::min(minDepth_, maxDepth_);
    const int hi = oneLevel_ ? minDepth_ : std::max(minDepth_, maxDepth_);
    // The ramp spans the depths the structure had last frame, so a shallow tree uses the whole of it.
    const float ramp = float(std::max(deepestSeen_, 1));
    const float cellPx = std::max(minNodePx_, 2.0f);
    const float cellWorld = cellPx / ppu;
    const int columns = std::max(1, int(std::ceil((view.max.x - view.min.x) / cellWorld)));
    const int rows = std::max(1, int(std::ceil((view.max.y - view.min.y) / cellWorld)));
    patches_.assign(std::size_t(columns) * std::size_t(rows), 0);
    int deepest = 0;
    ctx.model.structure().visitNodes([&](const NodeInfo& node) {
      deepest = std::max(deepest, node.depth);
      if (node.depth < lo || node.depth > hi) return;
      const Box bounds = node.shape == NodeShape::Circle ? boundsOf(node.circle) : node.box;
      if (!boxVisible(bounds, view)) return;
      const float sizePx = std::max(bounds.max.x - bounds.min.x, bounds.max.y - bounds.min.y) * ppu;
      if (sizePx < minNodePx_) {
        ++small_;
        if (!patches_.empty() && showPatches_) {
          const float cx = 0.5f * (bounds.min.x + bounds.max.x), cy = 0.5f * (bounds.min.y + bounds.max.y);
          const int col = std::clamp(int((cx - view.min.x) / cellWorld), 0, columns - 1);
          const int row = std::clamp(int((cy - view.min.y) / cellWorld), 0, rows - 1);
          std::uint8_t& patch = patches_[std::size_t(row) * std::size_t(columns) + std::size_t(col)];
          patch = std::uint8_t(std::min(255, patch + 1));
        }
        return;
      }
      const std::uint32_t colour = nodeColour(node.depth, ramp, sizePx);
      if (node.shape == NodeShape::Circle) {
        canvas.ring(node.circle, colour);
      } else {
        if (fill_) canvas.below.boxFill(node.box, render::withAlpha(colour, 16));
        canvas.above.boxOutline(node.box, colour);
      }
      ++drawn_;
    });
    deepestSeen_ = deepest;
    // Thousands of overlapping outlines (a tree of fat boxes at 100,000 circles) would add up to a white
    // sheet: the more were drawn, the fainter each is drawn next frame.
    crowding_ =
        std::clamp(std::sqrt(kUncrowdedOutlines / float(std::max<std::size_t>(drawn_, 1))), 0.3f, 1.0f);
    patchCount_ = 0;
    for (int row = 0; row < rows; ++row) {
      for (int col = 0; col < columns; ++col) {
        const std::uint8_t nodes = patches_[std::size_t(row) * std::size_t(columns) + std::size_t(col)];
        if (nodes == 0) continue;
        ++patchCount_;
        // More nodes in the patch, a darker one: a few levels' worth reads as a shade, not a blot.
        const std::uint32_t alpha = std::min<std::uint32_t>(6u + 4u * nodes, 28u);
        const Vec2 min{view.min.x + float(col) * cellWorld, view.min.y + float(row) * cellWorld};
        canvas.below.boxFill({min, {min.x + cellWorld, min.y + cellWorld}}, render::depthShade(0.35f, alpha));
      }
    }
  }

  void drawPanel(DemoContext&) override {
    ImGui::SetNextItemWidth(scaled(160.0f));
    if (oneLevel_) {
      ImGui::SliderInt("level shown", &minDepth_, 0, std::max(deepestSeen_, 1));
    } else {
      ImGui::DragIntRange2("depths shown", &minDepth_, &maxDepth_, 0.1f, 0, 64, "from %d", "to %d");
    }
    ImGui::Checkbox("one level at a time", &oneLevel_);
    ImGui::SameLine();
    ImGui::TextDisabled("(deepest now: %d)", deepestSeen_);
    ImGui::Checkbox("translucent fill (overlaps show darker)", &fill_);
    ImGui::SetNextItemWidth(scaled(120.0f));
    ImGui::SliderFloat("smallest drawn (px)", &minNodePx_, 1.0f, 32.0f, "%.0f");
    ImGui::Checkbox("smaller ones as grey patches", &showPatches_);
    ImGui::TextDisabled("%zu drawn; %zu smaller%s", drawn_, small_,
                        showPatches_ ? (" in " + std::to_string(patchCount_) + " patches").c_str() : "");
    depthSwatches(render::kDepthLevels);
    ImGui::SameLine();
    ImGui::TextDisabled("root .. deepest");
  }

  void loadSettings(const SettingsSection& s) override {
    fill_ = s.getBool("fill", false);
    minDepth_ = static_cast<int>(s.getNumber("min_depth", 0));
    maxDepth_ = static_cast<int>(s.getNumber("max_depth", 64));
    oneLevel_ = s.getBool("one_level", false);
    minNodePx_ = static_cast<float>(s.getNumber("min_px", kDefaultMinPx));
    showPatches_ = s.getBool("patches", true);
  }
  void saveSettings(SettingsSection& s) const override {
    s.setBool("fill", fill_);
    s.setNumber("min_depth", minDepth_);
    s.setNumber("max_depth", maxDepth_);
    s.setBool("one_level", oneLevel_);
    s.setNumber("min_px", minNodePx_);
    s.setBool("patches", showPatches_);
  }

 private:
  static constexpr float kDefaultMinPx = 8.0f;
  static constexpr float kUncrowdedOutlines = 3000.0f;

  /// Brighter and more opaque near the root, fading with depth; a node only a little larger than the
  /// smallest drawn is fainter still, so the fine levels recede behind the coarse ones.
  std::uint32_t nodeColour(int depth, float ramp, float sizePx) const {
    const float t = float(depth) / ramp;
    const float small = std::clamp((sizePx - minNodePx_) / (3.0f * minNodePx_), 0.0f, 1.0f);
    const float alpha = (210.0f - 140.0f * t) * (0.3f + 0.7f * small) * crowding_;
    return render::depthShade(t, static_cast<std::uint32_t>(std::clamp(alpha, 30.0f, 255.0f)));
  }

  bool fill_ = false;
  int minDepth_ = 0;
  int maxDepth_ = 64;
  bool oneLevel_ = false;
  float minNodePx_ = kDefaultMinPx;
  bool showPatches_ = true;
  int deepestSeen_ = 0;
  float crowding_ = 1.0f;
  std::size_t drawn_ = 0;
  std::size_t small_ = 0;
  std::size_t patchCount_ = 0;
  std::vector<std::uint8_t> patches_;
};

// ---------------------------------------------------------------------------------------------------------
// Overlapping circles and pair lines
// ---------------------------------------------------------------------------------------------------------

// Overlaps are marked only on circles drawn at least this big (radius, pixels).
constexpr float kMinMarkedRadiusPx = 3.0f;

class OverlapOverlay final : public DemoPart {
 public:
  void tintCircles(DemoContext& ctx, std::span<CircleInstance> circles) override {
    // On a circle a few pixels across the rim would hide its colour, and in a swarm nearly every circle
    // overlaps another: zoomed out the swarms keep their colours, zooming in brings the rims back.
    const float minRadius = kMinMarkedRadiusPx / ctx.camera.pixelsPerUnit();
    const std::vector<Circle>& world = ctx.model.simulation().circles();
    auto mark = [&](ItemId id) {
      if (id < circles.size() && world[id].radius >= minRadius) circles[id].rim = colours::kOverlapRim;
    };
    for (const Pair& p : ctx.model.pairs()) {
      mark(p.a);
      mark(p.b);
    }
  }
};

class PairLinesOverlay final : public DemoPart {
 public:
  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    const std::vector<Circle>& circles = ctx.model.simulation().circles();
    const Box view = ctx.camera.visibleWorld();
    // A line under a pixel long is a dot on top of the two circles' rims, which already say "overlapping";
    // between circles too small for rims, lines would paint the swarms red as rims would.
    const float minLength = 1.0f / ctx.camera.pixelsPerUnit();
    const float minRadius = kMinMarkedRadiusPx / ctx.camera.pixelsPerUnit();
    std::size_t drawn = 0;
    for (const Pair& p : ctx.model.pairs()) {
      if (std::min(circles[p.a].radius, circles[p.b].radius) < minRadius) continue;
      const Vec2 a = circles[p.a].center, b = circles[p.b].center;
      if (std::fabs(a.x - b.x) + std::fabs(a.y - b.y) < minLength) continue;
      if (!boxVisible({{std::min(a.x, b.x), std::min(a.y, b.y)}, {std::max(a.x, b.x), std::max(a.y, b.y)}},
                      view))
        continue;
      canvas.above.line(a, b, colours::kPairLine);
      if (++drawn == kMaxLines) break;
    }
  }

 private:
  static constexpr std::size_t kMaxLines = 200000;
};

// ---------------------------------------------------------------------------------------------------------
// The query's walk: nodes visited and pruned, candidates and hits
// ---------------------------------------------------------------------------------------------------------

class TraceOverlay final : public DemoPart {
 public:
  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    visited_ = pruned_ = 0;
    for (const TraceEvent& e : ctx.model.query.trace.events) {
      const bool visit = e.kind == TraceEventKind::VisitNode;
      if (!visit && e.kind != TraceEventKind::PruneNode) continue;
      (visit ? visited_ : pruned_) += 1;
      // Pruned nodes are most of a wide walk's nodes (all the root's children of a sphere tree): fainter,
      // so the path the walk took reads first.
      const std::uint32_t colour = visit ? colours::kVisited : render::withAlpha(colours::kPruned, 120);
      if (e.node.shape == NodeShape::Circle) {
        canvas.ring(e.node.circle, colour);
      } else {
        canvas.above.boxOutline(e.node.box, colour);
      }
    }
  }

  void drawPanel(DemoContext&) override {
    colourSwatch(colours::kVisited, "visited (walked into)");
    ImGui::SameLine();
    ImGui::TextDisabled("%zu", visited_);
    colourSwatch(colours::kPruned, "pruned (bounds rejected)");
    ImGui::SameLine();
    ImGui::TextDisabled("%zu", pruned_);
  }

 private:
  std::size_t visited_ = 0;
  std::size_t pruned_ = 0;
};

class CandidatesOverlay final : public DemoPart {
 public:
  void tintCircles(DemoContext& ctx, std::span<CircleInstance> circles) override {
    const QueryState& q = ctx.model.query;
    for (const TraceEvent& e : q.trace.events) {
      if (e.kind == TraceEventKind::Candidate && e.id < circles.size())
        circles[e.id].rim = colours::kCandidateRim;
    }
    auto markHit = [&](ItemId id) {
      if (id >= circles.size()) return;
      circles[id].fill = colours::kHit;
      circles[id].rim = colours::kHitRim;
    };
    for (ItemId id : q.hits) markHit(id);
    for (const RayHit& h : q.rayHits) markHit(h.id);
  }

  void drawPanel(DemoContext&) override {
    colourSwatch(colours::kHit, "hit (the exact test said yes)");
    colourSwatch(colours::kCandidateRim, "candidate (tested, missed)");
  }
};

// ---------------------------------------------------------------------------------------------------------
// View cone and attraction points
// ---------------------------------------------------------------------------------------------------------

class ViewConeOverlay final : public DemoPart {
 public:
  void tintCircles(DemoContext& ctx, std::span<CircleInstance> circles) override {
    const QueryState& q = ctx.model.query;
    if (q.mode != QueryShape::Cone) return;
    for (ItemId id : q.entered) {
      if (id < circles.size()) circles[id].rim = colours::kEntered;
    }
    for (ItemId id : q.left) {
      if (id < circles.size()) circles[id].rim = colours::kLeft;
    }
  }

  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    const QueryState& q = ctx.model.query;
    if (q.mode != QueryShape::Cone) return;
    const Vec2 d = q.target - q.anchor;
    const float far = std::max(length(d), 1e-3f);
    const float facing = std::atan2(d.y, d.x);
    canvas.below.sectorFill(q.anchor, far, facing - q.coneHalfAngle, facing + q.coneHalfAngle,
                            colours::kCone);
  }

  void drawPanel(DemoContext&) override {
    colourSwatch(colours::kEntered, "entered this frame");
    colourSwatch(colours::kLeft, "left this frame");
  }
};

class AttractorsOverlay final : public DemoPart {
 public:
  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    const std::vector<Vec2>& points = ctx.model.simulation().attractors();
    const float px = 1.0f / ctx.camera.pixelsPerUnit();
    for (std::size_t i = 0; i < points.size(); ++i) {
      // A dark disc rimmed and crossed in the group's colour: it stands out in the middle of its own swarm
      // and says which swarm it pulls.
      const std::uint32_t colour = render::groupColour(static_cast<int>(i));
      canvas.rings.push_back(
          {points[i].x, points[i].y, 9.0f * px, render::withAlpha(colours::kBackground, 210), colour});
      canvas.ring({points[i], 11.0f * px}, render::withAlpha(colours::kBackground, 210));
      canvas.above.cross(points[i], 6.0f, colour);
    }
  }
};

// ---------------------------------------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------------------------------------

template <class T>
std::unique_ptr<DemoPart> make() {
  return std::make_unique<T>();
}

const PartRegistrar nodes{
    {PartCategory::Overlay, "Structure nodes",
     "the structure's nodes or cells (boxes, or circles for sphere trees): brighter nearer the root, a depth "
     "range or one level at a time, nodes under a few pixels as grey patches",
     10, true, make<NodesOverlay>}};
const PartRegistrar overlap{
    {PartCategory::Overlay, "Overlapping circles",
     "red rim on every circle in an overlapping pair this frame (drawn 3 px or more in radius)", 20, false,
     make<OverlapOverlay>}};
const PartRegistrar pairLines{
    {PartCategory::Overlay, "Pair lines",
     "a red line between the centres of every overlapping pair (of circles drawn 3 px or more in radius)", 30,
     false, make<PairLinesOverlay>}};
const PartRegistrar candidates{{PartCategory::Overlay, part_names::kCandidates,
                                "query hits filled yellow; circles tested but missed get a cyan rim", 40,
                                true, make<CandidatesOverlay>}};
const PartRegistrar trace{{PartCategory::Overlay, part_names::kQueryTrace,
                           "nodes the query walked into (green) and the ones it pruned (magenta)", 50, true,
                           make<TraceOverlay>}};
const PartRegistrar cone{
    {PartCategory::Overlay, "View cone",
     "the cone's area, and the circles that entered (white rim) or left (orange rim) it this frame", 60, true,
     make<ViewConeOverlay>}};
const PartRegistrar attractors{{PartCategory::Overlay, "Attraction points",
                                "where the moving circles of each colour group are heading", 70, true,
                                make<AttractorsOverlay>}};

}  // namespace
}  // namespace st::ui
