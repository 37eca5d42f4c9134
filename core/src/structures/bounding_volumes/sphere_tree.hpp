#pragma once
// Ratcliff's sphere tree (SpherePackFactory, seed 001): circles are gathered by leaf super-spheres, leaf
// super-spheres by root super-spheres, and every super-sphere carries a little slop ("gravity") so that
// its members rarely leave it. A move is one distance comparison with the parent's bound as long as the
// circle stays inside; a circle that pierces its parent is moved to the top of the tree in O(1) and put on
// a reintegration queue, and its old parent on a recomputation queue; both are drained once per frame.
//
// Layout: super-spheres live in one pool addressed by 32-bit indices; sphere 0 is the unbounded root, which
// holds the top-level super-spheres and whatever waits for reintegration. A super-sphere's sphere children
// form an intrusive doubly linked list (detaching one is a few index swaps); the circles a sphere holds are
// one slice of a shared array of {x, y, r, id}, so that a leaf's members are read side by side. A circle
// leaves a slice by swap-remove and joins one at its end; a full slice moves to the end of the array with
// half as much room again, and the array is repacked depth first when moved-out slices take a fifth of it.
//
// This header is internal: it is shared by sphere_tree.cpp (mutation), sphere_tree_placement.cpp (queues,
// placement, build), sphere_tree_top_level.cpp (the top level, its grid and the query layout) and
// sphere_tree_walks.cpp (queries, view cull, pairs, validation).

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "large_pages.hpp"
#include "spheretest/spatial_index.hpp"
#include "structures/shared/bvh_pruning.hpp"
#include "structures/shared/free_list.hpp"
#include "structures/shared/no_index.hpp"
#include "structures/shared/ordered_pieces.hpp"
#include "structures/shared/pair_view.hpp"
#include "structures/shared/tree_walk.hpp"

namespace st::sphere_tree {

/// The unbounded root.
inline constexpr std::uint32_t kRoot = 0;
/// Level of a circle (the items; spheres start at 1).
inline constexpr std::uint8_t kItemLevel = 0;
/// Level of the root.
inline constexpr std::uint8_t kRootLevel = 254;
/// Level of a sphere on the free list.
inline constexpr std::uint8_t kDeadLevel = 255;

// Sphere flags.
/// Waiting in the reintegration queue.
inline constexpr std::uint8_t kQueuedReintegrate = 1;
/// Waiting in the recomputation queue.
inline constexpr std::uint8_t kQueuedRecompute = 2;
/// A member that disagrees with this sphere's cull memory was linked somewhere below since the last view
/// cull, so the next cull must descend here even if the sphere's own state does not change.
inline constexpr std::uint8_t kCullDirty = 4;
/// A leaf that reintegration started around a circle or grew to take one: no longer as gathered.
inline constexpr std::uint8_t kWorn = 8;

// Last view-cull state of a super-sphere.
/// Wholly outside the cone.
inline constexpr std::uint8_t kHidden = 0;
/// Partly inside: its members were classified one by one.
inline constexpr std::uint8_t kPartial = 1;
/// Wholly inside.
inline constexpr std::uint8_t kVisible = 2;

// Per-item state bits (itemState).
/// The item was visible at the last cull.
inline constexpr std::uint8_t kItemVisible = 1;
/// The item waits in the reintegration queue.
inline constexpr std::uint8_t kItemQueued = 2;

/// One super-sphere (or the root).
struct SphereNode {
  float x = 0.0f;                        ///< bound centre
  float y = 0.0f;                        ///< bound centre
  float radius = 0.0f;                   ///< bound radius including gravity
  float reach = 0.0f;                    ///< radius grown by the pruning margin
  std::uint32_t parent = kNoIndex;       ///< the sphere above (the root for top-level spheres)
  std::uint32_t firstChild = kNoIndex;   ///< first sphere child; next free sphere while dead
  std::uint32_t nextSibling = kNoIndex;  ///< next sphere in the parent's list
  std::uint32_t prevSibling = kNoIndex;  ///< previous sphere in the parent's list
  std::uint32_t childCount = 0;          ///< sphere children
  std::uint32_t itemBegin = 0;           ///< first slot of this sphere's slice
  std::uint32_t itemCount = 0;           ///< items in the slice
  std::uint32_t itemRoom = 0;            ///< slots the slice holds
  std::uint8_t level = kDeadLevel;       ///< 1 leaf sphere, 2 root sphere, ...; kRootLevel, kDeadLevel
  std::uint8_t flags = 0;                ///< kQueued..., kCullDirty
  std::uint8_t cullState = kPartial;     ///< state at the last view cull
  std::uint8_t spare = 0;                ///< padding
};
static_assert(sizeof(SphereNode) == 52, "super-spheres are read by every walk: keep them at 52 bytes");

/// One item in a sphere's slice.
struct ItemSlot {
  float x = 0.0f;  ///< centre
  float y = 0.0f;  ///< centre
  float r = 0.0f;  ///< radius
  ItemId id = 0;   ///< the item
};
static_assert(sizeof(ItemSlot) == 16, "four slots to a cache line");

/// A queued sphere or item (items carry kItemTag) with a hint: where to look first for its new home.
struct QueueEntry {
  std::uint32_t node;  ///< sphere index, or kItemTag | id
  std::uint32_t hint;  ///< a sphere to search first, or kNoIndex
};
/// Marks an item in a queue entry (ids are below 2^27, sphere indices below 2^31).
inline constexpr std::uint32_t kItemTag = 0x80000000u;

/// A FIFO of queue entries; entries go stale when their node is freed or processed (the flags tell).
class NodeFifo {
 public:
  /// Appends an entry.
  void push(QueueEntry e) { entries_.push_back(e); }
  /// Whether nothing is left.
  bool empty() const { return head_ == entries_.size(); }
  /// Takes the oldest entry.
  QueueEntry pop() {
    const QueueEntry e = entries_[head_++];
    if (head_ == entries_.size()) {
      entries_.clear();
      head_ = 0;
    } else if (head_ >= 4096 && head_ * 2 >= entries_.size()) {
      entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return e;
  }
  /// Drops every entry.
  void clear() {
    entries_.clear();
    head_ = 0;
  }
  /// Bytes held.
  std::size_t capacityBytes() const { return entries_.capacity() * sizeof(QueueEntry); }

 private:
  std::vector<QueueEntry> entries_;
  std::size_t head_ = 0;
};

/// A circle in double, used while computing bounds: the bounding circle the query walk tests.
using Disc = tree_walk::CircleBound;

/// The smallest circle containing two circles.
Disc enclosingPair(const Disc& a, const Disc& b);
/// Whether circle `inner` lies inside `outer`, compared in double.
bool discContains(const Disc& outer, const Disc& inner);

/// A bound's radius grown by its share of the widening the top-level tests allow (far beyond the float
/// rounding and every exact test's margin): with the query's share (queryShare) the test is one comparison.
inline float widenedReach(float x, float y, float radius) {
  return radius * 1.00001f + (std::fabs(x) + std::fabs(y)) * 1e-5f;
}

/// The root's children side by side. The seed keeps the top level as a plain list, which every query and
/// every placement scans whole: its bounds are kept in arrays a loop reads in vector lanes, and once the
/// list is long (thousands of top-level spheres at a million circles) a grid over their centres, rebuilt
/// each maintain(), finds the few near a point; entries changed since then are tested from a short list.
struct TopLevel {
  std::vector<float> x, y;               ///< bound centres
  std::vector<float> reach;              ///< bound radii, widened (widenedReach)
  std::vector<std::uint32_t> node;       ///< the sphere of each entry
  std::vector<std::uint64_t> cellKeys;   ///< the grid: cell of each indexed sphere, sorted
  std::vector<std::uint32_t> cellNodes;  ///< the sphere beside each cell key
  std::vector<std::uint32_t> recent;     ///< spheres whose entry changed since the grid was built
  std::vector<std::uint8_t> changed;     ///< by sphere: 1 while in `recent`
  std::vector<std::pair<std::uint64_t, std::uint32_t>> sorting;  ///< index()'s scratch, kept between calls
  double cell = 0.0;                                             ///< grid cell size; 0 while there is no grid
  float indexedWidest = 0.0f;  ///< largest reach among the spheres the grid holds
  /// Entries.
  std::size_t size() const { return node.size(); }
  /// Bytes held.
  std::size_t bytes() const {
    return (x.capacity() + y.capacity() + reach.capacity() + node.capacity() + cellNodes.capacity() +
            recent.capacity()) *
               4 +
           cellKeys.capacity() * 8 + changed.capacity() + sorting.capacity() * sizeof(sorting[0]);
  }
  /// Gives sphere n the bound (x, y, radius): a new entry when `at` is kNoIndex (`at` then names it).
  void place(std::uint32_t& at, std::uint32_t n, float bx, float by, float radius);
  /// Removes entry `at`; the last entry fills the hole. Returns the sphere now at `at`, or kNoIndex.
  std::uint32_t removeAt(std::uint32_t at);
  /// Notes that sphere n's entry was added or its bound changed.
  void noteChanged(std::uint32_t n);
  /// Builds the grid over the current entries (none below kIndexFrom entries).
  void index(double cellSize);
  /// Whether the list of changed entries has grown long enough that the grid should be built again.
  bool stale() const { return cell > 0.0 && recent.size() > 64 + size() / 16; }
  /// The spheres whose bound may lie within `within` of (qx, qy), widened so that nothing an exact test
  /// would keep is dropped. `entryOf` maps a sphere to its entry (kNoIndex off the top level). Returns how
  /// many entries were tested; those tested and dropped go to `dropped` when it is given (for a trace).
  std::size_t near(double qx, double qy, double within, const std::vector<std::uint32_t>& entryOf,
                   std::vector<std::uint32_t>& out, std::vector<std::uint32_t>* dropped = nullptr) const;
  /// Entries from which the grid is used: below, one scan of them all costs a query little.
  static constexpr std::size_t kIndexFrom = 64;
};

/// The top two levels laid out for the queries after each maintain(): the top-level entries in the order
/// of the top level's grid cells, each with its bound and its rows: its children's bounds (or, when the
/// entry holds circles itself, its own). A query finds each grid column's near entries through a table of
/// the cells' first entries (or, where the cells are spread too thin for one, a search per column), tests
/// them and their rows side by side in vector lanes, and starts its walk from the rows it keeps, instead of
/// reaching each bound through the entry table and the sibling links of the pool. Valid while the tree is as
/// it was laid out (the content version it was laid out at). Every bound is widened as the top level's
/// (widenedReach), so that nothing an exact test keeps is dropped.
struct QueryLayout {
  double cell = 0.0;                           ///< the top level's grid cell; 0 when there is none
  float widestTop = 0.0f;                      ///< largest top-level reach
  std::vector<std::uint64_t> keys;             ///< by entry: its cell key, ascending (all 0 without a grid)
  std::int64_t firstColumn = 0, firstRow = 0;  ///< the lowest cell the entries' centres lie in
  std::int64_t columns = 0, rows = 0;          ///< cells the entries' centres span; 0 without cellStart
  std::vector<std::uint32_t> cellStart;        ///< by cell of that span, column by column: its first entry
  std::vector<float> topX, topY;               ///< by entry: bound centre
  std::vector<float> topReach;                 ///< by entry: widened bound radius
  std::vector<std::uint32_t> rowBegin;         ///< by entry: its first row; the row count at the end
  std::vector<float> x, y;                     ///< by row: bound centre
  std::vector<float> reach;                    ///< by row: widened bound radius
  std::vector<std::uint32_t> node;             ///< by row: its sphere
  std::uint64_t version = ~std::uint64_t{0};   ///< content version it was laid out at
  /// Bytes held.
  std::size_t bytes() const {
    return keys.capacity() * 8 +
           (cellStart.capacity() + topX.capacity() + topY.capacity() + topReach.capacity() +
            rowBegin.capacity() + x.capacity() + y.capacity() + reach.capacity() + node.capacity()) *
               4;
  }
  /// Sets `out` to the spheres of the rows whose bound may lie within `within` of (qx, qy), below the
  /// entries whose bound may. Returns how many bounds were tested, entries and rows.
  std::size_t near(double qx, double qy, double within, std::vector<std::uint32_t>& out) const;
};

/// The sphere tree.
class SphereTree final : public SpatialIndex {
 public:
  SphereTree();

  std::string_view description() const override;
  void visitNodes(const NodeVisitor& visitor) const override;
  void visitPathTo(ItemId id, const NodeVisitor& visitor) const override;
  std::string_view nodeRule() const override;
  IndexStats stats() const override;
  void extra(ExtraCounters& out) const override;

 protected:
  void onParamChanged(std::string_view key) override;
  void doBuild(std::span<const Item> items) override;
  void doInsert(ItemId id, const Circle& c) override;
  void doUpdate(ItemId id, const Circle& old, const Circle& c) override;
  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old) override;
  bool batchNeedsOldCircles(std::size_t) const override { return false; }
  void doRemove(ItemId id, const Circle& c) override;
  void doClear() override;
  void doMaintain() override;
  void doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const override;
  void doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const override;
  void doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const override;
  void doVisitPoint(Vec2 p, const ItemVisitor& visit, QueryContext& ctx) const override;
  void doVisitCircle(const Circle& query, const ItemVisitor& visit, QueryContext& ctx) const override;
  void doVisitBox(const Box& box, const ItemVisitor& visit, QueryContext& ctx) const override;
  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override;
  std::optional<RayHit> doRayCastFirst(const Segment& segment, QueryContext& ctx) const override;
  void doQueryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out,
                      QueryContext& ctx) const override;
  void doFindPairs(std::vector<Pair>& out) override;
  void doCullView(const ViewCone& cone, std::vector<ItemId>& entered, std::vector<ItemId>& left) override;
  void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const override;
  std::string doValidate() const override;

 private:
  struct CullEntry {
    std::uint32_t node;
    std::uint8_t forced;  // kPartial: classify; kHidden/kVisible: an ancestor decided for the whole subtree
  };
  // Best home for a node among spheres one level above it.
  struct Home {
    std::uint32_t node = kNoIndex;
    bool grows = false;
    Disc grown;
    double score = std::numeric_limits<double>::infinity();
  };

  // -- pool and slices (sphere_tree.cpp)
  void readParams();
  // -- bulk build and regrouping (sphere_tree_placement.cpp)
  void groupInCells(int level, std::span<const Item> items, std::span<const std::uint32_t> current,
                    std::vector<std::uint32_t>& next);
  void regroup(std::size_t circles);
  std::size_t regroupTop(std::uint32_t top);
  struct LeafShare {
    std::size_t circles = 0;  // circles in the leaves below
    std::size_t worn = 0;     // those in worn leaves
  };
  LeafShare wornBelow(std::uint32_t top);
  // Calls visit(n) for `top` and every super-sphere below it, depth first (on sphereStack_; visit may
  // change a sphere but not its children).
  template <class Visit>
  void forEachSphereBelow(std::uint32_t top, Visit&& visit) {
    sphereStack_.assign(1, top);
    while (!sphereStack_.empty()) {
      const std::uint32_t n = sphereStack_.back();
      sphereStack_.pop_back();
      visit(n);
      for (std::uint32_t c = spheres_[n].firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
        sphereStack_.push_back(c);
    }
  }
  void reuseFreedSlices(std::size_t slotsBefore);
  double topCellSize() const;
  void resetPool();
  void ensureIdCapacity();
  std::uint32_t allocSphere(std::uint8_t level);
  void freeSphere(std::uint32_t n);
  void appendItem(std::uint32_t sphere, ItemId id, const Circle& c);
  void removeItem(ItemId id);
  void repackSlices();
  bool agreesWithCullMemory(ItemId id, std::uint32_t parent) const;
  bool sphereAgreesWithCullMemory(std::uint32_t child, std::uint32_t parent) const;
  void markCullDirty(std::uint32_t n);
  void linkSphere(std::uint32_t child, std::uint32_t parent);
  void unlinkSphere(std::uint32_t child);
  void syncTop(std::uint32_t n);
  void layOutForQueries();
  Disc discOf(std::uint32_t n) const { return {spheres_[n].x, spheres_[n].y, spheres_[n].radius}; }
  double limitOf(int level) const;
  void setBound(std::uint32_t n, const Disc& d);
  NodeInfo nodeInfo(std::uint32_t n, int depth) const;

  // -- queues and placement (sphere_tree_placement.cpp)
  void queueReintegrateItem(ItemId id, std::uint32_t hint);
  void queueReintegrateSphere(std::uint32_t n, std::uint32_t hint);
  void queueRecompute(std::uint32_t n);
  void detachItemToRoot(ItemId id);
  void detachSphereToRoot(std::uint32_t n);
  void moveItem(ItemId id, const Circle& c);
  void process(std::size_t budget);
  void recomputeBound(std::uint32_t n);
  Disc enclosingOfChildren(std::uint32_t n) const;
  void considerHome(std::uint32_t candidate, const Disc& x, const Disc& xWithGravity, double maxRadius,
                    Home& best) const;
  Home findHome(const Disc& x, std::uint32_t self, int target, std::uint32_t hint);
  void reintegrateItem(ItemId id, std::uint32_t hint);
  void reintegrateSphere(std::uint32_t n, std::uint32_t hint);
  std::uint32_t placeInHome(const Disc& x, std::uint32_t self, int level, std::uint32_t hint);

  // -- walks (sphere_tree_walks.cpp)
  class Walkable;
  // `out` is a vector of ids or a visitor that can stop the walk.
  template <class Shape, class Out>
  void collect(const Disc& around, const Shape& shape, Out& out, QueryContext& ctx) const;

  LargeVector<SphereNode> spheres_;
  FreeList freeSpheres_;  // dead super-spheres, linked through firstChild
  std::size_t liveSpheres_ = 0;
  LargeVector<ItemSlot> slots_;          // slices of the spheres that hold items
  std::size_t slotsInUse_ = 0;           // room of the live slices
  LargeVector<std::uint32_t> slotOf_;    // item id -> its slot
  LargeVector<std::uint32_t> ownerOf_;   // item id -> the sphere holding it (kNoIndex when absent)
  std::vector<std::uint8_t> itemState_;  // item id -> kItemVisible | kItemQueued
  NodeFifo reintegrate_;
  NodeFifo recompute_;
  std::size_t queuedReintegrate_ = 0;  // live entries (flags set)
  std::size_t queuedRecompute_ = 0;
  std::vector<ItemId> pendingLeft_;  // removed while visible: reported as left at the next cull

  double leafSize_ = 24.0, rootSize_ = 128.0, gravity_ = 1.5;
  int topLevel_ = 2;
  std::size_t budget_ = 0;

  std::uint64_t moves_ = 0, fastPath_ = 0, detached_ = 0, reintegrated_ = 0, recomputed_ = 0;
  std::uint64_t batchMoves_ = 0, batchFastPath_ = 0, repacks_ = 0;
  double regroupRate_ = 8.0;                // circles looked at for regrouping per circle detached
  std::uint64_t detachedAtMaintain_ = 0;    // detached_ at the last maintain()
  double regroupWorn_ = 0.3;                // share of a top's circles in worn leaves that regroups it
  std::uint64_t regroups_ = 0;              // top-level super-spheres regrouped
  std::uint64_t regroupsPassed_ = 0;        // top-level super-spheres the regrouping reached and left alone
  std::uint32_t regroupCursor_ = kNoIndex;  // the next top-level super-sphere to regroup
  // Scratch of the bulk build and the regrouping, kept between calls.
  struct GroupMember {
    std::int64_t cellX, cellY;
    float radius;
    std::uint32_t index;  // item index (level 1) or sphere (above)
  };
  std::vector<GroupMember> groupMembers_;
  std::vector<Disc> groupSeeds_;
  std::vector<std::uint32_t> groupSeedNodes_, regroupSpheres_, regroupIndices_, regroupLeaves_;
  std::vector<Item> regroupItems_;
  struct SliceRegion {
    std::uint32_t begin, room;
  };
  std::vector<SliceRegion> regroupRegions_;  // the regrouped subtree's freed slices

  std::vector<std::uint32_t> sphereStack_;
  TopLevel top_;                         // the root's children
  std::vector<std::uint32_t> topIndex_;  // sphere -> its entry in top_ (kNoIndex below the top)
  std::vector<std::uint32_t> topNear_;   // its result
  QueryLayout queryLayout_;              // the top two levels as the queries read them
  std::vector<CullEntry> cullStack_;
  std::vector<ItemId> scratchIds_;
  LargeVector<ItemSlot> repackScratch_;
  std::vector<std::uint32_t> runs_;  // spheres with items, depth first, for the whole-frame pass
  std::vector<ItemId> leaving_;      // circles the whole-frame pass found outside their sphere
  // The pair search's hand-over (see doFindPairs): the root's children, what lies below each, the runs of
  // them that are parts, and the parts' counts and scratch.
  struct PartRun {
    std::uint32_t firstChild;  // index in topChildren_
    std::uint32_t itemsAt;     // slot of its first item
  };
  struct Below {
    std::uint32_t items = 0;    // circles below a child of the root
    std::uint32_t nodes = 0;    // nodes its hand-over leaves in the view (counted on several threads)
    std::uint32_t entries = 0;  // of them, those hanging from the root
  };
  std::vector<std::uint32_t> topChildren_;
  std::vector<Below> childBelow_;
  std::vector<PartRun> partRuns_;
  pair_view::Parts parts_;
  pair_view::PairView view_;
  pair_view::ItemCopy viewItems_;
  std::vector<pair_view::WalkScratch> viewWalk_;  // one per worker
};

}  // namespace st::sphere_tree
