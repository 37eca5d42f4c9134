#pragma once
/// \file Small charts drawn with ImGui's draw lists (Debian ships no ImPlot): line charts for the claims'
/// cost curves and horizontal bar charts for the comparison of every structure.

#include <cstdint>
#include <string>
#include <vector>

#include <imgui.h>

namespace st::ui {

/// A heading over a chart: its text, then a separator line.
void chartHeading(const char* text);

/// One curve of a line chart: a value per x of the chart.
struct ChartSeries {
  std::string label;           ///< legend text
  std::vector<double> values;  ///< one per x (non-positive values are left out on a log scale)
  std::uint32_t colour = 0;    ///< RGBA8
  bool ringsOnly = false;      ///< only rings at the points, no line (reference values under measured curves)
};

/// Axes and scales of a line chart.
struct LineChartAxes {
  const char* xLabel = "";  ///< under the x axis
  const char* yLabel = "";  ///< above the y axis
  bool logX = false;        ///< logarithmic x
  bool logY = false;        ///< logarithmic y
  bool yFromZero =
      true;  ///< a linear y axis starts at zero (else it spans the values, to show small changes)
};

/// A line chart of `series` over `xs`, `size` pixels (a width of 0 takes the available width), with its
/// legend; hovering shows every series' value at the nearest x.
void lineChart(const char* id, const std::vector<double>& xs, const std::vector<ChartSeries>& series,
               const LineChartAxes& axes, ImVec2 size);

/// One bar of a bar chart, made of stacked segments.
struct ChartBar {
  std::string label;                   ///< left of the bar
  std::vector<double> segments;        ///< stacked lengths, >= 0
  std::vector<std::uint32_t> colours;  ///< one per segment
  std::string valueText;               ///< right of the bar
  bool highlight = false;              ///< drawn with a frame (the current structure)
  std::string tooltip;                 ///< shown when hovered
};

/// Horizontal bars, one row each, scaled to the largest (on a linear scale a bar more than six times the
/// next longest is left out of the scale and drawn broken, running off it); `logScale` draws log10 lengths
/// from a decade under the smallest positive value (so that a bar a thousand times longer still leaves the
/// others visible). Segments stack into one bar when `stacked` and the scale is linear; otherwise (and always
/// on a log scale, where lengths do not add up) each segment is a thin bar of its own under the previous one.
void barChart(const char* id, const std::vector<ChartBar>& bars, bool logScale, float labelWidth,
              bool stacked = true);

}  // namespace st::ui
