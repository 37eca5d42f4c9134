// The trees' shared pair search: building the view depth first, the simultaneous walk over it, and the leaf
// kernels. See pair_view.hpp.

#include "pair_view.hpp"

#include <algorithm>
#include <cmath>

#include "simd_support.hpp"
#include "spheretest/assert.hpp"

namespace st::pair_view {
namespace {

constexpr Box kEmptyBox{{INFINITY, INFINITY}, {-INFINITY, -INFINITY}};

std::uint64_t task(std::uint32_t a, std::uint32_t b) {
  return (std::uint64_t(a) << 32) | b;
}

// The float box of every circle in [begin, end), grown to cover its own rounding.
Box boundsOf(const ItemArrays& items, std::uint32_t begin, std::uint32_t end) {
  float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (std::uint32_t i = begin; i < end; ++i) {
    const float x = items.x[i], y = items.y[i], r = items.r[i];
    x0 = std::min(x0, x - r);
    y0 = std::min(y0, y - r);
    x1 = std::max(x1, x + r);
    y1 = std::max(y1, y + r);
  }
  // Each x - r above was rounded; growing the union by a millionth of its magnitude covers every member.
  return inflateForPruning({{x0, y0}, {x1, y1}});
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------------------------------------

// The rules of the building calls, written once for the three places a hand-over's calls go: the view
// itself (appending to its nodes), a part's room in it (writing at a cursor) and a count (numbers only).
// Each place offers size(), push(node), truncate(n), close(index, end) (the node's end, and its subtree
// ending where the nodes now end), erase(index) (a node whose one child stands for it) and top(delta)
// (entries below no open node).
struct Building {
  template <class Place>
  static void entry(Place& place, std::vector<OpenNode>& open, int delta) {
    if (open.empty())
      place.top(delta);
    else
      open.back().entries = std::uint32_t(int(open.back().entries) + delta);
  }
  template <class Place>
  static void enter(Place& place, std::vector<OpenNode>& open, std::uint32_t at) {
    entry(place, open, 1);
    open.push_back({place.size(), at, 0});
    place.push({kEmptyBox, at, at, 0, 0});
  }
  template <class Place>
  static void leaf(Place& place, std::vector<OpenNode>& open, std::uint32_t begin, std::uint32_t end) {
    entry(place, open, 1);
    const std::uint32_t index = place.size();
    place.push({kEmptyBox, begin, end, index + 1, 0});
  }
  template <class Place>
  static void leave(Place& place, std::vector<OpenNode>& open, std::uint32_t end) {
    const OpenNode node = open.back();
    open.pop_back();
    if (end == node.begin) {  // nothing below: the node goes
      place.truncate(node.index);
      entry(place, open, -1);
      return;
    }
    if (end - node.begin <= kBatchItems) {
      place.truncate(node.index + 1);  // the whole subtree becomes one leaf
    } else if (node.entries == 1) {
      // A single child stands for its parent: the walk need not enter a level that adds nothing.
      place.erase(node.index);
      return;
    }
    place.close(node.index, end);
  }

  // The view's own nodes.
  struct Appended {
    PairView& view;
    std::uint32_t size() const { return static_cast<std::uint32_t>(view.nodes_.size()); }
    void push(const ViewNode& node) { view.nodes_.push_back(node); }
    void truncate(std::uint32_t n) {
      // A node that became one leaf (or went) takes the rooms below it along: their parts still put their
      // items in place, but leave no nodes.
      for (auto room = view.rooms_.rbegin(); room != view.rooms_.rend() && room->begin >= n; ++room) {
        room->dropped = true;
      }
      view.nodes_.resize(n);
    }
    void close(std::uint32_t index, std::uint32_t end) {
      view.nodes_[index].end = end;
      view.nodes_[index].next = size();
    }
    void erase(std::uint32_t index) {
      view.nodes_.erase(view.nodes_.begin() + index);
      for (std::size_t c = index; c < view.nodes_.size(); ++c) --view.nodes_[c].next;
      for (PairView::RoomAt& room : view.rooms_) room.begin -= room.begin > index ? 1 : 0;
    }
    void top(int) {}
  };
  // A part's nodes, built in the writer's own buffer at their final indices before they go to the room (a
  // hand-over may hold more nodes for a while than it leaves: a subtree of a batch of items or fewer before
  // it becomes one leaf, a node before its one child stands for it).
  struct Room {
    PartWriter& part;
    std::uint32_t size() const { return part.begin_ + static_cast<std::uint32_t>(part.nodes_.size()); }
    void push(const ViewNode& node) { part.nodes_.push_back(node); }
    void truncate(std::uint32_t n) { part.nodes_.resize(n - part.begin_); }
    void close(std::uint32_t index, std::uint32_t end) {
      part.nodes_[index - part.begin_].end = end;
      part.nodes_[index - part.begin_].next = size();
    }
    void erase(std::uint32_t index) {
      part.nodes_.erase(part.nodes_.begin() + (index - part.begin_));
      for (std::size_t c = index - part.begin_; c < part.nodes_.size(); ++c) --part.nodes_[c].next;
    }
    void top(int) {}
  };
  // A count.
  struct Counted {
    NodeCount& count;
    std::uint32_t size() const { return count.nodes_; }
    void push(const ViewNode&) { ++count.nodes_; }
    void truncate(std::uint32_t n) { count.nodes_ = n; }
    void close(std::uint32_t, std::uint32_t) {}
    void erase(std::uint32_t) { --count.nodes_; }
    void top(int delta) { count.top_ = std::uint32_t(int(count.top_) + delta); }
  };

  // Measures the nodes [first, last), whose children all lie among them; nodes measured already keep their
  // bounds.
  static void measure(const ItemArrays& items, ViewNode* nodes, std::uint32_t first, std::uint32_t last) {
    for (std::uint32_t i = last; i-- > first;) {
      ViewNode& node = nodes[i];
      if (node.measured) continue;
      node.measured = 1;
      if (node.next == i + 1) {
        node.bounds = boundsOf(items, node.begin, node.end);
        continue;
      }
      Box bounds = kEmptyBox;
      for (std::uint32_t c = i + 1; c < node.next; c = nodes[c].next) {
        ST_ASSERT(nodes[c].next > c, "a pair view node ends before itself (a part's room was misplaced)");
        bounds = boxUnion(bounds, nodes[c].bounds);
      }
      node.bounds = bounds;
    }
  }
};

void PairView::begin(const ItemArrays& items) {
  items_ = items;
  nodes_.clear();
  open_.clear();
  rooms_.clear();
}

void PairView::enterNode(std::uint32_t at) {
  Building::Appended place{*this};
  Building::enter(place, open_, at);
}

void PairView::ownItems(std::uint32_t begin, std::uint32_t end) {
  if (begin == end) return;
  Building::Appended place{*this};
  Building::leaf(place, open_, begin, end);
}

void PairView::addLeaf(std::uint32_t begin, std::uint32_t end) {
  Building::Appended place{*this};
  Building::leaf(place, open_, begin, end);
}

void PairView::leaveRoom(std::uint32_t nodes, std::uint32_t entries) {
  if (!open_.empty()) open_.back().entries += entries;
  rooms_.push_back({static_cast<std::uint32_t>(nodes_.size()), nodes, false});
  nodes_.resize(nodes_.size() + nodes);
}

void PairView::leaveNode(std::uint32_t end) {
  Building::Appended place{*this};
  Building::leave(place, open_, end);
}

// Children come after their parent, so walking the nodes backwards meets every child before its parent.
// The rooms' nodes were measured by the parts that filled them.
void PairView::finish() {
  Building::measure(items_, nodes_.data(), 0, static_cast<std::uint32_t>(nodes_.size()));
}

void NodeCount::enterNode(std::uint32_t at) {
  Building::Counted place{*this};
  Building::enter(place, open_, at);
}

void NodeCount::ownItems(std::uint32_t begin, std::uint32_t end) {
  if (begin == end) return;
  Building::Counted place{*this};
  Building::leaf(place, open_, begin, end);
}

void NodeCount::addLeaf(std::uint32_t begin, std::uint32_t end) {
  Building::Counted place{*this};
  Building::leaf(place, open_, begin, end);
}

void NodeCount::leaveNode(std::uint32_t end) {
  Building::Counted place{*this};
  Building::leave(place, open_, end);
}

PartWriter::PartWriter(PairView& view, std::size_t room, HandOverScratch& scratch)
    : view_(view),
      begin_(view.rooms_[room].begin),
      end_(begin_ + view.rooms_[room].nodes),
      dropped_(view.rooms_[room].dropped),
      nodes_(scratch.nodes),
      open_(scratch.open) {
  nodes_.clear();
  open_.clear();
}

void PartWriter::enterNode(std::uint32_t at) {
  if (dropped_) return;
  Building::Room place{*this};
  Building::enter(place, open_, at);
}

void PartWriter::ownItems(std::uint32_t begin, std::uint32_t end) {
  if (begin == end || dropped_) return;
  Building::Room place{*this};
  Building::leaf(place, open_, begin, end);
}

void PartWriter::addLeaf(std::uint32_t begin, std::uint32_t end) {
  if (dropped_) return;
  Building::Room place{*this};
  Building::leaf(place, open_, begin, end);
}

void PartWriter::leaveNode(std::uint32_t end) {
  if (dropped_) return;
  Building::Room place{*this};
  Building::leave(place, open_, end);
}

void PartWriter::finish() {
  if (dropped_) return;
  ST_ASSERT(begin_ + nodes_.size() == end_ && open_.empty(),
            "a part handed over other pair view nodes than it counted");
  std::copy(nodes_.begin(), nodes_.end(), view_.nodes_.begin() + begin_);
  Building::measure(view_.items_, view_.nodes_.data(), begin_, end_);
}

namespace {

// Splits [begin, end) of the items in halves across the longer side of the centres' extent until each part
// fits a leaf; every part of more than one leaf is a node of the view.
template <class View>
void splitOwnRange(View& view, const MutableItems& items, std::uint32_t begin, std::uint32_t end,
                   HandOverScratch& scratch) {
  if (end - begin <= kBatchItems) {
    view.addLeaf(begin, end);
    return;
  }
  float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (std::uint32_t i = begin; i < end; ++i) {
    x0 = std::min(x0, items.x[i]);
    x1 = std::max(x1, items.x[i]);
    y0 = std::min(y0, items.y[i]);
    y1 = std::max(y1, items.y[i]);
  }
  const float* axis = x1 - x0 >= y1 - y0 ? items.x : items.y;
  auto& order = scratch.order;
  order.clear();
  for (std::uint32_t i = begin; i < end; ++i) order.push_back({axis[i], i});
  const std::uint32_t half = (end - begin) / 2;
  std::nth_element(order.begin(), order.begin() + half, order.end());
  // Applies the order to each array through the spare buffer.
  const auto apply = [&]<class T>(T* values, std::vector<T>& spare) {
    spare.assign(values + begin, values + end);
    for (std::uint32_t k = 0; k < end - begin; ++k) values[begin + k] = spare[order[k].second - begin];
  };
  apply(items.x, scratch.spare);
  apply(items.y, scratch.spare);
  apply(items.r, scratch.spare);
  apply(items.id, scratch.spareIds);
  view.enterNode(begin);
  splitOwnRange(view, items, begin, begin + half, scratch);
  splitOwnRange(view, items, begin + half, end, scratch);
  view.leaveNode(end);
}

template <class View>
void handOverOwnItemsTo(View& view, const MutableItems& items, std::uint32_t begin, std::uint32_t end,
                        HandOverScratch& scratch) {
  if (end - begin <= kBatchItems) {
    if (end > begin) view.ownItems(begin, end);
    return;
  }
  splitOwnRange(view, items, begin, end, scratch);
}

// splitOwnRange's nodes, counted: its halves depend only on the number of items.
void countSplit(NodeCount& count, std::uint32_t begin, std::uint32_t end) {
  if (end - begin <= kBatchItems) {
    count.addLeaf(begin, end);
    return;
  }
  const std::uint32_t half = (end - begin) / 2;
  count.enterNode(begin);
  countSplit(count, begin, begin + half);
  countSplit(count, begin + half, end);
  count.leaveNode(end);
}

}  // namespace

void handOverOwnItems(PairView& view, const MutableItems& items, std::uint32_t begin, std::uint32_t end,
                      HandOverScratch& scratch) {
  handOverOwnItemsTo(view, items, begin, end, scratch);
}

void handOverOwnItems(PartWriter& view, const MutableItems& items, std::uint32_t begin, std::uint32_t end,
                      HandOverScratch& scratch) {
  handOverOwnItemsTo(view, items, begin, end, scratch);
}

void countOwnItems(NodeCount& count, std::uint32_t begin, std::uint32_t end) {
  if (end - begin <= kBatchItems) {
    count.ownItems(begin, end);
    return;
  }
  countSplit(count, begin, end);
}

std::string PairView::validate() const {
  const auto fault = [](std::size_t i, const char* what) {
    return "view node " + std::to_string(i) + " " + what;
  };
  // First that every subtree ends after its node and within the view, so that the walks below end.
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].next <= i || nodes_[i].next > nodes_.size()) return fault(i, "ends outside the view");
  }
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const ViewNode& node = nodes_[i];
    if (node.begin >= node.end) return fault(i, "holds no items");
    if (!node.measured) return fault(i, "was never measured");
    if (node.next == i + 1) {
      const Box tight = boundsOf(items_, node.begin, node.end);
      if (tight.min.x < node.bounds.min.x || tight.min.y < node.bounds.min.y ||
          tight.max.x > node.bounds.max.x || tight.max.y > node.bounds.max.y)
        return fault(i, "has bounds that miss its circles");
      continue;
    }
    std::uint32_t at = node.begin;
    std::size_t c = i + 1;
    for (; c < node.next; c = nodes_[c].next) {
      if (nodes_[c].begin != at) return fault(i, "has children whose items do not follow each other");
      at = nodes_[c].end;
    }
    if (c != node.next) return fault(i, "has a child reaching past its end");
    if (at != node.end) return fault(i, "has children that do not cover its items");
  }
  return {};
}

std::size_t PairView::bytes() const {
  return nodes_.capacity() * sizeof(ViewNode) + open_.capacity() * sizeof(OpenNode) +
         rooms_.capacity() * sizeof(RoomAt);
}

// ---------------------------------------------------------------------------------------------------------
// Leaf kernels
// ---------------------------------------------------------------------------------------------------------
// Both widths make the same decisions: the pre-test is pairs::mayOverlap's arithmetic, lane by lane, and the
// exact predicate decides every survivor.

namespace {

// Whether the float pre-test lets a pair through.
inline bool pretest(float ax, float ay, float ar, float bx, float by, float br) {
  const float dx = bx - ax, dy = by - ay, reach = ar + br;
  return dx * dx + dy * dy <= reach * reach * pairs::kPretestScale + pairs::kPretestFloor;
}

// The exact test of a pre-tested pair.
inline void exact(float ax, float ay, float ar, ItemId aid, float bx, float by, float br, ItemId bid,
                  pairs::PairWriter& writer, PairWork& work) {
  ++work.candidates;
  if (circlesOverlap({{ax, ay}, ar}, {{bx, by}, br})) writer.add(aid, bid);
}

// The items of [begin, end) whose boxes meet `bounds`, copied into `picked`.
void pickNarrow(const ItemArrays& it, std::uint32_t begin, std::uint32_t end, const Box& bounds,
                Picked& picked) {
  picked.reset(end - begin);
  std::uint32_t n = 0;
  for (std::uint32_t i = begin; i < end; ++i) {
    const float x = it.x[i], y = it.y[i], r = it.r[i];
    if (x - r <= bounds.max.x && bounds.min.x <= x + r && y - r <= bounds.max.y && bounds.min.y <= y + r) {
      picked.x[n] = x;
      picked.y[n] = y;
      picked.r[n] = r;
      picked.id[n] = it.id[i];
      ++n;
    }
  }
  picked.n = n;
}

// Every pair among the items [begin, end).
void withinNarrow(const ItemArrays& it, std::uint32_t begin, std::uint32_t end, pairs::PairWriter& writer,
                  PairWork& work) {
  for (std::uint32_t i = begin; i + 1 < end; ++i) {
    const float ax = it.x[i], ay = it.y[i], ar = it.r[i];
    work.pretests += end - i - 1;
    for (std::uint32_t j = i + 1; j < end; ++j) {
      if (pretest(ax, ay, ar, it.x[j], it.y[j], it.r[j]))
        exact(ax, ay, ar, it.id[i], it.x[j], it.y[j], it.r[j], it.id[j], writer, work);
    }
  }
}

// Every pair between two picked sets.
void acrossNarrow(const Picked& a, const Picked& b, pairs::PairWriter& writer, PairWork& work) {
  work.pretests += std::uint64_t(a.n) * b.n;
  for (std::uint32_t i = 0; i < a.n; ++i) {
    const float ax = a.x[i], ay = a.y[i], ar = a.r[i];
    for (std::uint32_t j = 0; j < b.n; ++j) {
      if (pretest(ax, ay, ar, b.x[j], b.y[j], b.r[j]))
        exact(ax, ay, ar, a.id[i], b.x[j], b.y[j], b.r[j], b.id[j], writer, work);
    }
  }
}

#if SPHERETEST_WIDE_LANES
SPHERETEST_WIDE_CODE_BEGIN

// Sixteen items in lanes.
struct Lanes {
  simd::FloatW16 x, y, r;
  simd::Mask16 valid;
};

SPHERETEST_WIDE_INLINE simd::Mask16 tailMask(std::uint32_t left) {
  return left >= 16 ? simd::Mask16(0xffff) : simd::Mask16((1u << left) - 1u);
}

SPHERETEST_WIDE_INLINE Lanes loadLanes(const float* x, const float* y, const float* r, std::uint32_t left) {
  const simd::Mask16 m = tailMask(left);
  return {simd::loadF16(m, x), simd::loadF16(m, y), simd::loadF16(m, r), m};
}

// Which lanes the pre-test lets through against one item.
SPHERETEST_WIDE_INLINE simd::Mask16 pretestLanes(const Lanes& b, float ax, float ay, float ar,
                                                 simd::Mask16 lanes) {
  const simd::FloatW16 dx = simd::sub(b.x, simd::splatF16(ax));
  const simd::FloatW16 dy = simd::sub(b.y, simd::splatF16(ay));
  const simd::FloatW16 reach = simd::add(b.r, simd::splatF16(ar));
  const simd::FloatW16 d2 = simd::add(simd::mul(dx, dx), simd::mul(dy, dy));
  const simd::FloatW16 limit =
      simd::add(simd::mul(simd::mul(reach, reach), simd::splatF16(pairs::kPretestScale)),
                simd::splatF16(pairs::kPretestFloor));
  return simd::lessEqual(lanes, d2, limit);
}

// pickNarrow, sixteen items at a time, packing the kept ones with a compressing store.
SPHERETEST_WIDE void pickWide(const ItemArrays& it, std::uint32_t begin, std::uint32_t end, const Box& bounds,
                              Picked& picked) {
  picked.reset(end - begin);
  const simd::FloatW16 minX = simd::splatF16(bounds.min.x), maxX = simd::splatF16(bounds.max.x);
  const simd::FloatW16 minY = simd::splatF16(bounds.min.y), maxY = simd::splatF16(bounds.max.y);
  std::uint32_t n = 0;
  for (std::uint32_t i = begin; i < end; i += 16) {
    const Lanes l = loadLanes(it.x + i, it.y + i, it.r + i, end - i);
    simd::Mask16 keep = simd::lessEqual(l.valid, simd::sub(l.x, l.r), maxX);
    keep = simd::lessEqual(keep, minX, simd::add(l.x, l.r));
    keep = simd::lessEqual(keep, simd::sub(l.y, l.r), maxY);
    keep = simd::lessEqual(keep, minY, simd::add(l.y, l.r));
    const simd::IntW16 ids = simd::loadI16(l.valid, it.id + i);
    simd::compressStore(picked.x.data() + n, keep, l.x);
    simd::compressStore(picked.y.data() + n, keep, l.y);
    simd::compressStore(picked.r.data() + n, keep, l.r);
    simd::compressStore(picked.id.data() + n, keep, ids);
    n += static_cast<std::uint32_t>(simd::bitCount(keep));
  }
  picked.n = n;
}

// Item `a` against the items [0, n) of `b`, sixteen at a time.
SPHERETEST_WIDE void againstWide(float ax, float ay, float ar, ItemId aid, const float* bx, const float* by,
                                 const float* br, const ItemId* bid, std::uint32_t n,
                                 pairs::PairWriter& writer, PairWork& work) {
  work.pretests += n;
  for (std::uint32_t j = 0; j < n; j += 16) {
    const Lanes b = loadLanes(bx + j, by + j, br + j, n - j);
    for (unsigned maybe = pretestLanes(b, ax, ay, ar, b.valid); maybe != 0; maybe &= maybe - 1) {
      const std::uint32_t k = j + static_cast<std::uint32_t>(simd::lowestSetBit(maybe));
      exact(ax, ay, ar, aid, bx[k], by[k], br[k], bid[k], writer, work);
    }
  }
}

// Up to 32 items in two vectors of lanes.
struct Lanes32 {
  Lanes low, high;
};

SPHERETEST_WIDE_INLINE Lanes32 loadLanes32(const float* x, const float* y, const float* r, std::uint32_t n) {
  return {loadLanes(x, y, r, n), n > 16 ? loadLanes(x + 16, y + 16, r + 16, n - 16)
                                        : Lanes{simd::zeroF16(), simd::zeroF16(), simd::zeroF16(), 0}};
}

// Which of up to 32 lanes, restricted to `lanes`, the pre-test lets through against one item.
SPHERETEST_WIDE_INLINE std::uint32_t pretestLanes32(const Lanes32& b, float ax, float ay, float ar,
                                                    std::uint32_t lanes) {
  const unsigned low = pretestLanes(b.low, ax, ay, ar, static_cast<simd::Mask16>(lanes));
  if (!(lanes >> 16)) return low;
  return low |
         (std::uint32_t(pretestLanes(b.high, ax, ay, ar, static_cast<simd::Mask16>(lanes >> 16))) << 16);
}

// withinNarrow: up to 33 items keep the later ones in registers, more go row by row.
SPHERETEST_WIDE void withinWide(const ItemArrays& it, std::uint32_t begin, std::uint32_t end,
                                pairs::PairWriter& writer, PairWork& work) {
  const std::uint32_t n = end - begin;
  if (n < 2) return;
  if (n <= 33) {
    const std::uint32_t first = begin + 1;
    const Lanes32 b = loadLanes32(it.x + first, it.y + first, it.r + first, n - 1);
    const std::uint32_t valid = n - 1 == 32 ? 0xffffffffu : (1u << (n - 1)) - 1u;
    work.pretests += std::uint64_t(n) * (n - 1) / 2;
    for (std::uint32_t i = 0; i + 1 < n; ++i) {
      const float ax = it.x[begin + i], ay = it.y[begin + i], ar = it.r[begin + i];
      const std::uint32_t later = valid & ~((1u << i) - 1u);  // lanes i.. are items i+1..
      for (std::uint32_t maybe = pretestLanes32(b, ax, ay, ar, later); maybe != 0; maybe &= maybe - 1) {
        const std::uint32_t k = first + static_cast<std::uint32_t>(simd::lowestSetBit(maybe));
        exact(ax, ay, ar, it.id[begin + i], it.x[k], it.y[k], it.r[k], it.id[k], writer, work);
      }
    }
    return;
  }
  for (std::uint32_t i = begin; i + 1 < end; ++i) {
    againstWide(it.x[i], it.y[i], it.r[i], it.id[i], it.x + i + 1, it.y + i + 1, it.r + i + 1, it.id + i + 1,
                end - i - 1, writer, work);
  }
}

// acrossNarrow: up to 32 items of `b` stay in registers for every item of `a`.
SPHERETEST_WIDE void acrossWide(const Picked& a, const Picked& b, pairs::PairWriter& writer, PairWork& work) {
  if (b.n > 32) {
    for (std::uint32_t i = 0; i < a.n; ++i) {
      againstWide(a.x[i], a.y[i], a.r[i], a.id[i], b.x.data(), b.y.data(), b.r.data(), b.id.data(), b.n,
                  writer, work);
    }
    return;
  }
  const Lanes32 lanes = loadLanes32(b.x.data(), b.y.data(), b.r.data(), b.n);
  const std::uint32_t valid = b.n == 32 ? 0xffffffffu : (1u << b.n) - 1u;
  work.pretests += std::uint64_t(a.n) * b.n;
  for (std::uint32_t i = 0; i < a.n; ++i) {
    const float ax = a.x[i], ay = a.y[i], ar = a.r[i];
    for (std::uint32_t maybe = pretestLanes32(lanes, ax, ay, ar, valid); maybe != 0; maybe &= maybe - 1) {
      const auto k = static_cast<std::uint32_t>(simd::lowestSetBit(maybe));
      exact(ax, ay, ar, a.id[i], b.x[k], b.y[k], b.r[k], b.id[k], writer, work);
    }
  }
}

// Which of sixteen items in lanes have boxes that meet `bounds`.
SPHERETEST_WIDE_INLINE std::uint32_t reachingLanes16(const Lanes& h, const Box& bounds) {
  simd::Mask16 keep = simd::lessEqual(h.valid, simd::sub(h.x, h.r), simd::splatF16(bounds.max.x));
  keep = simd::lessEqual(keep, simd::splatF16(bounds.min.x), simd::add(h.x, h.r));
  keep = simd::lessEqual(keep, simd::sub(h.y, h.r), simd::splatF16(bounds.max.y));
  return simd::lessEqual(keep, simd::splatF16(bounds.min.y), simd::add(h.y, h.r));
}

// Which of up to 32 items in lanes have boxes that meet `bounds`.
SPHERETEST_WIDE_INLINE std::uint32_t reachingLanes(const Lanes32& l, const Box& bounds) {
  return reachingLanes16(l.low, bounds) | (reachingLanes16(l.high, bounds) << 16);
}

// Two leaves of up to 32 items each, straight from the item arrays: each side's items that reach the other
// side's bounds are found as a lane mask, so nothing is copied.
SPHERETEST_WIDE void acrossSmallWide(const ItemArrays& it, const ViewNode& a, const ViewNode& b,
                                     pairs::PairWriter& writer, PairWork& work) {
  const Lanes32 la = loadLanes32(it.x + a.begin, it.y + a.begin, it.r + a.begin, a.end - a.begin);
  std::uint32_t fromA = reachingLanes(la, b.bounds);
  if (fromA == 0) return;
  const Lanes32 lb = loadLanes32(it.x + b.begin, it.y + b.begin, it.r + b.begin, b.end - b.begin);
  const std::uint32_t fromB = reachingLanes(lb, a.bounds);
  if (fromB == 0) return;
  work.pretests += std::uint64_t(simd::bitCount(fromA)) * std::uint64_t(simd::bitCount(fromB));
  for (; fromA != 0; fromA &= fromA - 1) {
    const std::uint32_t i = a.begin + static_cast<std::uint32_t>(simd::lowestSetBit(fromA));
    const float ax = it.x[i], ay = it.y[i], ar = it.r[i];
    for (std::uint32_t maybe = pretestLanes32(lb, ax, ay, ar, fromB); maybe != 0; maybe &= maybe - 1) {
      const std::uint32_t k = b.begin + static_cast<std::uint32_t>(simd::lowestSetBit(maybe));
      exact(ax, ay, ar, it.id[i], it.x[k], it.y[k], it.r[k], it.id[k], writer, work);
    }
  }
}

SPHERETEST_WIDE_CODE_END
#endif

// Every pair between two leaves: only the items of each that reach the other's bounds take part.
void leafAcross(const ItemArrays& it, const ViewNode& a, const ViewNode& b, [[maybe_unused]] bool wide,
                WalkScratch& scratch, pairs::PairWriter& writer, PairWork& work) {
#if SPHERETEST_WIDE_LANES
  if (wide && a.end - a.begin <= 32 && b.end - b.begin <= 32) {
    acrossSmallWide(it, a, b, writer, work);
    return;
  }
  if (wide) {
    pickWide(it, a.begin, a.end, b.bounds, scratch.pickA);
    if (scratch.pickA.n == 0) return;
    pickWide(it, b.begin, b.end, a.bounds, scratch.pickB);
    if (scratch.pickB.n > 0) acrossWide(scratch.pickA, scratch.pickB, writer, work);
    return;
  }
#endif
  pickNarrow(it, a.begin, a.end, b.bounds, scratch.pickA);
  if (scratch.pickA.n == 0) return;
  pickNarrow(it, b.begin, b.end, a.bounds, scratch.pickB);
  if (scratch.pickB.n > 0) acrossNarrow(scratch.pickA, scratch.pickB, writer, work);
}

void leafWithin(const ItemArrays& it, std::uint32_t begin, std::uint32_t end, [[maybe_unused]] bool wide,
                pairs::PairWriter& writer, PairWork& work) {
#if SPHERETEST_WIDE_LANES
  if (wide) {
    withinWide(it, begin, end, writer, work);
    return;
  }
#endif
  withinNarrow(it, begin, end, writer, work);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// The walk
// ---------------------------------------------------------------------------------------------------------

void PairView::findPairs(pairs::PairWriter& writer, PairWork& work, WalkScratch& scratch, bool wide) const {
  if (nodes_.empty()) return;
  scratch.tasks.clear();
  scratch.tasks.push_back(task(0, 0));
  drain(writer, work, scratch, wide);
}

// Examines one node pair (a node against itself or two nodes), pushing the pairs it leads to on `scratch`.
// `wide` must already say whether the CPU has the 16-lane kernels.
void PairView::examine(std::uint64_t t, pairs::PairWriter& writer, PairWork& work, WalkScratch& scratch,
                       bool wide) const {
  ++work.tasks;
  const auto a = static_cast<std::uint32_t>(t >> 32), b = static_cast<std::uint32_t>(t);
  if (a == b)
    within(a, scratch, writer, work, wide);
  else
    across(a, b, scratch, writer, work, wide);
}

// Runs the pending node pairs of `scratch`, and those they lead to, until none is left.
void PairView::drain(pairs::PairWriter& writer, PairWork& work, WalkScratch& scratch, bool wide) const {
  wide = wide && simd::widestVectorLanes() == 16;
  auto& tasks = scratch.tasks;
  while (!tasks.empty()) {
    const std::uint64_t t = tasks.back();
    tasks.pop_back();
    examine(t, writer, work, scratch, wide);
  }
}

// The walk starts on the calling thread until it has kSeedTasks node pairs pending, a set that depends only
// on the tree; each worker then finishes whole seeds with its own scratch and output. Every node pair is
// still examined exactly once, so the pairs and the work counted are those of the serial walk.
void PairView::findPairs(TaskScheduler& scheduler, std::vector<Pair>& out, PairWork& work,
                         std::vector<WalkScratch>& scratch, bool wide) const {
  const unsigned workers = scheduler.workerCount();
  if (scratch.size() < workers) scratch.resize(workers);
  if (workers == 1 || nodes_.empty()) {
    pairs::PairWriter writer(out);
    findPairs(writer, work, scratch[0], wide);
    return;
  }
  // Seeds are grown breadth first, a whole level of node pairs at a time, so that they are of like size and
  // the workers finish together.
  constexpr std::size_t kSeedTasks = 256;
  std::vector<std::uint64_t> seeds{task(0, 0)}, next;
  {
    pairs::PairWriter writer(out);
    const bool lanes16 = wide && simd::widestVectorLanes() == 16;
    while (!seeds.empty() && seeds.size() < kSeedTasks) {
      next.clear();
      for (const std::uint64_t t : seeds) {
        scratch[0].tasks.clear();
        examine(t, writer, work, scratch[0], lanes16);
        next.insert(next.end(), scratch[0].tasks.begin(), scratch[0].tasks.end());
      }
      seeds.swap(next);
    }
  }
  pairs::WorkerPairs found(workers);
  std::vector<PairWork> done(workers);
  scheduler.parallelFor(seeds.size(), 1, [&](std::size_t begin, std::size_t end, unsigned worker) {
    pairs::PairWriter& writer = found.writer(worker);
    for (std::size_t s = begin; s < end; ++s) {
      scratch[worker].tasks.assign(1, seeds[s]);
      drain(writer, done[worker], scratch[worker], wide);
    }
  });
  found.appendTo(out, scheduler);
  for (const PairWork& mine : done) {
    work.tasks += mine.tasks;
    work.pretests += mine.pretests;
    work.candidates += mine.candidates;
  }
}

// Pairs inside one subtree: inside each child, and across each pair of children whose bounds meet. Wide
// nodes (a sphere tree's root holds hundreds of super-spheres) sweep their children along x instead of
// testing every pair of them.
void PairView::within(std::uint32_t n, WalkScratch& scratch, pairs::PairWriter& writer, PairWork& work,
                      bool wide) const {
  const ViewNode& node = nodes_[n];
  if (node.next == n + 1) {
    leafWithin(items_, node.begin, node.end, wide, writer, work);
    return;
  }
  auto& children = scratch.children;
  children.clear();
  for (std::uint32_t c = n + 1; c < node.next; c = nodes_[c].next) {
    children.push_back(c);
    if (nodes_[c].end - nodes_[c].begin > 1) scratch.tasks.push_back(task(c, c));
  }
  const bool sweep = children.size() > 8;
  if (sweep) {
    std::sort(children.begin(), children.end(), [this](std::uint32_t p, std::uint32_t q) {
      return nodes_[p].bounds.min.x < nodes_[q].bounds.min.x;
    });
  }
  for (std::size_t i = 0; i < children.size(); ++i) {
    const Box& bi = nodes_[children[i]].bounds;
    for (std::size_t j = i + 1; j < children.size(); ++j) {
      const Box& bj = nodes_[children[j]].bounds;
      if (sweep && bj.min.x > bi.max.x) break;
      if (boxesOverlap(bi, bj)) scratch.tasks.push_back(task(children[i], children[j]));
    }
  }
}

// Pairs between two disjoint subtrees whose bounds meet: two leaves are tested item against item, otherwise
// the larger side is split into its children.
void PairView::across(std::uint32_t a, std::uint32_t b, WalkScratch& scratch, pairs::PairWriter& writer,
                      PairWork& work, bool wide) const {
  const ViewNode& na = nodes_[a];
  const ViewNode& nb = nodes_[b];
  const bool leafA = na.next == a + 1, leafB = nb.next == b + 1;
  if (leafA && leafB) {
    leafAcross(items_, na, nb, wide, scratch, writer, work);
    return;
  }
  const bool splitA = !leafA && (leafB || na.end - na.begin >= nb.end - nb.begin);
  const std::uint32_t split = splitA ? a : b, other = splitA ? b : a;
  const Box& otherBounds = nodes_[other].bounds;
  for (std::uint32_t c = split + 1; c < nodes_[split].next; c = nodes_[c].next) {
    if (boxesOverlap(nodes_[c].bounds, otherBounds)) scratch.tasks.push_back(task(c, other));
  }
}

}  // namespace st::pair_view
