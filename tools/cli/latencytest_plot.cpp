#include "tools/cli/latencytest_plot.h"
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <vector>
#include "tools/sweep/svg_plot.h"

namespace latsim::cli {
namespace {

constexpr double kW = 860, kH = 496, kX0 = 70, kX1 = 640, kY0 = 84, kY1 = 410;
constexpr const char* kWrite = "#2ca02c";  // scheduling latency: green, as in the tool
constexpr const char* kCpu = "#e6a000";    // CPU loop
constexpr const char* kFragment = "#d62728";
constexpr const char* kBuffer = "#333333";

std::string num(double v) { return fmt::format("{:.1f}", v); }

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&')
      o += "&amp;";
    else if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

// A round tick step (1, 2 or 5 x 10^k) giving at most `max_ticks` ticks over `span`.
double tick_step(double span, int max_ticks) {
  const double raw = span / max_ticks;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

struct Scale {
  double lo, hi, p0, p1;
  double at(double v) const { return p0 + (v - lo) / (hi - lo) * (p1 - p0); }
};

std::string text(double x, double y, const std::string& s, int size, const std::string& extra) {
  return fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" {}>{}</text>\n", num(x), num(y),
                     size, extra, esc(s));
}

std::string hline(const Scale& y, double v, const char* color, const char* cls, const char* dash) {
  return fmt::format(
      "<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
      "stroke-width=\"1.5\" stroke-dasharray=\"{}\"/>\n",
      cls, num(kX0), num(y.at(v)), num(kX1), num(y.at(v)), color, dash);
}

// The min..max envelope of one measure over the runs of columns that have samples.
std::string envelope(const workloads::LatencytestSamples& s, const Scale& x, const Scale& y,
                     bool write, const char* color, const char* cls) {
  const double w = (s.to_s - s.from_s) / double(s.columns.size());
  std::string o;
  for (size_t i = 0; i < s.columns.size();) {
    if (!s.columns[i].n) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.columns.size() && s.columns[j].n) ++j;
    std::string top, bottom;
    for (size_t k = i; k < j; ++k) {
      const auto& c = s.columns[k];
      const double cx = x.at(s.from_s + (double(k) + 0.5) * w);
      top += num(cx) + "," + num(y.at(write ? c.write_max : c.cpu_max)) + " ";
      bottom = num(cx) + "," + num(y.at(write ? c.write_min : c.cpu_min)) + " " + bottom;
    }
    std::string pts = top + bottom;
    pts.pop_back();
    o += fmt::format(
        "<polygon class=\"{}\" points=\"{}\" fill=\"{}\" fill-opacity=\"0.35\" stroke=\"{}\" "
        "stroke-width=\"1\"/>\n",
        cls, pts, color, color);
    i = j;
  }
  return o;
}

}  // namespace

std::string latencytest_svg(const workloads::LatencytestSamples& s, const std::string& title,
                            const std::string& subtitle) {
  const double buffer_ms = s.fragment_ms * s.fragments;
  double top = std::max({buffer_ms, s.fragment_ms, s.cpu_ms});
  for (const auto& c : s.columns)
    if (c.n) top = std::max({top, double(c.write_max), double(c.cpu_max)});
  const double ystep = tick_step(top * 1.1, 8);
  const Scale y{0, std::ceil(top * 1.1 / ystep) * ystep, kY1, kY0};
  const Scale x{s.from_s, std::max(s.to_s, s.from_s + 1e-9), kX0, kX1};

  std::string o = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      kW, kH);
  o += text(kX0, 28, title, 16, "font-weight=\"bold\"");
  o += text(kX0, 48, subtitle, 12, "fill=\"#555555\"");

  // The stress phases, shaded in turn and named as in the tool's results table.
  for (size_t i = 0; i < s.phases.size(); ++i) {
    const auto& p = s.phases[i];
    const double a = x.at(std::max(p.start_s, s.from_s)), b = x.at(std::min(p.stop_s, s.to_s));
    if (b <= a) continue;
    if (i % 2 == 0)
      o += fmt::format(
          "<rect class=\"phase\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f0f0f0\"/>\n",
          num(a), num(kY0), num(b - a), num(kY1 - kY0));
    o += text((a + b) / 2, kY0 - 6, p.label, 10, "text-anchor=\"middle\" fill=\"#555555\"");
  }
  // Grid, frame, ticks.
  for (double t = 0; t <= y.hi + ystep * 1e-6; t += ystep) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e0e0e0\"/>\n",
                     num(kX0), num(y.at(t)), num(kX1), num(y.at(t)));
    o += text(kX0 - 8, y.at(t) + 4, sweep::format_number(t), 11, "text-anchor=\"end\"");
  }
  const double xstep = tick_step(x.hi - x.lo, 10);
  for (double t = std::ceil(x.lo / xstep) * xstep; t <= x.hi + xstep * 1e-6; t += xstep) {
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333333\"/>\n",
                     num(x.at(t)), num(kY1), num(kY1 + 5));
    o += text(x.at(t), kY1 + 19, sweep::format_number(t), 11, "text-anchor=\"middle\"");
  }
  o += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\"/>\n",
      num(kX0), num(kY0), num(kX1 - kX0), num(kY1 - kY0));
  o += text((kX0 + kX1) / 2, kY1 + 42, "simulated time (s)", 13, "text-anchor=\"middle\"");
  o += fmt::format(
      "<text x=\"0\" y=\"0\" font-size=\"13\" text-anchor=\"middle\" "
      "transform=\"translate(24,{}) rotate(-90)\">ms</text>\n",
      num((kY0 + kY1) / 2));

  // The measures, then the reference lines on top of them.
  o += envelope(s, x, y, false, kCpu, "cpu");
  o += envelope(s, x, y, true, kWrite, "write");
  o += hline(y, buffer_ms, kBuffer, "buffer", "8 4");
  o += hline(y, s.fragment_ms, kFragment, "fragment", "4 3");

  // Legend.
  const struct {
    const char* color;
    std::string label;
    bool band;
  } legend[] = {
      {kWrite, "scheduling latency", true},
      {kCpu, "CPU loop", true},
      {kFragment, fmt::format("fragment latency {} ms", sweep::format_number(s.fragment_ms)),
       false},
      {kBuffer, fmt::format("buffer latency {} ms", sweep::format_number(buffer_ms)), false},
  };
  double ly = kY0 + 10;
  for (const auto& l : legend) {
    if (l.band)
      o += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"26\" height=\"10\" fill=\"{}\" fill-opacity=\"0.35\" "
          "stroke=\"{}\"/>\n",
          num(kX1 + 16), num(ly - 5), l.color, l.color);
    else
      o += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.5\" "
          "stroke-dasharray=\"4 3\"/>\n",
          num(kX1 + 16), num(ly), num(kX1 + 42), num(ly), l.color);
    o += text(kX1 + 50, ly + 4, l.label, 12, "");
    ly += 20;
  }
  o += text(kX1 + 16, ly + 8, "bands: min-max of the", 11, "fill=\"#555555\"");
  o += text(kX1 + 16, ly + 22, "samples at each x", 11, "fill=\"#555555\"");
  o += "</svg>\n";
  return o;
}

}  // namespace latsim::cli
