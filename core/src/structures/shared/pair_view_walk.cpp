// The trees' shared pair search over a built view: the leaf kernels (float pre-tests in vector lanes, exact
// tests after them) and the simultaneous walk of the view against itself, on one thread or many. See
// pair_view.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "pair_view.hpp"
#include "simd_support.hpp"

namespace st::pair_view {
namespace {

std::uint64_t task(std::uint32_t a, std::uint32_t b) {
  return (std::uint64_t(a) << 32) | b;
}

}  // namespace

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
