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
  const double x0 = 84, x1 = 600, y0 = 72 + extra, y1 = 396 + extra;
  std::string o = svg_open(W, H);
  heading(o, p.title, p.subtitle, x0);

  // x: numeric values by value (log when they span more than a decade), others evenly.
  const size_t n = p.x_values.size();
  std::vector<double> xs(n);
  bool numeric = n > 0;
  for (size_t i = 0; i < n && numeric; ++i) numeric = to_double(p.x_values[i], xs[i]);
  std::vector<double> px(n);
  const double pad = 24;
  if (numeric && n > 1) {
    const double mn = *std::min_element(xs.begin(), xs.end());
    const double mx = *std::max_element(xs.begin(), xs.end());
    Axis ax;
    ax.log = wants_log(mn, mx);
    ax.lo = mn;
    ax.hi = mx == mn ? mn + 1 : mx;
    ax.p0 = x0 + pad;
    ax.p1 = x1 - pad;
    for (size_t i = 0; i < n; ++i) px[i] = ax.at(xs[i]);
  } else {
    for (size_t i = 0; i < n; ++i)
      px[i] = n == 1 ? (x0 + x1) / 2 : x0 + pad + (x1 - x0 - 2 * pad) * double(i) / double(n - 1);
  }

  // y: every value, median and range.
  double mn = INFINITY, mx = -INFINITY;
  for (const auto& s : p.series)
    for (const auto& v : s.points)
      for (const auto& x : {v.lo, v.mid, v.hi})
        if (x) mn = std::min(mn, *x), mx = std::max(mx, *x);
  const bool any = mn <= mx;
  const Axis ay = value_axis(any ? mn : 0, any ? mx : 1, y1, y0, true);

  // Frame, grid and ticks.
  o += "<g stroke=\"#e6e6e6\" stroke-width=\"1\">\n";
  for (double t : ay.minor)
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#f3f3f3\"/>\n",
                     num(x0), num(ay.at(t)), num(x1), num(ay.at(t)));
  for (double t : ay.ticks)
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(x0), num(ay.at(t)),
                     num(x1), num(ay.at(t)));
  o += "</g>\n";
  o += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\"/>\n",
      num(x0), num(y0), num(x1 - x0), num(y1 - y0));
  for (double t : ay.ticks) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(x0 - 5), num(ay.at(t)), num(x0), num(ay.at(t)));
    o += text(x0 - 8, ay.at(t) + 4, format_number(t), 11, "text-anchor=\"end\"");
  }
  double last_right = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(px[i]), num(y1), num(px[i]), num(y1 + 5));
    const double w = text_width(p.x_values[i], 11);
    if (px[i] - w / 2 < last_right + 6) continue;  // would overlap the previous label
    o += text(px[i], y1 + 19, p.x_values[i], 11, "text-anchor=\"middle\"");
    last_right = px[i] + w / 2;
  }
  o += text((x0 + x1) / 2, y1 + 44, p.x_label, 13, "text-anchor=\"middle\"");
  o += fmt::format(
      "<text x=\"0\" y=\"0\" font-size=\"13\" text-anchor=\"middle\" "
      "transform=\"translate({},{}) rotate(-90)\">{}</text>\n",
      num(22), num((y0 + y1) / 2), esc(p.y_label + (ay.log ? " (log scale)" : "")));
  if (!any)
    o += text((x0 + x1) / 2, (y0 + y1) / 2, "no values", 14,
              "text-anchor=\"middle\" fill=\"#999999\"");

  // Bands, then lines, then markers, so markers stay on top.
  auto runs = [&](const Series& s, bool need_range) {
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
  };
  if (p.band) {
    for (const auto& s : p.series) {
      for (const auto& run : runs(s, true)) {
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
  for (const auto& s : p.series) {
    for (const auto& run : runs(s, false)) {
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
  for (const auto& s : p.series) {
    for (size_t i = 0; i < s.points.size() && i < n; ++i) {
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

  // Legend.
  double ly = y0 + 8;
  for (const auto& s : p.series) {
    o += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>\n",
        num(x1 + 20), num(ly), num(x1 + 46), num(ly), color(s.color),
        s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    o += text(x1 + 54, ly + 4, s.name, 12);
    ly += 20;
  }
  if (p.band) {
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"26\" height=\"10\" fill=\"#777777\" "
        "fill-opacity=\"0.25\"/>\n",
        num(x1 + 20), num(ly - 5));
    o += text(x1 + 54, ly + 4, "min–max over seeds", 12);
    ly += 20;
    o += text(x1 + 54, ly + 4, "(line: median)", 12, "fill=\"#555555\"");
  }
  o += "</svg>\n";
  return o;
}

std::string heat_map_svg(const HeatMap& h) {
  const size_t nr = h.rows.size(), nc = h.cols.size();
  const double cw = nc <= 8 ? 84 : std::max(28.0, 672.0 / double(nc));
  const double ch_full = h.ranges ? 52 : 40;
  const double ch = nr <= 10 ? ch_full : std::max(18.0, 440.0 / double(nr));
  const bool show_text = cw >= 40 && ch >= 20;
  const bool show_range = h.ranges && show_text && ch >= 36;

  // Layout: the column key above the column values, the row key in the corner above the
  // row values (both read like a table's headers), the colour bar on the right.
  const std::string row_head = h.row_label + " ↓";
  const std::string col_head = h.col_label + " →";
  double row_label_w = text_width(row_head, 12);
  for (const auto& r : h.rows) row_label_w = std::max(row_label_w, text_width(r, 12));
  const double gx = 24 + row_label_w + 12;  // grid left
  const auto sub = lines_of(h.subtitle);
  const double gy = 104 + 16.0 * double(sub.size() - 1);  // grid top
  const double gw = cw * double(nc), gh = ch * double(nr);
  const double bar_x = gx + gw + 34, bar_h = std::max(140.0, std::min(gh, 320.0));
  double title_w = text_width(h.title, 16);
  for (const auto& l : sub) title_w = std::max(title_w, text_width(l, 12));
  const double W = std::max(bar_x + 110, 24 + title_w + 24);
  const double H = gy + std::max(gh, bar_h) + 34;

  std::string o = svg_open(W, H);
  heading(o, h.title, h.subtitle, 24);

  double mn = INFINITY, mx = -INFINITY;
  for (const auto& c : h.cells)
    if (c.mid) mn = std::min(mn, *c.mid), mx = std::max(mx, *c.mid);
  const bool any = mn <= mx;
  const bool log = any && wants_log(mn, mx);
  auto t_of = [&](double v) {
    if (!any || mx == mn) return 0.5;
    return log ? (std::log10(v) - std::log10(mn)) / (std::log10(mx) - std::log10(mn))
               : (v - mn) / (mx - mn);
  };

  o += text(gx, gy - 28, col_head, 13, "font-weight=\"bold\"");
  for (size_t c = 0; c < nc; ++c)
    if (cw >= text_width(h.cols[c], 12) + 4 || nc <= 16)
      o += text(gx + cw * (double(c) + 0.5), gy - 8, h.cols[c], 12, "text-anchor=\"middle\"");
  o += text(gx - 10, gy - 8, row_head, 13, "text-anchor=\"end\" font-weight=\"bold\"");
  for (size_t r = 0; r < nr; ++r)
    if (ch >= 14)
      o += text(gx - 10, gy + ch * (double(r) + 0.5) + 4, h.rows[r], 12, "text-anchor=\"end\"");

  for (size_t r = 0; r < nr; ++r) {
    for (size_t c = 0; c < nc; ++c) {
      const size_t i = r * nc + c;
      const Spread& v = i < h.cells.size() ? h.cells[i] : Spread{};
      const std::string note = i < h.notes.size() && !h.notes[i].empty() ? h.notes[i] : "missing";
      const double x = gx + cw * double(c), y = gy + ch * double(r);
      const Rgb fill = v.mid ? heat(t_of(*v.mid)) : Rgb{238, 238, 238};
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
          num(x), num(y), num(cw), num(ch), hex(fill), esc(tip));
      if (!show_text) continue;
      const std::string ink = dark(fill) ? "#ffffff" : "#000000";
      const double cx = x + cw / 2;
      if (!v.mid) {
        o += text(cx, y + ch / 2 + 4, note, 11,
                  "text-anchor=\"middle\" fill=\"#777777\" font-style=\"italic\"");
      } else if (show_range && v.lo && v.hi) {
        o += text(cx, y + ch / 2 - 2, format_number(*v.mid), 13,
                  fmt::format("text-anchor=\"middle\" fill=\"{}\" font-weight=\"bold\"", ink));
        o += text(cx, y + ch / 2 + 14, format_number(*v.lo) + "–" + format_number(*v.hi), 10,
                  fmt::format("text-anchor=\"middle\" fill=\"{}\"", ink));
      } else {
        o += text(cx, y + ch / 2 + 5, format_number(*v.mid), 13,
                  fmt::format("text-anchor=\"middle\" fill=\"{}\"", ink));
      }
    }
  }

  // Colour bar: low at the bottom.
  if (any) {
    const double by0 = gy, by1 = gy + bar_h;
    o += "<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
    for (int s = 0; s <= 8; ++s)
      o += fmt::format("<stop offset=\"{}\" stop-color=\"{}\"/>\n", format_number(s / 8.0),
                       hex(heat(s / 8.0)));
    o += "</linearGradient></defs>\n";
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"16\" height=\"{}\" fill=\"url(#scale)\" "
        "stroke=\"#333333\"/>\n",
        num(bar_x), num(by0), num(bar_h));
    if (!h.unit.empty()) o += text(bar_x, by0 - 8, h.unit, 12);
    std::vector<double> ticks{mn, mx};
    if (mx > mn) {
      const Axis a = value_axis(mn, mx, 0, 1, log, 4);
      for (double t : a.ticks)
        if (t > mn && t < mx) ticks.push_back(t);
    }
    std::sort(ticks.begin(), ticks.end());
    double last_y = INFINITY;
    for (auto it = ticks.begin(); it != ticks.end(); ++it) {
      const double t = *it;
      const double y = by1 - t_of(t) * (by1 - by0);
      const bool end = t == mn || t == mx;
      if (!end && (std::abs(y - last_y) < 14 || std::abs(y - by0) < 14)) continue;
      o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                       num(bar_x + 16), num(y), num(bar_x + 21), num(y));
      o += text(bar_x + 24, y + 4, format_number(t), 11);
      last_y = y;
    }
    if (log) o += text(bar_x, by1 + 18, "log scale", 10, "fill=\"#555555\"");
  } else {
    o += text(gx, gy + gh + 20, "no values", 12, "fill=\"#999999\"");
  }
  o += "</svg>\n";
  return o;
}

std::string histogram_svg(const Histogram& h) {
  const double extra = 16.0 * double(lines_of(h.subtitle).size() - 1);
  const double W = 860, H = 480 + extra;
  const double x0 = 84, x1 = 800, y0 = 72 + extra, y1 = 396 + extra;
  std::string o = svg_open(W, H);
  heading(o, h.title, h.subtitle, x0);

  unsigned long long most = 1;
  for (const auto& b : h.buckets) most = std::max(most, b.second);
  const double hi_us =
      std::max({1.0, h.max, h.buckets.empty() ? 0.0 : double(h.buckets.back().first)});
  const Axis ax = value_axis(0, hi_us + 1, x0, x1, false, 8);
  Axis ay = value_axis(0.5, std::max(10.0, double(most)), y1, y0, true);  // log counts
  ay.lo = std::min(ay.lo, 1.0);

  o += "<g stroke=\"#e6e6e6\" stroke-width=\"1\">\n";
  for (double t : ay.ticks)
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(x0), num(ay.at(t)),
                     num(x1), num(ay.at(t)));
  o += "</g>\n";
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
  o += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\"/>\n",
      num(x0), num(y0), num(x1 - x0), num(y1 - y0));
  for (double t : ay.ticks) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(x0 - 5), num(ay.at(t)), num(x0), num(ay.at(t)));
    o += text(x0 - 8, ay.at(t) + 4, format_number(t), 11, "text-anchor=\"end\"");
  }
  for (double t : ax.ticks) {
    o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/>\n",
                     num(ax.at(t)), num(y1), num(ax.at(t)), num(y1 + 5));
    o += text(ax.at(t), y1 + 19, format_number(t), 11, "text-anchor=\"middle\"");
  }
  o += text((x0 + x1) / 2, y1 + 44, h.x_label, 13, "text-anchor=\"middle\"");
  o += fmt::format(
      "<text x=\"0\" y=\"0\" font-size=\"13\" text-anchor=\"middle\" "
      "transform=\"translate({},{}) rotate(-90)\">{}</text>\n",
      num(22), num((y0 + y1) / 2), esc("samples (log scale)"));
  // min / avg / max as dashed verticals with their values.
  const std::pair<const char*, double> marks[] = {{"min", h.min}, {"avg", h.avg}, {"max", h.max}};
  double label_y = y0 + 14;
  for (const auto& [name, v] : marks) {
    const double x = ax.at(v) + (std::string(name) == "avg" ? 0 : bw / 2);
    o += fmt::format(
        "<line class=\"mark-{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d62728\" "
        "stroke-dasharray=\"4,3\"/>\n",
        name, num(x), num(y0), num(x), num(y1));
    const bool left = x > x0 + (x1 - x0) * 0.75;  // keep labels near the right edge inside
    o += text(left ? x - 4 : x + 4, label_y, fmt::format("{} {} us", name, format_number(v)), 11,
              left ? "fill=\"#d62728\" text-anchor=\"end\"" : "fill=\"#d62728\"");
    label_y += 14;
  }
  o += "</svg>\n";
  return o;
}

}  // namespace latsim::sweep
