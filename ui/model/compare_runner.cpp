#include "ui/model/compare_runner.hpp"

#include <algorithm>
#include <map>

#include "ui/model/teach_trace.hpp"

namespace st::ui {

// ---------------------------------------------------------------------------------------------------------
// CompareBench
// ---------------------------------------------------------------------------------------------------------

// A new scene: every structure is created and built afresh on a new runner.
void CompareBench::rebuild(const CompareSnapshot& snapshot) {
  std::vector<Item> items;
  items.reserve(snapshot.circles.size());
  for (std::size_t i = 0; i < snapshot.circles.size(); ++i) items.push_back({ItemId(i), snapshot.circles[i]});
  runner_ = std::make_unique<FrameRunner>();
  entries_.clear();
  for (const StructureInfo& info : registry_.all()) {
    Entry entry;
    entry.name = info.name;
    entry.peer = info.peer;
    try {
      entry.track = runner_->add(info.name, info.create(), items, snapshot.world);
    } catch (const std::exception& e) {
      entry.buildFailure = e.what();
    }
    entries_.push_back(std::move(entry));
  }
}

CompareResult CompareBench::run(const CompareSnapshot& snapshot) {
  const std::uint64_t start = nowNanoseconds();
  CompareResult result;
  result.frame = snapshot.frame;
  result.count = snapshot.circles.size();

  // The same ids keep their circles between snapshots of one scene, so an update batch of the circles that
  // changed brings every structure along, as the window's own structure is brought along each frame.
  const bool fresh =
      !runner_ || snapshot.sceneKey != previousKey_ || snapshot.circles.size() != previous_.size();
  std::vector<ItemId> movedIds;
  std::vector<Circle> movedCircles;
  if (fresh) {
    rebuild(snapshot);
  } else {
    for (std::size_t i = 0; i < snapshot.circles.size(); ++i) {
      if (snapshot.circles[i] == previous_[i]) continue;
      movedIds.push_back(ItemId(i));
      movedCircles.push_back(snapshot.circles[i]);
    }
  }
  const bool bruteTooSlow = snapshot.circles.size() > kBrutePairLimit;
  for (const Entry& entry : entries_) {
    if (entry.buildFailure.empty())
      runner_->track(entry.track).searchPairs = !(entry.name == "brute" && bruteTooSlow);
  }
  // After a build the frame moves nothing: it is the pair search on the circles as built.
  runner_->advance(movedIds, movedCircles, snapshot.pairs);

  QueryAnswer answer;
  bool failed = false;
  for (const Entry& entry : entries_) {
    CompareRow row;
    row.name = entry.name;
    row.peer = entry.peer;
    if (!entry.buildFailure.empty()) {
      row.note = entry.buildFailure;
      failed = true;
      result.rows.push_back(std::move(row));
      continue;
    }
    FrameTrack& track = runner_->track(entry.track);
    SpatialIndex& index = *track.index;
    row.examinedLowerBound = std::string(index.examinedLowerBound());
    if (!track.failure.empty()) {
      row.note = track.failure;
      failed = true;
      result.rows.push_back(std::move(row));
      continue;
    }
    try {
      row.built = fresh;
      row.updateMs = fresh ? track.buildMs : track.last.updateMs;
      if (track.last.pairsSearched) {
        row.pairsMs = track.last.pairsMs;
        row.pairTests = track.last.pairs.candidates;
        row.pairExactTests = track.last.pairs.exactTests;
        row.pairs = track.pairsLastFrame;
        row.pairHash = track.frameHashes.back();
        row.pairsRan = true;
      } else if (snapshot.pairs && !track.searchPairs) {
        row.note = "pair search skipped above " + formatCount(kBrutePairLimit) + " circles";
      }

      if (snapshot.query.mode) {
        const std::uint64_t t = nowNanoseconds();
        runQuery(index, queryOf(snapshot.query), answer);
        row.queryUs = millisecondsSince(t) * 1000.0;
        row.queryNodes = answer.counters.nodesVisited;
        row.nodesCounted = index.nodesNotCounted().empty();
        row.queryTests = answer.counters.candidates;
        row.queryHits = answer.count();
        row.queryRan = true;
      }
      const IndexStats stats = index.stats();
      row.nodes = stats.nodes;
      row.memoryBytes = stats.memoryBytes;
    } catch (const std::exception& e) {
      row.note = e.what();
      failed = true;
    }
    result.rows.push_back(std::move(row));
  }

  // Brute force's pairs are the truth when it ran; otherwise the pair set most structures found.
  std::uint64_t reference = 0;
  const auto brute = std::find_if(result.rows.begin(), result.rows.end(),
                                  [](const CompareRow& r) { return r.name == "brute" && r.pairsRan; });
  if (brute != result.rows.end()) {
    reference = brute->pairHash;
    result.reference = "brute force";
  } else {
    std::map<std::uint64_t, int> votes;
    for (const CompareRow& r : result.rows) {
      if (r.pairsRan) ++votes[r.pairHash];
    }
    if (!votes.empty()) {
      reference = std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
                    return a.second < b.second;
                  })->first;
      result.reference = "the majority";
    }
  }
  for (CompareRow& r : result.rows) r.agrees = !r.pairsRan || r.pairHash == reference;

  // A structure left half-updated by an exception would carry it into the next snapshot: rebuild them all.
  previous_ = failed ? std::vector<Circle>{} : snapshot.circles;
  previousKey_ = failed ? std::string{} : snapshot.sceneKey;
  if (failed) runner_.reset();
  result.wallMs = millisecondsSince(start);
  return result;
}

// ---------------------------------------------------------------------------------------------------------
// CompareWorker
// ---------------------------------------------------------------------------------------------------------

CompareWorker::CompareWorker(const StructureRegistry& registry)
    : bench_(registry), thread_([this] { loop(); }) {}

CompareWorker::~CompareWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool CompareWorker::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return busy_;
}

bool CompareWorker::submit(CompareSnapshot snapshot) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (busy_) return false;
    job_ = std::move(snapshot);
    busy_ = true;
  }
  wake_.notify_all();
  return true;
}

std::optional<CompareResult> CompareWorker::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<CompareResult> out = std::move(result_);
  result_.reset();
  return out;
}

void CompareWorker::loop() {
  for (;;) {
    CompareSnapshot job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || job_.has_value(); });
      if (stop_) return;
      job = std::move(*job_);
      job_.reset();
    }
    CompareResult result;
    try {
      result = bench_.run(job);
    } catch (const std::exception& e) {
      result.error = e.what();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    result_ = std::move(result);
    busy_ = false;
  }
}

}  // namespace st::ui
