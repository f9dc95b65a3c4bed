#pragma once
// Standalone SVG plots of sweep results, written by our own code (no plotting tool): a line
// plot for a sweep over one key, a heat map for two. With several seeds a line carries a
// min..max band around the median and a heat-map cell shows "median" over "min–max".
// Output is deterministic (fixed number formatting, no timestamps).
#include <optional>
#include <string>
#include <vector>

namespace latsim::sweep {

// One value of a plot at one x (or in one cell): the median and the range across seeds.
struct Spread {
  std::optional<double> lo, mid, hi;  // empty: no value (failed or missing point)
};

struct Series {
  std::string name;
  std::vector<Spread> points;  // one per x value
  int color = 0;               // palette index
  bool dashed = false;
};

struct LinePlot {
  std::string title, subtitle, x_label, y_label;
  std::vector<std::string> x_values;  // as swept; numeric ones are placed by value
  std::vector<Series> series;
  bool band = false;  // draw min..max bands (several seeds)
};

struct HeatMap {
  std::string title, subtitle, row_label, col_label, unit;
  std::vector<std::string> rows, cols;
  std::vector<Spread> cells;       // rows.size() * cols.size(), row-major
  std::vector<std::string> notes;  // per cell, shown when it has no value ("failed")
  bool ranges = false;             // show min–max under the median (several seeds)
};

// A latency histogram like the OSADL plots: samples per µs bucket on a log count
// axis, with min, avg and max marked.
struct Histogram {
  std::string title, subtitle, x_label;
  std::vector<std::pair<long long, unsigned long long>> buckets;  // µs -> samples, ascending
  double min = 0, avg = 0, max = 0;
  int color = 0;
};

// Horizontal bars split into parts, one bar per row (the blame ledgers of a run's longest
// traces: the parts are the causes, each bar sums to its trace's length).
struct StackedBars {
  std::string title, subtitle, x_label;
  std::vector<std::string> rows, parts;
  std::vector<std::vector<double>> values;  // [row][part]
};

// The Pareto frontier of a sweep: a dot per setting, x the first objective, y the second (a
// third, if any, sets the dot's size and is named in the labels); the optimal settings
// coloured, labelled and, for two objectives, joined by the staircase that bounds what is
// reachable; the dominated ones grey.
struct ParetoPlot {
  std::string title, subtitle;
  std::vector<std::string> axis_labels;     // per objective, with unit and aggregation
  std::vector<bool> lower_better;           // per objective
  std::vector<std::string> labels;          // per setting: "max_sectors_kb=32 read_ahead_kb=64"
  std::vector<std::vector<double>> values;  // per setting, per objective (NaN: no value)
  std::vector<bool> optimal;                // per setting
  std::vector<size_t> order;                // the optimal settings in frontier order
};

std::string line_plot_svg(const LinePlot& p);
std::string pareto_svg(const ParetoPlot& p);
std::string stacked_bars_svg(const StackedBars& b);
std::string histogram_svg(const Histogram& h);
std::string heat_map_svg(const HeatMap& h);

// A number as tables and plots print it: integers without decimals, others with at most
// three (trailing zeros dropped).
std::string format_number(double v);

}  // namespace latsim::sweep
