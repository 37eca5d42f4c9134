#pragma once
/// \file The headless runner: every chosen structure runs the same frames of the same scene, is timed per
/// phase and checked against brute force (or, without it, against the others), then prints a table and
/// optionally writes the JSON report.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "progress.hpp"
#include "run_config.hpp"

namespace st::app {

/// Median and 95th percentile of per-frame timings, in milliseconds.
struct TimingSummary {
  double median = 0;  ///< median
  double p95 = 0;     ///< 95th percentile
};

/// Results of the random queries run after the last frame.
struct QueryResult {
  std::uint64_t hits = 0;           ///< total results over all queries
  std::uint64_t hitsChecksum = 0;   ///< order-independent hash of every query's result set
  double nodesVisitedPerQuery = 0;  ///< mean nodes visited
  double candidatesPerQuery = 0;    ///< mean circles examined (candidate tests)
  double exactTestsPerQuery = 0;    ///< mean exact predicate evaluations
  double occupiedCellsPerQuery = 0;  ///< mean cells looked up that held items (grids; 0 elsewhere)
  double nsPerQuery = 0;            ///< mean wall time
};

/// How a structure's results were checked against the others.
enum class Agreement {
  Agrees,     ///< same results as brute force, or as a majority of at least three other structures
  Disagrees,  ///< differs from brute force or from such a majority, or failed validate()
  Disputed,   ///< differs from another structure with nothing to settle which is right
  Unchecked,  ///< nothing to check against: no brute force and fewer than three others
  Reference,  ///< brute force itself, the reference of the others
};

/// Everything measured for one structure.
struct StructureResult {
  std::string name;                   ///< structure name
  double buildMs = 0;                 ///< time of the initial build()
  TimingSummary updateMs;             ///< updateBatch + maintain per frame
  TimingSummary pairsMs;              ///< findPairs per frame
  std::uint64_t pairsLastFrame = 0;   ///< pairs found on the last frame
  double pairsPerFrame = 0;           ///< mean pairs found per frame (a mean, as candidateTestsPerFrame)
  std::uint64_t pairsChecksum = 0;    ///< checksum of every frame's pair set
  double candidateTestsPerFrame = 0;  ///< mean circle pairs examined by findPairs per frame
  double exactTestsPerFrame = 0;      ///< mean exact overlap tests among them per frame
  double nodesVisitedPerFrame = 0;    ///< mean nodes visited in findPairs per frame
  IndexStats stats;                   ///< after the last frame
  Agreement agreement = Agreement::Agrees;  ///< outcome of the check against brute force or the others
  std::string disagreement;                 ///< the first difference, or why the structure is unchecked
  QueryResult queries;                      ///< after the last frame, when --queries was given
  ExtraCounters extra;                      ///< structure-specific figures
  std::string nodesNotCounted;     ///< why the nodes-visited figures are not node counts ("" when they are)
  std::string examinedLowerBound;  ///< why the candidate figures are lower bounds ("" when they are counts)
  std::vector<std::uint64_t> frameHashes;  ///< per-frame pair-set hashes (for agreement)
};

/// A whole headless run.
struct RunReport {
  std::size_t count = 0;   ///< circles
  std::string scenario;    ///< scene name (or the scene file)
  std::uint64_t seed = 0;  ///< seed
  unsigned threads = 1;    ///< threads the run used
  int frames = 0;          ///< frames run
  std::string reference;   ///< "brute", "consensus" (a majority of the others) or "none" (too few to check)
  std::optional<QueryShape> queryKind;      ///< kind of the random queries (none: no queries)
  int queryCount = 0;                       ///< number of random queries
  float querySize = 0;                      ///< their size
  std::uint32_t queryK = 0;                 ///< circles each nearest query asked for (0 for other kinds)
  std::vector<std::string> skipped;         ///< structures skipped, with the reason
  std::vector<StructureResult> structures;  ///< one per structure, in run order
};

/// Runs the configuration headless, reporting the frames done to `progress` when given; throws InvalidInput /
/// SceneFileError for bad input.
RunReport runHeadless(const RunConfig& config, std::ostream& log, ProgressLine* progress = nullptr);

/// Prints the report as aligned tables.
void printReport(const RunReport& report, std::ostream& out);

/// Writes the report as JSON; throws std::runtime_error if the file cannot be written.
void writeJsonReport(const RunReport& report, const std::string& path);

/// Checks every structure's per-frame pair hashes (and query checksum when queries ran) against brute force
/// when it ran, otherwise against a majority of at least three other structures; sets `reference` and each
/// structure's agreement. A structure already marked Disagrees (by validate()) stays so.
void checkAgreement(RunReport& report);

/// Whether no structure disagreed or was disputed (unchecked ones pass: nothing contradicted them).
bool allAgree(const RunReport& report);

/// The word the table and the JSON use for an agreement outcome.
const char* agreementName(Agreement agreement);

}  // namespace st::app
