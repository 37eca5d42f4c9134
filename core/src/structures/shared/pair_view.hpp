#pragma once
// The trees' pair search. Once per search a tree hands its hierarchy over depth first: each node, the range
// of items it stores itself, then its children. The items must lie in that same depth-first order in arrays
// of x, y, radius and id (the tree's own arrays where it keeps its items that way, or the view's copy), so
// that every subtree is one contiguous range. The view keeps those nodes with the tight bounds of their
// subtrees (measured from this frame's circles, not the tree's nominal bounds) and folds every subtree of at
// most kBatchItems items into one flat leaf. A simultaneous walk of the view against itself then meets each
// pair of overlapping subtrees once, and tests leaf against leaf with a vector pre-test and then the exact
// predicate.
//
// Which items share a subtree is the tree's own rule; the view only decides how the walk reads them. Items a
// node holds itself become that node's first child, so every item lies in exactly one leaf.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "no_index.hpp"
#include "pair_output.hpp"
#include "spheretest/spatial_index.hpp"
#include "spheretest/tasks.hpp"

namespace st::pair_view {

struct Building;

/// Subtrees holding at most this many items are tested as one flat leaf.
inline constexpr std::uint32_t kBatchItems = 32;

/// Items in depth-first order, as parallel arrays.
struct ItemArrays {
  const float* x = nullptr;    ///< centres, x
  const float* y = nullptr;    ///< centres, y
  const float* r = nullptr;    ///< radii
  const ItemId* id = nullptr;  ///< ids
};

/// Items in depth-first order, writable: what a hand-over fills and reorders.
struct MutableItems {
  float* x = nullptr;    ///< centres, x
  float* y = nullptr;    ///< centres, y
  float* r = nullptr;    ///< radii
  ItemId* id = nullptr;  ///< ids
  /// Writes one item at `at`.
  void put(std::uint32_t at, ItemId item, const Circle& c) const {
    x[at] = c.center.x;
    y[at] = c.center.y;
    r[at] = c.radius;
    id[at] = item;
  }
};

/// One node of the view, in depth-first order: its children follow it, each child's `next` is its sibling.
struct ViewNode {
  Box bounds;                  ///< holds every circle of the subtree (grown for float rounding)
  std::uint32_t begin = 0;     ///< first item of the subtree
  std::uint32_t end = 0;       ///< one past its last item
  std::uint32_t next = 0;      ///< first node after the subtree
  std::uint32_t measured = 0;  ///< 1 once finish() (or the part that filled it) measured its bounds
};
static_assert(sizeof(ViewNode) == 32, "view nodes are read in pairs by the walk: keep them at 32 bytes");

/// A node being handed over, not yet closed: where it sits, where its items begin, and how many entries
/// (child nodes and leaves) hang directly below it so far.
struct OpenNode {
  std::uint32_t index = 0;    ///< its place among the view's nodes
  std::uint32_t begin = 0;    ///< its first item
  std::uint32_t entries = 0;  ///< child nodes and leaves directly below it
};

/// Scratch of a hand-over; one per thread handing a tree over.
struct HandOverScratch {
  std::vector<std::pair<float, std::uint32_t>> order;  ///< (coordinate, position) of the range being split
  std::vector<float> spare;                            ///< old values of the array being reordered
  std::vector<ItemId> spareIds;                        ///< the same for ids
  std::vector<std::uint32_t> stack;                    ///< the tree's own walk over the part it fills
  std::vector<OpenNode> open;                          ///< the nodes a part's writer or count has open
  std::vector<ViewNode> nodes;                         ///< a part's nodes on their way to its room
  /// Bytes held.
  std::size_t bytes() const {
    return order.capacity() * 8 + (spare.capacity() + spareIds.capacity() + stack.capacity()) * 4 +
           open.capacity() * sizeof(OpenNode) + nodes.capacity() * sizeof(ViewNode);
  }
};

/// Items in depth-first order, owned: what a tree that does not keep its items that way copies them into.
struct ItemCopy {
  std::vector<float> x, y, r;  ///< centres and radii
  std::vector<ItemId> id;      ///< ids
  HandOverScratch split;       ///< scratch of handOverOwnItems on the calling thread
  /// Makes room for exactly `count` items, to be written in place (see writable()).
  void resize(std::uint32_t count) {
    x.resize(count);
    y.resize(count);
    r.resize(count);
    id.resize(count);
  }
  /// Appends one item.
  void push(ItemId item, const Circle& c) {
    x.push_back(c.center.x);
    y.push_back(c.center.y);
    r.push_back(c.radius);
    id.push_back(item);
  }
  /// Items held.
  std::uint32_t size() const { return static_cast<std::uint32_t>(id.size()); }
  /// The arrays, for the view.
  ItemArrays arrays() const { return {x.data(), y.data(), r.data(), id.data()}; }
  /// The arrays, for writing and reordering in place (valid until the next resize or push).
  MutableItems writable() { return {x.data(), y.data(), r.data(), id.data()}; }
  /// Bytes held.
  std::size_t bytes() const {
    return (x.capacity() + y.capacity() + r.capacity() + id.capacity()) * 4 + split.bytes();
  }
};

/// Work of one pair search, for the counters.
struct PairWork {
  std::uint64_t tasks = 0;       ///< node pairs (and nodes against themselves) the walk examined
  std::uint64_t pretests = 0;    ///< circle pairs the float pre-test looked at
  std::uint64_t candidates = 0;  ///< circle pairs tested exactly (those the pre-test let through)
};

/// Items picked from a leaf, as parallel arrays with room for a full vector beyond the last one.
struct Picked {
  std::vector<float> x, y, r;  ///< centres and radii
  std::vector<ItemId> id;      ///< ids
  std::uint32_t n = 0;         ///< items picked
  /// Makes room for `count` items plus one vector's width, dropping what was picked.
  void reset(std::uint32_t count) {
    n = 0;
    if (x.size() >= count + 16) return;
    const std::size_t size = count + 16 + count / 2;
    x.resize(size);
    y.resize(size);
    r.resize(size);
    id.resize(size);
  }
  /// Bytes held.
  std::size_t bytes() const { return (x.capacity() + y.capacity() + r.capacity() + id.capacity()) * 4; }
};

/// Memory a pair search works in; one per concurrent search.
struct WalkScratch {
  std::vector<std::uint64_t> tasks;     ///< pending node pairs
  std::vector<std::uint32_t> children;  ///< children of a wide node, sorted for the sweep
  Picked pickA;                         ///< items of one leaf that reach the other leaf
  Picked pickB;                         ///< and the other way round
  /// Bytes held.
  std::size_t bytes() const {
    return tasks.capacity() * 8 + children.capacity() * 4 + pickA.bytes() + pickB.bytes();
  }
};

/// A tree's hierarchy as the pair search reads it; the tree fills it depth first, then calls findPairs().
class PairView {
 public:
  /// Forgets the last hierarchy; the items to come lie in `items` (depth-first order, as the tree hands its
  /// nodes over).
  void begin(const ItemArrays& items);
  /// Opens a node below the innermost open one (the first call opens the root); `at` is where its items
  /// begin.
  void enterNode(std::uint32_t at);
  /// The items [begin, end) the innermost open node stores itself; at most once per node, before its
  /// first child.
  void ownItems(std::uint32_t begin, std::uint32_t end);
  /// Closes the innermost open node, whose subtree's items end at `end`.
  void leaveNode(std::uint32_t end);
  /// A whole subtree of at most kBatchItems items, [begin, end), as one leaf below the innermost open node
  /// (the same as entering it, handing over its items and leaving it, without reading its nodes).
  void addLeaf(std::uint32_t begin, std::uint32_t end);
  /// Leaves room below the innermost open node for a part that another thread fills with a PartWriter: the
  /// `nodes` nodes its calls leave, `entries` of them directly below that node (as a NodeCount of the same
  /// calls gives them). Rooms are numbered in the order they are left.
  void leaveRoom(std::uint32_t nodes, std::uint32_t entries);
  /// Measures the bounds of every node not measured yet from the items, which must all be in place by now
  /// (the calls above only record ranges, so a tree may fill its item arrays in any order before this).
  /// Every room must have been filled.
  void finish();

  /// Appends every overlapping pair of the view's items, each once, and adds up the work done. `wide`: use
  /// the 16-lane kernels where the CPU has them (the results are the same either way).
  void findPairs(pairs::PairWriter& writer, PairWork& work, WalkScratch& scratch, bool wide = true) const;
  /// The same spread over the scheduler's workers, appending to `out`; `scratch` holds one per worker
  /// (grown as needed). The pairs (in another order) and the work are those of the serial search.
  void findPairs(TaskScheduler& scheduler, std::vector<Pair>& out, PairWork& work,
                 std::vector<WalkScratch>& scratch, bool wide = true) const;

  /// Checks that the nodes nest: each subtree's nodes follow it up to its `next`, its children's item
  /// ranges tile its own, and its bounds hold its circles. Returns "" when they do, else the first fault.
  std::string validate() const;
  /// Nodes the view kept (leaves and the subtrees above them).
  std::size_t nodes() const { return nodes_.size(); }
  /// The nodes, root first (valid after finish() until the next begin()).
  const ViewNode* nodeData() const { return nodes_.data(); }
  /// The arrays the nodes' item ranges index (those begin() was given).
  const ItemArrays& items() const { return items_; }
  /// The node whose subtree holds exactly the items [begin, end), found by descending from the root
  /// through the child whose items hold them; kNoIndex when no node does (a range of kBatchItems or fewer
  /// inside a leaf, or one that crosses nodes).
  std::uint32_t nodeHolding(std::uint32_t begin, std::uint32_t end) const;
  /// Bytes held.
  std::size_t bytes() const;

 private:
  void examine(std::uint64_t t, pairs::PairWriter& writer, PairWork& work, WalkScratch& scratch,
               bool wide) const;
  void drain(pairs::PairWriter& writer, PairWork& work, WalkScratch& scratch, bool wide) const;
  void within(std::uint32_t n, WalkScratch& scratch, pairs::PairWriter& writer, PairWork& work,
              bool wide) const;
  void across(std::uint32_t a, std::uint32_t b, WalkScratch& scratch, pairs::PairWriter& writer,
              PairWork& work, bool wide) const;

  friend class PartWriter;
  friend struct Building;

  ItemArrays items_;
  std::vector<ViewNode> nodes_;
  std::vector<OpenNode> open_;
  struct RoomAt {
    std::uint32_t begin;  // its first node
    std::uint32_t nodes;  // and how many
    bool dropped;         // a node above it became one leaf: the part leaves no nodes
  };
  std::vector<RoomAt> rooms_;
};

/// Counts what a hand-over leaves in a view: the same calls as a PairView's, without the view or the items,
/// so that a part's room can be left before any thread fills it.
class NodeCount {
 public:
  /// Starts over, keeping open nodes in `open`.
  explicit NodeCount(std::vector<OpenNode>& open) : open_(open) { open_.clear(); }
  /// See PairView::enterNode.
  void enterNode(std::uint32_t at);
  /// See PairView::ownItems.
  void ownItems(std::uint32_t begin, std::uint32_t end);
  /// See PairView::addLeaf.
  void addLeaf(std::uint32_t begin, std::uint32_t end);
  /// See PairView::leaveNode.
  void leaveNode(std::uint32_t end);
  /// Nodes the calls so far leave.
  std::uint32_t nodes() const { return nodes_; }
  /// Of them, those below no node the calls opened (what hangs from the node a part is handed over below).
  std::uint32_t entries() const { return top_; }

 private:
  friend struct Building;
  std::vector<OpenNode>& open_;
  std::uint32_t nodes_ = 0;
  std::uint32_t top_ = 0;
};

/// Fills one room of a view (PairView::leaveRoom) with a part's nodes, exactly as the view's own calls would
/// have appended them there, so that parts handed over at once on several threads need no views of their own:
/// only a worker's buffer for the part at hand.
class PartWriter {
 public:
  /// A writer of room `room` of `view`, working in `scratch` (its nodes and open nodes).
  PartWriter(PairView& view, std::size_t room, HandOverScratch& scratch);
  /// See PairView::enterNode.
  void enterNode(std::uint32_t at);
  /// See PairView::ownItems.
  void ownItems(std::uint32_t begin, std::uint32_t end);
  /// See PairView::addLeaf.
  void addLeaf(std::uint32_t begin, std::uint32_t end);
  /// See PairView::leaveNode.
  void leaveNode(std::uint32_t end);
  /// Checks that the part's nodes fill its room exactly, puts them there and measures their bounds (its
  /// items must be in place by now).
  void finish();

 private:
  friend struct Building;
  PairView& view_;
  std::uint32_t begin_;
  std::uint32_t end_;
  bool dropped_;
  std::vector<ViewNode>& nodes_;
  std::vector<OpenNode>& open_;
};

/// Hands the items [begin, end) of `items`, which the innermost open node of `view` stores itself, to the
/// view. More than kBatchItems of them are reordered and split like a k-d tree (halves across the longer side
/// of their centres' extent) into leaves of at most kBatchItems, so that a long strip of circles held high in
/// a tree (those straddling its cells' middles) is tested piece by piece, not as one leaf as wide as the
/// node.
void handOverOwnItems(PairView& view, const MutableItems& items, std::uint32_t begin, std::uint32_t end,
                      HandOverScratch& scratch);
/// The same into a part's room.
void handOverOwnItems(PartWriter& view, const MutableItems& items, std::uint32_t begin, std::uint32_t end,
                      HandOverScratch& scratch);
/// What handOverOwnItems leaves in a view, counted: the split depends on nothing but the number of items.
void countOwnItems(NodeCount& count, std::uint32_t begin, std::uint32_t end);

/// A tree's hand-over cut into parts that threads fill at once. Each part is a whole subtree, or a run of
/// sibling subtrees, whose items take a range of the shared arrays known in advance. The tree counts each
/// part's nodes first (NodeCount, usually in a pass over the part it makes anyway), hands over the nodes
/// above the parts into the view, leaving a room where each part goes, and then the workers fill the rooms
/// straight in the view. Which nodes start a part is the tree's choice and must not depend on the number of
/// threads, so that the view, and so the pairs and the work counted, are the same on any number of them.
struct Parts {
  std::vector<std::uint32_t> nodes;      ///< per part: the nodes it leaves in the view
  std::vector<std::uint32_t> entries;    ///< per part: of them, those below no node of the part
  std::vector<HandOverScratch> scratch;  ///< one per worker

  /// Makes sure every worker of `scheduler` has its scratch and there is a count for each of `count` parts.
  void fit(const TaskScheduler& scheduler, std::size_t count) {
    if (scratch.size() < scheduler.workerCount()) scratch.resize(scheduler.workerCount());
    nodes.resize(count);
    entries.resize(count);
  }
  /// Records part p's count.
  void counted(std::size_t p, const NodeCount& count) {
    nodes[p] = count.nodes();
    entries[p] = count.entries();
  }
  /// Leaves part p's room in `view` (the parts' rooms must be left in part order).
  void leaveRoom(PairView& view, std::size_t p) const { view.leaveRoom(nodes[p], entries[p]); }
  /// Part p's place in the hand-over of the nodes above the parts (in part order): its room, for
  /// fillRooms() to fill (`inRooms`), or the part itself, handed over here by `fill(p, view, scratch)`.
  /// Returns the nodes `fill` read (none for a room).
  template <class Fill>
  std::uint64_t place(bool inRooms, PairView& view, std::size_t p, Fill&& fill) {
    if (inRooms) {
      leaveRoom(view, p);
      return 0;
    }
    return fill(p, view, scratch[0]);
  }
  /// Runs `fill(part, writer, scratch)` for parts [0, count) on the scheduler's workers, each writing into
  /// its room of `view`, which measures the part's nodes once it is filled. Returns the nodes the fills
  /// read, summed.
  template <class Fill>
  std::uint64_t fillRooms(TaskScheduler& scheduler, PairView& view, std::size_t count, Fill&& fill) {
    std::atomic<std::uint64_t> read{0};
    scheduler.parallelFor(count, 1, [&](std::size_t begin, std::size_t end, unsigned worker) {
      for (std::size_t p = begin; p < end; ++p) {
        PartWriter writer(view, p, scratch[worker]);
        read.fetch_add(fill(p, writer, scratch[worker]), std::memory_order_relaxed);
        writer.finish();
      }
    });
    return read.load();
  }
  /// Bytes held.
  std::size_t bytes() const {
    std::size_t bytes =
        (nodes.capacity() + entries.capacity()) * 4 + scratch.capacity() * sizeof(HandOverScratch);
    for (const HandOverScratch& s : scratch) bytes += s.bytes();
    return bytes;
  }
};

/// Walks a tree depth first from `root` with an explicit stack, as a hand-over does: `enter(node)` returns
/// whether to go below the node (false: the caller dealt with the whole subtree, as a part say); if so,
/// `children(node, push)` pushes its children (the last pushed is walked first) and `leave(node)` follows
/// them. Node indices must stay below 2^31; `stack` is scratch.
template <class Enter, class Children, class Leave>
void walkDepthFirst(std::uint32_t root, std::vector<std::uint32_t>& stack, Enter&& enter, Children&& children,
                    Leave&& leave) {
  constexpr std::uint32_t kLeave = 0x80000000u;  // marks the step that closes a node
  const auto push = [&stack](std::uint32_t child) { stack.push_back(child); };
  stack.assign(1, root);
  while (!stack.empty()) {
    const std::uint32_t step = stack.back();
    stack.pop_back();
    if (step & kLeave) {
      leave(step & ~kLeave);
    } else if (enter(step)) {
      stack.push_back(step | kLeave);
      children(step, push);
    }
  }
}

/// How many items a part of a tree's hand-over should hold at most: parts small enough that every worker
/// gets several, large enough that the nodes above them stay few. Depends only on the item count.
inline std::uint32_t partItems(std::size_t itemCount) {
  return static_cast<std::uint32_t>(std::max<std::size_t>(itemCount / 128, 2048));
}

/// Runs the view's pair search into `out` on the scheduler's workers and folds its work into the counters
/// of the call: every pair the pre-test looked at is a candidate, the survivors are its exact tests.
/// `scratch` holds one WalkScratch per worker.
inline void findPairsInto(const PairView& view, std::vector<Pair>& out, TaskScheduler& scheduler,
                          std::vector<WalkScratch>& scratch, QueryCounters& counters) {
  PairWork work;
  view.findPairs(scheduler, out, work, scratch);
  counters.nodesVisited += work.tasks;
  counters.candidates += work.pretests;
  counters.exactTests += work.candidates;
}

/// Bytes held by per-worker scratch.
inline std::size_t scratchBytes(const std::vector<WalkScratch>& scratch) {
  std::size_t bytes = scratch.capacity() * sizeof(WalkScratch);
  for (const WalkScratch& s : scratch) bytes += s.bytes();
  return bytes;
}

}  // namespace st::pair_view
