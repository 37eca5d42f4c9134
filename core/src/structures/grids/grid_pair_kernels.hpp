#pragma once
// The pair kernels of one interior cell of a sorted grid: its own nodes and its right neighbour's against
// each other and against the three runs below, pre-tested on 4 lanes or, where the CPU has AVX-512, on 16.

#include <cstddef>
#include <cstdint>
#include <limits>

#include "grid_nodes.hpp"
#include "structures/shared/pair_output.hpp"
#include "structures/shared/simd_support.hpp"

namespace st::grid_detail {

using pairs::kPretestFloor;
using pairs::kPretestScale;
using pairs::mayOverlap;
using pairs::PairWriter;

using simd::FloatW4;

/// Four nodes transposed into lanes: centres, radii and where they start in the node array.
struct QuadGroup {
  FloatW4 x, y, r;      ///< coordinates and radii, one node per lane
  std::uint32_t first;  ///< node of lane 0
};

/// Loads four consecutive nodes (the caller guarantees they lie in the array).
inline QuadGroup loadQuad(const Node* nodes, std::uint32_t first) {
  FloatW4 n0 = simd::loadF4(&nodes[first].circle.center.x),
          n1 = simd::loadF4(&nodes[first + 1].circle.center.x);
  FloatW4 n2 = simd::loadF4(&nodes[first + 2].circle.center.x),
          n3 = simd::loadF4(&nodes[first + 3].circle.center.x);
  simd::transpose(n0, n1, n2, n3);
  return {n0, n1, n2, first};
}

/// The float pre-test of mayOverlap on four lanes: which of the circles (bx, by, br) may overlap (ax, ay,
/// ar), as a 4-bit mask.
inline unsigned pretestLanes(FloatW4 bx, FloatW4 by, FloatW4 br, FloatW4 ax, FloatW4 ay, FloatW4 ar) {
  const FloatW4 dx = simd::sub(bx, ax), dy = simd::sub(by, ay), reach = simd::add(br, ar);
  const FloatW4 d2 = simd::add(simd::mul(dx, dx), simd::mul(dy, dy));
  const FloatW4 limit = simd::add(simd::mul(simd::mul(reach, reach), simd::splatF4(kPretestScale)),
                                  simd::splatF4(kPretestFloor));
  return simd::signMask(simd::lessEqual(d2, limit));
}

/// Lanes of a group that pass the float pre-test against a circle, as a 4-bit mask.
inline unsigned pretestQuad(const QuadGroup& g, FloatW4 ax, FloatW4 ay, FloatW4 ar) {
  return pretestLanes(g.x, g.y, g.r, ax, ay, ar);
}

/// The pre-test results of small cells, collected without a branch and tested exactly in bulk: about a
/// third of the nodes have a candidate, in no pattern a branch predictor could learn, so testing each as
/// it is found costs a mispredicted branch or two per node. A cell takes one entry, and only when one of
/// its pairs passed.
class CandidateQueue {
 public:
  /// Entries the queue holds before it must be flushed.
  static constexpr std::uint32_t kCapacity = 1024;

  /// Queues a cell's pre-test results, taking an entry only when `lanes` is not zero. Bit 16 i + j of
  /// `lanes` says that node `own + i` may overlap node `own + j` (j < 4) or node `below + j - 4`
  /// (4 <= j < 12).
  void push(std::uint32_t own, std::uint32_t below, std::uint64_t lanes) {
    entries_[count_] = {own, below, lanes};
    count_ += lanes != 0 ? 1u : 0u;
  }
  /// Whether the next push may not fit.
  bool full() const { return count_ + 1 >= kCapacity; }
  /// Tests every queued pair exactly, keeps the overlapping ones and empties the queue; returns how many
  /// it tested.
  std::uint64_t flush(const Node* nodes, PairWriter& writer) {
    std::uint64_t tested = 0;
    for (std::uint32_t k = 0; k < count_; ++k) {
      const Entry entry = entries_[k];
      writer.reserveMore(kMaxPairsPerEntry);
      for (std::uint64_t lanes = entry.lanes; lanes != 0; lanes &= lanes - 1) {
        const auto bit = static_cast<std::uint32_t>(simd::lowestSetBit64(lanes));
        const std::uint32_t lane = bit & 15u;
        const Node& a = nodes[entry.own + (bit >> 4)];
        const Node& b = nodes[lane < 4 ? entry.own + lane : entry.below + (lane - 4)];
        writer.addIf(circlesOverlap(a.circle, b.circle), a.id, b.id);
        ++tested;
      }
    }
    count_ = 0;
    return tested;
  }

 private:
  /// One cell's candidates.
  struct Entry {
    std::uint32_t own;    ///< first node of the cell
    std::uint32_t below;  ///< first node of the three runs below it
    std::uint64_t lanes;  ///< 12 bits per node of the cell, 16 apart
  };
  /// Most candidates one entry holds: four nodes, each against up to twelve.
  static constexpr std::size_t kMaxPairsPerEntry = 48;

  Entry entries_[kCapacity];
  std::uint32_t count_ = 0;
};

/// One cell's pairs when it is small: its own nodes and its right neighbour's, [begin, ownEnd), fit in one
/// group of four and the three runs below, [below, belowEnd), in two. Each group is loaded once per cell;
/// every node of the cell is pre-tested on all lanes at once (masked to the lanes that are real and, in its
/// own group, after it), and the cell's results are queued for the exact test.
inline void smallCellPairs(const Node* nodes, std::uint32_t begin, std::uint32_t end, std::uint32_t ownEnd,
                           std::uint32_t below, std::uint32_t belowEnd, PairWriter& writer,
                           CandidateQueue& queue) {
  const QuadGroup own = loadQuad(nodes, begin);
  const QuadGroup low = loadQuad(nodes, below), high = loadQuad(nodes, below + 4);
  const unsigned ownLanes = (1u << (ownEnd - begin)) - 1u, belowLanes = (1u << (belowEnd - below)) - 1u;
  writer.countPretests(std::uint64_t(end - begin) * (belowEnd - below) + (end - begin) * (ownEnd - begin) -
                       (end - begin) * (end - begin + 1) / 2);
  std::uint64_t lanes = 0;
  for (std::uint32_t a = begin; a < end; ++a) {
    const Node& nodeA = nodes[a];
    const FloatW4 ax = simd::splatF4(nodeA.circle.center.x), ay = simd::splatF4(nodeA.circle.center.y);
    const FloatW4 ar = simd::splatF4(nodeA.circle.radius);
    const unsigned after = ownLanes & ~((2u << (a - begin)) - 1u);
    const unsigned mask =
        (pretestQuad(own, ax, ay, ar) & after) |
        (((pretestQuad(low, ax, ay, ar) | (pretestQuad(high, ax, ay, ar) << 4)) & belowLanes) << 4);
    lanes |= std::uint64_t(mask) << (16 * (a - begin));
  }
  queue.push(begin, below, lanes);
}

/// Most nodes busyCellPairs takes: its own run and its right neighbour's, plus the three runs below.
inline constexpr std::uint32_t kBusyLanes = 128;

/// Transposes the nodes [begin, ownEnd) and then [below, belowEnd) into lanes, followed by `padding` lanes
/// of NaN, which fails every pre-test.
inline void busyLanes(const Node* nodes, std::uint32_t begin, std::uint32_t ownEnd, std::uint32_t below,
                      std::uint32_t belowEnd, std::uint32_t padding, float* x, float* y, float* r) {
  std::uint32_t lane = 0;
  auto put = [&](const Circle& c) {
    x[lane] = c.center.x;
    y[lane] = c.center.y;
    r[lane] = c.radius;
    ++lane;
  };
  for (std::uint32_t n = begin; n < ownEnd; ++n) put(nodes[n].circle);
  for (std::uint32_t n = below; n < belowEnd; ++n) put(nodes[n].circle);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::uint32_t k = 0; k < padding; ++k) put({{nan, nan}, nan});
}

/// One cell's pairs when it is too full for smallCellPairs (clumps hold a few percent of the cells and a
/// third of the tests): the candidate runs [begin, ownEnd) and [below, belowEnd) are transposed into lanes
/// once, then every node of the cell is pre-tested against the lanes after it four at a time. Lanes past
/// the last hold NaN, which fails the pre-test, so no mask is needed. Returns false, doing nothing, when
/// the runs hold more than kBusyLanes nodes.
inline bool busyCellPairs(const Node* nodes, std::uint32_t begin, std::uint32_t end, std::uint32_t ownEnd,
                          std::uint32_t below, std::uint32_t belowEnd, PairWriter& writer,
                          std::uint64_t& candidates) {
  const std::uint32_t ownCount = ownEnd - begin, total = ownCount + (belowEnd - below);
  if (total > kBusyLanes) return false;
  alignas(16) float x[kBusyLanes + 4], y[kBusyLanes + 4], r[kBusyLanes + 4];
  busyLanes(nodes, begin, ownEnd, below, belowEnd, 4, x, y, r);
  auto nodeOfLane = [&](std::uint32_t lane) {
    return lane < ownCount ? begin + lane : below + (lane - ownCount);
  };
  for (std::uint32_t i = 0; i < end - begin; ++i) {
    const Node& nodeA = nodes[begin + i];
    const FloatW4 ax = simd::splatF4(x[i]), ay = simd::splatF4(y[i]), ar = simd::splatF4(r[i]);
    writer.countPretests(total - i - 1);
    for (std::uint32_t first = i + 1; first < total; first += 4) {
      unsigned mask =
          pretestLanes(simd::loadF4(x + first), simd::loadF4(y + first), simd::loadF4(r + first), ax, ay, ar);
      while (mask != 0) {
        const Node& nodeB = nodes[nodeOfLane(first + simd::lowestSetBit(mask))];
        mask &= mask - 1;
        ++candidates;
        if (circlesOverlap(nodeA.circle, nodeB.circle)) writer.add(nodeA.id, nodeB.id);
      }
    }
  }
  return true;
}

#if SPHERETEST_WIDE_LANES
SPHERETEST_WIDE_CODE_BEGIN
using simd::FloatW16;
using simd::IntW16;
using simd::Mask16;

/// Lanes 8 Half .. 8 Half + 7 of appendOverlapsWide: circle (ax, ay, ar) against those of (bx, by, br),
/// pair halves `low` and `high`.
template <int Half>
SPHERETEST_WIDE_INLINE void appendOverlapsHalf(Mask16 maybe, simd::DoubleW8 ax, simd::DoubleW8 ay,
                                               simd::DoubleW8 ar, FloatW16 bx, FloatW16 by, FloatW16 br,
                                               IntW16 low, IntW16 high, PairWriter& writer) {
  const auto tested = static_cast<simd::Mask8>(maybe >> (8 * Half));
  const simd::DoubleW8 dx = simd::sub(ax, simd::widenHalf<Half>(bx));
  const simd::DoubleW8 dy = simd::sub(ay, simd::widenHalf<Half>(by));
  const simd::DoubleW8 reach = simd::add(ar, simd::widenHalf<Half>(br));
  const simd::DoubleW8 d2 = simd::add(simd::mul(dx, dx), simd::mul(dy, dy));
  const simd::Mask8 hits = simd::lessEqual(tested, d2, simd::mul(reach, reach));
  // Packed in a register and stored whole: the memory form of the packing store is slow on some CPUs.
  simd::store(writer.tail(), simd::compress64(hits, simd::zipHalf<Half>(low, high)));
  writer.append(simd::bitCount(hits));
}

/// The exact test of one node against the 16 lanes `maybe` marks (survivors of the pre-test), in double
/// precision eight lanes at a time with the operations of circlesOverlap in its order (so the same answers),
/// the overlapping pairs packed into the output without a branch per lane.
SPHERETEST_WIDE_INLINE void appendOverlapsWide(Mask16 maybe, const Node& a, FloatW16 bx, FloatW16 by,
                                               FloatW16 br, IntW16 idB, PairWriter& writer) {
  static_assert(sizeof(Pair) == 8 && offsetof(Pair, a) == 0, "a pair is the smaller id, then the larger");
  const simd::DoubleW8 ax = simd::splatD8(a.circle.center.x), ay = simd::splatD8(a.circle.center.y);
  const simd::DoubleW8 ar = simd::splatD8(a.circle.radius);
  const IntW16 idA = simd::splatI16(static_cast<std::int32_t>(a.id));
  const IntW16 low = simd::minUnsigned(idA, idB), high = simd::maxUnsigned(idA, idB);
  writer.reserveMore(16);
  appendOverlapsHalf<0>(maybe, ax, ay, ar, bx, by, br, low, high, writer);
  appendOverlapsHalf<1>(maybe, ax, ay, ar, bx, by, br, low, high, writer);
}

/// The lanes of one node against 16 lanes: which may overlap it (the float pre-test).
SPHERETEST_WIDE_INLINE Mask16 pretestWide(const Circle& a, FloatW16 bx, FloatW16 by, FloatW16 br) {
  const FloatW16 dx = simd::sub(bx, simd::splatF16(a.center.x));
  const FloatW16 dy = simd::sub(by, simd::splatF16(a.center.y));
  const FloatW16 reach = simd::add(br, simd::splatF16(a.radius));
  const FloatW16 d2 = simd::mulAdd(dy, dy, simd::mul(dx, dx));
  const FloatW16 limit =
      simd::mulAdd(simd::mul(reach, reach), simd::splatF16(kPretestScale), simd::splatF16(kPretestFloor));
  return simd::lessEqual(d2, limit);
}

/// Sixteen consecutive nodes transposed into lanes.
struct WideLanes {
  FloatW16 x, y, r;  ///< centres and radii, node k in lane k
  IntW16 id;         ///< items
};

/// Loads and transposes the nodes [first, first + 16) (the caller guarantees they lie in the array): eight
/// permutes for the four fields of sixteen nodes.
SPHERETEST_WIDE_INLINE WideLanes loadWideLanes(const Node* nodes, std::uint32_t first) {
  const float* f = &nodes[first].circle.center.x;
  const FloatW16 n0 = simd::loadF16(f), n1 = simd::loadF16(f + 16);
  const FloatW16 n2 = simd::loadF16(f + 32), n3 = simd::loadF16(f + 48);
  // x of eight nodes then their y; r then id.
  const IntW16 xy = simd::setI16(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
  const IntW16 rid = simd::add(xy, simd::splatI16(2));
  const FloatW16 xy01 = simd::permute(n0, xy, n1), xy23 = simd::permute(n2, xy, n3);
  const FloatW16 rid01 = simd::permute(n0, rid, n1), rid23 = simd::permute(n2, rid, n3);
  const IntW16 lowHalves = simd::setI16(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const IntW16 highHalves = simd::add(lowHalves, simd::splatI16(8));
  return {simd::permute(xy01, lowHalves, xy23), simd::permute(xy01, highHalves, xy23),
          simd::permute(rid01, lowHalves, rid23), simd::bitsAsInt(simd::permute(rid01, highHalves, rid23))};
}

/// smallCellPairs on 16 lanes (AVX-512): the cell's group and the two groups below it side by side in one
/// register each for x, y and r (lanes 0-3, 4-7 and 8-11, the lanes of the queued mask; six permutes), so
/// each node of the cell takes one pre-test where four lanes take three. The products are fused, which only
/// shrinks the rounding the pre-test's widening allows for.
SPHERETEST_WIDE inline void smallCellPairsWide(const Node* nodes, std::uint32_t begin, std::uint32_t end,
                                               std::uint32_t ownEnd, std::uint32_t below,
                                               std::uint32_t belowEnd, PairWriter& writer,
                                               CandidateQueue& queue) {
  static_assert(sizeof(Node) == 4 * sizeof(float), "a node is one x, y, r, id quadruple of lanes");
  const FloatW16 own = simd::loadF16(&nodes[begin].circle.center.x);
  const FloatW16 low = simd::loadF16(&nodes[below].circle.center.x);
  const FloatW16 high = simd::loadF16(&nodes[below + 4].circle.center.x);
  // Field f of node j of `own` and `low` is float 4 j + f of the pair (own, low); `high` fills lanes 8-11.
  const IntW16 fromOwnAndLow = simd::setI16(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
  const IntW16 fromHigh = simd::setI16(0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 8, 12, 0, 0, 0, 0);
  constexpr Mask16 kHighLanes = 0x0f00;
  const IntW16 nextField = simd::splatI16(1);
  const FloatW16 x = simd::permute(simd::permute(own, fromOwnAndLow, low), kHighLanes, fromHigh, high);
  const IntW16 yOwnAndLow = simd::add(fromOwnAndLow, nextField);
  const IntW16 yHigh = simd::add(fromHigh, nextField);
  const FloatW16 y = simd::permute(simd::permute(own, yOwnAndLow, low), kHighLanes, yHigh, high);
  const IntW16 rOwnAndLow = simd::add(yOwnAndLow, nextField);
  const IntW16 rHigh = simd::add(yHigh, nextField);
  const FloatW16 r = simd::permute(simd::permute(own, rOwnAndLow, low), kHighLanes, rHigh, high);
  const unsigned ownLanes = (1u << (ownEnd - begin)) - 1u, belowLanes = (1u << (belowEnd - below)) - 1u;
  writer.countPretests(std::uint64_t(end - begin) * (belowEnd - below) + (end - begin) * (ownEnd - begin) -
                       (end - begin) * (end - begin + 1) / 2);
  std::uint64_t lanes = 0;
  for (std::uint32_t a = begin; a < end; ++a) {
    const unsigned after = ownLanes & ~((2u << (a - begin)) - 1u);
    const unsigned mask = pretestWide(nodes[a].circle, x, y, r) & (after | (belowLanes << 4));
    lanes |= std::uint64_t(mask) << (16 * (a - begin));
  }
  queue.push(begin, below, lanes);
}

/// busyCellPairs on 16 lanes (AVX-512). Up to sixteen candidate nodes (nearly every busy cell) are put in
/// lanes in registers: the own runs' lanes and the runs below expanded after them; more go through arrays.
/// Each node of the cell is pre-tested against the lanes after it sixteen at a time and its survivors
/// tested exactly without a branch per candidate (appendOverlapsWide). `nodeCount` bounds the loads.
SPHERETEST_WIDE inline bool busyCellPairsWide(const Node* nodes, std::uint32_t nodeCount, std::uint32_t begin,
                                              std::uint32_t end, std::uint32_t ownEnd, std::uint32_t below,
                                              std::uint32_t belowEnd, PairWriter& writer,
                                              std::uint64_t& candidates) {
  const std::uint32_t ownCount = ownEnd - begin, total = ownCount + (belowEnd - below);
  if (total > kBusyLanes) return false;
  std::uint64_t found = 0;
  if (total <= 16 && begin + 16 <= nodeCount && below + 16 <= nodeCount) {
    const WideLanes own = loadWideLanes(nodes, begin), low = loadWideLanes(nodes, below);
    const auto real = static_cast<Mask16>((1u << total) - 1u);
    const auto belowLanes = static_cast<Mask16>(real & ~((1u << ownCount) - 1u));
    const FloatW16 x = simd::expand(own.x, belowLanes, low.x);
    const FloatW16 y = simd::expand(own.y, belowLanes, low.y);
    const FloatW16 r = simd::expand(own.r, belowLanes, low.r);
    const IntW16 id = simd::expand(own.id, belowLanes, low.id);
    for (std::uint32_t i = 0; i < end - begin; ++i) {
      const Node& a = nodes[begin + i];
      writer.countPretests(total - i - 1);
      const auto after = static_cast<Mask16>(real & ~((2u << i) - 1u));
      const Mask16 maybe = pretestWide(a.circle, x, y, r) & after;
      if (maybe == 0) continue;
      found += simd::bitCount(maybe);
      appendOverlapsWide(maybe, a, x, y, r, id, writer);
    }
    candidates += found;
    return true;
  }
  alignas(64) float x[kBusyLanes + 16], y[kBusyLanes + 16], r[kBusyLanes + 16];
  alignas(64) ItemId ids[kBusyLanes + 16];
  busyLanes(nodes, begin, ownEnd, below, belowEnd, 16, x, y, r);
  for (std::uint32_t lane = 0; lane < total; ++lane)
    ids[lane] = nodes[lane < ownCount ? begin + lane : below + (lane - ownCount)].id;
  for (std::uint32_t lane = total; lane < total + 16; ++lane) ids[lane] = 0;
  for (std::uint32_t i = 0; i < end - begin; ++i) {
    const Node& a = nodes[begin + i];
    writer.countPretests(total - i - 1);
    for (std::uint32_t first = i + 1; first < total; first += 16) {
      const FloatW16 bx = simd::loadF16(x + first), by = simd::loadF16(y + first);
      const FloatW16 br = simd::loadF16(r + first);
      const Mask16 maybe = pretestWide(a.circle, bx, by, br);
      if (maybe == 0) continue;
      found += simd::bitCount(maybe);
      appendOverlapsWide(maybe, a, bx, by, br, simd::loadI16(ids + first), writer);
    }
  }
  candidates += found;
  return true;
}
SPHERETEST_WIDE_CODE_END
#endif

/// The pair kernels of an interior cell (see smallCellPairs and busyCellPairs) for a pre-test width.
template <int Lanes>
struct CellKernels;

/// Four lanes (SSE2, or the plain four-lane types).
template <>
struct CellKernels<4> {
  /// smallCellPairs.
  static void small(const Node* nodes, std::uint32_t begin, std::uint32_t end, std::uint32_t ownEnd,
                    std::uint32_t below, std::uint32_t belowEnd, PairWriter& writer, CandidateQueue& queue) {
    smallCellPairs(nodes, begin, end, ownEnd, below, belowEnd, writer, queue);
  }
  /// busyCellPairs.
  static bool busy(const Node* nodes, std::uint32_t, std::uint32_t begin, std::uint32_t end,
                   std::uint32_t ownEnd, std::uint32_t below, std::uint32_t belowEnd, PairWriter& writer,
                   std::uint64_t& candidates) {
    return busyCellPairs(nodes, begin, end, ownEnd, below, belowEnd, writer, candidates);
  }
};

#if SPHERETEST_WIDE_LANES
/// Sixteen lanes (AVX-512).
template <>
struct CellKernels<16> {
  /// smallCellPairsWide.
  SPHERETEST_WIDE static void small(const Node* nodes, std::uint32_t begin, std::uint32_t end,
                                    std::uint32_t ownEnd, std::uint32_t below, std::uint32_t belowEnd,
                                    PairWriter& writer, CandidateQueue& queue) {
    smallCellPairsWide(nodes, begin, end, ownEnd, below, belowEnd, writer, queue);
  }
  /// busyCellPairsWide.
  SPHERETEST_WIDE static bool busy(const Node* nodes, std::uint32_t nodeCount, std::uint32_t begin,
                                   std::uint32_t end, std::uint32_t ownEnd, std::uint32_t below,
                                   std::uint32_t belowEnd, PairWriter& writer, std::uint64_t& candidates) {
    return busyCellPairsWide(nodes, nodeCount, begin, end, ownEnd, below, belowEnd, writer, candidates);
  }
};
#endif

}  // namespace st::grid_detail
