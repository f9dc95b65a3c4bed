#include "tools/sweep/svg_plot.h"

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace latsim::sweep {
namespace {

// Tableau 10: distinguishable lines.
const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
const char* color(int i) { return kPalette[((i % 10) + 10) % 10]; }

// ColorBrewer YlOrRd: light (low) to dark red (high), for heat-map cells.
const unsigned kHeat[] = {0xffffcc, 0xffeda0, 0xfed976, 0xfeb24c, 0xfd8d3c,
                          0xfc4e2a, 0xe31a1c, 0xbd0026, 0x800026};

struct Rgb {
  double r, g, b;
};

Rgb heat(double t) {
  t = std::clamp(t, 0.0, 1.0) * 8.0;
  const int i = std::min(7, int(t));
  const double f = t - i;
  auto ch = [&](int shift) {
    const double a = (kHeat[i] >> shift) & 0xff, b = (kHeat[i + 1] >> shift) & 0xff;
    return a + (b - a) * f;
  };
  return {ch(16), ch(8), ch(0)};
}

std::string hex(const Rgb& c) {
  return fmt::format("#{:02x}{:02x}{:02x}", int(std::lround(c.r)), int(std::lround(c.g)),
                     int(std::lround(c.b)));
}

bool dark(const Rgb& c) { return (0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b) / 255.0 < 0.5; }

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string num(double v) { return fmt::format("{:.1f}", v); }

// Rough width of a text in px at a font size (sans-serif, average glyph ~0.6 em).
double text_width(const std::string& s, double size) {
  size_t glyphs = 0;
  for (unsigned char c : s) glyphs += (c & 0xc0) != 0x80;  // UTF-8 code points
  return double(glyphs) * size * 0.6;
}

bool to_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return errno == 0 && *end == '\0' && std::isfinite(v);
}

// An axis: a map from values to pixels, linear or logarithmic, with tick positions.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;  // in value space (log: the values, not their logs)
  double p0 = 0, p1 = 1;  // pixels of lo and hi
  std::vector<double> ticks, minor;

  double at(double v) const {
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    const double x = log ? std::log10(v) : v;
    return p0 + (x - a) / (b - a) * (p1 - p0);
  }
};

double nice_step(double range, int target) {
  const double raw = range / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

// Whether values this far apart want a log axis: all positive, spanning more than a decade.
bool wants_log(double mn, double mx) { return mn > 0 && mx / mn > 10.0; }

Axis value_axis(double mn, double mx, double p0, double p1, bool allow_log, int target = 5) {
  Axis a;
  a.p0 = p0;
  a.p1 = p1;
  if (allow_log && wants_log(mn, mx)) {
    a.log = true;
    const int d0 = int(std::floor(std::log10(mn) + 1e-9));
    int d1 = int(std::ceil(std::log10(mx) - 1e-9));
    if (d1 <= d0) d1 = d0 + 1;
    a.lo = std::pow(10.0, d0);
    a.hi = std::pow(10.0, d1);
    for (int d = d0; d <= d1; ++d) {
      const double base = std::pow(10.0, d);
      a.ticks.push_back(base);
      if (d == d1) break;
      for (int m = 2; m <= 9; ++m) {
        if (d1 - d0 <= 2 && (m == 2 || m == 5))
          a.ticks.push_back(m * base);
        else
          a.minor.push_back(m * base);
      }
    }
    std::sort(a.ticks.begin(), a.ticks.end());
    return a;
  }
  if (mn >= 0 && mn <= mx / 2) mn = 0;
  if (mx == mn) {
    mx = mn + (mn == 0 ? 1 : std::abs(mn) * 0.1);
    mn = mn == 0 ? 0 : mn - std::abs(mn) * 0.1;
  }
  const double step = nice_step(mx - mn, target);
  a.lo = std::floor(mn / step + 1e-9) * step;
  a.hi = std::ceil(mx / step - 1e-9) * step;
  if (a.hi <= a.lo) a.hi = a.lo + step;
  for (double t = a.lo; t <= a.hi + step * 1e-6; t += step)
    a.ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return a;
}

std::string svg_open(double w, double h) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      num(w), num(h));
}

std::string text(double x, double y, const std::string& s, double size,
                 const std::string& extra = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\"{}>{}</text>\n", num(x), num(y), size,
                     extra.empty() ? "" : " " + extra, esc(s));
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const auto nl = s.find('\n', start);
    out.push_back(s.substr(start, nl == std::string::npos ? nl : nl - start));
    if (nl == std::string::npos) return out;
    start = nl + 1;
  }
}

// Title and subtitle lines from y=28; returns the y below them.
double heading(std::string& o, const std::string& title, const std::string& subtitle, double x) {
  o += text(x, 28, title, 16, "font-weight=\"bold\"");
  double y = 48;
  for (const auto& l : lines_of(subtitle)) {
    o += text(x, y, l, 12, "fill=\"#555555\"");
    y += 16;
  }
  return y;
}

// The plot area of a line plot or histogram, in pixels.
struct Frame {
  double x0, x1, y0, y1;
};

// Horizontal grid lines at the y ticks; with `minor`, lighter ones at the minor ticks too.
void grid(std::string& o, const Frame& f, const Axis& ay, bool minor) {
  o += "<g stroke=\"#e6e6e6\" stroke-width=\"1\">\n";
  if (minor)
    for (double t : ay.minor)
      o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#f3f3f3\"/>\n",
                       num(f.x0), num(ay.at(t)), num(f.x1), num(ay.at(t)));
  for (double t : ay.ticks)
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(f.x0), num(ay.at(t)),
                     num(f.x1), num(ay.at(t)));
  o += "</g>\n";
}

void frame_rect(std::string& o, const Frame& f) {
  o += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\"/>\n",
      num(f.x0), num(f.y0), num(f.x1 - f.x0), num(f.y1 - f.y0));
}

void y_ticks(std::string& o, const Frame& f, const Axis& ay) {
  for (double t : ay.ticks) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(f.x0 - 5), num(ay.at(t)), num(f.x0), num(ay.at(t)));
    o += text(f.x0 - 8, ay.at(t) + 4, format_number(t), 11, "text-anchor=\"end\"");
  }
}

// The x label below the frame and the y label rotated along its left side.
void axis_labels(std::string& o, const Frame& f, const std::string& x_label,
                 const std::string& y_label) {
  o += text((f.x0 + f.x1) / 2, f.y1 + 44, x_label, 13, "text-anchor=\"middle\"");
  o += fmt::format(
      "<text x=\"0\" y=\"0\" font-size=\"13\" text-anchor=\"middle\" "
      "transform=\"translate({},{}) rotate(-90)\">{}</text>\n",
      num(22), num((f.y0 + f.y1) / 2), esc(y_label));
}

// x pixel of each x value: numeric values by value (log when they span more than a
// decade), others evenly.
std::vector<double> x_positions(const std::vector<std::string>& values, const Frame& f) {
  const size_t n = values.size();
  std::vector<double> xs(n);
  bool numeric = n > 0;
  for (size_t i = 0; i < n && numeric; ++i) numeric = to_double(values[i], xs[i]);
  std::vector<double> px(n);
  const double pad = 24;
  if (numeric && n > 1) {
    const double mn = *std::min_element(xs.begin(), xs.end());
    const double mx = *std::max_element(xs.begin(), xs.end());
    Axis ax;
    ax.log = wants_log(mn, mx);
    ax.lo = mn;
    ax.hi = mx == mn ? mn + 1 : mx;
    ax.p0 = f.x0 + pad;
    ax.p1 = f.x1 - pad;
    for (size_t i = 0; i < n; ++i) px[i] = ax.at(xs[i]);
  } else {
    for (size_t i = 0; i < n; ++i)
      px[i] = n == 1 ? (f.x0 + f.x1) / 2
                     : f.x0 + pad + (f.x1 - f.x0 - 2 * pad) * double(i) / double(n - 1);
  }
  return px;
}

// The range of every value (median and range) of every series; nullopt when there is none.
std::optional<std::pair<double, double>> value_range(const std::vector<Series>& series) {
  double mn = INFINITY, mx = -INFINITY;
  for (const auto& s : series)
    for (const auto& v : s.points)
      for (const auto& x : {v.lo, v.mid, v.hi})
        if (x) mn = std::min(mn, *x), mx = std::max(mx, *x);
  if (!(mn <= mx)) return std::nullopt;
  return std::make_pair(mn, mx);
}

// Tick marks under the frame, each labelled unless the label would overlap the previous one.
void x_ticks(std::string& o, const Frame& f, const std::vector<double>& px,
             const std::vector<std::string>& labels) {
  double last_right = -INFINITY;
  for (size_t i = 0; i < px.size(); ++i) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(px[i]), num(f.y1), num(px[i]), num(f.y1 + 5));
    const double w = text_width(labels[i], 11);
    if (px[i] - w / 2 < last_right + 6) continue;
    o += text(px[i], f.y1 + 19, labels[i], 11, "text-anchor=\"middle\"");
    last_right = px[i] + w / 2;
  }
}

// The stretches of consecutive x indices (below n) where a series has a median (and, with
// need_range, a range).
std::vector<std::vector<size_t>> runs_of(const Series& s, size_t n, bool need_range) {
  std::vector<std::vector<size_t>> out(1);
  for (size_t i = 0; i < s.points.size() && i < n; ++i) {
    const auto& v = s.points[i];
    const bool has = v.mid && (!need_range || (v.lo && v.hi));
    if (has)
      out.back().push_back(i);
    else if (!out.back().empty())
      out.emplace_back();
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

void bands(std::string& o, const LinePlot& p, const std::vector<double>& px, const Axis& ay) {
  for (const auto& s : p.series) {
    for (const auto& run : runs_of(s, px.size(), true)) {
      std::string pts;
      for (size_t i : run) pts += num(px[i]) + "," + num(ay.at(*s.points[i].hi)) + " ";
      for (auto it = run.rbegin(); it != run.rend(); ++it)
        pts += num(px[*it]) + "," + num(ay.at(*s.points[*it].lo)) + " ";
      pts.pop_back();
      o += fmt::format(
          "<polygon class=\"band\" points=\"{}\" fill=\"{}\" fill-opacity=\"0.18\" "
          "stroke=\"none\"/>\n",
          pts, color(s.color));
    }
  }
}

void polylines(std::string& o, const LinePlot& p, const std::vector<double>& px, const Axis& ay) {
  for (const auto& s : p.series) {
    for (const auto& run : runs_of(s, px.size(), false)) {
      if (run.size() < 2) continue;
      std::string pts;
      for (size_t i : run) pts += num(px[i]) + "," + num(ay.at(*s.points[i].mid)) + " ";
      pts.pop_back();
      o += fmt::format(
          "<polyline class=\"line\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
          "stroke-width=\"2\"{}/>\n",
          pts, color(s.color), s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    }
  }
}

// A dot per median, its tooltip giving the value (and the range).
void markers(std::string& o, const LinePlot& p, const std::vector<double>& px, const Axis& ay) {
  for (const auto& s : p.series) {
    for (size_t i = 0; i < s.points.size() && i < px.size(); ++i) {
      const auto& v = s.points[i];
      if (!v.mid) continue;
      std::string tip =
          fmt::format("{} = {}: {} = {}", p.x_label, p.x_values[i], s.name, format_number(*v.mid));
      if (p.band && v.lo && v.hi)
        tip += fmt::format(" (min {}, max {})", format_number(*v.lo), format_number(*v.hi));
      o += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"{}><title>{}</title></circle>\n",
          num(px[i]), num(ay.at(*v.mid)), color(s.color), s.dashed ? " fill-opacity=\"0.6\"" : "",
          esc(tip));
    }
  }
}

// Right of the frame: a sample line per series, and what the band means.
void legend(std::string& o, const LinePlot& p, const Frame& f) {
  double ly = f.y0 + 8;
  for (const auto& s : p.series) {
    o += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>\n",
        num(f.x1 + 20), num(ly), num(f.x1 + 46), num(ly), color(s.color),
        s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    o += text(f.x1 + 54, ly + 4, s.name, 12);
    ly += 20;
  }
  if (p.band) {
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"26\" height=\"10\" fill=\"#777777\" "
        "fill-opacity=\"0.25\"/>\n",
        num(f.x1 + 20), num(ly - 5));
    o += text(f.x1 + 54, ly + 4, "min–max over seeds", 12);
    ly += 20;
    o += text(f.x1 + 54, ly + 4, "(line: median)", 12, "fill=\"#555555\"");
  }
}

// Where a heat map's parts go: the column key above the column values, the row key in the
// corner above the row values (both read like a table's headers), the colour bar on the right.
struct HeatLayout {
  double cw, ch;  // cell size
  bool show_text, show_range;
  std::string row_head, col_head;
  double gx, gy, gw, gh;  // grid
  double bar_x, bar_h;    // colour bar
  double W, H;
};

HeatLayout heat_layout(const HeatMap& h) {
  HeatLayout l;
  const size_t nr = h.rows.size(), nc = h.cols.size();
  l.cw = nc <= 8 ? 84 : std::max(28.0, 672.0 / double(nc));
  const double ch_full = h.ranges ? 52 : 40;
  l.ch = nr <= 10 ? ch_full : std::max(18.0, 440.0 / double(nr));
  l.show_text = l.cw >= 40 && l.ch >= 20;
  l.show_range = h.ranges && l.show_text && l.ch >= 36;
  l.row_head = h.row_label + " ↓";
  l.col_head = h.col_label + " →";
  double row_label_w = text_width(l.row_head, 12);
  for (const auto& r : h.rows) row_label_w = std::max(row_label_w, text_width(r, 12));
  l.gx = 24 + row_label_w + 12;
  const auto sub = lines_of(h.subtitle);
  l.gy = 104 + 16.0 * double(sub.size() - 1);
  l.gw = l.cw * double(nc);
  l.gh = l.ch * double(nr);
  l.bar_x = l.gx + l.gw + 34;
  l.bar_h = std::max(140.0, std::min(l.gh, 320.0));
  double title_w = text_width(h.title, 16);
  for (const auto& s : sub) title_w = std::max(title_w, text_width(s, 12));
  l.W = std::max(l.bar_x + 110, 24 + title_w + 24);
  l.H = l.gy + std::max(l.gh, l.bar_h) + 34;
  return l;
}

// From cell values to colours: linear, or logarithmic when they span more than a decade.
struct HeatScale {
  double mn = INFINITY, mx = -INFINITY;
  bool any = false, log = false;

  explicit HeatScale(const std::vector<Spread>& cells) {
    for (const auto& c : cells)
      if (c.mid) mn = std::min(mn, *c.mid), mx = std::max(mx, *c.mid);
    any = mn <= mx;
    log = any && wants_log(mn, mx);
  }
  // 0 for the least value, 1 for the greatest.
  double t(double v) const {
    if (!any || mx == mn) return 0.5;
    return log ? (std::log10(v) - std::log10(mn)) / (std::log10(mx) - std::log10(mn))
               : (v - mn) / (mx - mn);
  }
};

// The column values along the top, the row values down the left, each under its key.
void heat_headers(std::string& o, const HeatMap& h, const HeatLayout& l) {
  const size_t nc = h.cols.size();
  o += text(l.gx, l.gy - 28, l.col_head, 13, "font-weight=\"bold\"");
  for (size_t c = 0; c < nc; ++c)
    if (l.cw >= text_width(h.cols[c], 12) + 4 || nc <= 16)
      o += text(l.gx + l.cw * (double(c) + 0.5), l.gy - 8, h.cols[c], 12, "text-anchor=\"middle\"");
  o += text(l.gx - 10, l.gy - 8, l.row_head, 13, "text-anchor=\"end\" font-weight=\"bold\"");
  for (size_t r = 0; r < h.rows.size(); ++r)
    if (l.ch >= 14)
      o += text(l.gx - 10, l.gy + l.ch * (double(r) + 0.5) + 4, h.rows[r], 12,
                "text-anchor=\"end\"");
}

// One cell: its coloured square with a tooltip, and its value when there is room.
void heat_cell(std::string& o, const HeatMap& h, const HeatLayout& l, const HeatScale& scale,
               size_t r, size_t c) {
  const size_t i = r * h.cols.size() + c;
  const Spread& v = i < h.cells.size() ? h.cells[i] : Spread{};
  const std::string note = i < h.notes.size() && !h.notes[i].empty() ? h.notes[i] : "missing";
  const double x = l.gx + l.cw * double(c), y = l.gy + l.ch * double(r);
  const Rgb fill = v.mid ? heat(scale.t(*v.mid)) : Rgb{238, 238, 238};
  std::string tip =
      fmt::format("{} = {}, {} = {}: ", h.row_label, h.rows[r], h.col_label, h.cols[c]);
  if (v.mid) {
    tip += format_number(*v.mid) + (h.unit.empty() ? "" : " " + h.unit);
    if (h.ranges && v.lo && v.hi)
      tip += fmt::format(" (min {}, max {})", format_number(*v.lo), format_number(*v.hi));
  } else {
    tip += note;
  }
  o += fmt::format(
      "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
      "stroke=\"#ffffff\" stroke-width=\"1\"><title>{}</title></rect>\n",
      num(x), num(y), num(l.cw), num(l.ch), hex(fill), esc(tip));
  if (!l.show_text) return;
  const std::string ink = dark(fill) ? "#ffffff" : "#000000";
  const double cx = x + l.cw / 2;
  if (!v.mid) {
    o += text(cx, y + l.ch / 2 + 4, note, 11,
              "text-anchor=\"middle\" fill=\"#777777\" font-style=\"italic\"");
  } else if (l.show_range && v.lo && v.hi) {
    o += text(cx, y + l.ch / 2 - 2, format_number(*v.mid), 13,
              fmt::format("text-anchor=\"middle\" fill=\"{}\" font-weight=\"bold\"", ink));
    o += text(cx, y + l.ch / 2 + 14, format_number(*v.lo) + "–" + format_number(*v.hi), 10,
              fmt::format("text-anchor=\"middle\" fill=\"{}\"", ink));
  } else {
    o += text(cx, y + l.ch / 2 + 5, format_number(*v.mid), 13,
              fmt::format("text-anchor=\"middle\" fill=\"{}\"", ink));
  }
}

// The colour bar, low at the bottom, with the least and greatest value and round ticks
// between them that do not crowd each other.
void color_bar(std::string& o, const HeatMap& h, const HeatLayout& l, const HeatScale& scale) {
  const double mn = scale.mn, mx = scale.mx;
  const double by0 = l.gy, by1 = l.gy + l.bar_h;
  o += "<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
  for (int s = 0; s <= 8; ++s)
    o += fmt::format("<stop offset=\"{}\" stop-color=\"{}\"/>\n", format_number(s / 8.0),
                     hex(heat(s / 8.0)));
  o += "</linearGradient></defs>\n";
  o += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"16\" height=\"{}\" fill=\"url(#scale)\" "
      "stroke=\"#333333\"/>\n",
      num(l.bar_x), num(by0), num(l.bar_h));
  if (!h.unit.empty()) o += text(l.bar_x, by0 - 8, h.unit, 12);
  std::vector<double> ticks{mn, mx};
  if (mx > mn) {
    const Axis a = value_axis(mn, mx, 0, 1, scale.log, 4);
    for (double t : a.ticks)
      if (t > mn && t < mx) ticks.push_back(t);
  }
  std::sort(ticks.begin(), ticks.end());
  double last_y = INFINITY;
  for (auto it = ticks.begin(); it != ticks.end(); ++it) {
    const double t = *it;
    const double y = by1 - scale.t(t) * (by1 - by0);
    const bool end = t == mn || t == mx;
    if (!end && (std::abs(y - last_y) < 14 || std::abs(y - by0) < 14)) continue;
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(l.bar_x + 16), num(y), num(l.bar_x + 21), num(y));
    o += text(l.bar_x + 24, y + 4, format_number(t), 11);
    last_y = y;
  }
  if (scale.log) o += text(l.bar_x, by1 + 18, "log scale", 10, "fill=\"#555555\"");
}

// Ticks, labels and vertical grid lines of a value axis along the bottom of the frame.
void value_x_ticks(std::string& o, const Frame& f, const Axis& ax) {
  o += "<g stroke=\"#e6e6e6\" stroke-width=\"1\">\n";
  for (double t : ax.ticks)
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(ax.at(t)), num(f.y0),
                     num(ax.at(t)), num(f.y1));
  o += "</g>\n";
  for (double t : ax.ticks) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(ax.at(t)), num(f.y1), num(ax.at(t)), num(f.y1 + 5));
    o += text(ax.at(t), f.y1 + 19, format_number(t), 11, "text-anchor=\"middle\"");
  }
}

// The axis of objective k over every setting that has a value.
Axis pareto_axis(const ParetoPlot& p, size_t k, double p0, double p1) {
  double mn = INFINITY, mx = -INFINITY;
  for (const auto& v : p.values)
    if (std::isfinite(v[k])) mn = std::min(mn, v[k]), mx = std::max(mx, v[k]);
  if (!(mn <= mx)) mn = 0, mx = 1;
  return value_axis(mn, mx, p0, p1, true);
}

bool has_values(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

// Dot radius: 4.5, or with a third objective 3 (worst) to 9 (best).
std::vector<double> pareto_radii(const ParetoPlot& p) {
  std::vector<double> r(p.values.size(), 4.5);
  if (p.lower_better.size() < 3) return r;
  double mn = INFINITY, mx = -INFINITY;
  for (const auto& v : p.values)
    if (has_values(v)) mn = std::min(mn, v[2]), mx = std::max(mx, v[2]);
  for (size_t i = 0; i < r.size(); ++i) {
    if (!has_values(p.values[i])) continue;
    double t = mx > mn ? (p.values[i][2] - mn) / (mx - mn) : 0.5;
    if (p.lower_better[2]) t = 1 - t;
    r[i] = 3 + 6 * t;
  }
  return r;
}

// The line through the optimal settings in frontier order: with two objectives the
// staircase bounding what is reachable (each corner takes the worse of its two neighbours'
// coordinates), with three a dashed line (the projection of a 3-D frontier is no staircase).
void frontier_line(std::string& o, const ParetoPlot& p, const Axis& ax, const Axis& ay) {
  if (p.order.empty()) return;
  auto worse = [&](size_t k, double a, double b) {
    return p.lower_better[k] ? std::max(a, b) : std::min(a, b);
  };
  const bool stairs = p.lower_better.size() == 2;
  std::string d;
  for (size_t n = 0; n < p.order.size(); ++n) {
    const auto& v = p.values[p.order[n]];
    if (n > 0 && stairs) {
      const auto& u = p.values[p.order[n - 1]];
      d += fmt::format(" L{},{}", num(ax.at(worse(0, u[0], v[0]))),
                       num(ay.at(worse(1, u[1], v[1]))));
    }
    d += fmt::format("{}{},{}", n ? " L" : "M", num(ax.at(v[0])), num(ay.at(v[1])));
  }
  o += fmt::format(
      "<path class=\"frontier\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", d,
      color(3), stairs ? "" : " stroke-dasharray=\"6 4\"");
}

std::string pareto_tip(const ParetoPlot& p, size_t i) {
  std::string tip = p.labels[i] + ":";
  for (size_t k = 0; k < p.values[i].size(); ++k)
    tip += fmt::format(" {} = {}", p.axis_labels[k], format_number(p.values[i][k]));
  return tip + (p.optimal[i] ? " (Pareto-optimal)" : " (dominated)");
}

// Dominated settings first and grey, so the optimal ones are drawn over them.
void pareto_dots(std::string& o, const ParetoPlot& p, const Axis& ax, const Axis& ay) {
  const auto r = pareto_radii(p);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < p.values.size(); ++i) {
      if (!has_values(p.values[i]) || p.optimal[i] != (pass == 1)) continue;
      o += fmt::format(
          "<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" "
          "stroke=\"{}\"><title>{}</title>"
          "</circle>\n",
          pass ? "optimal" : "dominated", num(ax.at(p.values[i][0])), num(ay.at(p.values[i][1])),
          num(r[i]), pass ? color(3) : "#c8c8c8", pass ? "#7f0f10" : "#a0a0a0",
          esc(pareto_tip(p, i)));
    }
  }
}

// Each optimal setting's label just above the line that leaves its dot, moved up or down
// until it covers no earlier label and no optimal dot (a thin leader line then points back);
// on the left of the dot where the right would leave the picture. A white halo keeps it
// legible over the lines.
void pareto_labels(std::string& o, const ParetoPlot& p, const Axis& ax, const Axis& ay, double W) {
  struct Box {
    double x0, y0, x1, y1;
  };
  std::vector<Box> placed;
  for (size_t i : p.order) {
    const double x = ax.at(p.values[i][0]), y = ay.at(p.values[i][1]);
    placed.push_back({x - 5, y - 5, x + 5, y + 5});
  }
  const double size = 11, h = 13;
  for (size_t i : p.order) {
    std::string label = p.labels[i];
    if (p.values[i].size() > 2) label += fmt::format(" ({})", format_number(p.values[i][2]));
    const double w = text_width(label, size);
    const double x = ax.at(p.values[i][0]), y = ay.at(p.values[i][1]);
    const bool left = x + 10 + w > W - 8;
    const double x0 = left ? x - 10 - w : x + 10;
    double base = y - 4, dy = 0;
    for (int tries = 0; tries < 16; ++tries) {
      dy = (tries % 2 ? 1 : -1) * h * double((tries + 1) / 2);
      const Box b{x0, base + dy - h + 3, x0 + w, base + dy + 3};
      const bool clash = std::any_of(placed.begin(), placed.end(), [&](const Box& q) {
        return b.x0 < q.x1 && q.x0 < b.x1 && b.y0 < q.y1 && q.y0 < b.y1;
      });
      if (!clash) {
        placed.push_back(b);
        break;
      }
    }
    if (dy != 0)
      o += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999999\" "
          "stroke-width=\"0.8\"/>\n",
          num(x + (left ? -5 : 5)), num(y), num(left ? x0 + w + 2 : x0 - 2), num(base + dy - 4));
    o += text(x0, base + dy, label, size,
              "class=\"label\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\"");
  }
}

// Which way is better: an arrow in the corner where both objectives are best.
void better_corner(std::string& o, const ParetoPlot& p, const Frame& f) {
  const bool left = p.lower_better[0], top = !p.lower_better[1];
  const char* arrow = left ? (top ? "↖" : "↙") : (top ? "↗" : "↘");
  const std::string s = left ? fmt::format("{} better", arrow) : fmt::format("better {}", arrow);
  o += text(left ? f.x0 + 8 : f.x1 - 8, top ? f.y0 + 18 : f.y1 - 10, s, 13,
            fmt::format("fill=\"{}\" font-weight=\"bold\"{}", color(2),
                        left ? "" : " text-anchor=\"end\""));
}

}  // namespace

std::string format_number(double v) {
  if (!std::isfinite(v)) return "-";
  if (std::abs(v - std::round(v)) < 1e-9 && std::abs(v) < 1e15) {
    const double r = std::round(v);
    return fmt::format("{:.0f}", r == 0 ? 0.0 : r);
  }
  std::string s = fmt::format("{:.3f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string line_plot_svg(const LinePlot& p) {
  const double extra = 16.0 * double(lines_of(p.subtitle).size() - 1);
  const double W = 860, H = 480 + extra;
  const Frame f{84, 600, 72 + extra, 396 + extra};
  std::string o = svg_open(W, H);
  heading(o, p.title, p.subtitle, f.x0);

  const std::vector<double> px = x_positions(p.x_values, f);
  const auto range = value_range(p.series);
  const Axis ay = value_axis(range ? range->first : 0, range ? range->second : 1, f.y1, f.y0, true);

  grid(o, f, ay, true);
  frame_rect(o, f);
  y_ticks(o, f, ay);
  x_ticks(o, f, px, p.x_values);
  axis_labels(o, f, p.x_label, p.y_label + (ay.log ? " (log scale)" : ""));
  if (!range)
    o += text((f.x0 + f.x1) / 2, (f.y0 + f.y1) / 2, "no values", 14,
              "text-anchor=\"middle\" fill=\"#999999\"");

  // Bands, then lines, then markers, so markers stay on top.
  if (p.band) bands(o, p, px, ay);
  polylines(o, p, px, ay);
  markers(o, p, px, ay);
  legend(o, p, f);
  o += "</svg>\n";
  return o;
}

std::string heat_map_svg(const HeatMap& h) {
  const HeatLayout l = heat_layout(h);
  std::string o = svg_open(l.W, l.H);
  heading(o, h.title, h.subtitle, 24);
  const HeatScale scale(h.cells);
  heat_headers(o, h, l);
  for (size_t r = 0; r < h.rows.size(); ++r)
    for (size_t c = 0; c < h.cols.size(); ++c) heat_cell(o, h, l, scale, r, c);
  if (scale.any)
    color_bar(o, h, l, scale);
  else
    o += text(l.gx, l.gy + l.gh + 20, "no values", 12, "fill=\"#999999\"");
  o += "</svg>\n";
  return o;
}

std::string pareto_svg(const ParetoPlot& p) {
  const double extra = 16.0 * double(lines_of(p.subtitle).size() - 1);
  const double W = 900, H = 520 + extra;
  const Frame f{84, 680, 72 + extra, 436 + extra};
  std::string o = svg_open(W, H);
  heading(o, p.title, p.subtitle, f.x0);
  const Axis ax = pareto_axis(p, 0, f.x0, f.x1);
  const Axis ay = pareto_axis(p, 1, f.y1, f.y0);
  grid(o, f, ay, false);
  value_x_ticks(o, f, ax);
  frame_rect(o, f);
  y_ticks(o, f, ay);
  auto better = [&](size_t k) {
    return std::string(k == 0
                           ? (p.lower_better[0] ? "  ← lower is better" : "  higher is better →")
                           : (p.lower_better[1] ? "  lower is better ↓" : "  higher is better ↑"));
  };
  axis_labels(o, f, p.axis_labels[0] + (ax.log ? " (log scale)" : "") + better(0),
              p.axis_labels[1] + (ay.log ? " (log scale)" : "") + better(1));
  better_corner(o, p, f);
  frontier_line(o, p, ax, ay);
  pareto_dots(o, p, ax, ay);
  pareto_labels(o, p, ax, ay, W);

  // Legend below the x label.
  const double ly = f.y1 + 68;
  size_t dominated = 0;
  for (size_t i = 0; i < p.values.size(); ++i)
    dominated += !p.optimal[i] && has_values(p.values[i]);
  o += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4.5\" fill=\"{}\" stroke=\"#7f0f10\"/>\n",
                   num(f.x0 + 6), num(ly - 4), color(3));
  std::string legend = fmt::format("Pareto-optimal ({}), joined in frontier order", p.order.size());
  o += text(f.x0 + 16, ly, legend, 12);
  const double x2 = f.x0 + 16 + text_width(legend, 12) + 24;
  o += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4.5\" fill=\"#c8c8c8\" stroke=\"#a0a0a0\"/>\n",
                   num(x2), num(ly - 4));
  std::string rest = fmt::format("dominated ({})", dominated);
  if (p.lower_better.size() > 2)
    rest += fmt::format("; dot size: {}, larger is better", p.axis_labels[2]);
  o += text(x2 + 10, ly, rest, 12);
  o += "</svg>\n";
  return o;
}

std::string stacked_bars_svg(const StackedBars& b) {
  const double extra = 16.0 * double(lines_of(b.subtitle).size() - 1);
  const double row_h = 26, W = 860;
  const Frame f{200, 800, 72 + extra,
                72 + extra + row_h * double(std::max<size_t>(1, b.rows.size()))};
  const double H = f.y1 + 70 + 18 * double((b.parts.size() + 3) / 4);
  std::string o = svg_open(W, H);
  heading(o, b.title, b.subtitle, 16);
  double most = 1;
  for (const auto& r : b.values) {
    double sum = 0;
    for (double v : r) sum += v;
    most = std::max(most, sum);
  }
  const Axis ax = value_axis(0, most, f.x0, f.x1, false, 8);
  for (size_t i = 0; i < b.rows.size(); ++i) {
    const double y = f.y0 + row_h * double(i) + 4;
    o += text(f.x0 - 6, y + 13, b.rows[i], 11, "text-anchor=\"end\"");
    double x = 0;
    for (size_t p = 0; p < b.parts.size() && p < b.values[i].size(); ++p) {
      const double v = b.values[i][p];
      if (v <= 0) continue;
      o += fmt::format(
          "<rect class=\"part\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\"><title>{}: "
          "{} us</title></rect>\n",
          num(ax.at(x)), num(y), num(std::max(0.5, ax.at(x + v) - ax.at(x))), num(row_h - 8),
          color(int(p)), esc(b.parts[p]), format_number(v));
      x += v;
    }
  }
  frame_rect(o, f);
  for (double t : ax.ticks) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(ax.at(t)), num(f.y1), num(ax.at(t)), num(f.y1 + 5));
    o += text(ax.at(t), f.y1 + 19, format_number(t), 11, "text-anchor=\"middle\"");
  }
  o += text((f.x0 + f.x1) / 2, f.y1 + 38, b.x_label, 12, "text-anchor=\"middle\"");
  for (size_t p = 0; p < b.parts.size(); ++p) {  // legend, four to a line
    const double lx = f.x0 + 150.0 * double(p % 4), ly = f.y1 + 56 + 18 * double(p / 4);
    o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", num(lx),
                     num(ly - 10), color(int(p)));
    o += text(lx + 16, ly, b.parts[p], 11);
  }
  o += "</svg>\n";
  return o;
}

std::string histogram_svg(const Histogram& h) {
  const double extra = 16.0 * double(lines_of(h.subtitle).size() - 1);
  const double W = 860, H = 480 + extra;
  const Frame f{84, 800, 72 + extra, 396 + extra};
  std::string o = svg_open(W, H);
  heading(o, h.title, h.subtitle, f.x0);

  unsigned long long most = 1;
  for (const auto& b : h.buckets) most = std::max(most, b.second);
  const double hi_us =
      std::max({1.0, h.max, h.buckets.empty() ? 0.0 : double(h.buckets.back().first)});
  const Axis ax = value_axis(0, hi_us + 1, f.x0, f.x1, false, 8);
  Axis ay = value_axis(0.5, std::max(10.0, double(most)), f.y1, f.y0, true);  // log counts
  ay.lo = std::min(ay.lo, 1.0);

  grid(o, f, ay, false);
  // One bar per µs bucket, from count 1 (the bottom of the log axis) up.
  const double bw = std::max(1.0, (ax.at(1) - ax.at(0)));
  for (const auto& [us, n] : h.buckets) {
    if (n == 0) continue;
    const double top = ay.at(double(n)), bottom = ay.at(ay.lo);
    o += fmt::format(
        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n",
        num(ax.at(double(us))), num(top), num(bw), num(std::max(0.5, bottom - top)),
        color(h.color));
  }
  frame_rect(o, f);
  y_ticks(o, f, ay);
  for (double t : ax.ticks) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(ax.at(t)), num(f.y1), num(ax.at(t)), num(f.y1 + 5));
    o += text(ax.at(t), f.y1 + 19, format_number(t), 11, "text-anchor=\"middle\"");
  }
  axis_labels(o, f, h.x_label, "samples (log scale)");
  // min / avg / max as dashed verticals with their values.
  const std::pair<const char*, double> marks[] = {{"min", h.min}, {"avg", h.avg}, {"max", h.max}};
  double label_y = f.y0 + 14;
  for (const auto& [name, v] : marks) {
    const double x = ax.at(v) + (std::string(name) == "avg" ? 0 : bw / 2);
    o += fmt::format(
        "<line class=\"mark-{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d62728\" "
        "stroke-dasharray=\"4,3\"/>\n",
        name, num(x), num(f.y0), num(x), num(f.y1));
    const bool left = x > f.x0 + (f.x1 - f.x0) * 0.75;  // keep labels near the right edge inside
    o += text(left ? x - 4 : x + 4, label_y, fmt::format("{} {} us", name, format_number(v)), 11,
              left ? "fill=\"#d62728\" text-anchor=\"end\"" : "fill=\"#d62728\"");
    label_y += 14;
  }
  o += "</svg>\n";
  return o;
}

}  // namespace latsim::sweep
