#include "ui/imgui_util.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "render/palette.hpp"
#include "ui/asset_location.hpp"

namespace st::ui {

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
                       ImVec2(14, 14));
    ImGui::PopID();
  }
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
