#pragma once
// Where every pair search writes its pairs, and the float pre-test that runs before the exact predicate.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ordered_pieces.hpp"
#include "spheretest/geometry.hpp"
#include "spheretest/spatial_index.hpp"
#include "spheretest/tasks.hpp"

namespace st::pairs {

/// Relative widening of the float pre-test: covers the float rounding of its five operations (about 7 ulps,
/// 4.2e-7) with room to spare, so it never rejects a pair the double predicate accepts.
inline constexpr float kPretestScale = 1.0f + 4e-6f;
/// Absolute floor of the float pre-test: covers underflow of tiny distances and radii.
inline constexpr float kPretestFloor = 1e-30f;

/// Cheap conservative float test run before the exact one: false only when the circles surely miss.
inline bool mayOverlap(const Circle& a, const Circle& b) {
  const float dx = b.center.x - a.center.x, dy = b.center.y - a.center.y, reach = a.radius + b.radius;
  return dx * dx + dy * dy <= reach * reach * kPretestScale + kPretestFloor;
}

/// Appends pairs straight into the output vector, growing it in large steps; the vector is trimmed to the
/// pairs written by finish().
class PairWriter {
 public:
  /// Starts appending after the current content of `out`.
  explicit PairWriter(std::vector<Pair>& out) : out_(out), used_(out.size()) {
    out_.resize(std::max<std::size_t>(out_.capacity(), used_ + 4096));
    data_ = out_.data();
    capacity_ = out_.size();
  }
  PairWriter(const PairWriter&) = delete;
  PairWriter& operator=(const PairWriter&) = delete;
  ~PairWriter() { finish(); }

  /// Pre-tests, then tests exactly, and keeps the pair when the circles overlap (nodes with .circle, .id).
  template <class ItemNode>
  void test(const ItemNode& a, const ItemNode& b, std::uint64_t& candidates) {
    ++pretests_;
    if (!mayOverlap(a.circle, b.circle)) return;
    ++candidates;
    if (used_ == capacity_) grow();
    data_[used_] = makePair(a.id, b.id);
    used_ += circlesOverlap(a.circle, b.circle) ? 1 : 0;
  }
  /// Appends a known pair.
  void add(ItemId a, ItemId b) {
    if (used_ == capacity_) grow();
    data_[used_++] = makePair(a, b);
  }
  /// Makes room for `n` more pairs, so that the next n addIf() need no check.
  void reserveMore(std::size_t n) {
    while (capacity_ - used_ < n) grow();
  }
  /// Appends the pair when `keep`, without a branch (after reserveMore).
  void addIf(bool keep, ItemId a, ItemId b) {
    data_[used_] = makePair(a, b);
    used_ += keep ? 1 : 0;
  }
  /// Where the next pair goes: a caller may write up to the room reserveMore() made, then append().
  Pair* tail() { return data_ + used_; }
  /// Keeps `n` pairs written at tail().
  void append(std::size_t n) { used_ += n; }
  /// Trims the output to the pairs written.
  void finish() { out_.resize(used_); }
  /// Counts pre-tests done outside test() (the vector pre-test).
  void countPretests(std::uint64_t n) { pretests_ += n; }
  /// Pairs pre-tested so far: the pair search's real work, of which only the survivors count as candidates.
  std::uint64_t pretests() const { return pretests_; }

 private:
  void grow() {
    out_.resize(capacity_ * 2);
    data_ = out_.data();
    capacity_ = out_.size();
  }

  std::vector<Pair>& out_;
  Pair* data_ = nullptr;
  std::size_t used_ = 0;
  std::size_t capacity_ = 0;
  std::uint64_t pretests_ = 0;
};

/// What a pair scan counted.
struct ScanTotals {
  std::uint64_t candidates = 0;  ///< pairs tested exactly
  std::uint64_t visited = 0;     ///< cells (or other units) the scan read
  std::uint64_t pretests = 0;    ///< pairs the float pre-test looked at
};

/// Folds a scan's totals into the counters of a pair search: every pair the pre-test looked at was examined,
/// and its survivors were tested exactly. `direct` pairs were tested exactly with no pre-test.
inline void addScanTotals(QueryCounters& counters, const ScanTotals& totals, std::uint64_t direct = 0) {
  counters.nodesVisited += totals.visited;
  counters.candidates += totals.pretests + direct;
  counters.exactTests += totals.candidates + direct;
}

/// The pairs each worker of a parallel search found: one writer per worker for the whole search, into a
/// buffer that belongs to the worker's thread and lives as long as it, so that a search every frame neither
/// allocates nor touches fresh memory for them.
class WorkerPairs {
 public:
  /// Room for `workers` workers, none started yet.
  explicit WorkerPairs(unsigned workers) : buffers_(workers, nullptr), writers_(workers) {}

  /// The writer of `worker`, into its thread's buffer, emptied when the worker first asks in this search;
  /// call only from the worker's own thread.
  PairWriter& writer(unsigned worker) {
    if (!writers_[worker]) {
      thread_local std::vector<Pair> mine;
      mine.clear();
      buffers_[worker] = &mine;
      writers_[worker] = std::make_unique<PairWriter>(mine);
    }
    return *writers_[worker];
  }

  /// Pairs pre-tested by every writer.
  std::uint64_t pretests() const {
    std::uint64_t sum = 0;
    for (const auto& w : writers_) sum += w ? w->pretests() : 0;
    return sum;
  }

  /// Ends the writers and appends every worker's pairs to `out`, the copies spread over the workers.
  void appendTo(std::vector<Pair>& out, TaskScheduler& scheduler) {
    for (auto& w : writers_) {
      if (w) w->finish();
    }
    std::vector<std::size_t> at(buffers_.size() + 1, out.size());
    for (std::size_t w = 0; w < buffers_.size(); ++w)
      at[w + 1] = at[w] + (buffers_[w] ? buffers_[w]->size() : 0);
    out.resize(at.back());
    scheduler.parallelFor(buffers_.size(), 1, [&](std::size_t begin, std::size_t end, unsigned) {
      for (std::size_t w = begin; w < end; ++w) {
        if (buffers_[w])
          std::copy(buffers_[w]->begin(), buffers_[w]->end(), out.begin() + std::ptrdiff_t(at[w]));
      }
    });
  }

 private:
  std::vector<std::vector<Pair>*> buffers_;
  std::vector<std::unique_ptr<PairWriter>> writers_;
};

/// Runs `scan(writer, candidates, visited, begin, end)` over the units [0, units) and appends every pair it
/// finds to `out`, adding up its counts into `totals`. With several workers the units are cut into 64 pieces
/// (a cut that depends only on `units`), each worker writes its own pairs, and they are appended in worker
/// order: the same pairs and counts as one scan of the whole range, in another order.
template <class Scan>
void scanInPieces(TaskScheduler& scheduler, std::uint32_t units, std::vector<Pair>& out, ScanTotals& totals,
                  Scan&& scan) {
  const unsigned workers = scheduler.workerCount();
  if (workers == 1 || units < 2) {
    PairWriter writer(out);
    scan(writer, totals.candidates, totals.visited, 0u, units);
    totals.pretests += writer.pretests();
    return;
  }
  const std::size_t grain = pieces::pieceSize(units, 1);
  WorkerPairs found(workers);
  std::vector<ScanTotals> counted(workers);
  scheduler.parallelFor(units, grain, [&](std::size_t begin, std::size_t end, unsigned worker) {
    ScanTotals& mine = counted[worker];
    scan(found.writer(worker), mine.candidates, mine.visited, static_cast<std::uint32_t>(begin),
         static_cast<std::uint32_t>(end));
  });
  totals.pretests += found.pretests();
  found.appendTo(out, scheduler);
  for (const ScanTotals& mine : counted) {
    totals.candidates += mine.candidates;
    totals.visited += mine.visited;
  }
}

}  // namespace st::pairs
