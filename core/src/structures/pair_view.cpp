// The trees' shared pair search: building the view depth first, the simultaneous walk over it, and the leaf
// kernels. See pair_view.hpp.

#include "pair_view.hpp"

#include <algorithm>
#include <cmath>

#include "simd_support.hpp"

namespace st::pair_view {
namespace {

constexpr Box kEmptyBox{{INFINITY, INFINITY}, {-INFINITY, -INFINITY}};

Box unite(const Box& a, const Box& b) {
  return {{std::min(a.min.x, b.min.x), std::min(a.min.y, b.min.y)},
          {std::max(a.max.x, b.max.x), std::max(a.max.y, b.max.y)}};
}

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

void PairView::begin(const ItemArrays& items) {
  items_ = items;
  nodes_.clear();
  open_.clear();
}

void PairView::enterNode(std::uint32_t at) {
  open_.push_back(static_cast<std::uint32_t>(nodes_.size()));
  nodes_.push_back({kEmptyBox, at, at, 0, 0});
}

void PairView::ownItems(std::uint32_t begin, std::uint32_t end) {
  if (begin == end) return;
  const auto leaf = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back({boundsOf(items_, begin, end), begin, end, leaf + 1, 0});
}

void PairView::addLeaf(std::uint32_t begin, std::uint32_t end) {
  const auto leaf = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back({boundsOf(items_, begin, end), begin, end, leaf + 1, 0});
}

void PairView::leaveNode(std::uint32_t end) {
  const std::uint32_t index = open_.back();
  open_.pop_back();
  ViewNode& node = nodes_[index];
  node.end = end;
  if (node.end == node.begin) {
    nodes_.resize(index);
    return;
  }
  Box bounds = kEmptyBox;
  for (std::uint32_t c = index + 1; c < nodes_.size(); c = nodes_[c].next)
    bounds = unite(bounds, nodes_[c].bounds);
  node.bounds = bounds;
  if (node.end - node.begin <= kBatchItems) {
    nodes_.resize(index + 1);  // the whole subtree becomes one leaf
  } else if (nodes_[index + 1].next == nodes_.size()) {
    // A single child stands for its parent: the walk need not enter a level that adds nothing.
    nodes_.erase(nodes_.begin() + index);
    for (std::size_t c = index; c < nodes_.size(); ++c) --nodes_[c].next;
    return;
  }
  nodes_[index].next = static_cast<std::uint32_t>(nodes_.size());
}

std::size_t PairView::bytes() const {
  return nodes_.capacity() * sizeof(ViewNode) + open_.capacity() * sizeof(std::uint32_t);
}

// ---------------------------------------------------------------------------------------------------------
// Leaf kernels
// ---------------------------------------------------------------------------------------------------------

namespace {

// Item `a` against the items [0, n) of `b`: the float pre-test of pairs::mayOverlap, then the exact
// predicate on the survivors.
void testAgainst(float ax, float ay, float ar, ItemId aid, const float* bx, const float* by, const float* br,
                 const ItemId* bid, std::uint32_t n, pairs::PairWriter& writer, PairWork& work) {
  const Circle ca{{ax, ay}, ar};
  work.pretests += n;
  for (std::uint32_t j = 0; j < n; ++j) {
    const float dx = bx[j] - ax, dy = by[j] - ay, reach = ar + br[j];
    if (!(dx * dx + dy * dy <= reach * reach * pairs::kPretestScale + pairs::kPretestFloor)) continue;
    ++work.candidates;
    if (circlesOverlap(ca, {{bx[j], by[j]}, br[j]})) writer.add(aid, bid[j]);
  }
}

#if SPHERETEST_WIDE_LANES
SPHERETEST_WIDE_CODE_BEGIN
// testAgainst on 16 lanes (AVX-512): one pre-test per 16 items, the exact test per survivor.
[[gnu::target("avx512f")]] void testAgainstWide(float ax, float ay, float ar, ItemId aid, const float* bx,
                                                const float* by, const float* br, const ItemId* bid,
                                                std::uint32_t n, pairs::PairWriter& writer, PairWork& work) {
  const Circle ca{{ax, ay}, ar};
  const __m512 vx = _mm512_set1_ps(ax), vy = _mm512_set1_ps(ay), vr = _mm512_set1_ps(ar);
  const __m512 scale = _mm512_set1_ps(pairs::kPretestScale), floor = _mm512_set1_ps(pairs::kPretestFloor);
  work.pretests += n;
  for (std::uint32_t j = 0; j < n; j += 16) {
    const std::uint32_t left = n - j;
    const __mmask16 lanes = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1u);
    const __m512 dx = _mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, bx + j), vx);
    const __m512 dy = _mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, by + j), vy);
    const __m512 reach = _mm512_add_ps(_mm512_maskz_loadu_ps(lanes, br + j), vr);
    const __m512 d2 = _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy));
    const __m512 limit = _mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(reach, reach), scale), floor);
    unsigned maybe = _mm512_mask_cmp_ps_mask(lanes, d2, limit, _CMP_LE_OQ);
    work.candidates += static_cast<unsigned>(__builtin_popcount(maybe));
    while (maybe != 0) {
      const std::uint32_t k = j + static_cast<std::uint32_t>(__builtin_ctz(maybe));
      maybe &= maybe - 1;
      if (circlesOverlap(ca, {{bx[k], by[k]}, br[k]})) writer.add(aid, bid[k]);
    }
  }
}
SPHERETEST_WIDE_CODE_END
#endif

using TestFn = void (*)(float, float, float, ItemId, const float*, const float*, const float*, const ItemId*,
                        std::uint32_t, pairs::PairWriter&, PairWork&);

TestFn testFor(bool wide) {
#if SPHERETEST_WIDE_LANES
  if (wide && simd::widestVectorLanes() == 16) return testAgainstWide;
#endif
  (void)wide;
  return testAgainst;
}

// Every pair among the items [begin, end).
void leafWithin(const ItemArrays& it, std::uint32_t begin, std::uint32_t end, TestFn test,
                pairs::PairWriter& writer, PairWork& work) {
  for (std::uint32_t i = begin; i + 1 < end; ++i) {
    test(it.x[i], it.y[i], it.r[i], it.id[i], it.x + i + 1, it.y + i + 1, it.r + i + 1, it.id + i + 1,
         end - i - 1, writer, work);
  }
}

// The items of [begin, end) whose boxes meet `bounds`, copied into `picked`.
void pick(const ItemArrays& it, std::uint32_t begin, std::uint32_t end, const Box& bounds, ItemCopy& picked) {
  picked.clear();
  for (std::uint32_t i = begin; i < end; ++i) {
    const float x = it.x[i], y = it.y[i], r = it.r[i];
    if (x - r <= bounds.max.x && bounds.min.x <= x + r && y - r <= bounds.max.y && bounds.min.y <= y + r) {
      picked.x.push_back(x);
      picked.y.push_back(y);
      picked.r.push_back(r);
      picked.id.push_back(it.id[i]);
    }
  }
}

// Every pair between two leaves: only the items of each that reach the other's bounds take part.
void leafAcross(const ItemArrays& it, const ViewNode& a, const ViewNode& b, TestFn test, WalkScratch& scratch,
                pairs::PairWriter& writer, PairWork& work) {
  pick(it, a.begin, a.end, b.bounds, scratch.pickA);
  if (scratch.pickA.size() == 0) return;
  pick(it, b.begin, b.end, a.bounds, scratch.pickB);
  const ItemCopy& pa = scratch.pickA;
  const ItemCopy& pb = scratch.pickB;
  const std::uint32_t nb = pb.size();
  if (nb == 0) return;
  for (std::uint32_t i = 0; i < pa.size(); ++i) {
    test(pa.x[i], pa.y[i], pa.r[i], pa.id[i], pb.x.data(), pb.y.data(), pb.r.data(), pb.id.data(), nb, writer,
         work);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// The walk
// ---------------------------------------------------------------------------------------------------------

void PairView::findPairs(pairs::PairWriter& writer, PairWork& work, WalkScratch& scratch, bool wide) const {
  if (nodes_.empty()) return;
  auto& tasks = scratch.tasks;
  tasks.clear();
  tasks.push_back(task(0, 0));
  while (!tasks.empty()) {
    const std::uint64_t t = tasks.back();
    tasks.pop_back();
    ++work.tasks;
    const auto a = static_cast<std::uint32_t>(t >> 32), b = static_cast<std::uint32_t>(t);
    if (a == b)
      within(a, scratch, writer, work, wide);
    else
      across(a, b, scratch, writer, work, wide);
  }
}

// Pairs inside one subtree: inside each child, and across each pair of children whose bounds meet. Wide
// nodes (a sphere tree's root holds hundreds of super-spheres) sweep their children along x instead of
// testing every pair of them.
void PairView::within(std::uint32_t n, WalkScratch& scratch, pairs::PairWriter& writer, PairWork& work,
                      bool wide) const {
  const ViewNode& node = nodes_[n];
  if (node.next == n + 1) {
    leafWithin(items_, node.begin, node.end, testFor(wide), writer, work);
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
    leafAcross(items_, na, nb, testFor(wide), scratch, writer, work);
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
