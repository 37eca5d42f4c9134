// The overlays: layers drawn over the world, each toggled on its own from the Overlays menu or panel.

#include <algorithm>
#include <cmath>

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

class NodesOverlay final : public DemoPart {
 public:
  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    const Box view = ctx.camera.visibleWorld();
    const float ppu = ctx.camera.pixelsPerUnit();
    drawn_ = skipped_ = 0;
    // Nodes smaller than a few pixels would only paint a solid mesh over the circles (and cost a software
    // rasterizer dearly); zooming in brings them back.
    const float minPx = minNodePx_;
    ctx.model.structure().visitNodes([&](const NodeInfo& node) {
      if (node.depth > maxDepth_) return;
      if (node.shape == NodeShape::Circle) {
        if (!boxVisible(boundsOf(node.circle), view)) return;
        if (2.0f * node.circle.radius * ppu < minPx) {
          ++skipped_;
          return;
        }
        canvas.ring(node.circle, render::depthColour(node.depth, 170));
      } else {
        if (!boxVisible(node.box, view)) return;
        if ((node.box.max.x - node.box.min.x) * ppu < minPx &&
            (node.box.max.y - node.box.min.y) * ppu < minPx) {
          ++skipped_;
          return;
        }
        if (fill_) canvas.below.boxFill(node.box, render::depthColour(node.depth, 16));
        canvas.above.boxOutline(node.box, render::depthColour(node.depth, 120));
      }
      ++drawn_;
    });
  }

  void drawPanel(DemoContext&) override {
    ImGui::Checkbox("translucent fill (overlaps show darker)", &fill_);
    ImGui::SetNextItemWidth(120.0f);
    ImGui::SliderInt("deepest level shown", &maxDepth_, 0, 64);
    ImGui::SetNextItemWidth(120.0f);
    ImGui::SliderFloat("smallest drawn (px)", &minNodePx_, 1.0f, 32.0f, "%.0f");
    ImGui::TextDisabled("%zu drawn, %zu too small at this zoom", drawn_, skipped_);
    depthSwatches(10);
    ImGui::SameLine();
    ImGui::TextDisabled("depth 0..9");
  }

  void loadSettings(const SettingsSection& s) override {
    fill_ = s.getBool("fill", false);
    maxDepth_ = static_cast<int>(s.getNumber("max_depth", 64));
    minNodePx_ = static_cast<float>(s.getNumber("min_px", 6.0));
  }
  void saveSettings(SettingsSection& s) const override {
    s.setBool("fill", fill_);
    s.setNumber("max_depth", maxDepth_);
    s.setNumber("min_px", minNodePx_);
  }

 private:
  bool fill_ = false;
  int maxDepth_ = 64;
  float minNodePx_ = 6.0f;
  std::size_t drawn_ = 0;
  std::size_t skipped_ = 0;
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
      const std::uint32_t colour = visit ? colours::kVisited : colours::kPruned;
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
     "the structure's nodes or cells (boxes, or circles for sphere trees) coloured by depth", 10, true,
     make<NodesOverlay>}};
const PartRegistrar overlap{
    {PartCategory::Overlay, "Overlapping circles",
     "red rim on every circle in an overlapping pair this frame (drawn 3 px or more in radius)", 20, true,
     make<OverlapOverlay>}};
const PartRegistrar pairLines{
    {PartCategory::Overlay, "Pair lines",
     "a line between the centres of every overlapping pair (of circles drawn 3 px or more in radius)", 30,
     true, make<PairLinesOverlay>}};
const PartRegistrar candidates{{PartCategory::Overlay, part_names::kCandidates,
                                "query hits filled yellow; circles tested but missed get a cyan rim", 40,
                                true, make<CandidatesOverlay>}};
const PartRegistrar trace{{PartCategory::Overlay, part_names::kQueryTrace,
                           "nodes the query walked into (green) and the ones it pruned (pink)", 50, true,
                           make<TraceOverlay>}};
const PartRegistrar cone{
    {PartCategory::Overlay, "View cone",
     "the cone's area, and the circles that entered (green rim) or left (orange rim) it this frame", 60, true,
     make<ViewConeOverlay>}};
const PartRegistrar attractors{{PartCategory::Overlay, "Attraction points",
                                "where the moving circles of each colour group are heading", 70, true,
                                make<AttractorsOverlay>}};

}  // namespace
}  // namespace st::ui
