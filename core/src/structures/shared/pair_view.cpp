// The trees' shared pair search: building the view depth first, from one hand-over or from parts filled into
// their rooms, and checking it (the walk and the leaf kernels are in pair_view_walk.cpp). See pair_view.hpp.

#include "pair_view.hpp"

#include <algorithm>
#include <cmath>

#include "spheretest/assert.hpp"

namespace st::pair_view {
namespace {

constexpr Box kEmptyBox{{INFINITY, INFINITY}, {-INFINITY, -INFINITY}};

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

std::uint32_t PairView::nodeHolding(std::uint32_t begin, std::uint32_t end) const {
  if (nodes_.empty() || begin < nodes_[0].begin || end > nodes_[0].end) return kNoIndex;
  std::uint32_t i = 0;
  for (;;) {
    const ViewNode& node = nodes_[i];
    if (node.begin == begin && node.end == end) return i;
    std::uint32_t below = kNoIndex;
    for (std::uint32_t c = i + 1; c < node.next; c = nodes_[c].next) {
      if (nodes_[c].begin <= begin && end <= nodes_[c].end) {
        below = c;
        break;
      }
    }
    if (below == kNoIndex) return kNoIndex;
    i = below;
  }
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

}  // namespace st::pair_view
