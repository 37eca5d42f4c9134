#include "ui/panels/imgui_util.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "render/palette.hpp"
#include "ui/model/asset_location.hpp"

namespace st::ui {
namespace {
float gUiScale = 1.0f;
}  // namespace

void setUiScale(float scale) {
  gUiScale = scale;
}

float scaled(float pixels) {
  return pixels * gUiScale;
}

void colourSwatch(std::uint32_t colour, const char* label) {
  const float size = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(p, ImVec2(p.x + size, p.y + size), static_cast<ImU32>(colour | 0xff000000u), 2.0f);
  draw->AddRect(p, ImVec2(p.x + size, p.y + size), IM_COL32(0, 0, 0, 160), 2.0f);
  ImGui::Dummy(ImVec2(size, size));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

void depthSwatches(int levels) {
  for (int d = 0; d < levels; ++d) {
    if (d > 0) ImGui::SameLine(0.0f, 2.0f);
    ImGui::PushID(d);
    ImGui::ColorButton("depth", toImVec4(render::depthColour(d, 255)), ImGuiColorEditFlags_NoTooltip,
                       ImVec2(scaled(14.0f), scaled(14.0f)));
    ImGui::PopID();
  }
}

void depthFillSwatches(int deepest) {
  const int shown = std::clamp(deepest + 1, 1, 16);
  for (int i = 0; i < shown; ++i) {
    if (i > 0) ImGui::SameLine(0.0f, 2.0f);
    ImGui::PushID(i);
    const float t = deepest > 0 ? (shown > 1 ? float(i) / float(shown - 1) : 0.0f) : 0.5f;
    ImGui::ColorButton("depth fill", toImVec4(render::depthFill(t)), ImGuiColorEditFlags_NoTooltip,
                       ImVec2(14, 14));
    ImGui::PopID();
  }
}

std::vector<std::string> wrapAtSpaces(std::string_view text, float width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find_first_of(" \n", pos), text.size());
    const std::string_view word = text.substr(pos, end - pos);
    if (!word.empty()) {
      std::string candidate = line;
      if (!candidate.empty()) candidate.push_back(' ');
      candidate.append(word);
      if (!line.empty() && ImGui::CalcTextSize(candidate.c_str()).x > width) {
        lines.push_back(std::move(line));
        line.assign(word);
      } else {
        line = std::move(candidate);
      }
    }
    if (end < text.size() && text[end] == '\n') lines.push_back(std::exchange(line, {}));
    pos = end + 1;
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

void wrappedText(std::string_view text) {
  const float width = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4.0f);
  for (const std::string& line : wrapAtSpaces(text, width)) ImGui::TextUnformatted(line.c_str());
}

bool buttonFitsOnLine(const char* label) {
  return fitsOnLine(ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x);
}

bool fitsOnLine(float width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  return ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right;
}

void helpMarker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

std::string groupedNumber(std::uint64_t value) {
  char digits[32];
  const int length = std::snprintf(digits, sizeof digits, "%llu", static_cast<unsigned long long>(value));
  std::string grouped;
  for (int i = 0; i < length; ++i) {
    if (i > 0 && (length - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(digits[i]);
  }
  return grouped;
}

std::string formatBytes(std::size_t bytes) {
  char text[32];
  if (bytes < 10 * 1024) {
    std::snprintf(text, sizeof text, "%zu B", bytes);
  } else if (bytes < 10 * 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024.0);
  } else {
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
  }
  return text;
}

std::string loadAssetText(const std::string& relativePath) {
  std::ifstream in(assetsDirectory() + "/" + relativePath, std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace st::ui
