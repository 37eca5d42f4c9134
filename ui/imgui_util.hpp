#pragma once
/// \file Small ImGui helpers shared by the panels.

#include <cstdint>
#include <string>

#include <imgui.h>

namespace st::ui {

/// A packed RGBA8 colour (red in the low byte, as ImGui packs it too) as ImVec4.
inline ImVec4 toImVec4(std::uint32_t c) {
  return ImGui::ColorConvertU32ToFloat4(static_cast<ImU32>(c));
}

/// A small colour square followed by a label on the same line.
void colourSwatch(std::uint32_t colour, const char* label);

/// One small square per node depth 0..levels-1 in the structure-node overlay's colours, on one line; the
/// caller's label may follow with SameLine().
void depthSwatches(int levels);

/// A "(?)" marker that shows `text` as a tooltip.
void helpMarker(const char* text);

/// 12,345,678 style grouping.
std::string groupedNumber(std::uint64_t value);

/// Bytes as B / KiB / MiB.
std::string formatBytes(std::size_t bytes);

/// Text of an assets/ file (the directory as assetsDirectory() finds it); "" if absent.
std::string loadAssetText(const std::string& relativePath);

}  // namespace st::ui
