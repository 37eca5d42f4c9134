#pragma once
// Storage shared by the space-partitioning trees (radius tree, enneatree, the quadtrees): a tree kept as two
// arrays that a walk reads forward.
//
// Every node has a key: its path of child slots from the root, most significant first, and its depth.
// Sorting by key lists nodes depth first, each before its descendants. The items are kept sorted by the key
// of the node that holds them, so a node's own items are one range and its whole subtree is the range that
// follows up to its next sibling. The directory lists the live nodes in that same order, each with where its
// items begin and where its subtree ends; a walk that skips a subtree jumps to `next`, one that enters it
// steps to the following entry. There are no child or parent pointers to chase.
//
// Moving an item within its node rewrites its circle in place. Items that change node are collected, sorted
// by their new key and merged back in one pass (an in-place merge from the end), after which the directory is
// rebuilt from the keys: both cost one forward pass over the arrays, whatever the number of movers.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "morton.hpp"
#include "no_index.hpp"
#include "pair_view.hpp"
#include "simd_support.hpp"
#include "large_pages.hpp"
#include "spheretest/spatial_index.hpp"

namespace st::linear {

/// Marks "no node" or "no slot".

// ---------------------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------------------

/// Node keys: bits 63..6 hold the path (the slot chosen at level 1 in the top bits), bits 5..0 the depth.
/// `Bits` is the width of one slot: 2 for four children, 4 for up to sixteen.
template <int Bits>
class KeyCodec {
 public:
  /// Bits of the depth field.
  static constexpr int kDepthBits = 6;
  /// Deepest depth a key can name.
  static constexpr int kLevels = (64 - kDepthBits) / Bits;
  /// Top bits of a key that no level uses (always zero).
  static constexpr int kUnusedBits = 64 - kDepthBits - Bits * kLevels;

  /// Deepest depth a key can name.
  static constexpr int levels() { return kLevels; }
  /// The root's key.
  static constexpr std::uint64_t root() { return 0; }
  /// Depth of a node (0 at the root).
  static constexpr int depth(std::uint64_t key) { return int(key & ((1u << kDepthBits) - 1)); }
  /// Key of child `slot` (the caller keeps depth below levels()).
  static constexpr std::uint64_t child(std::uint64_t key, unsigned slot) {
    return key + 1 + (std::uint64_t(slot) << shift(depth(key) + 1));
  }
  /// The slot a node occupies in its parent (the node must not be the root).
  static constexpr unsigned slot(std::uint64_t key) { return slotAt(key, depth(key)); }
  /// The slot chosen at `level` (1..depth) on the way to the node.
  static constexpr unsigned slotAt(std::uint64_t key, int level) {
    return unsigned(key >> shift(level)) & ((1u << Bits) - 1u);
  }
  /// The ancestor at `depth` (<= the node's).
  static constexpr std::uint64_t ancestor(std::uint64_t key, int d) {
    if (d == 0) return 0;
    return (key & ~((std::uint64_t(1) << shift(d)) - 1)) | std::uint64_t(d);
  }
  /// Depth of the deepest common ancestor of two nodes' paths (ignoring their depths: the caller caps it
  /// with both).
  static int sharedDepth(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t differ = (a ^ b) >> kDepthBits;
    if (differ == 0) return kLevels;
    return (static_cast<int>(simd::leadingZeros64(differ)) - kDepthBits - kUnusedBits) / Bits;
  }
  /// Whether `a` is `b` or one of its ancestors.
  static constexpr bool covers(std::uint64_t a, std::uint64_t b) {
    return depth(a) <= depth(b) && ancestor(b, depth(a)) == a;
  }

 private:
  static constexpr int shift(int level) { return kDepthBits + Bits * (kLevels - level); }
};

/// Column, row and depth of a quadtree node (keys of two bits per level: bit 0 of a slot is the right half,
/// bit 1 the upper half), so that its cell can be computed in one step from the root's.
struct QuadCoords {
  std::uint32_t column = 0;  ///< cells to the right of the root's left edge, at the node's depth
  std::uint32_t row = 0;     ///< cells above the root's lower edge
  int depth = 0;             ///< the node's depth
};

/// The coordinates of a quadtree node from its key.
SPHERETEST_ALWAYS_INLINE QuadCoords quadCoords(std::uint64_t key) {
  using Codec = KeyCodec<2>;
  const int d = Codec::depth(key);
  const std::uint64_t path = key >> Codec::kDepthBits;
  const int drop = Codec::kLevels - d;
  return {static_cast<std::uint32_t>(compactEvenBits(path) >> drop),
          static_cast<std::uint32_t>(compactEvenBits(path >> 1) >> drop), d};
}

/// The key of the quadtree node at `column`, `row` and `depth` (the inverse of quadCoords).
inline std::uint64_t quadKey(std::uint32_t column, std::uint32_t row, int depth) {
  using Codec = KeyCodec<2>;
  const std::uint64_t path = (spreadEvenBits(column) | (spreadEvenBits(row) << 1))
                             << (2 * (Codec::kLevels - depth));
  return (path << Codec::kDepthBits) | std::uint64_t(depth);
}

/// Keeps the bits of `v` at positions offset, offset + 4, offset + 8, ... and packs them together (bit k of
/// the result is bit 4k + offset of v): one axis of a key whose levels take four bits.
inline std::uint64_t everyFourthBit(std::uint64_t v, int offset) {
  v = (v >> offset) & 0x1111111111111111ull;
  v = (v | (v >> 3)) & 0x0303030303030303ull;
  v = (v | (v >> 6)) & 0x000f000f000f000full;
  v = (v | (v >> 12)) & 0x000000ff000000ffull;
  return (v | (v >> 24)) & 0xffffull;
}

// ---------------------------------------------------------------------------------------------------------
// Items
// ---------------------------------------------------------------------------------------------------------

/// An item on its way to a new node.
struct Move {
  std::uint64_t key;   ///< the node it goes to
  ItemId id;           ///< the item
  std::uint32_t slot;  ///< where it is now (kNoIndex for a new item)
};

/// The items, sorted by the key of their node, as parallel arrays, with where each id sits.
class SortedItems {
 public:
  /// Items held.
  std::uint32_t size() const { return static_cast<std::uint32_t>(id_.size()); }
  /// Key of the node holding the item in `slot`.
  std::uint64_t key(std::uint32_t slot) const { return key_[slot]; }
  /// Id of the item in `slot`.
  ItemId id(std::uint32_t slot) const { return id_[slot]; }
  /// Circle of the item in `slot`.
  Circle circle(std::uint32_t slot) const { return {{x_[slot], y_[slot]}, r_[slot]}; }
  /// Slot of a present id.
  std::uint32_t slotOf(ItemId id) const { return slotOf_[id]; }
  /// The arrays, for the pair view.
  pair_view::ItemArrays arrays() const { return {x_.data(), y_.data(), r_.data(), id_.data()}; }
  /// Rewrites the circle of the item in `slot` (same node).
  void setCircle(std::uint32_t slot, const Circle& c) {
    x_[slot] = c.center.x;
    y_[slot] = c.center.y;
    r_[slot] = c.radius;
  }
  /// Raw arrays for the passes that rewrite every circle.
  float* xs() { return x_.data(); }
  /// See xs().
  float* ys() { return y_.data(); }
  /// See xs().
  float* rs() { return r_.data(); }
  /// Raw ids.
  const ItemId* ids() const { return id_.data(); }
  /// Raw keys.
  const std::uint64_t* keys() const { return key_.data(); }

  /// Replaces everything with `moves` (slots ignored); the circles come from `index`'s item table.
  void assign(std::vector<Move>& moves, const SpatialIndex& index);
  /// Moves the items of `moves` (slots set; new items with kNoIndex) to their keys in one merge; removes the
  /// items whose slots are listed in `removed`. Both lists are consumed.
  void refile(std::vector<Move>& moves, std::vector<std::uint32_t>& removed, const SpatialIndex& index);
  /// Drops every item.
  void clear();
  /// Bytes held.
  std::size_t bytes() const;
  /// "" when slotOf, ids and sort order agree with `index`; the first problem otherwise.
  std::string check(const SpatialIndex& index) const;

 private:
  void resize(std::uint32_t n);
  void mapSlots(std::uint32_t from);

  LargeVector<std::uint64_t> key_;
  LargeVector<float> x_, y_, r_;
  LargeVector<ItemId> id_;
  LargeVector<std::uint32_t> slotOf_;  // by id; kNoIndex when absent
};

/// Calls fn(begin, end, key, shared) for each run [begin, end) of items of one node, in order. `shared` is
/// the depth down to which the node's path agrees with the previous run's, so that a caller keeping
/// per-depth state (cells on the way down) only recomputes the levels below it. Nodes without items of
/// their own are never visited.
template <class Codec, class Fn>
void forEachRun(const SortedItems& items, Fn&& fn) {
  const std::uint64_t* keys = items.keys();
  const std::uint32_t n = items.size();
  std::uint64_t last = Codec::root();
  int lastDepth = 0;
  for (std::uint32_t begin = 0; begin < n;) {
    const std::uint64_t key = keys[begin];
    std::uint32_t end = begin + 1;
    while (end < n && keys[end] == key) ++end;
    const int depth = Codec::depth(key);
    fn(begin, end, key, std::min({Codec::sharedDepth(last, key), lastDepth, depth}));
    last = key;
    lastDepth = depth;
    begin = end;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Directory
// ---------------------------------------------------------------------------------------------------------

/// One live node, in depth-first order.
struct DirNode {
  std::uint64_t key = 0;    ///< the node's key
  std::uint32_t begin = 0;  ///< first item of its subtree (its own items come first)
  std::uint32_t next = 0;   ///< index of the first node after its subtree
};
static_assert(sizeof(DirNode) == 16, "directory entries are read by every walk: keep them at 16 bytes");

/// The live nodes in depth-first order.
class Directory {
 public:
  /// Rebuilds from the sorted keys: a node lives when it or a descendant holds an item (the root always
  /// does), so children exist exactly while something is stored below them.
  template <class Codec>
  void rebuild(const SortedItems& items) {
    nodes_.clear();
    itemCount_ = items.size();
    int shallowest = kMaxWalkDepth;
    // path[d]: the node at depth d on the way to the last key seen; each new key closes the nodes below the
    // depth it shares with the last one and opens its own ancestors below that depth.
    std::uint32_t path[kMaxWalkDepth];
    nodes_.push_back({Codec::root(), 0, 0});
    path[0] = 0;
    int open = 0;  // depth of the deepest open node
    std::uint64_t last = Codec::root();
    const std::uint64_t* keys = items.keys();
    for (std::uint32_t s = 0; s < items.size(); ++s) {
      const std::uint64_t k = keys[s];
      if (k == last && s > 0) continue;
      const int depth = Codec::depth(k);
      shallowest = std::min(shallowest, depth);
      const int shared = std::min({Codec::sharedDepth(last, k), open, depth});
      const auto here = static_cast<std::uint32_t>(nodes_.size());
      for (; open > shared; --open) nodes_[path[open]].next = here;
      for (int d = shared + 1; d <= depth; ++d) {
        path[d] = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back({Codec::ancestor(k, d), s, 0});
      }
      open = depth;
      last = k;
    }
    for (; open >= 0; --open) nodes_[path[open]].next = static_cast<std::uint32_t>(nodes_.size());
    shallowest_ = shallowest;
  }

  /// Nodes listed.
  std::uint32_t size() const { return static_cast<std::uint32_t>(nodes_.size()); }
  /// Entry `i`.
  const DirNode& operator[](std::uint32_t i) const { return nodes_[i]; }
  /// End of node i's own items.
  std::uint32_t ownEnd(std::uint32_t i) const {
    return i + 1 < nodes_[i].next ? nodes_[i + 1].begin : subtreeEnd(i);
  }
  /// End of node i's subtree items.
  std::uint32_t subtreeEnd(std::uint32_t i) const {
    return nodes_[i].next < nodes_.size() ? nodes_[nodes_[i].next].begin : itemCount_;
  }
  /// Depth of the shallowest node holding items of its own (kMaxWalkDepth when none does).
  int shallowestItemDepth() const { return shallowest_; }
  /// Index of the node with `key`, or kNoIndex (binary search).
  std::uint32_t find(std::uint64_t key) const;
  /// Bytes held.
  std::size_t bytes() const { return nodes_.capacity() * sizeof(DirNode) + stack_.capacity() * 4; }
  /// Deepest depth the keys allow, plus one: the size of per-depth arrays of a walk.
  static constexpr int kMaxWalkDepth = 64;

  /// Hands the tree to a pair view (over the items' own arrays, which are in the same order); subtrees small
  /// enough to be one leaf of the view are handed over without reading their nodes. Returns the entries read.
  std::uint64_t fillView(pair_view::PairView& view, const SortedItems& items) const;

 private:
  std::vector<DirNode> nodes_;
  std::uint32_t itemCount_ = 0;
  int shallowest_ = kMaxWalkDepth;
  std::vector<std::uint32_t> stack_;
};

}  // namespace st::linear
