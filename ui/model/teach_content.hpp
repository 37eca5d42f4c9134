#pragma once
/// \file The text the teaching panels show and write: per-structure explanations kept in
/// assets/explanations/<structure>.md, and the CSV export of the current stats.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ui/model/compare_runner.hpp"
#include "ui/model/demo_model.hpp"

namespace st::ui {

// ---------------------------------------------------------------------------------------------------------
// Explanations
// ---------------------------------------------------------------------------------------------------------

/// One block of an explanation, as the Explain panel draws it.
struct TextBlock {
  /// What the block is.
  enum class Kind : std::uint8_t { Title, Section, Paragraph, Bullet };
  Kind kind = Kind::Paragraph;  ///< what the block is
  std::string text;             ///< its text, markup removed
};

/// Parses the Markdown subset of the explanation files: "# " title, "## " sections, "- " bullets (indented
/// lines continue them), paragraphs separated by blank lines; `code` and **bold** marks are dropped.
std::vector<TextBlock> parseExplanation(std::string_view markdown);

/// The asset path of a structure's explanation, relative to the assets directory.
std::string explanationPath(const std::string& structure);

/// The sections every explanation has, in order.
std::span<const char* const> explanationSections();

/// The section titles of a parsed explanation, in order.
std::vector<std::string> sectionTitles(const std::vector<TextBlock>& blocks);

// ---------------------------------------------------------------------------------------------------------
// CSV export
// ---------------------------------------------------------------------------------------------------------

/// The current stats as CSV with the header "section,structure,figure,value": the scene, the current
/// structure's size, this frame's work against brute force, the query, its extra() figures, and every
/// structure of `comparison` when one is given.
std::string statsCsv(const DemoModel& model, const CompareResult* comparison);

/// A CSV field, quoted when it holds a comma, quote or line break.
std::string csvField(std::string_view text);

}  // namespace st::ui
