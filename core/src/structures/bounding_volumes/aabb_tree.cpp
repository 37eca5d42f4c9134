// The dynamic AABB tree's tree surgery (insertion, removal, refits and rotations), layout, top-down build,
// pair search hand-over and validation. See aabb_tree.hpp.

#include "aabb_tree.hpp"

namespace st::aabb_tree {

// ---------------------------------------------------------------------------------------------------------
// Insertion, removal, rotations
// ---------------------------------------------------------------------------------------------------------

Ref AabbTree::chooseSibling(const Box& leafBox, Ref start) const {
  Ref n = start;
  float inherited = 0.0f;
  while (!isLeaf(n)) {
    const AabbNode& node = nodes_[n];
    const float unionPerimeter = boxPerimeter(boxUnion(node.box, leafBox));
    const float here = unionPerimeter + inherited;
    inherited += unionPerimeter - boxPerimeter(node.box);
    float best = here;
    Ref next = kNoIndex;
    for (Ref child : node.child) {
      const Box& cb = boxOf(child);
      const float grownChild = boxPerimeter(boxUnion(cb, leafBox));
      const float cost = inherited + (isLeaf(child) ? grownChild : grownChild - boxPerimeter(cb));
      if (cost < best) best = cost, next = child;
    }
    if (next == kNoIndex) break;
    n = next;
  }
  return n;
}

void AabbTree::insertLeaf(Ref leaf, Ref start) {
  if (root_ == kNoIndex) {
    root_ = leaf;
    setParent(leaf, kNoIndex);
    return;
  }
  const Ref sibling = chooseSibling(boxOf(leaf), start);
  const std::uint32_t oldParent = parentOf(sibling);
  const std::uint32_t parent = allocNode();  // may reallocate the pool: no references held across it
  AabbNode& p = nodes_[parent];
  p.parent = oldParent;
  p.child = {sibling, leaf};
  p.box = boxUnion(boxOf(sibling), boxOf(leaf));
  p.height = heightOf(sibling) + 1;
  if (oldParent == kNoIndex)
    root_ = parent;
  else
    replaceChild(oldParent, sibling, parent);
  setParent(sibling, parent);
  setParent(leaf, parent);
  refitUpwards(oldParent);
}

std::uint32_t AabbTree::removeLeaf(Ref leaf) {
  if (leaf == root_) {
    root_ = kNoIndex;
    return kNoIndex;
  }
  const std::uint32_t parent = parentOf(leaf);
  const std::uint32_t grandparent = nodes_[parent].parent;
  const Ref sibling = nodes_[parent].child[0] == leaf ? nodes_[parent].child[1] : nodes_[parent].child[0];
  if (grandparent == kNoIndex) {
    root_ = sibling;
  } else {
    replaceChild(grandparent, parent, sibling);
  }
  setParent(sibling, grandparent);
  freeNode(parent);
  setParent(leaf, kNoIndex);
  refitUpwards(grandparent);
  return grandparent;
}

void AabbTree::replaceChild(std::uint32_t parent, Ref from, Ref to) {
  std::array<Ref, 2>& child = nodes_[parent].child;
  (child[0] == from ? child[0] : child[1]) = to;
}

void AabbTree::refit(std::uint32_t n) {
  AabbNode& node = nodes_[n];
  node.box = boxUnion(boxOf(node.child[0]), boxOf(node.child[1]));
  node.height = 1 + std::max(heightOf(node.child[0]), heightOf(node.child[1]));
}

void AabbTree::refitUpwards(std::uint32_t n) {
  while (n != kNoIndex) {
    const Box before = nodes_[n].box;
    const int heightBefore = nodes_[n].height;
    const std::uint32_t top = rotate(n);
    refit(top);
    const Box& after = nodes_[top].box;
    if (top == n && nodes_[n].height == heightBefore && after.min == before.min && after.max == before.max)
      return;
    n = nodes_[top].parent;
  }
}

std::uint32_t AabbTree::rotate(std::uint32_t a) {
  const Ref b = nodes_[a].child[0], c = nodes_[a].child[1];
  const int hb = heightOf(b), hc = heightOf(c);
  if (hc > hb + 1) return liftGrandchild(a, c);
  if (hb > hc + 1) return liftGrandchild(a, b);
  swapForPerimeter(a);
  return a;
}

std::uint32_t AabbTree::liftGrandchild(std::uint32_t a, std::uint32_t tall) {
  ++rotations_;
  const Ref shortChild = nodes_[a].child[0] == tall ? nodes_[a].child[1] : nodes_[a].child[0];
  const Ref f = nodes_[tall].child[0], g = nodes_[tall].child[1];
  // Keep the taller grandchild up with `tall`; on equal heights keep the one that leaves `a` smaller.
  Ref keep = f, give = g;
  const int hf = heightOf(f), hg = heightOf(g);
  if (hg > hf || (hg == hf && boxPerimeter(boxUnion(boxOf(shortChild), boxOf(f))) <
                                  boxPerimeter(boxUnion(boxOf(shortChild), boxOf(g))))) {
    keep = g, give = f;
  }
  const std::uint32_t up = nodes_[a].parent;
  nodes_[tall].parent = up;
  if (up == kNoIndex)
    root_ = tall;
  else
    replaceChild(up, a, tall);
  nodes_[tall].child = {a, keep};
  nodes_[a].parent = tall;
  replaceChild(a, tall, give);
  setParent(give, a);
  refit(a);
  refit(tall);
  return tall;
}

void AabbTree::swapForPerimeter(std::uint32_t a) {
  const Ref b = nodes_[a].child[0], c = nodes_[a].child[1];
  struct Option {
    Ref stay;   // the child of `a` whose child is swapped out
    Ref moved;  // the other child of `a`, moving down into `stay`
    Ref out;    // the grandchild moving up into `a`
    Ref kept;   // the grandchild staying under `stay`
  };
  Option best{};
  float bestGain = 0.0f;
  const int heightBefore = 1 + std::max(heightOf(b), heightOf(c));
  for (const auto& [stay, moved] : {std::pair{b, c}, std::pair{c, b}}) {
    if (isLeaf(stay)) continue;
    const float before = boxPerimeter(nodes_[stay].box);
    const Box& movedBox = boxOf(moved);
    const int movedHeight = heightOf(moved);
    for (const auto& [out, kept] : {std::pair{nodes_[stay].child[0], nodes_[stay].child[1]},
                                    std::pair{nodes_[stay].child[1], nodes_[stay].child[0]}}) {
      const float after = boxPerimeter(boxUnion(movedBox, boxOf(kept)));
      const int stayHeight = 1 + std::max(movedHeight, heightOf(kept));
      const int outHeight = heightOf(out);
      const int newHeight = 1 + std::max(stayHeight, outHeight);
      if (newHeight > heightBefore || std::abs(stayHeight - outHeight) > 1) continue;
      if (before - after > bestGain) bestGain = before - after, best = {stay, moved, out, kept};
    }
  }
  if (bestGain <= 0.0f) return;
  ++rotations_;
  replaceChild(a, best.moved, best.out);
  setParent(best.out, a);
  replaceChild(best.stay, best.out, best.moved);
  setParent(best.moved, best.stay);
  refit(best.stay);
}

// ---------------------------------------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------------------------------------

void AabbTree::doMaintain() {
  // Reinsertions place each escaped circle well but let the grouping drift: over thousands of frames of a
  // clustering scene the SAH cost doubles and the pair search does several times its work. The cost is
  // measured every 32 frames (a pass over the pool and the fat boxes) against its value after the build.
  // At 1.1 times that value a 100k swarm rebuilds every 63 frames and its pair search tests 1.51 million
  // candidate pairs a frame after 1,200 frames; at 1.25, every 133 frames and 1.80 million: the rebuilds
  // cost about 1 ms a frame spread out, the looser tree 4-5 ms in every frame.
  constexpr std::uint32_t kCheckEvery = 32;
  if (rebuildQuality_ > 0.0 && root_ != kNoIndex && ++framesSinceCheck_ >= kCheckEvery) {
    framesSinceCheck_ = 0;
    const double now = quality();
    if (builtQuality_ < 0.0) {
      builtQuality_ = now;
    } else if (now > rebuildQuality_ * builtQuality_) {
      ++rebuilds_;
      ++qualityRebuilds_;
      rebuildTopDown();
      builtQuality_ = quality();
      return;
    }
  }
  // Each reinsertion reuses a freed node far from its new place in the depth-first order; once as many
  // have been reused as there are live nodes, walks jump about enough to pay for a renumbering.
  if (freedSinceLayout_ > liveNodes_) relayout();
}

// Renumbers the pool in place: live internal nodes in depth-first order (first child first), so that a
// node's first child follows it and every subtree is one contiguous run, then the dead ones, which form the
// free list again. No second pool: each node's new index is noted first, links are rewritten through those
// numbers, and the nodes are then swapped along the permutation's cycles.
void AabbTree::relayout() {
  freedSinceLayout_ = 0;
  ++relayouts_;
  const auto poolSize = static_cast<std::uint32_t>(nodes_.size());
  rank_.assign(poolSize, kNoIndex);
  std::uint32_t next = 0;
  if (root_ != kNoIndex && !isLeaf(root_)) {
    walkStack_.clear();
    walkStack_.push_back(root_);
    while (!walkStack_.empty()) {
      const std::uint32_t n = walkStack_.back();
      walkStack_.pop_back();
      rank_[n] = next++;
      for (std::uint32_t slot = 2; slot-- > 0;) {
        const Ref child = nodes_[n].child[slot];
        if (!isLeaf(child)) walkStack_.push_back(child);
      }
    }
  }
  for (std::uint32_t n = 0; n < poolSize; ++n) {
    if (nodes_[n].height < 0) rank_[n] = next++;
  }
  for (std::uint32_t n = 0; n < poolSize; ++n) {
    AabbNode& node = nodes_[n];
    if (node.height < 0) continue;
    if (node.parent != kNoIndex) node.parent = rank_[node.parent];
    for (Ref& child : node.child) {
      if (isLeaf(child))
        up_[itemOf(child)] = rank_[n];
      else
        child = rank_[child];
    }
  }
  if (root_ != kNoIndex && !isLeaf(root_)) root_ = rank_[root_];
  for (std::uint32_t n = 0; n < poolSize; ++n) {
    while (rank_[n] != n) {
      const std::uint32_t to = rank_[n];
      std::swap(nodes_[n], nodes_[to]);
      std::swap(rank_[n], rank_[to]);
    }
  }
  freeNodes_.clear();
  for (std::uint32_t n = poolSize; n-- > static_cast<std::uint32_t>(liveNodes_);)
    freeNodes_.give(
        n, [this](std::uint32_t f) -> auto& { return freeLink(f); });
}

// ---------------------------------------------------------------------------------------------------------
// Top-down build
// ---------------------------------------------------------------------------------------------------------

// Splits each range of leaves along the longer axis of its centres where the binned surface-area cost
// (count times perimeter on each side) is lowest. Nodes are allocated in depth-first order, parents
// before children, so one backwards pass over the pool computes every box and height.
void AabbTree::buildTopDown(std::vector<BuildEntry>& entries) {
  builtQuality_ = -1.0;
  framesSinceCheck_ = 0;
  nodes_.clear();
  root_ = kNoIndex;
  freeNodes_.clear();
  liveNodes_ = 0;
  freedSinceLayout_ = 0;
  if (entries.empty()) return;
  nodes_.reserve(entries.size() - 1);
  std::vector<BuildTask> tasks{{0, static_cast<std::uint32_t>(entries.size()), kNoIndex, 0}};
  while (!tasks.empty()) {
    const BuildTask task = tasks.back();
    tasks.pop_back();
    const std::uint32_t count = task.end - task.begin;
    if (count == 1) {
      const BuildEntry& e = entries[task.begin];
      fat_[e.id] = e.box;
      attach(leafRef(e.id), task.parent, task.slot);
      continue;
    }
    const std::uint32_t n = allocNode();
    attach(n, task.parent, task.slot);
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (std::uint32_t i = task.begin; i < task.end; ++i) {
      lo[0] = std::min(lo[0], entries[i].cx), hi[0] = std::max(hi[0], entries[i].cx);
      lo[1] = std::min(lo[1], entries[i].cy), hi[1] = std::max(hi[1], entries[i].cy);
    }
    const int axis = (double(hi[1]) - lo[1]) > (double(hi[0]) - lo[0]) ? 1 : 0;
    const double extent = double(hi[axis]) - lo[axis];
    auto centreOf = [axis](const BuildEntry& e) { return axis == 0 ? e.cx : e.cy; };
    std::uint32_t mid = task.begin + count / 2;
    if (extent > 0.0 && count > 2) {
      auto binOf = [&](const BuildEntry& e) {
        const int b = static_cast<int>((double(centreOf(e)) - lo[axis]) / extent * kBins);
        return std::clamp(b, 0, kBins - 1);
      };
      std::array<Box, kBins> binBox;
      std::array<std::uint32_t, kBins> binCount{};
      for (std::uint32_t i = task.begin; i < task.end; ++i) {
        const int b = binOf(entries[i]);
        binBox[b] = binCount[b] == 0 ? entries[i].box : boxUnion(binBox[b], entries[i].box);
        ++binCount[b];
      }
      // Cost of the right side of each split, then a sweep from the left.
      std::array<double, kBins> rightCost{};
      Box acc{};
      std::uint32_t accCount = 0;
      for (int b = kBins - 1; b > 0; --b) {
        if (binCount[b] > 0) acc = accCount == 0 ? binBox[b] : boxUnion(acc, binBox[b]);
        accCount += binCount[b];
        rightCost[b] = accCount == 0 ? 0.0 : double(accCount) * boxPerimeter(acc);
      }
      double bestCost = INFINITY;
      int bestSplit = -1;
      acc = {};
      accCount = 0;
      for (int b = 0; b < kBins - 1; ++b) {
        if (binCount[b] > 0) acc = accCount == 0 ? binBox[b] : boxUnion(acc, binBox[b]);
        accCount += binCount[b];
        if (accCount == 0 || accCount == count) continue;
        const double cost = double(accCount) * boxPerimeter(acc) + rightCost[b + 1];
        if (cost < bestCost) bestCost = cost, bestSplit = b;
      }
      if (bestSplit >= 0) {
        auto split = std::partition(entries.begin() + task.begin, entries.begin() + task.end,
                                    [&](const BuildEntry& e) { return binOf(e) <= bestSplit; });
        mid = static_cast<std::uint32_t>(split - entries.begin());
      }
    }
    if (mid == task.begin || mid == task.end || extent == 0.0 || count <= 2) {
      mid = task.begin + count / 2;
      if (extent > 0.0) {
        std::nth_element(entries.begin() + task.begin, entries.begin() + mid, entries.begin() + task.end,
                         [&](const BuildEntry& x, const BuildEntry& y) { return centreOf(x) < centreOf(y); });
      }
    }
    // Pushed second, popped first: the first child's subtree is allocated right after its parent.
    tasks.push_back({mid, task.end, n, 1});
    tasks.push_back({task.begin, mid, n, 0});
  }
  for (std::uint32_t n = static_cast<std::uint32_t>(nodes_.size()); n-- > 0;) refit(n);
}

// ---------------------------------------------------------------------------------------------------------
// Pairs and view cone
// ---------------------------------------------------------------------------------------------------------

// Walks the part below `top` depth first as the hand-over does: addLeaf(begin, end) for each leaf of the
// view (one circle, or a subtree low enough to hold at most a batch of them), enterNode(begin) and
// leaveNode(end) around the nodes above those, `item(ref)` for each circle in order. Item positions count
// from `at`. Returns the internal nodes read and leaves `at` past the part's last circle.
template <class View, class Item>
std::uint64_t AabbTree::walkPart(Ref top, View& view, std::vector<std::uint32_t>& stack, std::uint32_t& at,
                                 Item&& item) const {
  std::uint64_t read = 0;
  stack.assign(1, top);
  while (!stack.empty()) {
    const Ref r = stack.back();
    stack.pop_back();
    if (r == kLeaveNode) {
      view.leaveNode(at);
      continue;
    }
    const std::uint32_t begin = at;
    if (isLeaf(r)) {
      item(r);
      ++at;
      view.addLeaf(begin, at);
      continue;
    }
    const AabbNode& node = nodes_[r];
    ++read;
    if (node.height <= kBatchHeight) {
      // The small subtree's leaves in depth-first order; its height bounds the local stack.
      std::array<Ref, kBatchHeight + 1> local;
      int depth = 0;
      local[depth++] = node.child[1];
      local[depth++] = node.child[0];
      while (depth > 0) {
        const Ref s = local[--depth];
        if (isLeaf(s)) {
          item(s);
          ++at;
          continue;
        }
        ++read;
        local[depth++] = nodes_[s].child[1];
        local[depth++] = nodes_[s].child[0];
      }
      view.addLeaf(begin, at);
      continue;
    }
    view.enterNode(begin);
    stack.push_back(kLeaveNode);
    stack.push_back(node.child[1]);
    stack.push_back(node.child[0]);
  }
  return read;
}

// Walks the tree depth first and hands it to the view as it goes, copying the items' circles in that order;
// a subtree low enough to hold at most a batch of items becomes one leaf of the view without node steps of
// its own. Subtrees of at most kPartHeight levels are parts. On several threads the workers first count
// each part's circles (which tells each part where its items begin) and what it leaves in the view; the
// calling thread hands over the nodes above the parts, leaving each part a room where it sits, and the
// workers then fill the rooms at once. On one thread each part is handed over where it sits, starting
// where the one before ended. Returns the internal nodes read.
std::uint64_t AabbTree::handOver() {
  TaskScheduler& workers = scheduler();
  // Walks the nodes above the parts depth first: enter(node) and leave() around each, part(ref) for each
  // part.
  const auto walkUpper = [&](auto&& enter, auto&& leave, auto&& part) {
    walkStack_.assign(1, root_);
    while (!walkStack_.empty()) {
      const Ref r = walkStack_.back();
      walkStack_.pop_back();
      if (r == kLeaveNode) {
        leave();
      } else if (heightOf(r) <= kPartHeight) {
        part(r);
      } else {
        enter(r);
        walkStack_.push_back(kLeaveNode);
        walkStack_.push_back(nodes_[r].child[1]);
        walkStack_.push_back(nodes_[r].child[0]);
      }
    }
  };
  partRoots_.clear();
  walkUpper([](Ref) {}, [] {}, [&](Ref r) { partRoots_.push_back(r); });
  partItems_.resize(partRoots_.size() + 1);
  partItems_[0] = 0;
  parts_.fit(workers, partRoots_.size());
  const bool inRooms = workers.workerCount() > 1;
  if (inRooms) {
    workers.parallelFor(partRoots_.size(), 16, [&](std::size_t begin, std::size_t end, unsigned worker) {
      pair_view::HandOverScratch& scratch = parts_.scratch[worker];
      for (std::size_t p = begin; p < end; ++p) {
        pair_view::NodeCount counted(scratch.open);
        std::uint32_t leaves = 0;
        walkPart(partRoots_[p], counted, scratch.stack, leaves, [](Ref) {});
        partItems_[p + 1] = leaves;
        parts_.counted(p, counted);
      }
    });
    for (std::size_t p = 0; p < partRoots_.size(); ++p) partItems_[p + 1] += partItems_[p];
  }
  items_.resize(static_cast<std::uint32_t>(size()));
  const pair_view::MutableItems items = items_.writable();
  // Hands part p over to `view` with its circles; returns the internal nodes read.
  const auto fillPart = [&](std::size_t p, auto& view, pair_view::HandOverScratch& scratch) {
    const std::uint32_t first = partItems_[p];
    std::uint32_t at = first;
    const std::uint64_t read =
        walkPart(partRoots_[p], view, scratch.stack, at, [&](Ref leaf) { items.id[at] = itemOf(leaf); });
    // The circles in one streaming pass, fetched well ahead: ids are spread over space, so each is a miss.
    constexpr std::uint32_t kAhead = 64;
    for (std::uint32_t k = first; k < at; ++k) {
      if (k + kAhead < at) simd::prefetch(&circle(items.id[k + kAhead]));
      const Circle& c = circle(items.id[k]);
      items.x[k] = c.center.x;
      items.y[k] = c.center.y;
      items.r[k] = c.radius;
    }
    if (!inRooms) partItems_[p + 1] = at;
    return read;
  };
  view_.begin(items_.arrays());
  std::uint64_t read = 0;
  std::size_t nextPart = 0;
  walkUpper(
      [&](Ref) {
        ++read;
        view_.enterNode(partItems_[nextPart]);
      },
      [&] { view_.leaveNode(partItems_[nextPart]); },
      [&](Ref) { read += parts_.place(inRooms, view_, nextPart++, fillPart); });
  if (inRooms) read += parts_.fillRooms(workers, view_, partRoots_.size(), fillPart);
  view_.finish();
  return read;
}

// The tree hands itself over to the shared pair view, which tests subtrees of up to a batch of items as
// flat leaves with bounds measured from this frame's circles.
void AabbTree::doFindPairs(std::vector<Pair>& out) {
  if (root_ == kNoIndex) return;
  counters_.nodesVisited += handOver();
  viewQueries_.filled(contentVersion());
  pair_view::findPairsInto(view_, out, scheduler(), scratch_, counters_);
}

// Boxes are classified by their circumscribed circle; a wholly visible subtree adds its items untested.
void AabbTree::doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const {
  visibleNow.clear();
  collect(tree_walk::ConeShape(cone), visibleNow, ctx);
  std::sort(visibleNow.begin(), visibleNow.end());
}

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

std::string AabbTree::doValidate() const {
  const std::string name = "aabb-tree: ";
  if (root_ == kNoIndex) {
    if (size() != 0) return name + "empty tree but items present";
    if (liveNodes_ != 0) return name + "no root but live nodes";
  } else if (parentOf(root_) != kNoIndex) {
    return name + "root has a parent";
  }
  if (fat_.size() < idCapacity() || up_.size() < idCapacity()) return name + "leaf arrays shorter than ids";
  std::size_t leaves = 0, visited = 0;
  std::vector<Ref> stack;
  if (root_ != kNoIndex) stack.push_back(root_);
  while (!stack.empty()) {
    const Ref r = stack.back();
    stack.pop_back();
    if (isLeaf(r)) {
      ++leaves;
      const ItemId id = itemOf(r);
      if (!contains(id)) return name + "leaf of an absent item";
      if (!boxContains(fat_[id], tightBox(circle(id)))) return name + "fat box does not hold its circle";
      continue;
    }
    if (r >= nodes_.size()) return name + "child index out of range";
    if (++visited > nodes_.size()) return name + "cycle in the tree";
    const AabbNode& node = nodes_[r];
    if (node.height < 1) return name + "dead node linked in the tree";
    for (const Ref child : node.child) {
      if (!isLeaf(child) && child >= nodes_.size()) return name + "child index out of range";
      if (parentOf(child) != r) return name + "broken parent link";
      if (!boxContains(node.box, boxOf(child))) return name + "box does not hold a child's box";
      stack.push_back(child);
    }
    if (node.height != 1 + std::max(heightOf(node.child[0]), heightOf(node.child[1])))
      return name + "wrong height";
  }
  if (leaves != size())
    return name + "tree holds " + std::to_string(leaves) + " leaves, table " + std::to_string(size());
  for (ItemId id = 0; id < idCapacity(); ++id) {
    if ((up_[id] == kAbsentLeaf) == contains(id)) return name + "leaf parent table disagrees with the items";
  }
  if (visited != liveNodes_) return name + "live node count differs from the tree";
  if (const std::string problem = freeNodes_.problem(
          [this](std::uint32_t f) -> auto& { return freeLink(f); },
          [this](std::uint32_t f) { return nodes_[f].height == -1; }, nodes_.size());
      !problem.empty())
    return name + problem;
  if (freeNodes_.size() + visited != nodes_.size())
    return name + "nodes leaked: neither in the tree nor free";
  return {};
}

}  // namespace st::aabb_tree

namespace st {

std::unique_ptr<SpatialIndex> makeAabbTree() {
  return std::make_unique<aabb_tree::AabbTree>();
}

}  // namespace st
