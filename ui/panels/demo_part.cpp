#include "ui/panels/demo_part.hpp"

#include <algorithm>
#include <numbers>

#include "spheretest/assert.hpp"

namespace st::ui {
namespace {

// A function-local static, so registrars in other files may run in any order during static initialisation.
std::vector<PartInfo>& mutableRegistry() {
  static std::vector<PartInfo> parts;
  return parts;
}

}  // namespace

PartRegistrar::PartRegistrar(PartInfo info) {
  std::vector<PartInfo>& parts = mutableRegistry();
  for (const PartInfo& existing : parts) ST_ASSERT(existing.name != info.name, "two demo parts share a name");
  parts.push_back(std::move(info));
  std::stable_sort(parts.begin(), parts.end(), [](const PartInfo& a, const PartInfo& b) {
    return a.category != b.category ? a.category < b.category : a.order < b.order;
  });
}

const std::vector<PartInfo>& registeredParts() {
  return mutableRegistry();
}

std::vector<PartSlot> createParts() {
  std::vector<PartSlot> slots;
  for (const PartInfo& info : registeredParts()) slots.push_back({&info, info.create(), info.shownByDefault});
  return slots;
}

bool DemoContext::isShown(const std::string& name) const {
  return std::any_of(parts.begin(), parts.end(),
                     [&](const PartSlot& s) { return s.info->name == name && s.shown; });
}

void outlineNode(WorldCanvas& canvas, const NodeInfo& node, std::uint32_t colour, int width, float px) {
  for (int k = 0; k < width; ++k) {
    const float inset = float(k) * px;
    if (node.shape == NodeShape::Circle) {
      canvas.above.circleOutline({node.circle.center, std::max(node.circle.radius - inset, 0.0f)}, colour);
    } else {
      const Box b{{node.box.min.x + inset, node.box.min.y + inset},
                  {node.box.max.x - inset, node.box.max.y - inset}};
      if (b.min.x <= b.max.x && b.min.y <= b.max.y) canvas.above.boxOutline(b, colour);
    }
  }
}

void outlineGrown(WorldCanvas& canvas, const NodeInfo& node, std::uint32_t colour) {
  if (node.shape == NodeShape::Box && node.hasGrown()) canvas.above.dashedBoxOutline(node.grown, colour);
}

void fillNode(WorldCanvas& canvas, const NodeInfo& node, std::uint32_t colour) {
  if (node.shape == NodeShape::Circle) {
    canvas.below.sectorFill(node.circle.center, node.circle.radius, 0.0f, 2.0f * std::numbers::pi_v<float>,
                            colour);
  } else {
    canvas.below.boxFill(node.box, colour);
  }
}

}  // namespace st::ui
