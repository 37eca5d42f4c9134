#pragma once
// One level of hashed grid: a cell table whose cells own lists threaded through one node array, laid out
// either sorted (runs of nodes, rebuilt by a counting sort and patched by refile) or linked.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "grid_cell_table.hpp"
#include "grid_nodes.hpp"
#include "spheretest/tasks.hpp"
#include "structures/shared/free_list.hpp"
#include "structures/shared/ordered_pieces.hpp"
#include "structures/shared/simd_support.hpp"

namespace st::grid_detail {

using simd::widestVectorLanes;

/// The carry pass of a refile over run starts [from, count - 1), `shift` being the net arrivals into the
/// slots before `from`: adds to each start the net arrivals into earlier slots (`change`, a signed byte per
/// slot), sets the sentinel heads[count - 1], and appends to `flipped` (at `listed`) the slots
/// whose run became empty or stopped being empty; returns the new length of the list. Branch-free: the
/// flips follow the movers, in no pattern a predictor could learn.
inline std::size_t carryRunStartsFrom(std::uint32_t* heads, const std::uint8_t* change, std::uint32_t count,
                                      std::uint32_t* flipped, std::size_t listed, std::uint32_t from,
                                      std::uint32_t shift) {
  std::uint32_t oldStart = heads[from];
  for (std::uint32_t slot = from; slot + 1 < count; ++slot) {
    const std::uint32_t oldNext = heads[slot + 1], newStart = oldStart + shift;
    shift += static_cast<std::uint32_t>(std::int32_t{static_cast<std::int8_t>(change[slot])});
    heads[slot] = newStart;
    flipped[listed] = slot;
    listed += ((oldStart == oldNext) != (newStart == oldNext + shift)) ? 1 : 0;
    oldStart = oldNext;
  }
  heads[count - 1] = oldStart + shift;
  return listed;
}

#if SPHERETEST_WIDE_LANES
SPHERETEST_WIDE_CODE_BEGIN
/// carryRunStartsFrom(heads, change, count, flipped, 0, 0, 0) sixteen slots at a time (AVX-512): the net
/// changes summed across the lanes in four steps, the flipped slots packed into the list. `flipped` must
/// have room for 16 entries past the last it receives.
SPHERETEST_WIDE inline std::size_t carryRunStartsWide(std::uint32_t* heads, const std::uint8_t* change,
                                                      std::uint32_t count, std::uint32_t* flipped) {
  using simd::IntW16;
  const IntW16 laneIndex = simd::setI16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const IntW16 lastLane = simd::splatI16(15);
  IntW16 carry = simd::zeroI16();
  std::size_t listed = 0;
  std::uint32_t slot = 0;
  // Each step also reads the start after its sixteen, which the sentinel guarantees.
  for (; slot + 16 < count; slot += 16) {
    const IntW16 net = simd::loadSignedBytesI16(change + slot);
    // Inclusive sums across the lanes: lane i plus lanes i - 1, i - 2 .. i - 15.
    IntW16 through = simd::add(net, simd::shiftLanesUp<1>(net));
    through = simd::add(through, simd::shiftLanesUp<2>(through));
    through = simd::add(through, simd::shiftLanesUp<4>(through));
    through = simd::add(through, simd::shiftLanesUp<8>(through));
    const IntW16 before = simd::sub(through, net);
    const IntW16 oldStart = simd::loadI16(heads + slot), oldNext = simd::loadI16(heads + slot + 1);
    const IntW16 newStart = simd::add(oldStart, simd::add(carry, before));
    const IntW16 newNext = simd::add(oldNext, simd::add(carry, through));
    simd::store(heads + slot, newStart);
    const auto flips =
        static_cast<simd::Mask16>(simd::equal(oldStart, oldNext) ^ simd::equal(newStart, newNext));
    const IntW16 slots = simd::add(laneIndex, simd::splatI16(static_cast<std::int32_t>(slot)));
    simd::store(flipped + listed, simd::compress(flips, slots));
    listed += simd::bitCount(flips);
    carry = simd::add(carry, simd::permute(lastLane, through));
  }
  return carryRunStartsFrom(heads, change, count, flipped, listed, slot,
                            static_cast<std::uint32_t>(simd::firstLane(carry)));
}
SPHERETEST_WIDE_CODE_END
#endif

/// List links of a node, kept apart from the nodes because the sorted layout does not need them.
struct Link {
  std::uint32_t next = kNoIndex;  ///< next node of the same cell (or of the free list)
  std::uint32_t prev = kNoIndex;  ///< previous node of the same cell; kNoIndex for the head
};

/// The lists of a hashed grid. Each cell's items form a list threaded through one node array. Two
/// layouts: sorted (after a counting sort: every list is a run of consecutive nodes, runs in table order,
/// and every slot, empty ones and the sentinel included, holds the start of its run, so a cell's run is
/// [head(s), head(s + 1)) and no links are needed), and linked (after single-item edits: heads point to
/// the first node and the Link array threads the rest, prev links making unlinking O(1)). Which cell a
/// node belongs to is decided by the owner: the centre cell (grid, hgrid) or one of several covered cells
/// (grid-replicated).
class CellLists {
 public:
  /// The table.
  CellTable& table() { return table_; }
  /// The table.
  const CellTable& table() const { return table_; }
  /// The node array (free nodes included in the linked layout).
  NodeArray& nodes() { return nodes_; }
  /// The node array (free nodes included in the linked layout).
  const NodeArray& nodes() const { return nodes_; }
  /// Live nodes.
  std::size_t liveNodes() const { return live_; }
  /// Whether the layout is sorted (runs) rather than linked.
  bool sorted() const { return sorted_; }
  /// Bytes held.
  std::size_t memoryBytes() const {
    return (nodes_.capacity() + spare_.capacity()) * sizeof(Node) + links_.capacity() * sizeof(Link) +
           (leavers_.capacity() + sortScratch_.capacity()) * sizeof(std::uint64_t) +
           flipped_.capacity() * sizeof(std::uint32_t) + table_.memoryBytes();
  }

  /// Drops everything and releases memory.
  void release() {
    NodeArray().swap(nodes_);
    NodeArray().swap(spare_);
    std::vector<Link>().swap(links_);
    std::vector<std::uint64_t>().swap(leavers_);
    std::vector<std::uint64_t>().swap(sortScratch_);
    std::vector<std::uint32_t>().swap(flipped_);
    table_.release();
    freeNodes_.clear();
    live_ = 0;
    sorted_ = true;
  }

  /// Calls fn(node) for every node of the cell in `slot` (occupied), in either layout.
  template <class Fn>
  void forEachInCell(std::uint32_t slot, Fn&& fn) const {
    if (sorted_) {
      const std::uint32_t end = table_.head(slot + 1);
      for (std::uint32_t n = table_.head(slot); n < end; ++n) fn(n);
    } else {
      for (std::uint32_t n = table_.head(slot); n != kNoIndex; n = links_[n].next) fn(n);
    }
  }
  /// Calls fn(node) for the nodes of the cell in `slot` (occupied) until it returns false; false if it did.
  template <class Fn>
  bool forEachInCellUntil(std::uint32_t slot, Fn&& fn) const {
    if (sorted_) {
      const std::uint32_t end = table_.head(slot + 1);
      for (std::uint32_t n = table_.head(slot); n < end; ++n)
        if (!fn(n)) return false;
    } else {
      for (std::uint32_t n = table_.head(slot); n != kNoIndex; n = links_[n].next)
        if (!fn(n)) return false;
    }
    return true;
  }
  /// Number of items in the cell of `slot` (occupied).
  std::uint32_t cellSize(std::uint32_t slot) const {
    if (sorted_) return table_.head(slot + 1) - table_.head(slot);
    std::uint32_t count = 0;
    for (std::uint32_t n = table_.head(slot); n != kNoIndex; n = links_[n].next) ++count;
    return count;
  }

  /// Adds a node for `id` at the head of cell (x, y); returns the node.
  std::uint32_t link(std::int32_t x, std::int32_t y, ItemId id, const Circle& c) {
    ensureLinked();
    if (table_.nearlyFull()) table_.grow();
    std::uint32_t node = freeNodes_.take([this](std::uint32_t f) -> auto& { return links_[f].next; });
    if (node == kNoIndex) {
      node = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(Node{});
      links_.push_back(Link{});
    }
    nodes_[node] = Node{c, id};
    attach(x, y, node);
    ++live_;
    return node;
  }

  /// Takes a node out of cell (x, y)'s list (it must be there) and frees it.
  void unlink(std::int32_t x, std::int32_t y, std::uint32_t node) {
    ensureLinked();
    detach(x, y, node);
    nodes_[node].id = kDeadId;
    links_[node].prev = kNoIndex;
    freeNodes_.give(
        node, [this](std::uint32_t f) -> auto& { return links_[f].next; });
    --live_;
  }

  /// Moves a node from cell (x0, y0) to the head of cell (x1, y1), keeping its index.
  void relink(std::int32_t x0, std::int32_t y0, std::int32_t x1, std::int32_t y1, std::uint32_t node) {
    ensureLinked();
    detach(x0, y0, node);
    if (table_.nearlyFull()) table_.grow();
    attach(x1, y1, node);
  }

  /// The node of `id` in cell (x, y), or kNoIndex (walks that cell's list).
  std::uint32_t findInCell(std::int32_t x, std::int32_t y, ItemId id) const {
    const std::uint32_t slot = table_.find(x, y);
    if (slot == kNoIndex) return kNoIndex;
    std::uint32_t found = kNoIndex;
    forEachInCell(slot, [&](std::uint32_t n) {
      if (nodes_[n].id == id) found = n;
    });
    return found;
  }

  /// Lays the lists out sorted: a counting sort of the live nodes by the table slot of the cell
  /// `cellOf(node, index, x, y)` names, in a freshly reset table, scattered into the spare array (which is
  /// then swapped in). `cellOf` may refresh the node's circle, and may return false to drop a live node
  /// (its item left this grid); their ids end up in `departed`. Walking the nodes in their previous
  /// order keeps every table access and the scatter nearly sequential. `scratch` holds one word per node
  /// (the caller's reusable buffer). Returns false if the space-coherent hash collided badly (the caller
  /// then switches to the scrambled hash and calls again).
  template <class CellOfNode>
  bool sort(CellOfNode&& cellOf, std::size_t expectedCells, std::vector<std::uint32_t>& scratch,
            std::vector<ItemId>& departed) {
    departed.clear();
    const std::size_t total = nodes_.size();
    if (scratch.size() < total) scratch.resize(total);
    std::uint32_t* slotOf = scratch.data();
    // Room for the whole window unless it would cost more than a slot per item.
    const std::size_t minimumSlots = std::min(table_.windowCells(), total + total / 8);
    table_.reset(expectedCells, minimumSlots);
    Node* nodes = nodes_.data();
    std::size_t kept = 0;
    std::int32_t lastX = kEmptyKey, lastY = 0;
    std::uint32_t lastSlot = 0;
    for (std::size_t i = 0; i < total; ++i) {
      std::int32_t x = 0, y = 0;
      if (nodes[i].id == kDeadId || !cellOf(nodes[i], i, x, y)) {
        if (nodes[i].id != kDeadId) departed.push_back(nodes[i].id);
        slotOf[i] = kNoIndex;
        continue;
      }
      if (table_.nearlyFull()) {
        // More cells than estimated: size for one cell per node and count again.
        return sort(cellOf, std::max(total, table_.capacity()), scratch, departed);
      }
      // Consecutive nodes mostly share a cell (the previous order is by cell): skip the table then.
      if (x != lastX || y != lastY) {
        lastSlot = table_.findOrInsert(x, y, 0);
        lastX = x;
        lastY = y;
      }
      ++table_.head(lastSlot);
      slotOf[i] = lastSlot;
      ++kept;
    }
    if (!table_.scrambled() && table_.probes() > 8 * kept + 4096) return false;
    if (table_.oversized(minimumSlots) && expectedCells > table_.used()) {
      // The estimate was far too high: count again in a table of the right size.
      return sort(cellOf, table_.used(), scratch, departed);
    }
    shiftCountsToStarts();
    reserveClose(spare_, kept);
    spare_.resize(kept);
    Node* out = spare_.data();
    std::uint32_t* heads = table_.heads();
    for (std::size_t i = 0; i < total; ++i) {
      const std::uint32_t slot = slotOf[i];
      if (slot == kNoIndex) continue;
      out[heads[slot + 1]++] = nodes[i];
    }
    nodes_.swap(spare_);
    freeNodes_.clear();
    live_ = kept;
    sorted_ = true;
    return true;
  }

  /// Sorted layout with every cell at its home in the window (table().windowOnly()): refreshes the nodes
  /// and moves only those whose cell changed. `refresh(node, index, move)` updates a node (its circle) and
  /// says what became of it (NodeChange), naming the cells in `move` when it moved. Nodes that
  /// keep their cell keep their order; the others join the end of their new cell's run. Returns the number
  /// of nodes moved, or -1 when a node was refused, its new cell lies outside the window or more than 127
  /// nodes arrive in one cell: the lists are then unchanged (some nodes already refreshed) and the caller
  /// re-sorts. `movers` is the caller's buffer.
  template <class Refresh>
  std::ptrdiff_t refile(Refresh&& refresh, std::vector<std::uint64_t>& movers, int lanes,
                        TaskScheduler& scheduler) {
    movers.clear();
    leavers_.clear();
    if (!sorted_ || !table_.windowOnly()) return -1;
    Node* nodes = nodes_.data();
    const std::uint32_t total = static_cast<std::uint32_t>(nodes_.size());
    // Pass 1, a flat sweep: the nodes that left their cell, as leavers (node high, old slot low; found in
    // node order) and as arrivals (new slot high, node low; sorted below, which orders them by slot and,
    // within a slot, by their previous place). On several workers each piece of nodes collects its own,
    // and the pieces are joined in node order: the same lists as one sweep.
    const auto grain = static_cast<std::uint32_t>(pieces::pieceSize(total, 1024));
    const std::uint32_t pieceCount = (total + grain - 1) / grain;
    pieceLeavers_.resize(pieceCount);
    pieceMovers_.resize(pieceCount);
    std::atomic<bool> refused{false};
    scheduler.parallelFor(total, grain, [&](std::size_t begin, std::size_t end, unsigned worker) {
      std::vector<std::uint64_t>& leaving = pieceLeavers_[begin / grain];
      std::vector<std::uint64_t>& arriving = pieceMovers_[begin / grain];
      leaving.clear();
      arriving.clear();
      for (auto n = static_cast<std::uint32_t>(begin); n < end; ++n) {
        CellMove move;
        const NodeChange change = refresh(nodes[n], n, move, worker);
        if (change == NodeChange::Stayed) continue;
        if (change == NodeChange::Refused || !table_.inWindow(move.toX, move.toY)) {
          refused.store(true, std::memory_order_relaxed);
          return;
        }
        leaving.push_back((std::uint64_t(n) << 32) | table_.home(move.fromX, move.fromY));
        arriving.push_back((std::uint64_t(table_.home(move.toX, move.toY)) << 32) | n);
      }
    });
    if (refused.load()) return -1;
    for (std::uint32_t piece = 0; piece < pieceCount; ++piece) {
      leavers_.insert(leavers_.end(), pieceLeavers_[piece].begin(), pieceLeavers_[piece].end());
      movers.insert(movers.end(), pieceMovers_[piece].begin(), pieceMovers_[piece].end());
    }
    if (movers.empty()) return 0;
    sortByHighWord(movers, sortScratch_);
    std::uint32_t* heads = table_.heads();
    const std::uint32_t headCount = static_cast<std::uint32_t>(table_.capacity() + 1);
    const std::size_t moved = movers.size();
    auto arrivalSlot = [&](std::size_t k) { return static_cast<std::uint32_t>(movers[k] >> 32); };
    auto leaverNode = [&](std::size_t k) { return static_cast<std::uint32_t>(leavers_[k] >> 32); };
    auto leaverSlot = [&](std::size_t k) { return static_cast<std::uint32_t>(leavers_[k]); };
    // The run starts are shifted below by each slot's net arrivals, tallied in a signed byte: that holds
    // when no cell gains more than 127 nodes or loses more than 128 in one batch. A collapse beyond that
    // (not a drift) leaves the lists unchanged for the caller's re-sort. Both lists are in slot order.
    auto longestRun = [&](auto slotOf) {
      std::size_t longest = 0, run = 0;
      for (std::size_t k = 0; k < moved; ++k) {
        run = k > 0 && slotOf(k) == slotOf(k - 1) ? run + 1 : 1;
        longest = std::max(longest, run);
      }
      return longest;
    };
    if (longestRun(arrivalSlot) > 127 || longestRun(leaverSlot) > 128) return -1;
    // Pass 2, the merge: the node array is copied in spans between events, an arrival being inserted
    // where its new run ended and a leaver skipped. The old array is cut into pieces (a cut that depends
    // only on its length) that the workers merge at once: a piece's output starts at its first node's
    // place shifted by the arrivals inserted before that node less the leavers before it. An arrival at a
    // piece's end belongs to the next piece, one at the array's end to the last.
    reserveClose(spare_, nodes_.size());
    spare_.resize(nodes_.size());
    Node* out = spare_.data();
    constexpr std::uint64_t kNever = ~std::uint64_t{0};
    auto arrivalAt = [&](std::size_t k) -> std::uint64_t { return heads[arrivalSlot(k) + 1]; };
    // The first event at or after `at` in a list ordered by position.
    auto firstFrom = [moved](std::uint64_t at, auto positionOf) {
      std::size_t low = 0, high = moved;
      while (low < high) {
        const std::size_t mid = low + (high - low) / 2;
        if (positionOf(mid) < at)
          low = mid + 1;
        else
          high = mid;
      }
      return low;
    };
    const auto mergeGrain = static_cast<std::uint32_t>(pieces::pieceSize(total, 4096));
    const std::uint32_t mergePieces = (total + mergeGrain - 1) / mergeGrain;
    scheduler.parallelFor(mergePieces, 1, [&](std::size_t first, std::size_t last, unsigned) {
      for (std::size_t piece = first; piece < last; ++piece) {
        const auto begin = static_cast<std::uint32_t>(piece * mergeGrain);
        const std::uint32_t end = std::min(total, begin + mergeGrain);
        const std::uint64_t arrivalsEnd = end == total ? std::uint64_t(total) + 1 : end;
        std::size_t a = firstFrom(begin, arrivalAt);
        std::size_t l = firstFrom(begin, [&](std::size_t k) { return std::uint64_t(leaverNode(k)); });
        std::uint32_t read = begin;
        auto written = static_cast<std::uint32_t>(begin + a - l);
        constexpr std::size_t kAhead =
            16;  // arrivals are sparse in both arrays: fetch their slots and nodes early
        for (;;) {
          if (a + kAhead < moved) {
            simd::prefetch(&heads[arrivalSlot(a + kAhead) + 1]);
            simd::prefetch(nodes + static_cast<std::uint32_t>(movers[a + kAhead]));
          }
          const std::uint64_t nextArrival = a < moved && arrivalAt(a) < arrivalsEnd ? arrivalAt(a) : kNever;
          const std::uint64_t nextLeaver = l < moved && leaverNode(l) < end ? leaverNode(l) : kNever;
          const auto stop =
              static_cast<std::uint32_t>(std::min({nextArrival, nextLeaver, std::uint64_t(end)}));
          std::copy(nodes + read, nodes + stop, out + written);
          written += stop - read;
          read = stop;
          if (nextArrival == stop) {
            out[written++] = nodes[static_cast<std::uint32_t>(movers[a++])];
          } else if (nextLeaver == stop) {
            ++read;
            ++l;
          } else {
            break;
          }
        }
      }
    });
    nodes_.swap(spare_);
    // Run starts: each shifts by the arrivals into earlier slots less the leavers from earlier slots (a
    // leaver's node lies in the run of its old slot), the shift kept modulo 2^32 like the starts. The net
    // arrivals of every slot are tallied a byte each in the spare buffer, free again now.
    const std::size_t tallyNodes = (std::size_t{headCount} + sizeof(Node) - 1) / sizeof(Node);
    if (spare_.size() < tallyNodes) spare_.resize(tallyNodes);
    auto* change = reinterpret_cast<std::uint8_t*>(spare_.data());
    std::memset(change, 0, headCount);
    for (std::size_t k = 0; k < moved; ++k) ++change[arrivalSlot(k)];
    for (std::size_t k = 0; k < moved; ++k) --change[leaverSlot(k)];
    // A cell whose run was empty (the sorted layout keeps no empty cell, so it was absent) takes its home
    // slot once nodes arrive; one left empty gives its slot up.
    flipped_.resize(2 * moved + 16);
    std::size_t flips = 0;
#if SPHERETEST_WIDE_LANES
    if (lanes >= 16 && widestVectorLanes() >= 16) {
      flips = carryRunStartsWide(heads, change, headCount, flipped_.data());
    } else
#endif
    {
      flips = carryRunStartsFrom(heads, change, headCount, flipped_.data(), 0, 0, 0);
    }
    (void)lanes;
    for (std::size_t k = 0; k < flips; ++k) {
      const std::uint32_t slot = flipped_[k];
      if (heads[slot] == heads[slot + 1]) {
        table_.releaseHome(slot);
      } else {
        table_.claimHome(slot);
      }
    }
    return static_cast<std::ptrdiff_t>(moved);
  }

  /// Lays out, sorted, one node per (item, covered cell) for the items of `stage` (fresh circles, in the
  /// order to keep, normally spatial): `covered(node, range)` names the inclusive cell range an item is
  /// stored in (at most 255 cells). A counting sort over the generated nodes, scattered into the spare
  /// array; `scratch` and `copies` are the caller's reusable buffers (a slot per node, a count per item).
  /// `edges`, when given, receives one byte per laid-out node: bit 0 set in the first column of its item's
  /// range, bit 1 in the first row (`edgeScratch` is its reusable per-copy buffer).
  template <class Covered>
  void fillCovered(const NodeArray& stage, Covered&& covered, std::size_t expectedCells,
                   std::vector<std::uint32_t>& scratch, std::vector<std::uint8_t>& copies,
                   std::vector<std::uint8_t>* edges = nullptr,
                   std::vector<std::uint8_t>* edgeScratch = nullptr) {
    const std::size_t minimumSlots = std::min(table_.windowCells(), stage.size() * 2);
    table_.reset(expectedCells, minimumSlots);
    copies.resize(stage.size());
    reserveClose(scratch, live_ + 64);
    if (edgeScratch && edgeScratch->size() < scratch.size()) edgeScratch->resize(scratch.size());
    std::size_t entries = 0;
    for (std::size_t i = 0; i < stage.size(); ++i) {
      CellRange r;
      covered(stage[i], r);
      const std::size_t count = std::size_t(r.count());
      if (table_.used() + count >= table_.fullAt()) {
        // More cells than estimated: size for four cells per item and count again.
        return fillCovered(stage, covered, std::max(stage.size() * 4, table_.capacity()), scratch, copies,
                           edges, edgeScratch);
      }
      if (scratch.size() < entries + count) {
        reserveClose(scratch, entries + count + stage.size() - i);
        scratch.resize(scratch.capacity());
        if (edgeScratch) edgeScratch->resize(scratch.size());
      }
      for (std::int32_t y = r.y0; y <= r.y1; ++y) {
        for (std::int32_t x = r.x0; x <= r.x1; ++x) {
          if (edgeScratch) (*edgeScratch)[entries] = std::uint8_t((x == r.x0 ? 1 : 0) | (y == r.y0 ? 2 : 0));
          scratch[entries++] = table_.countInto(x, y);
        }
      }
      copies[i] = static_cast<std::uint8_t>(count);
    }
    shiftCountsToStarts();
    std::uint32_t* heads = table_.heads();
    reserveClose(spare_, entries);
    spare_.resize(entries);
    if (edges) {
      reserveClose(*edges, entries);
      edges->resize(entries);
    }
    std::size_t e = 0;
    for (std::size_t i = 0; i < stage.size(); ++i) {
      for (std::uint32_t k = copies[i]; k > 0; --k, ++e) {
        const std::uint32_t at = heads[scratch[e] + 1]++;
        spare_[at] = stage[i];
        if (edges) (*edges)[at] = (*edgeScratch)[e];
      }
    }
    nodes_.swap(spare_);
    freeNodes_.clear();
    live_ = entries;
    sorted_ = true;
  }

  /// Checks the lists against the table: every cell findable from its home and non-empty, every live
  /// node in exactly one list, runs or links consistent. Returns "" or the first problem.
  std::string checkLayout() const {
    std::size_t listed = 0;
    std::vector<std::uint8_t> seen(nodes_.size(), 0);
    const std::uint32_t slotCount = static_cast<std::uint32_t>(table_.capacity());
    if (sorted_ && slotCount > 0) {
      for (std::uint32_t slot = 0; slot < slotCount; ++slot) {
        if (table_.head(slot + 1) < table_.head(slot)) return "run starts decrease along the table";
        if (!table_.occupied(slot) && table_.head(slot + 1) != table_.head(slot))
          return "an empty slot owns nodes";
      }
      if (table_.head(slotCount) != nodes_.size()) return "the sentinel does not close the last run";
    }
    for (std::uint32_t slot = 0; slot < slotCount; ++slot) {
      if (!table_.occupied(slot)) continue;
      const CellKey& s = table_[slot];
      if (table_.find(s.x, s.y) != slot)
        return "cell (" + std::to_string(s.x) + ", " + std::to_string(s.y) + ") is not findable";
      if (cellSize(slot) == 0) return "a cell with no items is kept";
      std::string problem;
      std::uint32_t prev = kNoIndex;
      forEachInCell(slot, [&](std::uint32_t n) {
        if (!problem.empty()) return;
        if (n >= nodes_.size())
          problem = "a list points outside the node array";
        else if (seen[n]++)
          problem = "node " + std::to_string(n) + " is listed twice";
        else if (nodes_[n].id == kDeadId)
          problem = "a free node is listed in a cell";
        else if (!sorted_ && links_[n].prev != prev)
          problem = "node " + std::to_string(n) + " has a wrong back link";
        prev = n;
        ++listed;
      });
      if (!problem.empty()) return problem;
    }
    if (listed != live_)
      return std::to_string(listed) + " nodes listed but " + std::to_string(live_) + " live";
    if (!sorted_) {
      if (std::string problem = freeNodes_.problem(
              [this](std::uint32_t f) -> auto& { return links_[f].next; },
              [this](std::uint32_t f) { return nodes_[f].id == kDeadId; }, nodes_.size());
          !problem.empty())
        return problem;
      if (freeNodes_.size() + live_ != nodes_.size()) return "nodes are neither live nor free";
    } else if (live_ != nodes_.size() || freeNodes_.size() != 0) {
      return "the sorted layout holds free nodes";
    }
    return {};
  }

 private:
  /// Turns per-slot counts into run starts, shifted by one slot: the scatter then advances head(s + 1)
  /// through the run of s, which leaves every head(s) at the start of run s (and the sentinel at the end of
  /// the last run).
  void shiftCountsToStarts() {
    std::uint32_t* heads = table_.heads();
    std::uint32_t runStart = 0, previousStart = 0;
    for (std::size_t slot = 0; slot <= table_.capacity(); ++slot) {
      const std::uint32_t count = heads[slot];
      heads[slot] = previousStart;
      previousStart = runStart;
      runStart += count;
    }
  }

  /// Switches from the sorted to the linked layout by writing out the links the runs imply.
  void ensureLinked() {
    if (!sorted_) return;
    links_.resize(nodes_.size());
    const std::uint32_t slotCount = static_cast<std::uint32_t>(table_.capacity());
    for (std::uint32_t slot = 0; slot < slotCount; ++slot) {
      const std::uint32_t begin = table_.head(slot), end = table_.head(slot + 1);
      for (std::uint32_t n = begin; n < end; ++n)
        links_[n] = Link{n + 1 < end ? n + 1 : kNoIndex, n > begin ? n - 1 : kNoIndex};
    }
    freeNodes_.clear();
    sorted_ = false;
  }

  void attach(std::int32_t x, std::int32_t y, std::uint32_t node) {
    const std::uint32_t slot = table_.findOrInsert(x, y, kNoIndex);
    const std::uint32_t oldHead = table_.head(slot);
    links_[node] = Link{oldHead, kNoIndex};
    if (oldHead != kNoIndex) links_[oldHead].prev = node;
    table_.head(slot) = node;
  }

  void detach(std::int32_t x, std::int32_t y, std::uint32_t node) {
    const Link l = links_[node];
    if (l.prev != kNoIndex) {
      links_[l.prev].next = l.next;
    } else {
      const std::uint32_t slot = table_.find(x, y);
      if (l.next == kNoIndex) {
        table_.erase(slot);
      } else {
        table_.head(slot) = l.next;
      }
    }
    if (l.next != kNoIndex) links_[l.next].prev = l.prev;
  }

  CellTable table_;
  NodeArray nodes_;
  NodeArray spare_;                                       // the other half of the sort's double buffer
  std::vector<Link> links_;                               // valid in the linked layout only
  std::vector<std::uint64_t> leavers_;                    // refile's scratch
  std::vector<std::vector<std::uint64_t>> pieceLeavers_;  // refile's scratch, one list per piece of nodes
  std::vector<std::vector<std::uint64_t>> pieceMovers_;
  std::vector<std::uint64_t> sortScratch_;  // the other half of refile's radix sort
  std::vector<std::uint32_t> flipped_;      // refile's slots whose cell came or went
  FreeList freeNodes_;                      // dead nodes, linked through their links' next
  std::size_t live_ = 0;
  bool sorted_ = true;
};

}  // namespace st::grid_detail
