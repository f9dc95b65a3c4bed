#include "tools/sweep/results.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "platform/output_file.h"
#include "platform/output_transaction.h"
#include "tools/metrics/metric_path.h"
#include "tools/sweep/svg_plot.h"

namespace latsim::sweep {
namespace {

using nlohmann::json;

// metrics.json value at a metric path, null when absent.
json at_path(const json& j, const std::string& path) {
  std::string why;
  const auto p = metrics::parse_metric_path(path, why);
  const auto v = p ? metrics::metric_at(j, *p, why) : std::nullopt;
  return v ? *v : json(nullptr);
}

// The avg_us next to a *max_us metric ("workloads.cyclictest.max_us" -> "...avg_us").
std::string avg_sibling(const std::string& metric) {
  const std::string suffix = "max_us";
  if (metric.size() < suffix.size() ||
      metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) != 0)
    return "";
  return metric.substr(0, metric.size() - suffix.size()) + "avg_us";
}

std::optional<double> number(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  return std::nullopt;
}

// A metric or swept value as the tables print it.
std::string cell_text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return format_number(v.get<double>());
  return v.dump();
}

std::string unit_of(const std::string& metric) {
  auto ends = [&](const std::string& s) {
    return metric.size() >= s.size() && metric.compare(metric.size() - s.size(), s.size(), s) == 0;
  };
  if (ends("_us")) return "µs";
  if (ends("_mb_s")) return "MB/s";
  if (ends("_kb")) return "KB";
  return "";
}

bool is_latency(const std::string& metric) { return unit_of(metric) == "µs"; }

// The name a table or plot shows for a key: the last component of a /sys or /proc path
// (unless two keys would then look the same), else the key.
std::vector<std::string> short_keys(const Grid& g) {
  std::vector<std::string> s;
  for (const auto& p : g.params)
    s.push_back(p.key[0] == '/' ? p.key.substr(p.key.rfind('/') + 1) : p.key);
  const std::set<std::string> distinct(s.begin(), s.end());
  if (distinct.size() != s.size() || distinct.count("seed") || distinct.count(""))
    for (size_t i = 0; i < s.size(); ++i) s[i] = g.params[i].key;
  return s;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

const char* status_name(Status s) {
  switch (s) {
    case Status::Ok:
      return "ok";
    case Status::Failed:
      return "failed";
    case Status::Missing:
      return "missing";
  }
  return "?";
}

// Across the seeds of one combination of swept values.
struct Combo {
  std::vector<std::string> values;       // one per param
  std::vector<const PointResult*> runs;  // one per seed
};

std::vector<Combo> combos(const Manifest& m, const std::vector<PointResult>& results) {
  std::vector<Combo> out;
  std::map<size_t, size_t> at;  // combination index -> out
  const size_t ns = m.grid.seeds.size();
  for (const auto& r : results) {
    const size_t c = r.point.index / ns;
    auto it = at.find(c);
    if (it == at.end()) {
      it = at.emplace(c, out.size()).first;
      Combo cb;
      for (const auto& kv : r.point.values) cb.values.push_back(kv.second);
      out.push_back(cb);
    }
    out[it->second].runs.push_back(&r);
  }
  return out;
}

Spread spread(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.lo = v.front();
  s.hi = v.back();
  s.mid = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return s;
}

// metric k (or its avg sibling) over the seeds of a combination.
Spread spread_of(const Combo& c, size_t k, bool avg) {
  std::vector<double> v;
  for (const auto* r : c.runs) {
    if (r->status != Status::Ok) continue;
    const auto& src = avg ? r->avg : r->metrics;
    if (k < src.size())
      if (auto x = number(src[k])) v.push_back(*x);
  }
  return spread(v);
}

// What a combination without a value shows: "failed" when a seed of it failed.
std::string note_of(const Combo& c) {
  for (const auto* r : c.runs)
    if (r->status == Status::Failed) return "failed";
  return "missing";
}

std::string spread_text(const Spread& s) {
  if (!s.mid) return "";
  if (*s.lo == *s.hi) return format_number(*s.mid);
  return fmt::format("{} ({}–{})", format_number(*s.mid), format_number(*s.lo),
                     format_number(*s.hi));
}

// The frontier over the settings (combinations) of a sweep with --pareto.
struct Frontier {
  std::vector<Combo> combos;
  std::vector<size_t> metric;               // per objective: its index in m.metrics
  std::vector<std::vector<double>> values;  // per combination, per objective; NaN: no value
  std::vector<bool> optimal;                // per combination
  std::vector<size_t> order;                // the optimal ones, frontier order
  std::map<size_t, bool> by_combo;          // combination index (point index / seeds) -> optimal
};

// A setting with a failed or missing seed has no value: its worst case is unknown.
double objective_of(const Manifest& m, const Combo& c, size_t k, tune::Sense sense) {
  if (c.runs.size() != m.grid.seeds.size()) return NAN;
  std::vector<double> v;
  for (const auto* r : c.runs) {
    const auto x = r->status == Status::Ok ? number(r->metrics[k]) : std::nullopt;
    if (!x) return NAN;
    v.push_back(*x);
  }
  return tune::across_seeds(v, sense, m.pareto.quantile);
}

Frontier frontier_of(const Manifest& m, const std::vector<PointResult>& results) {
  Frontier f;
  f.combos = combos(m, results);
  std::vector<tune::Sense> senses;
  for (const auto& o : m.pareto.objectives) {
    senses.push_back(o.sense);
    f.metric.push_back(
        size_t(std::find(m.metrics.begin(), m.metrics.end(), o.metric.text) - m.metrics.begin()));
  }
  for (const auto& c : f.combos) {
    std::vector<double> v;
    for (size_t k = 0; k < senses.size(); ++k)
      v.push_back(objective_of(m, c, f.metric[k], senses[k]));
    f.values.push_back(v);
  }
  f.optimal = tune::pareto_optimal(f.values, senses);
  f.order = frontier_order(f.values, f.optimal, senses);
  for (size_t i = 0; i < f.combos.size(); ++i)
    f.by_combo[f.combos[i].runs.front()->point.index / m.grid.seeds.size()] = f.optimal[i];
  return f;
}

bool optimal_point(const Manifest& m, const Frontier& f, const PointResult& r) {
  const auto it = f.by_combo.find(r.point.index / m.grid.seeds.size());
  return it != f.by_combo.end() && it->second;
}

// A markdown table with right-aligned, padded columns (readable as plain text too).
// Numbers right-aligned; `left_last` left-aligns the last column (a text note).
std::string md_table(const std::vector<std::string>& header,
                     const std::vector<std::vector<std::string>>& rows, bool left_last = false) {
  auto width = [](const std::string& s) {  // code points, so "µ" and "–" count once
    size_t w = 0;
    for (unsigned char c : s) w += (c & 0xc0) != 0x80;
    return w;
  };
  std::vector<size_t> w(header.size(), 3);
  for (size_t i = 0; i < header.size(); ++i) w[i] = std::max(w[i], width(header[i]));
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], width(r[i]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l = "|";
    for (size_t i = 0; i < w.size(); ++i) {
      const std::string c = i < cells.size() ? cells[i] : "";
      std::string esc;
      for (char ch : c) esc += ch == '|' ? std::string("\\|") : std::string(1, ch);
      const std::string pad(w[i] > width(esc) ? w[i] - width(esc) : 0, ' ');
      l += " " + (left_last && i + 1 == w.size() ? esc + pad : pad + esc) + " |";
    }
    return l + "\n";
  };
  std::string o = line(header);
  o += "|";
  for (size_t i = 0; i < w.size(); ++i)
    o += left_last && i + 1 == w.size() ? " :" + std::string(w[i] - 1, '-') + " |"
                                        : " " + std::string(w[i] - 1, '-') + ": |";
  o += "\n";
  for (const auto& r : rows) o += line(r);
  return o;
}

std::string seeds_text(const std::vector<uint64_t>& seeds) {
  if (seeds.size() == 1) return fmt::format("seed {}", seeds[0]);
  return fmt::format("{} seeds ({}..{})", seeds.size(), seeds.front(), seeds.back());
}

bool swept(const Manifest& m, const std::string& key) {
  for (const auto& p : m.grid.params)
    if (p.key == key) return true;
  return false;
}

std::string header_line(const Manifest& m, size_t npoints) {
  std::string h =
      fmt::format("**{}**: {} point{}", m.scenario_name, npoints, npoints == 1 ? "" : "s");
  if (!m.shard.whole()) h += fmt::format(" (shard {}/{})", m.shard.index, m.shard.count);
  h += ", " + seeds_text(m.grid.seeds);
  if (!swept(m, "duration")) h += ", " + format_number(m.duration_s) + " s simulated each";
  return h;
}

std::string file_safe(const std::string& s) {
  std::string o;
  for (char c : s)
    o +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  return o;
}

bool is_plot_file(const std::string& name) {
  if (name == "pareto.svg") return true;
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  return (starts("plot-") || starts("heatmap-")) && name.size() > 4 &&
         name.compare(name.size() - 4, 4, ".svg") == 0;
}

// One key: latency metrics (with their averages dashed) together in plot-latency.svg,
// every other metric in its own plot-<metric>.svg.
void line_plots(const Manifest& m, const std::vector<PointResult>& results,
                std::map<std::string, std::string>& files) {
  const auto& g = m.grid;
  const bool several = g.seeds.size() > 1;
  const auto keys = short_keys(g);
  const std::string seeds = seeds_text(g.seeds);
  // Every combination in the order of the one param's values.
  const auto& values = g.params[0].values;
  const auto cb = combos(m, results);
  std::map<std::string, const Combo*> by_value;
  for (const auto& c : cb) by_value[c.values[0]] = &c;
  auto series_of = [&](size_t k, bool avg, const std::string& name, int color) {
    Series s;
    s.name = name;
    s.color = color;
    s.dashed = avg;
    for (const auto& v : values) {
      auto it = by_value.find(v);
      s.points.push_back(it == by_value.end() ? Spread{} : spread_of(*it->second, k, avg));
    }
    return s;
  };
  auto base_plot = [&](const std::string& what) {
    LinePlot p;
    p.title = fmt::format("{}: {} vs {}", m.scenario_name, what, keys[0]);
    p.subtitle = fmt::format("{} points, {}{}", results.size(), seeds,
                             several ? "; line: median, band: min–max over seeds" : "");
    p.x_label = g.params[0].key;
    p.x_values = values;
    p.band = several;
    return p;
  };
  LinePlot lat = base_plot("latency");
  lat.y_label = "latency (µs)";
  int color = 0;
  for (size_t k = 0; k < m.metrics.size(); ++k) {
    if (!is_latency(m.metrics[k])) continue;
    lat.series.push_back(series_of(k, false, m.metrics[k], color));
    Series avg = series_of(k, true, avg_sibling(m.metrics[k]), color);
    const bool has_avg = std::any_of(avg.points.begin(), avg.points.end(),
                                     [](const Spread& s) { return bool(s.mid); });
    if (has_avg) lat.series.push_back(avg);
    ++color;
  }
  if (!lat.series.empty()) files["plot-latency.svg"] = line_plot_svg(lat);
  for (size_t k = 0; k < m.metrics.size(); ++k) {
    if (is_latency(m.metrics[k])) continue;
    LinePlot p = base_plot(m.metrics[k]);
    const std::string unit = unit_of(m.metrics[k]);
    p.y_label = m.metrics[k] + (unit.empty() ? "" : " (" + unit + ")");
    p.series.push_back(series_of(k, false, m.metrics[k], color++));
    files["plot-" + file_safe(m.metrics[k]) + ".svg"] = line_plot_svg(p);
  }
}

// Two keys: a heatmap-<metric>.svg per metric, rows by the first key, columns by the second.
void heat_maps(const Manifest& m, const std::vector<PointResult>& results,
               std::map<std::string, std::string>& files) {
  const auto& g = m.grid;
  const bool several = g.seeds.size() > 1;
  const auto keys = short_keys(g);
  const std::string seeds = seeds_text(g.seeds);
  const auto& rows = g.params[0].values;
  const auto& cols = g.params[1].values;
  const auto cb = combos(m, results);
  std::map<std::pair<std::string, std::string>, const Combo*> at;
  for (const auto& c : cb) at[{c.values[0], c.values[1]}] = &c;
  for (size_t k = 0; k < m.metrics.size(); ++k) {
    HeatMap h;
    h.unit = unit_of(m.metrics[k]);
    h.title = fmt::format("{}: {}{}", m.scenario_name, m.metrics[k],
                          h.unit.empty() ? "" : " (" + h.unit + ")");
    h.subtitle = fmt::format("{} points, {}{}\nrows: {}, columns: {}", results.size(), seeds,
                             several ? "; cells: median, below it min–max" : "", g.params[0].key,
                             g.params[1].key);
    h.row_label = keys[0];
    h.col_label = keys[1];
    h.rows = rows;
    h.cols = cols;
    h.ranges = several;
    for (const auto& r : rows) {
      for (const auto& c : cols) {
        auto it = at.find({r, c});
        if (it == at.end()) {
          h.cells.push_back({});
          h.notes.push_back("missing");
        } else {
          h.cells.push_back(spread_of(*it->second, k, false));
          h.notes.push_back(note_of(*it->second));
        }
      }
    }
    files["heatmap-" + file_safe(m.metrics[k]) + ".svg"] = heat_map_svg(h);
  }
}

// A setting as a label: "max_sectors_kb=32 read_ahead_kb=64" (short keys).
std::string setting_label(const std::vector<std::string>& keys, const Combo& c) {
  std::vector<std::string> kv;
  for (size_t i = 0; i < keys.size(); ++i) kv.push_back(keys[i] + "=" + c.values[i]);
  return kv.empty() ? "(no swept key)" : fmt::format("{}", fmt::join(kv, " "));
}

// The objective's name on an axis: metric (unit, how the seeds are combined).
std::string objective_label(const Manifest& m, const tune::Objective& o) {
  const std::string unit = unit_of(o.metric.text);
  return fmt::format("{} ({}{})", o.metric.text, unit.empty() ? "" : unit + ", ",
                     m.pareto.across(m.grid.seeds.size()));
}

// pareto.svg: every setting against the frontier's first two objectives.
std::string pareto_plot(const Manifest& m, const std::vector<PointResult>& results) {
  const Frontier f = frontier_of(m, results);
  const auto keys = short_keys(m.grid);
  ParetoPlot p;
  std::vector<std::string> names;
  for (const auto& o : m.pareto.objectives) {
    names.push_back(o.metric.text + (o.sense == tune::Sense::Min ? " ↓" : " ↑"));
    p.axis_labels.push_back(objective_label(m, o));
    p.lower_better.push_back(o.sense == tune::Sense::Min);
  }
  p.title = fmt::format("{}: Pareto frontier of {}", m.scenario_name, fmt::join(names, ", "));
  std::string head = header_line(m, results.size());  // markdown: **name**
  head.erase(std::remove(head.begin(), head.end(), '*'), head.end());
  p.subtitle =
      fmt::format("{}; each setting's value: {}", head, m.pareto.across(m.grid.seeds.size()));
  for (size_t i = 0; i < f.combos.size(); ++i) p.labels.push_back(setting_label(keys, f.combos[i]));
  p.values = f.values;
  p.optimal = f.optimal;
  p.order = f.order;
  return pareto_svg(p);
}

// The plot files a sweep over one or two keys gets, by file name; none for more keys; and
// pareto.svg with --pareto.
std::map<std::string, std::string> plots(const Manifest& m,
                                         const std::vector<PointResult>& results) {
  std::map<std::string, std::string> files;
  if (m.grid.params.size() == 1) line_plots(m, results, files);
  if (m.grid.params.size() == 2) heat_maps(m, results, files);
  if (m.pareto.any()) files["pareto.svg"] = pareto_plot(m, results);
  return files;
}

// results.md's opening: the header line, then which keys are abbreviated and what is fixed.
std::string md_intro(const Manifest& m, const std::vector<std::string>& keys, size_t npoints) {
  const auto& g = m.grid;
  std::string o = header_line(m, npoints) + "\n\n";
  std::vector<std::string> legend;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] != g.params[i].key)
      legend.push_back(fmt::format("{} = `{}`", keys[i], g.params[i].key));
  if (!legend.empty()) o += fmt::format("Swept: {}.", fmt::join(legend, ", "));
  if (!g.sets.empty())
    o += fmt::format("{}Fixed: `{}`.", legend.empty() ? "" : " ", fmt::join(g.sets, "`, `"));
  if (!legend.empty() || !g.sets.empty()) o += "\n\n";
  return o;
}

// The main table: a row per point, or with several seeds a row per combination of values.
std::string md_points(const Manifest& m, const std::vector<std::string>& keys,
                      const std::vector<PointResult>& results) {
  const bool several = m.grid.seeds.size() > 1;
  bool notes = false;
  for (const auto& r : results) notes |= r.status != Status::Ok;
  const bool pareto = m.pareto.any();
  const Frontier f = pareto ? frontier_of(m, results) : Frontier{};
  const char* const kOptimal = "★";
  std::vector<std::string> header = keys;
  if (!several) header.push_back("seed");
  for (const auto& k : m.metrics) header.push_back(k);
  if (pareto) header.push_back("pareto");
  if (notes) header.push_back("note");
  std::string o;
  std::vector<std::vector<std::string>> rows;
  if (!several) {
    for (const auto& r : results) {
      std::vector<std::string> row;
      for (const auto& kv : r.point.values) row.push_back(kv.second);
      row.push_back(std::to_string(r.point.seed));
      for (const auto& v : r.metrics) row.push_back(cell_text(v));
      if (pareto) row.push_back(optimal_point(m, f, r) ? kOptimal : "");
      if (notes)
        row.push_back(r.status == Status::Ok       ? ""
                      : r.status == Status::Failed ? "failed: " + r.error
                                                   : "missing");
      rows.push_back(row);
    }
  } else {
    o += "Cells: median (min–max) over the seeds.\n\n";
    for (const auto& c : combos(m, results)) {
      std::vector<std::string> row = c.values;
      for (size_t k = 0; k < m.metrics.size(); ++k)
        row.push_back(spread_text(spread_of(c, k, false)));
      if (pareto) row.push_back(optimal_point(m, f, *c.runs.front()) ? kOptimal : "");
      if (notes) {
        size_t failed = 0, missing = 0;
        for (const auto* r : c.runs) {
          failed += r->status == Status::Failed;
          missing += r->status == Status::Missing;
        }
        std::vector<std::string> n;
        if (failed) n.push_back(fmt::format("{} failed", failed));
        if (missing) n.push_back(fmt::format("{} missing", missing));
        row.push_back(fmt::format("{}", fmt::join(n, ", ")));
      }
      rows.push_back(row);
    }
  }
  return o + md_table(header, rows, notes);
}

// Two keys: the first metric as a grid, rows by the first key, columns by the second.
std::string md_grid(const Manifest& m, const std::vector<std::string>& keys,
                    const std::vector<PointResult>& results) {
  const auto& g = m.grid;
  const bool several = g.seeds.size() > 1;
  std::map<std::pair<std::string, std::string>, std::string> cell;
  for (const auto& c : combos(m, results)) {
    std::string t = spread_text(spread_of(c, 0, false));
    cell[{c.values[0], c.values[1]}] = t.empty() ? note_of(c) : t;
  }
  const std::string unit = unit_of(m.metrics[0]);
  std::string o = fmt::format("\n{}{}{}, {} down, {} across:\n\n", m.metrics[0],
                              unit.empty() ? "" : " (" + unit + ")",
                              several ? ", median (min–max)" : "", keys[0], keys[1]);
  std::vector<std::string> h{keys[0] + " \\ " + keys[1]};
  for (const auto& c : g.params[1].values) h.push_back(c);
  std::vector<std::vector<std::string>> grid_rows;
  for (const auto& r : g.params[0].values) {
    std::vector<std::string> row{r};
    for (const auto& c : g.params[1].values) {
      auto it = cell.find({r, c});
      row.push_back(it == cell.end() ? "" : it->second);
    }
    grid_rows.push_back(row);
  }
  return o + md_table(h, grid_rows);
}

// The frontier's settings in frontier order with their objective values.
std::string md_frontier(const Manifest& m, const std::vector<std::string>& keys,
                        const std::vector<PointResult>& results) {
  const Frontier f = frontier_of(m, results);
  std::vector<std::string> objectives;
  for (const auto& o : m.pareto.objectives)
    objectives.push_back(o.metric.text + (o.sense == tune::Sense::Min ? " (min)" : " (max)"));
  size_t with_value = 0;
  for (const auto& v : f.values)
    with_value += std::none_of(v.begin(), v.end(), [](double x) { return std::isnan(x); });
  std::string o = fmt::format(
      "\nPareto frontier (★) of {}; values: {}. {} of {} setting{} optimal{}, in frontier "
      "order:\n\n",
      fmt::join(objectives, ", "), m.pareto.across(m.grid.seeds.size()), f.order.size(), with_value,
      with_value == 1 ? "" : "s",
      with_value < f.combos.size() ? " (the others have a failed or missing seed)" : "");
  std::vector<std::string> header = keys;
  for (const auto& ob : m.pareto.objectives) header.push_back(ob.metric.text);
  std::vector<std::vector<std::string>> rows;
  for (size_t i : f.order) {
    std::vector<std::string> row = f.combos[i].values;
    for (double v : f.values[i]) row.push_back(format_number(v));
    rows.push_back(row);
  }
  return o + md_table(header, rows);
}

// How many points failed or are missing, and a line per failure; "" when none.
std::string md_failures(const std::vector<PointResult>& results) {
  size_t failed = 0, missing = 0;
  for (const auto& r : results) {
    failed += r.status == Status::Failed;
    missing += r.status == Status::Missing;
  }
  if (!failed && !missing) return "";
  std::string o = "\n";
  if (failed) o += fmt::format("{} point{} failed", failed, failed == 1 ? "" : "s");
  if (failed && missing) o += ", ";
  if (missing) o += fmt::format("{} missing", missing);
  o += ".\n";
  for (const auto& r : results) {
    if (r.status != Status::Failed) continue;
    std::string last = r.stderr_tail;
    const auto nl = last.rfind('\n');
    if (nl != std::string::npos) last = last.substr(nl + 1);
    std::vector<std::string> kv;
    for (const auto& [k, v] : r.point.values) kv.push_back(k + "=" + v);
    o += fmt::format("- `{}` seed {}: {}{}\n", fmt::join(kv, " "), r.point.seed, r.error,
                     last.empty() ? "" : ": " + last);
  }
  return o;
}

std::string results_csv(const Manifest& m, const std::vector<PointResult>& results) {
  const Frontier front = m.pareto.any() ? frontier_of(m, results) : Frontier{};
  std::string csv;
  {
    std::vector<std::string> h;
    for (const auto& p : m.grid.params) h.push_back(csv_field(p.key));
    h.push_back("seed");
    for (const auto& k : m.metrics) h.push_back(csv_field(k));
    if (m.pareto.any()) h.push_back("pareto");
    h.push_back("status");
    h.push_back("id");
    csv += fmt::format("{}\n", fmt::join(h, ","));
  }
  for (const auto& r : results) {
    std::vector<std::string> f;
    for (const auto& kv : r.point.values) f.push_back(csv_field(kv.second));
    f.push_back(std::to_string(r.point.seed));
    for (const auto& v : r.metrics)
      f.push_back(csv_field(v.is_null() ? "" : v.is_string() ? v.get<std::string>() : v.dump()));
    if (m.pareto.any()) f.push_back(optimal_point(m, front, r) ? "true" : "false");
    f.push_back(status_name(r.status));
    f.push_back(r.point.id);
    csv += fmt::format("{}\n", fmt::join(f, ","));
  }
  return csv;
}

// One point in results.json (`optimal`: its setting is on the frontier, with --pareto).
json point_json(const Manifest& m, const PointResult& r, std::optional<bool> optimal) {
  json values = json::object();
  for (const auto& [k, v] : r.point.values) values[k] = typed_value(v);
  json metrics = json::object();
  for (size_t k = 0; k < m.metrics.size(); ++k) metrics[m.metrics[k]] = r.metrics[k];
  json p = {{"index", r.point.index},
            {"id", r.point.id},
            {"values", values},
            {"seed", r.point.seed},
            {"status", status_name(r.status)}};
  if (optimal) p["pareto"] = *optimal;
  if (r.status == Status::Ok) {
    p["dir"] = "points/" + r.point.id;
    p["metrics"] = metrics;
  }
  if (r.status == Status::Failed) {
    p["error"] = r.error;
    p["stderr_tail"] = r.stderr_tail;
  }
  return p;
}

// results.json's across_seeds: min, median and max of each metric per combination.
json across_seeds_json(const Manifest& m, const std::vector<PointResult>& results) {
  const Frontier f = m.pareto.any() ? frontier_of(m, results) : Frontier{};
  json agg = json::array();
  for (const auto& c : combos(m, results)) {
    json values = json::object();
    for (size_t i = 0; i < c.values.size(); ++i)
      values[m.grid.params[i].key] = typed_value(c.values[i]);
    json ms = json::object();
    size_t n = 0;
    for (const auto* r : c.runs) n += r->status == Status::Ok;
    for (size_t k = 0; k < m.metrics.size(); ++k) {
      const Spread s = spread_of(c, k, false);
      ms[m.metrics[k]] =
          s.mid ? json{{"min", *s.lo}, {"median", *s.mid}, {"max", *s.hi}} : json(nullptr);
    }
    json entry = {{"values", values}, {"ok_seeds", n}, {"metrics", ms}};
    if (m.pareto.any()) entry["pareto"] = optimal_point(m, f, *c.runs.front());
    agg.push_back(entry);
  }
  return agg;
}

// results.json's pareto: the objectives, how seeds combine, and the frontier in order.
json pareto_json(const Manifest& m, const std::vector<PointResult>& results) {
  const Frontier f = frontier_of(m, results);
  json objectives = json::array();
  for (const auto& o : m.pareto.objectives)
    objectives.push_back(
        {{"metric", o.metric.text}, {"sense", o.sense == tune::Sense::Min ? "min" : "max"}});
  json frontier = json::array();
  for (size_t i : f.order) {
    json values = json::object();
    for (size_t k = 0; k < f.combos[i].values.size(); ++k)
      values[m.grid.params[k].key] = typed_value(f.combos[i].values[k]);
    json obj = json::object();
    for (size_t k = 0; k < m.pareto.objectives.size(); ++k)
      obj[m.pareto.objectives[k].metric.text] = f.values[i][k];
    frontier.push_back({{"values", values}, {"objectives", obj}});
  }
  return {
      {"objectives", objectives},
      {"across_seeds", m.pareto.quantile ? json{{"quantile", *m.pareto.quantile}} : json("worst")},
      {"frontier", frontier}};
}

json results_json(const Manifest& m, const std::vector<PointResult>& results) {
  const auto& g = m.grid;
  const Frontier front = m.pareto.any() ? frontier_of(m, results) : Frontier{};
  json pts = json::array();
  size_t ok = 0, failed = 0, missing = 0;
  for (const auto& r : results) {
    ok += r.status == Status::Ok;
    failed += r.status == Status::Failed;
    missing += r.status == Status::Missing;
    pts.push_back(point_json(
        m, r, m.pareto.any() ? std::optional<bool>(optimal_point(m, front, r)) : std::nullopt));
  }
  json params = json::array();
  for (const auto& p : g.params) {
    json vals = json::array();
    for (const auto& v : p.values) vals.push_back(typed_value(v));
    params.push_back({{"key", p.key}, {"values", vals}});
  }
  json res = {{"schema_version", 1},
              {"scenario", m.scenario_name},
              {"scenario_fnv1a", m.scenario_hash},
              {"duration_s", m.duration_s},
              {"sets", g.sets},
              {"params", params},
              {"seeds", g.seeds},
              {"metrics", m.metrics},
              {"shard", m.shard.whole() ? json(nullptr)
                                        : json(fmt::format("{}/{}", m.shard.index, m.shard.count))},
              {"summary",
               {{"points", results.size()}, {"ok", ok}, {"failed", failed}, {"missing", missing}}},
              {"points", pts}};
  if (g.seeds.size() > 1) res["across_seeds"] = across_seeds_json(m, results);
  if (m.pareto.any()) res["pareto"] = pareto_json(m, results);
  return res;
}

}  // namespace

const std::vector<std::string>& default_metrics() {
  static const std::vector<std::string> m{"latency_tracer.max_us", "workloads.cyclictest.max_us",
                                          "disk.read_mb_s", "ticks.lost"};
  return m;
}

std::vector<std::string> parse_metrics(const std::string& text) {
  std::string why;
  const auto paths = metrics::parse_metric_list(text, why);
  if (!paths)
    throw GridError(fmt::format(
        "--metrics `{}`: {} (expected paths into metrics.json separated by commas, e.g. "
        "latency_tracer.max_us,cpus.0.stall_us.pci)",
        text, why));
  std::vector<std::string> out;
  for (const auto& p : *paths) out.push_back(p.text);
  return out;
}

std::vector<std::string> with_objectives(std::vector<std::string> metrics, const ParetoSpec& p) {
  for (const auto& o : p.objectives)
    if (std::find(metrics.begin(), metrics.end(), o.metric.text) == metrics.end())
      metrics.push_back(o.metric.text);
  return metrics;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

json Manifest::to_json() const {
  json params = json::array();
  for (const auto& p : grid.params) {
    json values = json::array();
    for (const auto& v : p.values) values.push_back(typed_value(v));
    params.push_back({{"key", p.key}, {"values", values}});
  }
  json j = {{"schema_version", 1},
            {"kind", "latsim-sweep"},
            {"scenario", scenario_path},
            {"scenario_name", scenario_name},
            {"scenario_fnv1a", scenario_hash},
            {"duration_s", duration_s},
            {"sets", grid.sets},
            {"params", params},
            {"seeds", grid.seeds},
            {"points", grid.size()},
            {"metrics", metrics},
            {"shard",
             shard.whole() ? json(nullptr) : json(fmt::format("{}/{}", shard.index, shard.count))}};
  if (pareto.any()) {  // only then, so that a sweep without one keeps its manifest
    j["pareto"] = pareto.text();
    if (pareto.quantile) j["pareto_quantile"] = *pareto.quantile;
  }
  return j;
}

Manifest Manifest::from_json(const json& j, const std::string& where) {
  try {
    if (j.value("kind", "") != "latsim-sweep" || j.value("schema_version", 0) != 1)
      throw std::runtime_error("not a latsim sweep manifest (schema_version 1)");
    Manifest m;
    m.scenario_path = j.at("scenario").get<std::string>();
    m.scenario_name = j.at("scenario_name").get<std::string>();
    m.scenario_hash = j.at("scenario_fnv1a").get<std::string>();
    m.duration_s = j.at("duration_s").get<double>();
    m.grid.sets = j.at("sets").get<std::vector<std::string>>();
    for (const auto& p : j.at("params")) {
      Param param{p.at("key").get<std::string>(), {}};
      for (const auto& v : p.at("values")) param.values.push_back(value_text(v));
      m.grid.params.push_back(param);
    }
    m.grid.seeds = j.at("seeds").get<std::vector<uint64_t>>();
    // Canonical, as an older sweep may have stored cpus[0].x.
    for (const auto& metric : j.at("metrics").get<std::vector<std::string>>())
      m.metrics.push_back(parse_metrics(metric).front());
    if (!j.at("shard").is_null()) m.shard = parse_shard(j.at("shard").get<std::string>());
    if (j.contains("pareto"))
      m.pareto = parse_pareto(j.at("pareto").get<std::string>(),
                              j.contains("pareto_quantile")
                                  ? std::optional<double>(j.at("pareto_quantile").get<double>())
                                  : std::nullopt);
    m.metrics = with_objectives(m.metrics, m.pareto);
    m.grid.check();
    return m;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", where, e.what()));
  }
}

Manifest Manifest::read(const fs::path& dir) {
  const fs::path p = dir / "sweep.json";
  json j;
  try {
    j = json::parse(read_text(p));
  } catch (const json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON ({})", p.string(), e.what()));
  }
  return from_json(j, p.string());
}

std::vector<std::string> Manifest::differences(const Manifest& o) const {
  std::vector<std::string> d;
  if (scenario_hash != o.scenario_hash)
    d.push_back(fmt::format("scenario content differs ({} fnv1a {} vs {} fnv1a {})", scenario_path,
                            scenario_hash, o.scenario_path, o.scenario_hash));
  if (grid.sets != o.grid.sets)
    d.push_back(fmt::format("fixed overrides differ ([{}] vs [{}])", fmt::join(grid.sets, " "),
                            fmt::join(o.grid.sets, " ")));
  std::vector<std::string> a, b;
  for (const auto& p : grid.params)
    a.push_back(p.key + "=" + fmt::format("{}", fmt::join(p.values, ",")));
  for (const auto& p : o.grid.params)
    b.push_back(p.key + "=" + fmt::format("{}", fmt::join(p.values, ",")));
  if (a != b)
    d.push_back(fmt::format("params differ ({} vs {})", fmt::join(a, " "), fmt::join(b, " ")));
  if (grid.seeds != o.grid.seeds)
    d.push_back(fmt::format("seeds differ ({} vs {})", fmt::join(grid.seeds, ","),
                            fmt::join(o.grid.seeds, ",")));
  return d;
}

std::vector<size_t> Manifest::indices() const {
  std::vector<size_t> v;
  for (size_t i = 0; i < grid.size(); ++i)
    if (shard.holds(i)) v.push_back(i);
  return v;
}

fs::path point_dir(const fs::path& dir, const Point& p) { return dir / "points" / p.id; }
fs::path point_failure(const fs::path& dir, const Point& p) {
  return dir / "points" / (p.id + ".failed.json");
}
fs::path point_stderr(const fs::path& dir, const Point& p) {
  return dir / "points" / (p.id + ".stderr.txt");
}

void write_failure(const fs::path& dir, const Point& p, const std::string& error,
                   const std::string& stderr_tail) {
  const json j = {
      {"id", p.id}, {"point", p.canonical}, {"error", error}, {"stderr_tail", stderr_tail}};
  platform::write_file_atomic(point_failure(dir, p), j.dump(2) + "\n");
}

std::vector<PointResult> collect(const fs::path& dir, const Manifest& m,
                                 const std::vector<size_t>& indices) {
  std::vector<PointResult> out;
  for (size_t i : indices) {
    PointResult r;
    r.point = m.grid.point(i);
    const fs::path metrics = point_dir(dir, r.point) / "metrics.json";
    std::error_code ec;
    if (platform::run_complete(point_dir(dir, r.point))) {
      json j;
      try {
        j = json::parse(read_text(metrics));
      } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("{}: {}", metrics.string(), e.what()));
      }
      r.status = Status::Ok;
      for (const auto& name : m.metrics) {
        r.metrics.push_back(at_path(j, name));
        const std::string sib = avg_sibling(name);
        r.avg.push_back(sib.empty() ? json(nullptr) : at_path(j, sib));
      }
    } else if (fs::is_regular_file(point_failure(dir, r.point), ec)) {
      r.status = Status::Failed;
      try {
        const json f = json::parse(read_text(point_failure(dir, r.point)));
        r.error = f.value("error", "failed");
        r.stderr_tail = f.value("stderr_tail", "");
      } catch (const std::exception&) {
        r.error = "failed (its failure record is unreadable)";
      }
    }
    if (r.status != Status::Ok) {
      r.metrics.assign(m.metrics.size(), nullptr);
      r.avg.assign(m.metrics.size(), nullptr);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> unknown_metrics(const fs::path& dir, const Manifest& m,
                                         const std::vector<PointResult>& results) {
  const auto& defaults = default_metrics();
  std::vector<std::string> problems;
  for (size_t k = 0; k < m.metrics.size(); ++k) {
    if (std::find(defaults.begin(), defaults.end(), m.metrics[k]) != defaults.end()) continue;
    std::string why, error;
    bool found = false, any = false;
    for (const auto& r : results) {
      if (r.status != Status::Ok) continue;
      found = !r.metrics[k].is_null();
      if (!found) {  // absent, or present as null: read it again to tell
        const json j = json::parse(read_text(point_dir(dir, r.point) / "metrics.json"));
        found =
            bool(metrics::metric_at(j, *metrics::parse_metric_path(m.metrics[k], error), error));
        if (!any) why = error;
      }
      any = true;
      if (found) break;
    }
    if (any && !found)
      problems.push_back(
          fmt::format("metric `{}` is in no finished point's metrics.json: {}", m.metrics[k], why));
  }
  return problems;
}

std::string markdown(const Manifest& m, const std::vector<PointResult>& results) {
  const auto keys = short_keys(m.grid);
  std::string o = md_intro(m, keys, results.size());
  o += md_points(m, keys, results);
  if (m.grid.params.size() == 2 && !m.metrics.empty()) o += md_grid(m, keys, results);
  if (m.pareto.any()) o += md_frontier(m, keys, results);
  return o + md_failures(results);
}

std::vector<std::string> write_results(const fs::path& dir, const Manifest& m,
                                       const std::vector<PointResult>& results) {
  std::vector<std::string> written;
  platform::write_file_atomic(dir / "results.csv", results_csv(m, results));
  written.push_back("results.csv");
  platform::write_file_atomic(dir / "results.json", results_json(m, results).dump(2) + "\n");
  written.push_back("results.json");
  platform::write_file_atomic(dir / "results.md", markdown(m, results));
  written.push_back("results.md");

  // An earlier run's plots that this run does not make go: none is left stale.
  const auto files = plots(m, results);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (is_plot_file(name) && !files.count(name)) fs::remove(e.path(), ec);
  }
  for (const auto& [name, svg] : files) {
    platform::write_file_atomic(dir / name, svg);
    written.push_back(name);
  }
  return written;
}

}  // namespace latsim::sweep
