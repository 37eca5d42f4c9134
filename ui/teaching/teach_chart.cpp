#include "ui/teaching/teach_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "ui/panels/imgui_util.hpp"

namespace st::ui {
namespace {

constexpr ImU32 kAxis = IM_COL32(200, 200, 210, 140);
constexpr ImU32 kGrid = IM_COL32(255, 255, 255, 28);
constexpr ImU32 kLabel = IM_COL32(220, 220, 230, 200);
constexpr ImU32 kPlotBg = IM_COL32(20, 22, 28, 255);
/// A linear bar chart breaks its axis for a bar more than this many times the next longest.
constexpr double kAxisBreakRatio = 6.0;

/// A value range mapped onto pixels, linear or logarithmic.
struct Scale {
  double lo = 0.0;
  double hi = 1.0;
  bool log = false;

  double map(double v) const {
    const double a = log ? std::log10(lo) : lo;
    const double b = log ? std::log10(hi) : hi;
    const double x = log ? std::log10(std::max(v, lo)) : v;
    return b > a ? (x - a) / (b - a) : 0.5;
  }
};

/// Ticks for a scale: powers of ten on a log scale, 1/2/5 steps on a linear one.
std::vector<double> ticksFor(const Scale& s) {
  std::vector<double> ticks;
  if (s.log) {
    for (double p = std::pow(10.0, std::floor(std::log10(s.lo))); p <= s.hi * 1.0001; p *= 10.0) {
      if (p >= s.lo * 0.9999) ticks.push_back(p);
    }
    return ticks;
  }
  const double span = s.hi - s.lo;
  if (span <= 0) return {s.lo};
  const double raw = span / 4.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  for (double t = std::ceil(s.lo / step) * step; t <= s.hi + step * 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

std::string tickText(double v) {
  char text[32];
  const double a = std::fabs(v);
  if (a >= 1e6) {
    std::snprintf(text, sizeof text, "%.3gM", v / 1e6);
  } else if (a >= 1e4) {
    std::snprintf(text, sizeof text, "%.3gk", v / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.4g", v);
  }
  return text;
}

Scale scaleOf(double lo, double hi, bool log, bool fromZero) {
  Scale s;
  s.log = log;
  if (!(lo <= hi)) {
    lo = log ? 1.0 : 0.0;
    hi = log ? 10.0 : 1.0;
  }
  if (log) {
    s.lo = std::pow(10.0, std::floor(std::log10(lo)));
    s.hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (s.hi <= s.lo) s.hi = s.lo * 10.0;
  } else if (fromZero) {
    s.lo = std::min(0.0, lo);
    s.hi = hi > s.lo ? hi * 1.08 : s.lo + 1.0;
  } else {
    const double margin = std::max(0.1 * (hi - lo), 1e-3 * std::max(std::fabs(hi), 1e-9));
    s.lo = lo - margin;
    s.hi = hi + margin;
  }
  return s;
}

}  // namespace

void chartHeading(const char* text) {
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.8f, 1.0f, 1.0f));
  wrappedText(text);  // a narrow panel wraps it rather than cutting it
  ImGui::PopStyleColor();
  ImGui::Separator();
}

// ---------------------------------------------------------------------------------------------------------
// Line chart
// ---------------------------------------------------------------------------------------------------------

void lineChart(const char* id, const std::vector<double>& xs, const std::vector<ChartSeries>& series,
               const LineChartAxes& axes, ImVec2 size) {
  ImGui::PushID(id);
  // The sizes and margins are written for UI scale 1.
  size.y = scaled(size.y);
  size.x = size.x <= 0.0f ? ImGui::GetContentRegionAvail().x : scaled(size.x);
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("chart", size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* draw = ImGui::GetWindowDrawList();

  // The legend sits above the plot, never over a point or a tick: its rows are laid out first.
  const float left = scaled(52.0f), right = scaled(10.0f), bottom = 2.0f * line + 6.0f;
  // The swatch and the gaps follow the font, so the legend keeps its proportions at any UI scale.
  const float swatch = line * 0.65f, gap = line * 0.3f;
  std::vector<ImVec2> legendAt;
  float legendBottom = origin.y + line + 4.0f;
  {
    const float x0 = origin.x + left + 6.0f, x1 = origin.x + size.x - right;
    float lx = x0, ly = legendBottom;
    for (const ChartSeries& s : series) {
      const float w = ImGui::CalcTextSize(s.label.c_str()).x;
      if (lx > x0 && lx + swatch + gap + w > x1) {
        lx = x0;
        ly += line + 2.0f;
      }
      legendAt.emplace_back(lx, ly);
      lx += swatch + gap + w + 2.0f * line;
    }
    if (!series.empty()) legendBottom = ly + line + 6.0f;
  }
  const float top = legendBottom - origin.y;
  const ImVec2 p0(origin.x + left, origin.y + top);
  const ImVec2 p1(origin.x + size.x - right, origin.y + size.y - bottom);
  draw->AddRectFilled(p0, p1, kPlotBg);

  double xLo = std::numeric_limits<double>::max(), xHi = -xLo, yLo = xLo, yHi = -xLo;
  for (double x : xs) {
    if (axes.logX && x <= 0) continue;
    xLo = std::min(xLo, x);
    xHi = std::max(xHi, x);
  }
  for (const ChartSeries& s : series) {
    for (double v : s.values) {
      if (!std::isfinite(v) || (axes.logY && v <= 0)) continue;
      yLo = std::min(yLo, v);
      yHi = std::max(yHi, v);
    }
  }
  Scale sx;
  sx.log = axes.logX;
  sx.lo = xLo;
  sx.hi = xHi > xLo ? xHi : xLo + 1.0;
  const Scale sy = scaleOf(yLo, yHi, axes.logY, axes.yFromZero);
  auto px = [&](double x) { return float(p0.x + (p1.x - p0.x) * sx.map(x)); };
  auto py = [&](double y) { return float(p1.y - (p1.y - p0.y) * sy.map(y)); };

  for (double t : ticksFor(sy)) {
    const float y = py(t);
    draw->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), kGrid);
    const std::string text = tickText(t);
    const float w = ImGui::CalcTextSize(text.c_str()).x;
    draw->AddText(ImVec2(p0.x - w - 4.0f, y - line * 0.5f), kLabel, text.c_str());
  }
  // Few x values get a tick each (the counts or multipliers measured); many get evenly spaced ticks.
  std::vector<double> xTicks = xs;
  if (xs.size() > 12) xTicks = ticksFor(sx);
  float lastRight = -1e9f;
  for (double x : xTicks) {
    const float at = px(x);
    draw->AddLine(ImVec2(at, p0.y), ImVec2(at, p1.y), kGrid);
    const std::string text = tickText(x);
    const float w = ImGui::CalcTextSize(text.c_str()).x;
    if (at - w * 0.5f < lastRight + 4.0f) continue;  // crowded ticks keep their line, lose their label
    draw->AddText(ImVec2(at - w * 0.5f, p1.y + 2.0f), kLabel, text.c_str());
    lastRight = at + w * 0.5f;
  }
  draw->AddLine(ImVec2(p0.x, p1.y), ImVec2(p1.x, p1.y), kAxis);
  draw->AddLine(ImVec2(p0.x, p0.y), ImVec2(p0.x, p1.y), kAxis);
  draw->AddText(ImVec2(origin.x, origin.y), kLabel, axes.yLabel);
  const float xLabelWidth = ImGui::CalcTextSize(axes.xLabel).x;
  draw->AddText(ImVec2(p1.x - xLabelWidth, p1.y + line + 4.0f), kLabel, axes.xLabel);

  std::vector<ImVec2> points;
  for (const ChartSeries& s : series) {
    points.clear();
    for (std::size_t i = 0; i < xs.size() && i < s.values.size(); ++i) {
      const double v = s.values[i];
      if (!std::isfinite(v) || (axes.logY && v <= 0) || (axes.logX && xs[i] <= 0)) continue;
      points.emplace_back(px(xs[i]), py(v));
    }
    const ImU32 colour = static_cast<ImU32>(s.colour);
    if (s.ringsOnly) {
      for (const ImVec2& p : points) draw->AddCircle(p, scaled(6.0f), colour, 16, scaled(2.0f));
      continue;
    }
    // Segment by segment: a thick polyline's joins leave gaps at the sharp turns of a noisy curve.
    for (std::size_t k = 1; k < points.size(); ++k)
      draw->AddLine(points[k - 1], points[k], colour, scaled(2.0f));
    if (points.size() < 80) {
      for (const ImVec2& p : points) draw->AddCircleFilled(p, scaled(3.0f), colour);
    }
  }

  for (std::size_t k = 0; k < series.size(); ++k) {
    const ImVec2 at = legendAt[k];
    const float sy0 = at.y + 0.5f * (line - swatch);
    draw->AddRectFilled(ImVec2(at.x, sy0), ImVec2(at.x + swatch, sy0 + swatch),
                        static_cast<ImU32>(series[k].colour));
    draw->AddText(ImVec2(at.x + swatch + gap, at.y), kLabel, series[k].label.c_str());
  }

  if (hovered && !xs.empty()) {
    const float mouseX = ImGui::GetIO().MousePos.x;
    std::size_t nearest = 0;
    for (std::size_t i = 1; i < xs.size(); ++i) {
      if (std::fabs(px(xs[i]) - mouseX) < std::fabs(px(xs[nearest]) - mouseX)) nearest = i;
    }
    draw->AddLine(ImVec2(px(xs[nearest]), p0.y), ImVec2(px(xs[nearest]), p1.y), IM_COL32(255, 255, 255, 90));
    ImGui::BeginTooltip();
    ImGui::Text("%s = %.6g", axes.xLabel, xs[nearest]);
    for (const ChartSeries& s : series) {
      if (nearest < s.values.size()) ImGui::Text("%s: %.6g", s.label.c_str(), s.values[nearest]);
    }
    ImGui::EndTooltip();
  }
  ImGui::PopID();
}

// ---------------------------------------------------------------------------------------------------------
// Bar chart
// ---------------------------------------------------------------------------------------------------------

void barChart(const char* id, const std::vector<ChartBar>& bars, bool logScale, float labelWidth,
              bool stacked) {
  ImGui::PushID(id);
  const bool stack = stacked && !logScale;
  std::size_t lanes = 1;
  for (const ChartBar& bar : bars) lanes = std::max(lanes, stack ? std::size_t{1} : bar.segments.size());
  const float line = ImGui::GetTextLineHeight();
  // Side-by-side segments get a few pixels each below the label's line.
  const float laneHeight = lanes == 1 ? line - 2.0f : std::max(5.0f, (line + 2.0f) / float(lanes));
  const float rowHeight = std::max(line + 4.0f, laneHeight * float(lanes) + 6.0f);
  const float width = ImGui::GetContentRegionAvail().x;
  const float valueWidth = scaled(110.0f);
  labelWidth = scaled(labelWidth);  // written for UI scale 1
  const float barSpace = std::max(width - labelWidth - valueWidth, 40.0f);
  double largest = 0.0, smallest = std::numeric_limits<double>::max();
  std::vector<double> lengths;  // what each bar's longest drawn piece measures
  auto consider = [&](double v) {
    largest = std::max(largest, v);
    if (v > 0) smallest = std::min(smallest, v);
  };
  for (const ChartBar& bar : bars) {
    double total = 0.0, longest = 0.0;
    for (double v : bar.segments) {
      total += std::max(v, 0.0);
      longest = std::max(longest, v);
      if (!stack) consider(std::max(v, 0.0));
    }
    if (stack) consider(total);
    lengths.push_back(stack ? total : longest);
  }
  // On a linear scale one bar many times longer than all others (brute force's) would squash them into
  // slivers: the axis is broken instead. The others set the scale, and the long one runs off its end.
  double brokenAbove = std::numeric_limits<double>::max();
  if (!logScale && lengths.size() >= 3) {
    std::vector<double> sorted = lengths;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    if (sorted[1] > 0 && sorted[0] > kAxisBreakRatio * sorted[1]) {
      brokenAbove = sorted[1];
      largest = sorted[1] * 1.15;
    }
  }
  // On a log scale a length is log10(value / floor) with the floor a decade below the smallest value, so
  // the smallest still shows.
  const double floor = smallest < std::numeric_limits<double>::max()
                           ? std::pow(10.0, std::floor(std::log10(smallest)) - 1.0)
                           : 1.0;
  auto length = [&](double value) {
    if (value <= 0 || largest <= 0) return 0.0;
    if (!logScale) return std::min(value / largest, 1.0);
    return std::log10(value / floor) / std::log10(largest / floor);
  };

  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const ChartBar& bar = bars[i];
    ImGui::PushID(static_cast<int>(i));
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("bar", ImVec2(width, rowHeight));
    const bool hovered = ImGui::IsItemHovered();
    if (bar.highlight || hovered) {
      draw->AddRectFilled(at, ImVec2(at.x + width, at.y + rowHeight),
                          IM_COL32(255, 255, 255, hovered ? 30 : 18));
    }
    draw->AddText(ImVec2(at.x + 2.0f, at.y + 2.0f), bar.highlight ? IM_COL32(255, 230, 120, 255) : kLabel,
                  bar.label.c_str());
    auto colourOf = [&](std::size_t s) { return s < bar.colours.size() ? bar.colours[s] : 0xffc0c0c0u; };
    float reach = 0.0f;  // right end of the longest bar drawn, for the value text
    const float x0 = at.x + labelWidth;
    if (stack) {
      double total = 0.0;
      for (double v : bar.segments) total += std::max(v, 0.0);
      const float full = float(length(total) * barSpace);
      float x = x0;
      for (std::size_t s = 0; s < bar.segments.size(); ++s) {
        const float w = total > 0 ? float(std::max(bar.segments[s], 0.0) / total) * full : 0.0f;
        if (w > 0.0f)
          draw->AddRectFilled(ImVec2(x, at.y + 3.0f), ImVec2(x + w, at.y + rowHeight - 3.0f),
                              static_cast<ImU32>(colourOf(s)));
        x += w;
      }
      reach = full;
    } else {
      for (std::size_t s = 0; s < bar.segments.size(); ++s) {
        const float w = float(length(std::max(bar.segments[s], 0.0)) * barSpace);
        const float y = at.y + 3.0f + laneHeight * float(s);
        if (w > 0.0f)
          draw->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + w, y + laneHeight - 1.0f),
                              static_cast<ImU32>(colourOf(s)));
        reach = std::max(reach, w);
      }
    }
    if (lengths[i] > brokenAbove) {
      // Two slanted cuts near the end: this bar is longer than the axis shows.
      const float cut = x0 + reach - 18.0f;
      const ImVec2 a(cut, at.y + rowHeight), b(cut + 6.0f, at.y), c(cut + 11.0f, at.y),
          d(cut + 5.0f, at.y + rowHeight);
      draw->AddQuadFilled(
          a, b, c, d,
          ImGui::GetColorU32(ImGuiCol_WindowBg, 1.0f / ImGui::GetStyle().Colors[ImGuiCol_WindowBg].w));
      draw->AddLine(a, b, kLabel, 1.5f);
      draw->AddLine(d, c, kLabel, 1.5f);
    }
    if (bar.highlight) {
      draw->AddRect(ImVec2(x0 - 1.0f, at.y + 2.0f), ImVec2(x0 + reach + 1.0f, at.y + rowHeight - 2.0f),
                    IM_COL32(255, 230, 120, 230));
    }
    draw->AddText(ImVec2(x0 + reach + 6.0f, at.y + 2.0f), kLabel, bar.valueText.c_str());
    if (hovered && !bar.tooltip.empty()) ImGui::SetTooltip("%s", bar.tooltip.c_str());
    ImGui::PopID();
  }
  ImGui::PopID();
}

}  // namespace st::ui
