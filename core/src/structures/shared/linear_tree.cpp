// The linear tree's items and directory: sorting, the merge that refiles movers, and the rebuild. See
// linear_tree.hpp.

#include "linear_tree.hpp"

#include <algorithm>
#include <cmath>

namespace st::linear {

// ---------------------------------------------------------------------------------------------------------
// Items
// ---------------------------------------------------------------------------------------------------------

void SortedItems::resize(std::uint32_t n) {
  key_.resize(n);
  x_.resize(n);
  y_.resize(n);
  r_.resize(n);
  id_.resize(n);
}

void SortedItems::mapSlots(std::uint32_t from) {
  for (std::uint32_t s = from; s < size(); ++s) slotOf_[id_[s]] = s;
}

void SortedItems::assign(std::vector<Move>& moves, const SpatialIndex& index) {
  std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.key < b.key; });
  slotOf_.assign(index.idCapacity(), kNoIndex);
  resize(static_cast<std::uint32_t>(moves.size()));
  for (std::uint32_t s = 0; s < moves.size(); ++s) {
    key_[s] = moves[s].key;
    id_[s] = moves[s].id;
    setCircle(s, index.circle(moves[s].id));
  }
  mapSlots(0);
}

void SortedItems::refile(std::vector<Move>& moves, std::vector<std::uint32_t>& removed,
                         const SpatialIndex& index) {
  if (slotOf_.size() < index.idCapacity()) slotOf_.resize(index.idCapacity(), kNoIndex);
  for (const std::uint32_t s : removed) slotOf_[id_[s]] = kNoIndex;
  for (const Move& m : moves) {
    if (m.slot != kNoIndex) removed.push_back(m.slot);
  }
  std::sort(removed.begin(), removed.end());
  std::uint32_t firstChanged = size();
  // Squeeze the leaving items out, front to back.
  if (!removed.empty()) {
    firstChanged = removed.front();
    std::uint32_t write = removed.front(), next = 0;
    for (std::uint32_t s = removed.front(); s < size(); ++s) {
      if (next < removed.size() && removed[next] == s) {
        ++next;
        continue;
      }
      key_[write] = key_[s];
      x_[write] = x_[s];
      y_[write] = y_[s];
      r_[write] = r_[s];
      id_[write] = id_[s];
      ++write;
    }
    resize(write);
  }
  // Merge the arrivals in from the back, so that nothing is overwritten before it has moved.
  std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.key < b.key; });
  const std::uint32_t kept = size();
  resize(kept + static_cast<std::uint32_t>(moves.size()));
  std::int64_t from = std::int64_t(kept) - 1;
  for (std::int64_t m = std::int64_t(moves.size()) - 1, write = std::int64_t(size()) - 1; m >= 0; --write) {
    if (from >= 0 && key_[from] > moves[m].key) {
      key_[write] = key_[from];
      x_[write] = x_[from];
      y_[write] = y_[from];
      r_[write] = r_[from];
      id_[write] = id_[from];
      --from;
      continue;
    }
    const Move& move = moves[m--];
    key_[write] = move.key;
    id_[write] = move.id;
    setCircle(static_cast<std::uint32_t>(write), index.circle(move.id));
    firstChanged = std::min(firstChanged, static_cast<std::uint32_t>(write));
  }
  mapSlots(firstChanged);
  moves.clear();
  removed.clear();
}

void SortedItems::clear() {
  resize(0);
  slotOf_.clear();
}

std::size_t SortedItems::bytes() const {
  return key_.capacity() * 8 + (x_.capacity() + y_.capacity() + r_.capacity() + id_.capacity()) * 4 +
         slotOf_.capacity() * 4;
}

std::string SortedItems::check(const SpatialIndex& index) const {
  if (size() != index.size())
    return "holds " + std::to_string(size()) + " items, table " + std::to_string(index.size());
  for (std::uint32_t s = 0; s < size(); ++s) {
    const ItemId id = id_[s];
    if (!index.contains(id) || id >= slotOf_.size() || slotOf_[id] != s)
      return "item " + std::to_string(id) + " is not mapped to its slot";
    if (!(circle(s) == index.circle(id))) return "item " + std::to_string(id) + " differs from the table";
    if (s > 0 && key_[s - 1] > key_[s]) return "items out of key order at slot " + std::to_string(s);
  }
  return {};
}

// ---------------------------------------------------------------------------------------------------------
// Directory
// ---------------------------------------------------------------------------------------------------------

std::uint32_t Directory::find(std::uint64_t key) const {
  const auto it = std::lower_bound(nodes_.begin(), nodes_.end(), key,
                                   [](const DirNode& n, std::uint64_t k) { return n.key < k; });
  return it != nodes_.end() && it->key == key ? static_cast<std::uint32_t>(it - nodes_.begin()) : kNoIndex;
}

std::uint64_t Directory::fillView(pair_view::PairView& view, const SortedItems& items) const {
  view.begin(items.arrays());
  std::uint64_t read = 0;
  std::uint32_t open[kMaxWalkDepth];
  int depth = 0;
  for (std::uint32_t i = 0; i < size(); ++read) {
    while (depth > 0 && nodes_[open[depth - 1]].next <= i) view.leaveNode(subtreeEnd(open[--depth]));
    const std::uint32_t end = subtreeEnd(i);
    if (end - nodes_[i].begin <= pair_view::kBatchItems) {
      // A small subtree is one leaf of the view: its nodes need not be read at all.
      if (end > nodes_[i].begin) view.addLeaf(nodes_[i].begin, end);
      i = nodes_[i].next;
      continue;
    }
    view.enterNode(nodes_[i].begin);
    view.ownItems(nodes_[i].begin, ownEnd(i));
    open[depth++] = i;
    ++i;
  }
  while (depth > 0) view.leaveNode(subtreeEnd(open[--depth]));
  view.finish();
  return read;
}

}  // namespace st::linear
