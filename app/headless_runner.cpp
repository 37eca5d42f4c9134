#include "headless_runner.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

#include "spheretest/agreement.hpp"
#include "spheretest/atomic_file.hpp"
#include "spheretest/frame_runner.hpp"
#include "spheretest/hash.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/tasks.hpp"
#include "ui/model/demo_model.hpp"

namespace st::app {
namespace {

using Clock = std::chrono::steady_clock;

TimingSummary summarize(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  const auto at = [&](double q) {
    const std::size_t index = static_cast<std::size_t>(std::ceil(q * double(samples.size()))) - 1;
    return samples[std::min(index, samples.size() - 1)];
  };
  const std::size_t n = samples.size();
  const double median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return {median, at(0.95)};
}

// One random query, generated once and replayed on every structure.
struct QuerySpec {
  Vec2 at;
  Vec2 direction;
};

std::vector<QuerySpec> makeQueries(const RunConfig& config, const Box& region) {
  Rng rng(config.seed * kGoldenGamma + 12345);
  std::vector<QuerySpec> queries(static_cast<std::size_t>(config.queryCount));
  for (QuerySpec& q : queries) {
    q.at = {rng.uniform(region.min.x, region.max.x), rng.uniform(region.min.y, region.max.y)};
    const double angle = 6.283185307179586 * rng.unit();
    q.direction = {float(std::cos(angle)), float(std::sin(angle))};
  }
  return queries;
}

// The queries run in pieces over the pool, each answered through the const path; their hashes are folded in
// query order afterwards, so the checksum and the counts are the same for any number of threads. The time
// per query is the batch's wall time over the queries.
void runQueries(TaskScheduler& scheduler, const SpatialIndex& structure, const RunConfig& config,
                const std::vector<QuerySpec>& queries, float size, QueryResult& result) {
  const bool ordered = config.queryKind == QueryShape::Segment || config.queryKind == QueryShape::Nearest;
  std::vector<std::uint64_t> hashes(queries.size());
  std::vector<std::uint64_t> hits(queries.size()), nodes(queries.size()), candidates(queries.size()),
      exact(queries.size()), occupied(queries.size());
  const Clock::time_point start = Clock::now();
  scheduler.parallelFor(queries.size(), 64, [&](std::size_t begin, std::size_t end, unsigned) {
    QueryAnswer answer;
    QueryDetail detail;
    for (std::size_t i = begin; i < end; ++i) {
      Query query = makeQuery(*config.queryKind, queries[i].at, size, queries[i].direction);
      query.k = config.queryK;
      runQuery(structure, query, answer, nullptr, &detail);
      std::uint64_t queryHash = 0;
      if (ordered) {
        for (ItemId id : answer.ids) queryHash = mix64(queryHash ^ (id + 1));  // in hit order
      } else {
        for (ItemId id : answer.ids) queryHash += mix64(id + 1);  // order-independent
      }
      hashes[i] = queryHash;
      hits[i] = answer.ids.size();
      nodes[i] = answer.counters.nodesVisited;
      candidates[i] = answer.counters.candidates;
      exact[i] = answer.counters.exactTests;
      occupied[i] = detail.occupiedCells;
    }
  });
  const double totalNs = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  std::uint64_t checksum = 0, nodeSum = 0, candidateSum = 0, exactSum = 0, occupiedSum = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    checksum = mix64(checksum ^ hashes[i] ^ (i * kGoldenGamma));
    result.hits += hits[i];
    nodeSum += nodes[i];
    candidateSum += candidates[i];
    exactSum += exact[i];
    occupiedSum += occupied[i];
  }
  const double n = queries.empty() ? 1.0 : double(queries.size());
  result.hitsChecksum = checksum;
  result.nodesVisitedPerQuery = double(nodeSum) / n;
  result.candidatesPerQuery = double(candidateSum) / n;
  result.exactTestsPerQuery = double(exactSum) / n;
  result.occupiedCellsPerQuery = double(occupiedSum) / n;
  result.nsPerQuery = totalNs / n;
}

std::string formatBytes(std::size_t bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1);
  if (bytes >= (1u << 20))
    s << double(bytes) / double(1u << 20) << " MiB";
  else if (bytes >= 1024)
    s << double(bytes) / 1024.0 << " KiB";
  else
    s << bytes << " B";
  return s.str();
}

std::string fixed(double value, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << value;
  return s.str();
}

// A number with thousands separators, so that six-digit and larger figures read at a glance.
std::string grouped(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  const std::string digitsText = fixed(std::fabs(value), digits);
  const std::size_t point = std::min(digitsText.find('.'), digitsText.size());
  std::string text;
  if (value < 0 && digitsText.find_first_not_of("0.") != std::string::npos) text.push_back('-');
  for (std::size_t i = 0; i < digitsText.size(); ++i) {
    if (i > 0 && i < point && (point - i) % 3 == 0) text.push_back(',');
    text.push_back(digitsText[i]);
  }
  return text;
}

// A structure-specific figure as text and its unit, from the conventions of the figure names: counts are
// whole numbers with thousands separators, ratios and loads are percentages, sizes are world units.
std::pair<std::string, std::string> formatFigure(const std::string& key, double value) {
  const auto endsWith = [&](std::string_view suffix) { return key.ends_with(suffix); };
  if (!std::isfinite(value)) return {"-", ""};
  if (endsWith("_ratio") || key == "hash_load") return {grouped(100.0 * value, 2), "%"};
  if (key.find("bytes") != std::string::npos)
    return {grouped(value, value == std::floor(value) ? 0 : 1), "B"};
  std::string unit = endsWith("_ms") ? "ms" : endsWith("_size") ? "world units" : "";
  if (value == std::floor(value) && std::fabs(value) < 1e15) return {grouped(value, 0), unit};
  const double magnitude = std::fabs(value);
  return {grouped(value, magnitude >= 1000 ? 0 : magnitude >= 10 ? 2 : 3), unit};
}

// A frame's pair hash, or for the check after the frames, the query results' checksum.
std::uint64_t checkedHash(const StructureResult& r, std::size_t check) {
  return check < r.frameHashes.size() ? r.frameHashes[check] : r.queries.hitsChecksum;
}

std::string checkedWhat(const RunReport& report, std::size_t check, std::size_t frames) {
  if (check < frames) return "pairs differ on frame " + std::to_string(check + 1);
  return std::string(queryKindName(report.queryKind)) + " query results differ";
}

// Worse outcomes win when a structure's checks end differently.
int severity(Agreement agreement) {
  switch (agreement) {
    case Agreement::Disagrees:
      return 3;
    case Agreement::Disputed:
      return 2;
    case Agreement::Unchecked:
      return 1;
    case Agreement::Agrees:
    case Agreement::Reference:
      return 0;
  }
  return 0;
}

std::string agreementCell(const StructureResult& r) {
  switch (r.agreement) {
    case Agreement::Disagrees:
      return "NO: " + r.disagreement;
    case Agreement::Disputed:
      return "DISPUTED: " + r.disagreement;
    default:
      return agreementName(r.agreement);
  }
}

}  // namespace

void checkAgreement(RunReport& report) {
  std::vector<StructureResult>& results = report.structures;
  const auto brute = std::find_if(results.begin(), results.end(),
                                  [](const StructureResult& r) { return r.name == "brute"; });
  const std::optional<std::size_t> reference =
      brute != results.end() ? std::optional<std::size_t>(std::size_t(brute - results.begin()))
                             : std::nullopt;
  const std::size_t others = results.empty() ? 0 : results.size() - 1;
  report.reference = reference ? "brute" : others >= 3 ? "consensus" : "none";
  if (results.empty()) return;
  const std::size_t frames = results.front().frameHashes.size();
  const std::size_t checks = frames + (report.queryKind ? 1 : 0);
  std::vector<Agreement> outcome(results.size(), Agreement::Agrees);
  std::vector<std::string> reason(results.size());
  std::vector<std::uint64_t> answers(results.size());
  for (std::size_t k = 0; k < checks; ++k) {
    for (std::size_t s = 0; s < results.size(); ++s) answers[s] = checkedHash(results[s], k);
    const std::vector<Judgement> judged = judgeAnswers(answers, reference);
    for (std::size_t s = 0; s < results.size(); ++s) {
      // Worse outcomes win when a structure's checks end differently; the first reason of the worst stays.
      const auto note = [&](Agreement found, std::string why) {
        if (severity(found) <= severity(outcome[s])) return;
        outcome[s] = found;
        reason[s] = std::move(why);
      };
      const Judgement& j = judged[s];
      switch (j.verdict) {
        case Verdict::Agrees:
        case Verdict::Reference:
          break;
        case Verdict::Disagrees:
          note(Agreement::Disagrees, checkedWhat(report, k, frames) +
                                         (reference ? std::string(" from brute")
                                                    : " from " + std::to_string(j.supporters) + " of the " +
                                                          std::to_string(others) + " others"));
          break;
        case Verdict::Disputed:
          note(Agreement::Disputed, checkedWhat(report, k, frames) + " from " + results[j.differing].name +
                                        " (no brute force or majority of three others to settle it)");
          break;
        case Verdict::Unchecked:
          break;
      }
      // Fewer than three others and no brute force: whatever matched is unchecked.
      if (!reference && others < 3) {
        note(Agreement::Unchecked, others == 0
                                       ? "nothing to compare with: run brute or three other structures"
                                       : "no brute force and only " + std::to_string(others) +
                                             " other structure(s): a majority needs three");
      }
    }
  }
  for (std::size_t s = 0; s < results.size(); ++s) {
    StructureResult& r = results[s];
    if (r.agreement == Agreement::Disagrees) continue;  // validate() failed: nothing to add
    r.agreement = reference && s == *reference ? Agreement::Reference : outcome[s];
    r.disagreement = reason[s];
  }
}

const char* agreementName(Agreement agreement) {
  switch (agreement) {
    case Agreement::Agrees:
      return "yes";
    case Agreement::Disagrees:
      return "no";
    case Agreement::Disputed:
      return "disputed";
    case Agreement::Unchecked:
      return "unchecked";
    case Agreement::Reference:
      return "reference";
  }
  return "unchecked";
}

RunReport runHeadless(const RunConfig& config, std::ostream& log, ProgressLine* progress) {
  std::unique_ptr<Simulation> sim = makeSimulation(config);
  ThreadPool pool(config.threads);
  sim->setScheduler(&pool);
  RunReport report;
  report.threads = pool.workerCount();
  report.count = sim->circles().size();
  report.scenario = config.sceneFile ? config.scenario + " (" + *config.sceneFile + ")" : config.scenario;
  report.seed = config.seed;
  report.frames = config.frames;
  report.queryKind = config.queryKind;
  report.queryCount = config.queryCount;

  FrameRunner runner(*sim, &pool);
  for (const std::string& name : config.structures) {
    if (name == "brute" && report.count > ui::kBrutePairLimit && !config.bruteExplicit) {
      report.skipped.push_back("brute: skipped above " + formatCount(ui::kBrutePairLimit) +
                               " circles (name it in --structure to run it anyway); "
                               "agreement is checked among the others");
      continue;
    }
    // On a terminal the bar shows the builds too: at a million circles they take seconds each.
    if (progress && progress->terminal()) progress->update(0, 1, std::string("building ") + name);
    const FrameTrack& track = runner.tracks()[runner.add(name, makeStructure(config, name))];
    StructureResult result;
    result.name = name;
    result.buildMs = track.buildMs;
    log << "built " << name << " in " << fixed(result.buildMs, 2) << " ms\n";
    if (progress && !progress->terminal()) {
      progress->note("built " + name + " in " + fixed(result.buildMs, 2) + " ms (" +
                     std::to_string(runner.tracks().size()) + " of " +
                     std::to_string(config.structures.size()) + ")");
    }
    report.structures.push_back(std::move(result));
  }

  const std::size_t steps = std::size_t(config.frames) * runner.tracks().size();
  if (progress) progress->update(0, steps, std::string("frame 1/") + std::to_string(config.frames));
  for (int frame = 1; frame <= config.frames; ++frame) {
    runner.step(true, [&](std::size_t s) {
      if (progress) {
        progress->update(std::size_t(frame - 1) * runner.tracks().size() + s + 1, steps,
                         std::string("frame ") + std::to_string(frame) + "/" + std::to_string(config.frames) +
                             " " + report.structures[s].name);
      }
    });
  }

  const Box region = config.queryRegion.value_or(sim->queryRegion());
  float size = config.querySize;
  if (size <= 0.0f) {
    size = config.queryKind == QueryShape::Segment || config.queryKind == QueryShape::Cone
               ? 0.125f * (region.max.x - region.min.x)
               : 2.0f * sim->maxRadius();
  }
  const bool sized = config.queryKind != QueryShape::Point && config.queryKind != QueryShape::Nearest;
  report.querySize = sized ? size : 0.0f;
  report.queryK = config.queryKind == QueryShape::Nearest ? config.queryK : 0;
  const std::vector<QuerySpec> queries =
      config.queryKind ? makeQueries(config, region) : std::vector<QuerySpec>{};
  for (std::size_t s = 0; s < runner.tracks().size(); ++s) {
    const FrameTrack& track = runner.tracks()[s];
    StructureResult& result = report.structures[s];
    const double frames = config.frames ? double(config.frames) : 1.0;
    result.updateMs = summarize(track.updateMs);
    result.pairsMs = summarize(track.pairsMs);
    result.candidateTestsPerFrame = config.frames ? double(track.pairCounters.candidates) / frames : 0.0;
    result.exactTestsPerFrame = config.frames ? double(track.pairCounters.exactTests) / frames : 0.0;
    result.pairsPerFrame = config.frames ? double(track.pairsFound) / frames : 0.0;
    result.nodesVisitedPerFrame = config.frames ? double(track.pairCounters.nodesVisited) / frames : 0.0;
    result.frameHashes = track.frameHashes;
    result.pairsChecksum = track.pairsChecksum;
    result.pairsLastFrame = track.pairsLastFrame;
    const SpatialIndex& structure = *track.index;
    if (!queries.empty()) runQueries(pool, structure, config, queries, size, result.queries);
    result.stats = structure.stats();
    structure.extra(result.extra);
    result.nodesNotCounted = std::string(structure.nodesNotCounted());
    result.examinedLowerBound = std::string(structure.examinedLowerBound());
    if (std::string problem = structure.validate(); !problem.empty()) {
      result.agreement = Agreement::Disagrees;
      result.disagreement = "validate: " + problem;
    }
  }
  checkAgreement(report);
  return report;
}

bool allAgree(const RunReport& report) {
  return std::all_of(report.structures.begin(), report.structures.end(), [](const StructureResult& r) {
    return r.agreement != Agreement::Disagrees && r.agreement != Agreement::Disputed;
  });
}

void printReport(const RunReport& report, std::ostream& out) {
  out << "spheretest: " << report.count << " circles, scenario " << report.scenario << ", seed "
      << report.seed << ", " << report.frames << " frames, " << report.threads
      << (report.threads == 1 ? " thread; " : " threads; ");
  if (report.reference == "brute")
    out << "agreement checked against brute force\n";
  else if (report.reference == "consensus")
    out << "agreement checked against the majority of the other structures\n";
  else
    out << "agreement unchecked: no brute force and fewer than three other structures to outvote a result\n";
  for (const std::string& line : report.skipped) out << "  " << line << "\n";
  out << "\n";
  std::ostringstream header;
  header << std::left << std::setw(17) << "structure" << std::right << std::setw(10) << "build ms"
         << std::setw(18) << "update ms med/p95" << std::setw(18) << "pairs ms med/p95" << std::setw(13)
         << "pairs/frame" << std::setw(15) << "cand./frame" << std::setw(13) << "exact/frame" << std::setw(10)
         << "nodes" << std::setw(7) << "depth" << std::setw(12) << "memory"
         << "  agrees";
  out << header.str() << "\n" << std::string(header.str().size(), '-') << "\n";
  for (const StructureResult& r : report.structures) {
    out << std::left << std::setw(17) << r.name << std::right << std::setw(10) << fixed(r.buildMs, 2)
        << std::setw(18) << (fixed(r.updateMs.median, 3) + "/" + fixed(r.updateMs.p95, 3)) << std::setw(18)
        << (fixed(r.pairsMs.median, 3) + "/" + fixed(r.pairsMs.p95, 3)) << std::setw(13)
        << grouped(r.pairsPerFrame, 0) << std::setw(15) << grouped(r.candidateTestsPerFrame, 0)
        << std::setw(13) << grouped(r.exactTestsPerFrame, 0) << std::setw(10) << r.stats.nodes << std::setw(7)
        << r.stats.maxDepth << std::setw(12) << formatBytes(r.stats.memoryBytes) << "  " << agreementCell(r)
        << "\n";
  }
  static constexpr const char* kLegend[] = {
      "build ms: the first build; update ms: moving each frame's circles (updateBatch + maintain);",
      "pairs ms: the pair search; med/p95: median and 95th percentile over the frames;",
      "pairs/frame: mean pairs found per frame; cand./frame: circle pairs the pair search examined per",
      "frame (every pair whose distance or bounds it compared, in a vector lane or in scalar code; brute",
      "force examines n(n-1)/2); exact/frame: the exact overlap tests among them (those a cheaper float",
      "pre-test let through);",
      "nodes, depth, memory: the structure after the last frame; agrees: yes (same results as brute",
      "force or as a majority of three or more others), reference (brute force), unchecked (nothing to",
      "check against), NO or DISPUTED (exit 3)"};
  for (const char* line : kLegend) out << line << "\n";
  // A peer library that cannot count a figure: its cells stay numbers (scripts read them), said here.
  for (const StructureResult& r : report.structures) {
    if (!r.examinedLowerBound.empty())
      out << r.name << ": cand. figures are lower bounds (" << r.examinedLowerBound << ")\n";
  }
  if (report.queryKind) {
    out << "\n" << report.queryCount << " random " << queryKindName(report.queryKind) << " queries";
    if (report.queryKind == QueryShape::Nearest)
      out << ", " << report.queryK << " circles each";
    else if (report.queryKind != QueryShape::Point)
      out << " of size " << report.querySize;
    out << " after the last frame\n";
    std::ostringstream qheader;
    qheader << std::left << std::setw(17) << "structure" << std::right << std::setw(12) << "hits"
            << std::setw(16) << "nodes/query" << std::setw(16) << "cand./query" << std::setw(16)
            << "exact/query" << std::setw(12) << "ns/query";
    out << qheader.str() << "\n" << std::string(qheader.str().size(), '-') << "\n";
    for (const StructureResult& r : report.structures) {
      out << std::left << std::setw(17) << r.name << std::right << std::setw(12) << r.queries.hits
          << std::setw(16) << fixed(r.queries.nodesVisitedPerQuery, 1) << std::setw(16)
          << fixed(r.queries.candidatesPerQuery, 1) << std::setw(16) << fixed(r.queries.exactTestsPerQuery, 1)
          << std::setw(12) << fixed(r.queries.nsPerQuery, 0) << "\n";
    }
    out << "cand./query: circles a query examined (by distance or by bounds); exact/query: the exact tests\n"
           "among them\n";
    for (const StructureResult& r : report.structures) {
      if (!r.nodesNotCounted.empty())
        out << r.name << ": nodes/query counts what the library reports, not nodes (" << r.nodesNotCounted
            << ")\n";
    }
  }
  bool anyExtra = false;
  for (const StructureResult& r : report.structures) anyExtra = anyExtra || !r.extra.empty();
  if (!anyExtra) return;
  std::size_t keyWidth = 6, valueWidth = 5;
  for (const StructureResult& r : report.structures) {
    for (const auto& [key, value] : r.extra) {
      keyWidth = std::max(keyWidth, key.size());
      valueWidth = std::max(valueWidth, formatFigure(key, value).first.size());
    }
  }
  out << "\nstructure-specific figures (last_*: the last frame, query or batch; the rest: the structure "
         "now)\n";
  std::ostringstream xheader;
  xheader << std::left << std::setw(17) << "structure" << std::setw(int(keyWidth) + 2) << "figure"
          << std::right << std::setw(int(valueWidth)) << "value"
          << "  unit";
  out << xheader.str() << "\n" << std::string(xheader.str().size(), '-') << "\n";
  for (const StructureResult& r : report.structures) {
    for (std::size_t i = 0; i < r.extra.size(); ++i) {
      const auto [text, unit] = formatFigure(r.extra[i].first, r.extra[i].second);
      out << std::left << std::setw(17) << (i == 0 ? r.name : "") << std::setw(int(keyWidth) + 2)
          << r.extra[i].first << std::right << std::setw(int(valueWidth)) << text;
      if (!unit.empty()) out << "  " << unit;
      out << "\n";
    }
  }
}

void writeJsonReport(const RunReport& report, const std::string& path) {
  using Json = nlohmann::ordered_json;
  Json root;
  root["count"] = report.count;
  root["scenario"] = report.scenario;
  root["seed"] = report.seed;
  root["threads"] = report.threads;
  root["frames"] = report.frames;
  root["reference"] = report.reference;
  root["skipped"] = report.skipped;
  Json list = Json::array();
  for (const StructureResult& r : report.structures) {
    Json s;
    s["name"] = r.name;
    s["build_ms"] = r.buildMs;
    s["update_ms"] = {{"median", r.updateMs.median}, {"p95", r.updateMs.p95}};
    s["pairs_ms"] = {{"median", r.pairsMs.median}, {"p95", r.pairsMs.p95}};
    s["pairs_last_frame"] = r.pairsLastFrame;
    s["pairs_per_frame"] = r.pairsPerFrame;
    s["pairs_checksum"] = r.pairsChecksum;
    s["candidate_tests_per_frame"] = r.candidateTestsPerFrame;
    s["exact_tests_per_frame"] = r.exactTestsPerFrame;
    s["nodes_visited_per_frame"] = r.nodesVisitedPerFrame;
    if (!r.nodesNotCounted.empty()) s["nodes_not_counted"] = r.nodesNotCounted;
    if (!r.examinedLowerBound.empty()) s["candidate_tests_lower_bound"] = r.examinedLowerBound;
    s["nodes"] = r.stats.nodes;
    s["max_depth"] = r.stats.maxDepth;
    s["memory_bytes"] = r.stats.memoryBytes;
    switch (r.agreement) {
      case Agreement::Agrees:
      case Agreement::Reference:
        s["agrees_with_oracle"] = true;
        break;
      case Agreement::Disagrees:
        s["agrees_with_oracle"] = false;
        break;
      case Agreement::Disputed:
      case Agreement::Unchecked:
        s["agrees_with_oracle"] = nullptr;
        break;
    }
    s["agreement"] = agreementName(r.agreement);
    if (r.agreement == Agreement::Unchecked) s["unchecked_reason"] = r.disagreement;
    if (r.agreement == Agreement::Disagrees || r.agreement == Agreement::Disputed)
      s["disagreement"] = r.disagreement;
    if (report.queryKind) {
      s["queries"] = {{"kind", queryKindName(report.queryKind)},
                      {"count", report.queryCount},
                      {"size", report.querySize},
                      {"k", report.queryK},
                      {"hits", r.queries.hits},
                      {"nodes_visited_per_query", r.queries.nodesVisitedPerQuery},
                      {"candidates_per_query", r.queries.candidatesPerQuery},
                      {"exact_tests_per_query", r.queries.exactTestsPerQuery},
                      {"occupied_cells_per_query", r.queries.occupiedCellsPerQuery},
                      {"ns_per_query", r.queries.nsPerQuery}};
    } else {
      s["queries"] = nullptr;
    }
    Json extra = Json::object();
    for (const auto& [key, value] : r.extra) extra[key] = std::isfinite(value) ? Json(value) : Json(nullptr);
    s["extra"] = extra;
    list.push_back(std::move(s));
  }
  root["structures"] = std::move(list);
  writeFileAtomically(path, root.dump(2) + "\n");
}

}  // namespace st::app
