#include "ui/model/teach_content.hpp"

#include <cstdio>

#include "ui/model/teach_trace.hpp"

namespace st::ui {

// ---------------------------------------------------------------------------------------------------------
// Explanations
// ---------------------------------------------------------------------------------------------------------

namespace {

constexpr const char* kSections[] = {"How it works", "Cost", "When to choose it", "Source document"};

std::string withoutMarks(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '`') continue;
    if (text[i] == '*' && i + 1 < text.size() && text[i + 1] == '*') {
      ++i;
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

std::string_view trimmed(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
    line.remove_suffix(1);
  return line;
}

}  // namespace

std::vector<TextBlock> parseExplanation(std::string_view markdown) {
  std::vector<TextBlock> blocks;
  bool open = false;  // the last block takes continuation lines
  std::size_t start = 0;
  while (start < markdown.size()) {
    std::size_t end = markdown.find('\n', start);
    if (end == std::string_view::npos) end = markdown.size();
    const std::string_view raw = markdown.substr(start, end - start);
    start = end + 1;
    const std::string_view line = trimmed(raw);
    const bool indented = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
    if (line.empty()) {
      open = false;
    } else if (line.starts_with("## ")) {
      blocks.push_back({TextBlock::Kind::Section, withoutMarks(trimmed(line.substr(3)))});
      open = false;
    } else if (line.starts_with("# ")) {
      blocks.push_back({TextBlock::Kind::Title, withoutMarks(trimmed(line.substr(2)))});
      open = false;
    } else if (line.starts_with("- ") || line.starts_with("* ")) {
      blocks.push_back({TextBlock::Kind::Bullet, withoutMarks(trimmed(line.substr(2)))});
      open = true;
    } else if (open && (indented || blocks.back().kind == TextBlock::Kind::Paragraph)) {
      blocks.back().text.append(" ").append(withoutMarks(line));
    } else {
      blocks.push_back({TextBlock::Kind::Paragraph, withoutMarks(line)});
      open = true;
    }
  }
  return blocks;
}

std::string explanationPath(const std::string& structure) {
  return "explanations/" + structure + ".md";
}

std::span<const char* const> explanationSections() {
  return kSections;
}

std::vector<std::string> sectionTitles(const std::vector<TextBlock>& blocks) {
  std::vector<std::string> titles;
  for (const TextBlock& b : blocks) {
    if (b.kind == TextBlock::Kind::Section) titles.push_back(b.text);
  }
  return titles;
}

// ---------------------------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------------------------

std::string csvField(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

namespace {

class CsvWriter {
 public:
  void row(std::string_view section, std::string_view structure, std::string_view figure,
           std::string_view value) {
    text_.append(csvField(section)).push_back(',');
    text_.append(csvField(structure)).push_back(',');
    text_.append(csvField(figure)).push_back(',');
    text_.append(csvField(value)).push_back('\n');
  }
  void row(std::string_view section, std::string_view structure, std::string_view figure, double value) {
    char number[40];
    std::snprintf(number, sizeof number, "%.10g", value);
    row(section, structure, figure, std::string_view(number));
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_ = "section,structure,figure,value\n";
};

}  // namespace

std::string statsCsv(const DemoModel& model, const CompareResult* comparison) {
  CsvWriter csv;
  const Simulation& sim = model.simulation();
  const SpatialIndex& index = model.structure();
  const std::string& name = index.name();
  const double n = double(sim.circles().size());

  csv.row("scene", "", "count", n);
  csv.row("scene", "", "scenario", model.scene().scenario);
  csv.row("scene", "", "seed", double(model.scene().seed));
  csv.row("scene", "", "frame", double(sim.frame()));
  csv.row("scene", "", "moved_last_step", double(sim.movedIds().size()));

  const IndexStats stats = index.stats();
  csv.row("structure", name, "nodes", double(stats.nodes));
  csv.row("structure", name, "max_depth", double(stats.maxDepth));
  csv.row("structure", name, "memory_bytes", double(stats.memoryBytes));
  csv.row("structure", name, "build_ms", model.buildMs());
  for (const ParamInfo& p : index.params()) csv.row("parameter", name, p.key, index.param(p.key));

  if (model.pairsCurrent() || !model.pairs().empty()) {
    csv.row("frame", name, "pairs", double(model.pairs().size()));
    csv.row("frame", name, "pair_tests", double(model.pairCounters().candidates));
    csv.row("frame", name, "pair_exact_tests", double(model.pairCounters().exactTests));
    csv.row("frame", name, "pair_nodes_visited", double(model.pairCounters().nodesVisited));
  }
  csv.row("frame", name, "brute_pair_tests", n * (n > 0 ? n - 1 : 0) / 2.0);
  csv.row("frame", name, "update_nodes_visited", double(model.updateCounters().nodesVisited));
  csv.row("frame", name, "update_tests", double(model.updateCounters().candidates));

  const QueryState& q = model.query;
  if (q.mode != std::nullopt) {
    csv.row("query", name, "mode", queryModeName(q.mode));
    csv.row("query", name, "hits", double(q.mode == QueryShape::Segment ? q.rayHits.size() : q.hits.size()));
    csv.row("query", name, "nodes_visited", double(q.counters.nodesVisited));
    csv.row("query", name, "candidate_tests", double(q.counters.candidates));
    csv.row("query", name, "exact_tests", double(q.counters.exactTests));
    csv.row("query", name, "microseconds", q.microseconds);
  }

  ExtraCounters extra;
  index.extra(extra);
  for (const auto& [key, value] : extra) csv.row("extra", name, key, value);

  // Before the first measured frame there are no timings: a row of zeros would read as "free".
  if (model.timings.size() == 0) {
    csv.row("timing_ms", name, "absent", "no frame measured yet");
  } else {
    const FrameRecord mean = model.timings.average(60);
    for (std::size_t p = 0; p < kPhaseCount; ++p) {
      csv.row("timing_ms", name, phaseName(static_cast<Phase>(p)), double(mean.ms[p]));
    }
    csv.row("timing_ms", name, "frame", double(mean.frameMs));
  }

  if (comparison != nullptr) {
    csv.row("compare", "", "frame", double(comparison->frame));
    for (const CompareRow& r : comparison->rows) {
      csv.row("compare", r.name, r.built ? "build_ms" : "update_ms", r.updateMs);
      if (r.pairsRan) {
        csv.row("compare", r.name, "pairs_ms", r.pairsMs);
        csv.row("compare", r.name, "pair_tests", double(r.pairTests));
        csv.row("compare", r.name, "pairs", double(r.pairs));
        csv.row("compare", r.name, "agrees", r.agrees ? 1.0 : 0.0);
      }
      if (r.queryRan) {
        csv.row("compare", r.name, "query_us", r.queryUs);
        csv.row("compare", r.name, "query_nodes_visited", double(r.queryNodes));
        csv.row("compare", r.name, "query_tests", double(r.queryTests));
      }
      csv.row("compare", r.name, "nodes", double(r.nodes));
      csv.row("compare", r.name, "memory_bytes", double(r.memoryBytes));
      if (!r.note.empty()) csv.row("compare", r.name, "note", r.note);
    }
  }
  return csv.take();
}

}  // namespace st::ui
