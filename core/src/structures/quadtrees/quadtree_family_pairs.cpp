// The quadtree family's pair search: the tree handed over to the shared pair view, in parts the workers fill
// at once, with the items bucket-sorted into their parts' ranges. See quadtree_family.hpp.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "quadtree_family.hpp"
#include "structures/shared/ordered_pieces.hpp"

namespace st::quadtree_family {

// The tree is handed to the shared pair view depth first: each node's own items, then its occupied
// quadrants. The view tests subtrees against each other by the tight bounds of this frame's circles, not
// by cell + widen, and tests leaves of up to 32 circles in vector lanes. The hand-over is cut into parts,
// each a subtree of at most pair_view::partItems items, that the workers fill at once; the nodes above them
// are handed over on the calling thread, which leaves each part a room in the view where its subtree sits
// (on one thread it hands the part over there itself). Every walk over the nodes goes depth first in the
// same order, so the first one can tell every node where its items go. The items reach their slots through
// a bucket sort of the ids by part, in id order, rather than by following each node's list: a list's links
// and circles are spread over the id-ordered arrays, two dependent misses per item once the tree outgrows
// the cache, while the per-id arrays are read forward. Each part then writes only its own range of the
// copy.
void QuadtreeFamily::doFindPairs(std::vector<Pair>& out) {
  const std::uint32_t count = nodes_[0].subtreeCount;
  if (count < 2) return;
  TaskScheduler& workers = scheduler();
  const std::uint32_t partLimit = pair_view::partItems(count);
  // Walks the subtree of `root` depth first, cut at parts when `cut`: enter(n) and leave(n) for each node
  // walked, part(n) for each subtree cut off as a part.
  const auto walkDepthFirst = [&](std::uint32_t root, bool cut, std::vector<std::uint32_t>& stack,
                                  auto&& enter, auto&& leave, auto&& part) {
    pair_view::walkDepthFirst(
        root, stack,
        [&](std::uint32_t n) {
          if (cut && nodes_[n].subtreeCount <= partLimit) {
            part(n);
            return false;
          }
          enter(n);
          return true;
        },
        [&](std::uint32_t n, auto&& push) {
          std::uint32_t children[4];
          const int found = nonEmptyChildren(n, children);
          for (int i = found - 1; i >= 0; --i) push(children[i]);
        },
        leave);
  };
  const auto none = [](std::uint32_t) {};
  // Where the upper nodes' own items and each part's items begin; bucket 0 holds the upper nodes' items,
  // bucket p + 1 those of part p. Both arrays take the pool's capacity at once rather than doubling past it
  // as the pool grows.
  ownAt_.reserve(nodes_.capacity());
  nodeBucket_.reserve(nodes_.capacity());
  ownAt_.resize(nodes_.size());
  nodeBucket_.resize(nodes_.size());
  partRoots_.clear();
  // The nodes whose own items the hand-over splits, by bucket, for the queries (see ownSplits_); none when
  // queries read whole lists (split_runs off).
  const auto noteLongRun = [&](std::size_t bucket, std::uint32_t n) {
    if (splitRuns_ && nodes_[n].directCount > pair_view::kBatchItems) longRuns_[bucket].push_back(n);
  };
  longRuns_.resize(1);
  longRuns_[0].clear();
  std::uint32_t at = 0;
  walkDepthFirst(
      0, true, viewStack_,
      [&](std::uint32_t n) {
        ownAt_[n] = at;
        nodeBucket_[n] = 0;
        at += nodes_[n].directCount;
        noteLongRun(0, n);
      },
      none,
      [&](std::uint32_t n) {
        ownAt_[n] = at;
        at += nodes_[n].subtreeCount;
        partRoots_.push_back(n);
      });
  const std::size_t buckets = partRoots_.size() + 1;
  parts_.fit(workers, partRoots_.size());
  // On several threads the parts are filled at once, each into the room the view leaves it, so the pass
  // that gives each part's nodes their slots and bucket also counts what they leave in the view.
  const bool inRooms = workers.workerCount() > 1;
  longRuns_.resize(buckets);
  workers.parallelFor(partRoots_.size(), 1, [&](std::size_t begin, std::size_t end, unsigned worker) {
    for (std::size_t p = begin; p < end; ++p) {
      longRuns_[p + 1].clear();
      std::uint32_t next = ownAt_[partRoots_[p]];
      pair_view::NodeCount counted(parts_.scratch[worker].open);
      walkDepthFirst(
          partRoots_[p], false, parts_.scratch[worker].stack,
          [&](std::uint32_t n) {
            ownAt_[n] = next;
            nodeBucket_[n] = std::uint32_t(p + 1);
            if (inRooms) {
              counted.enterNode(next);
              pair_view::countOwnItems(counted, next, next + nodes_[n].directCount);
            }
            next += nodes_[n].directCount;
            noteLongRun(p + 1, n);
          },
          [&](std::uint32_t n) {
            if (inRooms) counted.leaveNode(ownAt_[n] + nodes_[n].subtreeCount);
          },
          none);
      parts_.counted(p, counted);
    }
  });
  sortIdsByBucket(workers, buckets);
  viewItems_.resize(count);
  const pair_view::MutableItems items = viewItems_.writable();
  // Puts the items of a bucket in their nodes' slots, in id order within each node; ownAt_ then holds
  // where each node's own items end. A bucket's ids are spread over the whole id range, so each one's node
  // link and circle are fetched some ids ahead.
  const auto scatter = [&](std::size_t bucket) {
    constexpr std::uint32_t kAhead = 16;
    const std::uint32_t last = bucketStart_[bucket + 1];
    for (std::uint32_t k = bucketStart_[bucket]; k < last; ++k) {
      if (k + kAhead < last) {
        const ItemId ahead = byBucket_[k + kAhead];
        simd::prefetch(&itemNode_[ahead]);
        simd::prefetch(&circle(ahead));
      }
      const ItemId id = byBucket_[k];
      items.put(ownAt_[itemNode_[id]]++, id, circle(id));
    }
  };
  // Enters a node in `view` (the view itself or a part's room) and hands it the node's own items.
  const auto handOverNode = [&](std::uint32_t n, auto& view, pair_view::HandOverScratch& scratch) {
    const std::uint32_t end = ownAt_[n], begin = end - nodes_[n].directCount;
    view.enterNode(begin);
    pair_view::handOverOwnItems(view, items, begin, end, scratch);
  };
  const auto subtreeEnd = [&](std::uint32_t n) {
    return ownAt_[n] - nodes_[n].directCount + nodes_[n].subtreeCount;
  };
  // Hands part p over to `view`; returns the nodes read.
  const auto fillPart = [&](std::size_t p, auto& view, pair_view::HandOverScratch& scratch) {
    scatter(p + 1);
    std::uint64_t read = 0;
    walkDepthFirst(
        partRoots_[p], false, scratch.stack,
        [&](std::uint32_t n) {
          ++read;
          handOverNode(n, view, scratch);
        },
        [&](std::uint32_t n) { view.leaveNode(subtreeEnd(n)); }, none);
    return read;
  };
  scatter(0);
  view_.begin(viewItems_.arrays());
  std::uint64_t read = 0;
  std::size_t nextPart = 0;
  walkDepthFirst(
      0, true, viewStack_,
      [&](std::uint32_t n) {
        ++read;
        handOverNode(n, view_, viewItems_.split);
      },
      [&](std::uint32_t n) { view_.leaveNode(subtreeEnd(n)); },
      [&](std::uint32_t) { read += parts_.place(inRooms, view_, nextPart++, fillPart); });
  if (inRooms) read += parts_.fillRooms(workers, view_, partRoots_.size(), fillPart);
  view_.finish();
  // ownAt_ now holds where each node's own items end in the copy, which queries read until the next change,
  // and the view holds each long run's k-d split, which they walk instead of reading the whole run.
  ownSplits_.clear();
  for (const std::vector<std::uint32_t>& runs : longRuns_) {
    for (const std::uint32_t n : runs) {
      const std::uint32_t split = view_.nodeHolding(ownAt_[n] - nodes_[n].directCount, ownAt_[n]);
      if (split != kNoIndex) ownSplits_.push_back({n, split});
    }
  }
  std::sort(ownSplits_.begin(), ownSplits_.end());
  copyVersion_ = contentVersion();
  viewQueries_.filled(copyVersion_);
  counters_.nodesVisited += read;
  pair_view::findPairsInto(view_, out, workers, viewWalk_, counters_);
}

// The bucket sort of the hand-over: each chunk of ids (a cut that depends only on the id range) counts its
// items per bucket, then writes their ids at its offsets, so every bucket lists its ids in id order.
void QuadtreeFamily::sortIdsByBucket(TaskScheduler& workers, std::size_t buckets) {
  const std::size_t ids = itemNode_.size();
  const std::size_t chunkIds = pieces::pieceSize(ids, 4096);
  const std::size_t chunks = (ids + chunkIds - 1) / chunkIds;
  bucketCursor_.assign(chunks * buckets, 0);
  workers.parallelFor(chunks, 1, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      std::uint32_t* counts = &bucketCursor_[c * buckets];
      for (std::size_t id = c * chunkIds; id < std::min(ids, (c + 1) * chunkIds); ++id) {
        if (itemNode_[id] != kNoIndex) ++counts[nodeBucket_[itemNode_[id]]];
      }
    }
  });
  bucketStart_.resize(buckets + 1);
  std::uint32_t total = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    bucketStart_[b] = total;
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::uint32_t n = bucketCursor_[c * buckets + b];
      bucketCursor_[c * buckets + b] = total;
      total += n;
    }
  }
  bucketStart_[buckets] = total;
  byBucket_.resize(total);
  workers.parallelFor(chunks, 1, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      std::uint32_t* cursor = &bucketCursor_[c * buckets];
      for (std::size_t id = c * chunkIds; id < std::min(ids, (c + 1) * chunkIds); ++id) {
        if (itemNode_[id] != kNoIndex) byBucket_[cursor[nodeBucket_[itemNode_[id]]]++] = ItemId(id);
      }
    }
  });
}

int QuadtreeFamily::nonEmptyChildren(std::uint32_t node, std::uint32_t (&children)[4]) const {
  const std::uint32_t first = nodes_[node].firstChild;
  if (first == kNoIndex) return 0;
  int count = 0;
  for (std::uint32_t q = 0; q < 4; ++q) {
    if (nodes_[first + q].subtreeCount > 0) children[count++] = first + q;
  }
  return count;
}

}  // namespace st::quadtree_family
