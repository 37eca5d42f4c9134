// The storage shared by the space-partitioning trees (core/src/structures/shared/linear_tree.hpp) and the
// shared pair view (pair_view.hpp), checked against plain reference computations.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "spheretest/registry.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/tasks.hpp"
#include "structures/shared/linear_tree.hpp"
#include "structures/shared/ordered_pieces.hpp"
#include "structures/shared/pair_view.hpp"
#include "structures/shared/simd_support.hpp"

namespace st::testing {
namespace {

using Quad = linear::KeyCodec<2>;
using Nine = linear::KeyCodec<4>;

// A key built slot by slot from the root.
template <class Codec>
std::uint64_t keyOf(const std::vector<unsigned>& path) {
  std::uint64_t key = Codec::root();
  for (unsigned slot : path) key = Codec::child(key, slot);
  return key;
}

template <class Codec>
std::vector<unsigned> randomPath(Rng& rng, int depth, unsigned slots) {
  std::vector<unsigned> path;
  for (int d = 0; d < depth; ++d) path.push_back(unsigned(rng.below(slots)));
  return path;
}

// Depth-first order with each node before its descendants: a node's key sorts before its children's, and a
// whole subtree before the next sibling's.
template <class Codec>
void checkOrderAndAncestry(unsigned slots) {
  Rng rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const int da = int(rng.below(Codec::levels() + 1)), db = int(rng.below(Codec::levels() + 1));
    const std::vector<unsigned> pa = randomPath<Codec>(rng, da, slots);
    std::vector<unsigned> pb = randomPath<Codec>(rng, db, slots);
    // Often share a prefix, so that ancestors and close relatives come up.
    const int keep = int(rng.below(std::uint64_t(std::min(da, db)) + 1));
    for (int d = 0; d < keep; ++d) pb[d] = pa[d];
    const std::uint64_t a = keyOf<Codec>(pa), b = keyOf<Codec>(pb);
    int shared = 0;
    while (shared < std::min(da, db) && pa[shared] == pb[shared]) ++shared;
    const bool aCoversB = shared == da;
    EXPECT_EQ(Codec::covers(a, b), aCoversB);
    EXPECT_EQ(std::min({Codec::sharedDepth(a, b), da, db}), shared);
    EXPECT_EQ(Codec::ancestor(b, shared), keyOf<Codec>({pb.begin(), pb.begin() + shared}));
    if (db > 0) {
      EXPECT_EQ(Codec::slot(b), pb[db - 1]);
    }
    // Lexicographic order of the paths, a prefix first, is the order of the keys.
    const bool less = std::lexicographical_compare(pa.begin(), pa.end(), pb.begin(), pb.end());
    if (pa != pb) {
      EXPECT_EQ(a < b, less);
    }
  }
}

TEST(LinearTree, QuadKeysSortDepthFirstAndShareTheirPrefixes) {
  checkOrderAndAncestry<Quad>(4);
}

TEST(LinearTree, NineWayKeysSortDepthFirstAndShareTheirPrefixes) {
  checkOrderAndAncestry<Nine>(11);  // the enneatree's slots are (cy << 2) | cx: at most 10
}

TEST(LinearTree, QuadCoordinatesFollowThePath) {
  Rng rng(3);
  for (int trial = 0; trial < 500; ++trial) {
    const int depth = int(rng.below(Quad::levels() + 1));
    const std::vector<unsigned> path = randomPath<Quad>(rng, depth, 4);
    std::uint32_t column = 0, row = 0;
    for (unsigned slot : path) {
      column = 2 * column + (slot & 1u);
      row = 2 * row + (slot >> 1);
    }
    const linear::QuadCoords c = linear::quadCoords(keyOf<Quad>(path));
    EXPECT_EQ(c.depth, depth);
    EXPECT_EQ(c.column, column);
    EXPECT_EQ(c.row, row);
  }
}

TEST(LinearTree, QuadKeyIsTheInverseOfQuadCoordinates) {
  Rng rng(4);
  for (int trial = 0; trial < 500; ++trial) {
    const int depth = int(rng.below(Quad::levels() + 1));
    const std::uint64_t key = keyOf<Quad>(randomPath<Quad>(rng, depth, 4));
    const linear::QuadCoords c = linear::quadCoords(key);
    EXPECT_EQ(linear::quadKey(c.column, c.row, c.depth), key);
  }
}

TEST(LinearTree, EveryFourthBitPacksOneAxisOfANineWayKey) {
  Rng rng(5);
  for (int trial = 0; trial < 500; ++trial) {
    const std::uint64_t v = rng.next();
    for (int offset = 0; offset < 4; ++offset) {
      std::uint64_t expect = 0;
      for (int k = 0; k < 16; ++k) expect |= ((v >> (4 * k + offset)) & 1u) << k;
      EXPECT_EQ(linear::everyFourthBit(v, offset), expect);
    }
  }
}

// Random items on random quadtree keys, refiled in random batches: the arrays stay sorted, every id maps to
// its slot, and the directory lists exactly the ancestors of the keys, depth first, with the right ranges.
TEST(LinearTree, RefileKeepsTheItemsSortedAndTheDirectoryExact) {
  auto table = StructureRegistry::withCoreStructures().create("brute");
  Rng rng(9);
  std::vector<Item> items;
  for (ItemId id = 0; id < 600; ++id)
    items.push_back({id, {{rng.uniform(0.0f, 100.0f), rng.uniform(0.0f, 100.0f)}, 1}});
  table->build(items);
  const auto randomKey = [&] { return keyOf<Quad>(randomPath<Quad>(rng, int(rng.below(6)), 4)); };
  std::map<ItemId, std::uint64_t> keyById;
  std::vector<linear::Move> moves;
  for (const Item& item : items) {
    keyById[item.id] = randomKey();
    moves.push_back({keyById[item.id], item.id, kNoIndex});
  }
  linear::SortedItems sorted;
  sorted.assign(moves, *table);
  linear::Directory dir;
  for (int round = 0; round < 30; ++round) {
    moves.clear();
    std::vector<std::uint32_t> removed;
    std::set<ItemId> touched;
    for (int k = 0; k < 40; ++k) {
      const ItemId id = ItemId(rng.below(items.size()));
      if (!table->contains(id) || !touched.insert(id).second) continue;
      if (rng.chance(0.2)) {
        removed.push_back(sorted.slotOf(id));
        table->remove(id);
        keyById.erase(id);
      } else {
        keyById[id] = randomKey();
        moves.push_back({keyById[id], id, sorted.slotOf(id)});
      }
    }
    sorted.refile(moves, removed, *table);
    ASSERT_EQ(sorted.check(*table), "");
    for (std::uint32_t s = 0; s < sorted.size(); ++s) ASSERT_EQ(sorted.key(s), keyById.at(sorted.id(s)));
    dir.rebuild<Quad>(sorted);
    // The expected nodes: the root and every ancestor of every key.
    std::set<std::uint64_t> expected{Quad::root()};
    int shallowest = linear::Directory::kMaxWalkDepth;
    for (const auto& [id, key] : keyById) {
      for (int d = 0; d <= Quad::depth(key); ++d) expected.insert(Quad::ancestor(key, d));
      shallowest = std::min(shallowest, Quad::depth(key));
    }
    EXPECT_EQ(dir.shallowestItemDepth(), shallowest);
    ASSERT_EQ(dir.size(), expected.size());
    std::uint32_t i = 0;
    for (std::uint64_t key : expected) {
      ASSERT_EQ(dir[i].key, key);
      std::uint32_t own = 0, subtree = 0, first = sorted.size();
      for (std::uint32_t s = 0; s < sorted.size(); ++s) {
        if (sorted.key(s) == key) ++own;
        if (Quad::covers(key, sorted.key(s))) {
          ++subtree;
          first = std::min(first, s);
        }
      }
      if (subtree > 0) {
        EXPECT_EQ(dir[i].begin, first);
      }
      EXPECT_EQ(dir.ownEnd(i) - dir[i].begin, own);
      EXPECT_EQ(dir.subtreeEnd(i) - dir[i].begin, subtree);
      std::uint32_t after = i + 1;
      while (after < dir.size() && Quad::covers(key, dir[after].key)) ++after;
      EXPECT_EQ(dir[i].next, after);
      ++i;
    }
  }
}

// The pair view finds exactly the overlapping pairs of any hierarchy it is handed, with both kernel widths.
// Without AVX-512 the wide setting runs the narrow kernels again, so only those run and the test reports
// itself skipped.
TEST(PairView, FindsEveryOverlappingPairOnceWithEitherWidth) {
  const bool canRunWide = simd::widestVectorLanes() == 16;
  Rng rng(17);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 1 + int(rng.below(1000));
    pair_view::ItemCopy copy;
    pair_view::PairView view;
    std::vector<Circle> circles;
    // A random hierarchy: every batch of items goes into a node of its own, opened below the innermost open
    // one and left open now and then, so that later nodes become its children.
    copy.x.reserve(n);
    copy.y.reserve(n);
    copy.r.reserve(n);
    copy.id.reserve(n);
    view.begin(copy.arrays());
    int open = 1;
    view.enterNode(0);
    for (int i = 0; i < n;) {
      if (open > 1 && rng.chance(0.3)) {
        view.leaveNode(copy.size());
        --open;
        continue;
      }
      const std::uint32_t at = copy.size();
      view.enterNode(at);
      ++open;
      // Now and then a node holds more than a leaf's worth itself, which the hand-over splits k-d style.
      const int batch =
          rng.chance(0.1) ? int(pair_view::kBatchItems + 1 + rng.below(200)) : int(rng.below(7));
      for (int k = 0; k < batch && i < n; ++k, ++i) {
        const Circle c{{rng.uniform(0.0f, 60.0f), rng.uniform(0.0f, 60.0f)}, rng.uniform(0.0f, 3.0f)};
        circles.push_back(c);
        copy.push(ItemId(circles.size() - 1), c);
      }
      pair_view::handOverOwnItems(view, copy.writable(), at, copy.size(), copy.split);
      if (rng.chance(0.6)) {
        view.leaveNode(copy.size());
        --open;
      }
    }
    while (open-- > 0) view.leaveNode(copy.size());
    view.finish();
    std::set<std::pair<ItemId, ItemId>> expected;
    for (ItemId a = 0; a < circles.size(); ++a) {
      for (ItemId b = a + 1; b < circles.size(); ++b) {
        if (circlesOverlap(circles[a], circles[b])) expected.insert({a, b});
      }
    }
    for (bool wide : {false, true}) {
      if (wide && !canRunWide) continue;
      std::vector<Pair> out;
      pairs::PairWriter writer(out);
      pair_view::PairWork work;
      pair_view::WalkScratch scratch;
      view.findPairs(writer, work, scratch, wide);
      writer.finish();
      std::set<std::pair<ItemId, ItemId>> found;
      for (const Pair& p : out) EXPECT_TRUE(found.insert({p.a, p.b}).second) << "pair reported twice";
      EXPECT_EQ(found, expected) << (wide ? "16 lanes" : "scalar") << ", trial " << trial;
    }
  }
  if (!canRunWide)
    GTEST_SKIP()
        << "no AVX-512 on this CPU: the 16-lane kernels cannot run, only the narrow ones were checked";
}

// A random tree for the hand-over tests: each node's own circles (ids in creation order) and its children.
struct HandOverNode {
  std::vector<std::pair<ItemId, Circle>> own;
  std::vector<int> children;
};

int growHandOverTree(std::vector<HandOverNode>& tree, Rng& rng, int depth, ItemId& nextId) {
  const int n = int(tree.size());
  tree.emplace_back();
  // Now and then a node holds more than a leaf's worth itself, which the hand-over splits k-d style.
  const int own = rng.chance(0.15) ? int(pair_view::kBatchItems + 1 + rng.below(80)) : int(rng.below(6));
  for (int k = 0; k < own; ++k) {
    const Circle c{{rng.uniform(0.0f, 80.0f), rng.uniform(0.0f, 80.0f)}, rng.uniform(0.0f, 3.0f)};
    tree[n].own.push_back({nextId++, c});
  }
  const int children = depth < 4 ? int(rng.below(5)) : 0;
  for (int k = 0; k < children; ++k) {
    const int child = growHandOverTree(tree, rng, depth + 1, nextId);
    tree[n].children.push_back(child);
  }
  return n;
}

std::uint32_t itemsBelow(const std::vector<HandOverNode>& tree, int n) {
  auto items = static_cast<std::uint32_t>(tree[n].own.size());
  for (const int c : tree[n].children) items += itemsBelow(tree, c);
  return items;
}

// Hands node `n` and its subtree over to `view` (a view or a part's room), its items from `at` on.
template <class View>
void handOverSubtree(const std::vector<HandOverNode>& tree, int n, View& view,
                     const pair_view::MutableItems& items, std::uint32_t& at,
                     pair_view::HandOverScratch& scratch) {
  const std::uint32_t begin = at;
  for (const auto& [id, c] : tree[n].own) items.put(at++, id, c);
  view.enterNode(begin);
  pair_view::handOverOwnItems(view, items, begin, at, scratch);
  for (const int c : tree[n].children) handOverSubtree(tree, c, view, items, at, scratch);
  view.leaveNode(at);
}

// The same calls, counted.
void countSubtree(const std::vector<HandOverNode>& tree, int n, pair_view::NodeCount& count,
                  std::uint32_t& at) {
  const std::uint32_t begin = at;
  at += static_cast<std::uint32_t>(tree[n].own.size());
  count.enterNode(begin);
  pair_view::countOwnItems(count, begin, at);
  for (const int c : tree[n].children) countSubtree(tree, c, count, at);
  count.leaveNode(at);
}

// Hands a tree over in one pass, or with runs of the root's children counted first and then filled as parts
// into rooms the view left for them, on a pool: the view, and so the pairs and the work of a search, must be
// the same.
TEST(PairView, PartsFilledIntoTheirRoomsOnWorkersGiveTheViewOfOneHandOver) {
  Rng rng(29);
  ThreadPool pool(3);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<HandOverNode> tree;
    ItemId nextId = 0;
    growHandOverTree(tree, rng, 0, nextId);
    const std::uint32_t total = itemsBelow(tree, 0);

    pair_view::ItemCopy wholeItems;
    wholeItems.resize(total);
    pair_view::PairView whole;
    whole.begin(wholeItems.arrays());
    std::uint32_t at = 0;
    handOverSubtree(tree, 0, whole, wholeItems.writable(), at, wholeItems.split);
    whole.finish();

    // The root's children in runs of one to three: a part is a run of sibling subtrees.
    std::vector<std::size_t> runStart{0};
    const std::vector<int>& children = tree[0].children;
    while (runStart.back() < children.size())
      runStart.push_back(std::min(children.size(), runStart.back() + 1 + rng.below(3)));
    const std::size_t parts = runStart.size() - 1;
    std::vector<std::uint32_t> partAt;
    std::uint32_t next = static_cast<std::uint32_t>(tree[0].own.size());
    pair_view::Parts rooms;
    rooms.fit(pool, parts);
    for (std::size_t p = 0; p < parts; ++p) {
      partAt.push_back(next);
      std::vector<pair_view::OpenNode> open;
      pair_view::NodeCount counted(open);
      for (std::size_t k = runStart[p]; k < runStart[p + 1]; ++k)
        countSubtree(tree, children[k], counted, next);
      rooms.counted(p, counted);
    }
    pair_view::ItemCopy partItems;
    partItems.resize(total);
    const pair_view::MutableItems items = partItems.writable();
    pair_view::PairView inRooms;
    inRooms.begin(partItems.arrays());
    std::uint32_t rootEnd = 0;
    for (const auto& [id, c] : tree[0].own) items.put(rootEnd++, id, c);
    inRooms.enterNode(0);
    pair_view::handOverOwnItems(inRooms, items, 0, rootEnd, partItems.split);
    for (std::size_t p = 0; p < parts; ++p) rooms.leaveRoom(inRooms, p);
    inRooms.leaveNode(total);
    rooms.fillRooms(pool, inRooms, parts,
                    [&](std::size_t p, pair_view::PartWriter& writer, pair_view::HandOverScratch& scratch) {
                      std::uint32_t from = partAt[p];
                      for (std::size_t k = runStart[p]; k < runStart[p + 1]; ++k)
                        handOverSubtree(tree, children[k], writer, items, from, scratch);
                      return std::uint64_t{0};  // the nodes read: not counted here
                    });
    inRooms.finish();

    ASSERT_EQ(whole.validate(), "") << "trial " << trial;
    ASSERT_EQ(inRooms.validate(), "") << "trial " << trial;
    ASSERT_EQ(inRooms.nodes(), whole.nodes()) << "trial " << trial;
    const auto search = [](const pair_view::PairView& view, pair_view::PairWork& work) {
      std::vector<Pair> out;
      pairs::PairWriter writer(out);
      pair_view::WalkScratch scratch;
      view.findPairs(writer, work, scratch, false);
      writer.finish();
      std::set<std::pair<ItemId, ItemId>> found;
      for (const Pair& p : out) found.insert({p.a, p.b});
      return found;
    };
    pair_view::PairWork wholeWork, roomsWork;
    EXPECT_EQ(search(inRooms, roomsWork), search(whole, wholeWork)) << "trial " << trial;
    EXPECT_EQ(roomsWork.tasks, wholeWork.tasks) << "trial " << trial;
    EXPECT_EQ(roomsWork.pretests, wholeWork.pretests) << "trial " << trial;
    EXPECT_EQ(roomsWork.candidates, wholeWork.candidates) << "trial " << trial;
  }
}

// A count of the calls that hand a subtree over gives the nodes they leave in a view.
TEST(PairView, ACountOfTheCallsGivesTheNodesTheyLeave) {
  Rng rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<HandOverNode> tree;
    ItemId nextId = 0;
    growHandOverTree(tree, rng, int(rng.below(4)), nextId);
    pair_view::ItemCopy copy;
    copy.resize(itemsBelow(tree, 0));
    pair_view::PairView view;
    view.begin(copy.arrays());
    std::uint32_t at = 0;
    handOverSubtree(tree, 0, view, copy.writable(), at, copy.split);
    std::vector<pair_view::OpenNode> open;
    pair_view::NodeCount counted(open);
    std::uint32_t counting = 0;
    countSubtree(tree, 0, counted, counting);
    EXPECT_EQ(counted.nodes(), view.nodes()) << "trial " << trial;
    EXPECT_EQ(counted.entries(), view.nodes() > 0 ? 1u : 0u) << "trial " << trial;
  }
}

// What a parallel pass picks out comes in the order one thread would have found it, on any number of workers.
TEST(OrderedPieces, PickTheSameListInTheSameOrderOnAnyNumberOfWorkers) {
  ThreadPool pool(3);
  Rng rng(41);
  for (const std::size_t count : {std::size_t{0}, std::size_t{5}, std::size_t{1000}, std::size_t{200000}}) {
    std::vector<std::uint32_t> values(count);
    for (std::uint32_t& v : values) v = static_cast<std::uint32_t>(rng.below(1000));
    const auto pick = [&](std::size_t begin, std::size_t end, std::vector<std::uint32_t>& list) {
      for (std::size_t i = begin; i < end; ++i) {
        if (values[i] % 7 == 0) list.push_back(static_cast<std::uint32_t>(i));
      }
    };
    std::vector<std::uint32_t> expected;
    pick(0, count, expected);
    std::vector<std::uint32_t> serial, pooled;
    pieces::collect(serialScheduler(), count, serial, pick);
    pieces::collect(pool, count, pooled, pick);
    EXPECT_EQ(serial, expected) << count << " values";
    EXPECT_EQ(pooled, expected) << count << " values";
  }
}

}  // namespace
}  // namespace st::testing
