#include "ui/teaching/teach_links.hpp"

#include <algorithm>
#include <cstdlib>

namespace st::ui {

TeachBoard& teachBoard() {
  static TeachBoard board = [] {
    TeachBoard b;
    if (const char* requests = std::getenv("SPHERETEST_TEACH")) b.requests = requests;
    return b;
  }();
  return board;
}

LessonVocabulary lessonVocabulary(const StructureRegistry& registry) {
  LessonVocabulary vocabulary;
  vocabulary.structures = &registry;
  for (const PartInfo& info : registeredParts())
    (info.category == PartCategory::Panel ? vocabulary.panels : vocabulary.overlays).push_back(info.name);
  return vocabulary;
}

std::vector<std::string> splitList(std::string_view text, char separator) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view piece = text.substr(start, end - start);
    while (!piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
    if (!piece.empty()) pieces.emplace_back(piece);
    start = end + 1;
  }
  return pieces;
}

void applyOpenPanels(std::span<PartSlot> parts, std::string_view list) {
  const std::vector<std::string> names = splitList(list, ',');
  auto listed = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (PartSlot& slot : parts) {
    const std::string& name = slot.info->name;
    if (slot.info->category == PartCategory::Panel) {
      slot.shown = listed(name);
    } else if (listed(name)) {
      slot.shown = true;
    } else if (listed("-" + name)) {
      slot.shown = false;
    }
  }
}

void applyOpenPanelsFromEnvironment(std::span<PartSlot> parts) {
  const char* list = std::getenv("SPHERETEST_OPEN_PANELS");
  if (list != nullptr) applyOpenPanels(parts, list);
}

std::string requestValue(std::string_view requests, std::string_view key) {
  for (const std::string& entry : splitList(requests, ';')) {
    const std::size_t equals = entry.find('=');
    if (equals == std::string::npos) continue;
    std::string_view name = std::string_view(entry).substr(0, equals);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name != key) continue;
    std::string_view value = std::string_view(entry).substr(equals + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    return std::string(value);
  }
  return "";
}

std::string teachRequest(std::string_view key) {
  return requestValue(teachBoard().requests, key);
}

void postTeachRequests(std::string requests) {
  TeachBoard& board = teachBoard();
  board.requests = std::move(requests);
  ++board.requestsGeneration;
}

bool teachRequestsChanged(std::uint64_t& seen) {
  const std::uint64_t now = teachBoard().requestsGeneration;
  if (seen == now) return false;
  seen = now;
  return true;
}

}  // namespace st::ui
