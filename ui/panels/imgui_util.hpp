#pragma once
/// \file Small ImGui helpers shared by the panels.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

namespace st::ui {

/// A packed RGBA8 colour (red in the low byte, as ImGui packs it too) as ImVec4.
inline ImVec4 toImVec4(std::uint32_t c) {
  return ImGui::ColorConvertU32ToFloat4(static_cast<ImU32>(c));
}

/// Sets the UI scale (View > UI scale) that `scaled` applies; the window sets it whenever it changes.
void setUiScale(float scale);

/// `pixels` at the UI scale: the panels' fixed widths and heights are written for scale 1.
float scaled(float pixels);

/// A small colour square followed by a label on the same line.
void colourSwatch(std::uint32_t colour, const char* label);

/// One small square per node depth 0..levels-1 in the structure-node overlay's colours, on one line; the
/// caller's label may follow with SameLine().
void depthSwatches(int levels);

/// One small square per depth 0..deepest in the node overlay's depth fill (at most 16, spread evenly over
/// the depths when there are more), on one line; the caller's label may follow with SameLine().
void depthFillSwatches(int deepest);

/// The lines of `text` at most `width` pixels wide in the current font, broken only at spaces and at
/// newlines (a word wider than `width` keeps a line of its own).
std::vector<std::string> wrapAtSpaces(std::string_view text, float width);

/// `text` wrapped to the space left on the line by wrapAtSpaces: ImGui's own wrapping also breaks after
/// '.' and ',', which splits numbers such as 1.44 or 12,000 across lines.
void wrappedText(std::string_view text);

/// Whether a button labelled `label` still fits on the current line after the last item; the caller
/// calls ImGui::SameLine() when it does (a row of buttons then wraps rather than being cut).
bool buttonFitsOnLine(const char* label);

/// Whether an item `width` pixels wide still fits on the current line after the last item (then the caller
/// calls ImGui::SameLine(); else the item starts a new line rather than being cut at the panel's edge).
bool fitsOnLine(float width);

/// A "(?)" marker that shows `text` as a tooltip.
void helpMarker(const char* text);

/// 12,345,678 style grouping.
std::string groupedNumber(std::uint64_t value);

/// Bytes as B / KiB / MiB.
std::string formatBytes(std::size_t bytes);

/// Text of an assets/ file (the directory as assetsDirectory() finds it); "" if absent.
std::string loadAssetText(const std::string& relativePath);

}  // namespace st::ui
