// The overlays: layers drawn over the world, each toggled on its own from the Overlays menu or panel.

#include <algorithm>
#include <cmath>
#include <future>
#include <string>
#include <vector>

#include <imgui.h>

#include "render/palette.hpp"
#include "ui/model/teach_trace.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/panels/node_drawing.hpp"
#include "ui/panels/part_names.hpp"

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

// Depth is shown twice. Under the circles, every place of the world takes the shade of the deepest node
// covering it, lighter where the tree is deeper (tiny deep nodes under a swarm still count). Over the
// circles, the nodes at least `minNodePx` across are outlined, brighter nearer the root, over a haze where
// the tree goes deeper than those outlines show; smaller nodes would only paint a solid mesh over the
// circles. Zooming in brings their outlines back one by one. All of it is drawn on the CPU into two images
// of the visible world (NodeRaster), which a software rasterizer draws for the price of two quads. Only the
// nodes' own cells are drawn here: loose or grown bounds belong to the views that explain something with
// them (the query's walk, the inspector).
//
// A walk over every node of a large tree takes milliseconds that the frame's serial part cannot spare:
// once a walk has taken longer than kInlineWalkMs, the next runs on a thread of its own during the rest of
// the frame (the circles, the panels, the swap), while the structure stands still, and the frame after
// shows it. The model waits for it before it changes the structure or the circles. A screenshot or a
// recording walks inline every frame, so that its pictures depend on the seed alone.
class NodesOverlay final : public DemoPart {
 public:
  ~NodesOverlay() override { finishWalk(); }

  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    if (!waitRegistered_) {
      ctx.model.addReaderWait([this] { finishWalk(); });
      waitRegistered_ = true;
    }
    finishWalk();
    WalkSettings settings;
    settings.lo = oneLevel_ ? minDepth_ : std::min(minDepth_, maxDepth_);
    settings.hi = oneLevel_ ? minDepth_ : std::max(minDepth_, maxDepth_);
    settings.fill = fill_;
    settings.minNodePx = minNodePx_;
    settings.crowding = crowding_;
    settings.ramp = std::max(walks_[shown_].deepest, 1);
    const SpatialIndex& index = ctx.model.structure();
    const Box world = ctx.model.simulation().world();
    const render::Camera camera = ctx.camera;
    const std::uint64_t generation = ctx.model.generation();
    // A new structure is shown at once; after that a slow walk goes to the background. Whether a walk is
    // slow is a matter of time, so a scripted run walks every frame inline and shows that frame's nodes.
    const bool inBackground = !ctx.view.reproducible && walks_[shown_].valid &&
                              walks_[shown_].ms > kInlineWalkMs && walks_[shown_].generation == generation;
    const int next = 1 - shown_;
    if (inBackground) {
      pending_ = std::async(std::launch::async, [this, next, &index, world, camera, settings, generation] {
        walk(walks_[next], index, world, camera, settings, generation);
      });
      pendingIndex_ = next;
    } else {
      walk(walks_[next], index, world, camera, settings, generation);
      show(next);
    }
    const Walk& shown = walks_[shown_];
    if (shown.hasImages) {
      canvas.underlay = fill_ && !shown.fill.empty() ? &shown.fill : nullptr;
      canvas.overlay = &shown.over;
    }
  }

  void drawPanel(DemoContext&) override {
    const Walk& shown = walks_[shown_];
    ImGui::SetNextItemWidth(scaled(160.0f));
    if (oneLevel_) {
      ImGui::SliderInt("level shown", &minDepth_, 0, std::max(shown.deepest, 1));
    } else {
      ImGui::DragIntRange2("depths shown", &minDepth_, &maxDepth_, 0.1f, 0, 64, "from %d", "to %d");
    }
    ImGui::Checkbox("one level at a time", &oneLevel_);
    ImGui::SameLine();
    ImGui::TextDisabled("(deepest now: %d)", shown.deepest);
    ImGui::Checkbox("fill by depth", &fill_);
    if (fill_) {
      depthFillSwatches(shown.deepest);
      ImGui::TextDisabled("depth 0 .. %d: lighter is deeper", shown.deepest);
      colourSwatch(render::withAlpha(render::depthShade(0.0f), NodeRaster::kHazePerLevel * 2), "haze:");
      ImGui::SameLine();
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      wrappedText("levels too fine to outline, over the circles");
      ImGui::PopStyleColor();
    }
    ImGui::SetNextItemWidth(scaled(120.0f));
    ImGui::SliderFloat("smallest outlined (px)", &minNodePx_, 1.0f, 32.0f, "%.0f");
    ImGui::TextDisabled("%s outlined, %s smaller", groupedNumber(shown.drawn).c_str(),
                        groupedNumber(shown.small).c_str());
    depthSwatches(render::kDepthLevels);
    ImGui::TextDisabled("outlines: root .. deepest");
  }

  void loadSettings(const SettingsSection& s) override {
    fill_ = s.getBool("depth_fill", true);
    minDepth_ = static_cast<int>(s.getNumber("min_depth", 0));
    maxDepth_ = static_cast<int>(s.getNumber("max_depth", 64));
    oneLevel_ = s.getBool("one_level", false);
    minNodePx_ = static_cast<float>(s.getNumber("min_px", kDefaultMinPx));
  }
  void saveSettings(SettingsSection& s) const override {
    s.setBool("depth_fill", fill_);
    s.setNumber("min_depth", minDepth_);
    s.setNumber("max_depth", maxDepth_);
    s.setBool("one_level", oneLevel_);
    s.setNumber("min_px", minNodePx_);
  }

 private:
  static constexpr float kDefaultMinPx = 8.0f;
  static constexpr float kUncrowdedOutlines = 3000.0f;
  /// A walk that took longer than this runs in the background from the next frame on.
  static constexpr double kInlineWalkMs = 1.5;

  /// What a walk needs to know, copied: the walk may run while the panel changes the settings.
  struct WalkSettings {
    int lo = 0;
    int hi = 64;
    bool fill = true;
    float minNodePx = kDefaultMinPx;
    float crowding = 1.0f;
    int ramp = 1;  // the depth the outlines' shades reach
  };

  /// What one walk over the nodes produced.
  struct Walk {
    NodeRaster raster;
    render::WorldImage fill;
    render::WorldImage over;
    bool hasImages = false;
    bool valid = false;
    std::size_t drawn = 0;
    std::size_t small = 0;
    int deepest = 0;
    double ms = 0.0;
    std::uint64_t generation = 0;
  };

  static void walk(Walk& out, const SpatialIndex& index, const Box& world, const render::Camera& camera,
                   const WalkSettings& settings, std::uint64_t generation) {
    const std::uint64_t start = nowNanoseconds();
    out.generation = generation;
    out.drawn = out.small = 0;
    out.valid = true;
    out.hasImages = out.raster.reset(world, camera);
    if (!out.hasImages) {
      out.ms = millisecondsSince(start);
      return;
    }
    const float ppu = camera.pixelsPerUnit();
    const Box view = camera.visibleWorld();
    int deepest = 0;
    index.visitNodes([&](const NodeInfo& node) {
      deepest = std::max(deepest, node.depth);
      if (node.depth < settings.lo || node.depth > settings.hi) return;
      const Box bounds = drawnBounds(node);
      if (!boxesOverlap(bounds, view)) return;
      const float sizePx = std::max(bounds.max.x - bounds.min.x, bounds.max.y - bounds.min.y) * ppu;
      const bool outlined = sizePx >= settings.minNodePx;
      if (settings.fill) out.raster.addDepth(node, outlined);
      if (!outlined) {
        ++out.small;
        return;
      }
      const std::uint32_t colour = nodeColour(node.depth, sizePx, settings);
      if (node.shape == NodeShape::Circle) {
        out.raster.outline(node.circle, colour);
      } else {
        out.raster.outline(node.box, colour);
      }
      ++out.drawn;
    });
    out.deepest = deepest;
    out.raster.paint(out.fill, out.over, deepest, settings.fill);
    out.ms = millisecondsSince(start);
  }

  void finishWalk() {
    if (!pending_.valid()) return;
    pending_.get();
    show(pendingIndex_);
  }

  void show(int index) {
    shown_ = index;
    // Thousands of overlapping outlines (a tree of fat boxes at 100,000 circles) would add up to a white
    // sheet: the more were drawn, the fainter each is drawn next.
    crowding_ = std::clamp(
        std::sqrt(kUncrowdedOutlines / float(std::max<std::size_t>(walks_[shown_].drawn, 1))), 0.3f, 1.0f);
  }

  /// Brighter and more opaque near the root, fading with depth; a node only a little larger than the
  /// smallest drawn is fainter still, so the fine levels recede behind the coarse ones.
  static std::uint32_t nodeColour(int depth, float sizePx, const WalkSettings& settings) {
    const float t = float(depth) / float(settings.ramp);
    const float small = std::clamp((sizePx - settings.minNodePx) / (3.0f * settings.minNodePx), 0.0f, 1.0f);
    const float alpha = (220.0f - 120.0f * t) * (0.35f + 0.65f * small) * settings.crowding;
    return render::depthShade(t, static_cast<std::uint32_t>(std::clamp(alpha, 40.0f, 255.0f)));
  }

  bool fill_ = true;
  int minDepth_ = 0;
  int maxDepth_ = 64;
  bool oneLevel_ = false;
  float minNodePx_ = kDefaultMinPx;
  float crowding_ = 1.0f;
  Walk walks_[2];
  int shown_ = 0;
  int pendingIndex_ = 0;
  std::future<void> pending_;
  bool waitRegistered_ = false;
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

// The walk is drawn on the nodes' own cells: entered ones outlined green, ones whose bounds test rejected it
// outlined magenta near the query (fainter: a wide walk prunes most of what it looks at), empty children
// passed over without a test not at all. A node entered although its cell misses the query was reached
// through its grown bounds (a loose quadtree's loose bounds, a point quadtree's widening): those bounds are
// dashed beside it, the one place where they explain the walk. Nodes under a few pixels become patches under
// the circles, and a bounding-volume leaf, a box around one circle, is left to the circle's rim. The hits
// and candidates are drawn over all of it by the candidates overlay.
class TraceOverlay final : public DemoPart {
 public:
  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    const QueryState& q = ctx.model.query;
    const std::vector<TraceEvent>& events = q.trace.events;
    const float ppu = ctx.camera.pixelsPerUnit();
    const Box view = ctx.camera.visibleWorld();
    const Box reach = queryReach(q);
    const std::vector<Circle>& circles = ctx.model.simulation().circles();
    progress_ = progressAt(q.trace, events.size());
    visitedPatches_.reset(view, ppu, kPatchPx);
    prunedPatches_.reset(view, ppu, kPatchPx);
    std::size_t outlined = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
      const TraceEvent& e = events[i];
      const bool visit = e.kind == TraceEventKind::VisitNode;
      if (!visit && (e.kind != TraceEventKind::PruneNode || prunedWithoutTest(e))) continue;
      const Box bounds = drawnBounds(e.node);
      if (!boxesOverlap(bounds, view)) continue;
      const float sizePx = std::max(bounds.max.x - bounds.min.x, bounds.max.y - bounds.min.y) * ppu;
      if (sizePx < kMinOutlinePx) {
        (visit ? visitedPatches_ : prunedPatches_).add(bounds);
        continue;
      }
      if (visit && i + 1 < events.size() && onlyItsCirclesBox(e.node, events[i + 1], circles)) continue;
      const float pruned = visit ? 0.0f : prunedWeight(bounds, reach, ppu);
      // A prune far from the query (a sphere tree tests every distant sphere) is left to the panel's count.
      if (!visit && pruned <= 0.0f) continue;
      const std::uint32_t colour =
          visit ? render::withAlpha(colours::kVisited, std::uint32_t(230.0f * enteredWeight(sizePx)))
                : render::withAlpha(colours::kPruned, std::uint32_t(130.0f * pruned));
      if (e.node.shape == NodeShape::Circle) {
        canvas.ring(e.node.circle, colour);
      } else {
        canvas.above.boxOutline(e.node.box, colour);
        if (visit && e.node.hasGrown() && !boxesOverlap(e.node.box, reach))
          outlineGrown(canvas, e.node, render::withAlpha(colours::kVisited, 170));
      }
      ++outlined;
    }
    prunedPatches_.fill(canvas.below, colours::kPruned, 40, 90);
    visitedPatches_.fill(canvas.below, colours::kVisited, 50, 110);
    outlined_ = outlined;
  }

  void drawPanel(DemoContext& ctx) override {
    const std::string_view notCounted = ctx.model.structure().nodesNotCounted();
    colourSwatch(colours::kVisited, "entered (bounds met)");
    ImGui::SameLine();
    ImGui::TextDisabled("%zu", progress_.visited);
    colourSwatch(colours::kPruned, "pruned (bounds rejected)");
    ImGui::SameLine();
    if (notCounted.empty()) {
      ImGui::TextDisabled("%zu", progress_.pruned);
    } else {
      ImGui::TextDisabled("not reported");
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrappedText(nodesVisitedText(notCounted, ctx.model.query.counters.nodesVisited, &progress_));
    wrappedText(
        "Dashed: the grown bounds (loose or widened) of a node entered only through them. Nodes "
        "under " +
        std::to_string(int(kMinOutlinePx)) + " px are patches under the circles.");
    ImGui::PopStyleColor();
  }

 private:
  static constexpr float kMinOutlinePx = 8.0f;
  static constexpr float kPatchPx = 6.0f;

  /// Small boxes deep in the walk crowd around the hits: the smaller, the fainter.
  static float enteredWeight(float sizePx) { return std::clamp(sizePx / 48.0f, 0.4f, 1.0f); }

  /// The prunes that tell something are the near misses: a node many times the query's size (an enneatree
  /// prunes most of the root's nine overlapping children) is drawn faintly, and one farther from the query
  /// than its size (a sphere tree tests every distant sphere) not at all (0).
  static float prunedWeight(const Box& bounds, const Box& reach, float ppu) {
    const float reachSide = std::max({reach.max.x - reach.min.x, reach.max.y - reach.min.y, 24.0f / ppu});
    const float side = std::max(bounds.max.x - bounds.min.x, bounds.max.y - bounds.min.y);
    const float gap = std::max({reach.min.x - bounds.max.x, bounds.min.x - reach.max.x,
                                reach.min.y - bounds.max.y, bounds.min.y - reach.max.y, 0.0f});
    if (gap > reachSide) return 0.0f;
    return std::clamp(2.0f * reachSide / std::max(side, 1e-12f), 0.3f, 1.0f);
  }

  /// Whether a node entered is a box around just the one circle tested next (a bounding-volume tree's leaf,
  /// its box the circle's grown by a margin): the circle's rim shows that step already.
  static bool onlyItsCirclesBox(const NodeInfo& node, const TraceEvent& next,
                                const std::vector<Circle>& circles) {
    if (node.itemCount != 1 || node.shape != NodeShape::Box) return false;
    if (next.kind != TraceEventKind::Candidate && next.kind != TraceEventKind::Hit) return false;
    if (next.id >= circles.size()) return false;
    const Box own = boundsOf(circles[next.id]);
    const auto area = [](const Box& b) { return (b.max.x - b.min.x) * (b.max.y - b.min.y); };
    return boxContains(node.box, own) && area(node.box) <= 9.0f * std::max(area(own), 1e-12f);
  }

  TraceProgress progress_;
  std::size_t outlined_ = 0;
  PatchGrid visitedPatches_;
  PatchGrid prunedPatches_;
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

  // The same circles again over every node drawing, hits last: at 100,000 circles the walk's cells would
  // otherwise cover the hits they lead to.
  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    const QueryState& q = ctx.model.query;
    const std::vector<Circle>& circles = ctx.model.simulation().circles();
    // A dot of a pixel or two is all rim: small hits go without theirs, so that a crowd of them stays yellow.
    const float rimlessBelow = 2.5f / ctx.camera.pixelsPerUnit();
    auto add = [&](ItemId id, std::uint32_t fill, std::uint32_t rim) {
      if (id >= circles.size()) return;
      const Circle& c = circles[id];
      const bool rimless = fill != 0u && c.radius < rimlessBelow;
      canvas.marks.push_back({c.center.x, c.center.y, c.radius, fill, rimless ? 0u : rim});
    };
    for (const TraceEvent& e : q.trace.events) {
      if (e.kind == TraceEventKind::Candidate) add(e.id, 0u, colours::kCandidateRim);
    }
    for (ItemId id : q.hits) add(id, colours::kHit, colours::kHitRim);
    for (const RayHit& h : q.rayHits) add(h.id, colours::kHit, colours::kHitRim);
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
     "the structure's own cells (boxes, or circles for sphere trees), clipped to the world: a fill under the "
     "circles, lighter where the tree is deeper, outlines brighter nearer the root, a haze over the circles "
     "where levels are too fine to outline; a depth range or one level at a time",
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
