#include "tools/bench/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace latsim::bench {
namespace {

double rate(double count, double wall_s) { return wall_s > 0 ? count / wall_s : 0; }

// 12345678 -> "12,345,678": rates of millions read at a glance.
std::string grouped(double v) {
  std::string digits = fmt::format("{:.0f}", std::round(v));
  for (int i = int(digits.size()) - 3; i > 0; i -= 3) digits.insert(size_t(i), ",");
  return digits;
}

// Terminal columns of UTF-8 text ("×" is one); every character here is one column wide.
size_t columns(const std::string& s) {
  return size_t(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

using Row = std::vector<std::string>;

const Row kHeader{"scenario", "simulated s",          "wall s", "× real time", "events/s",
                  "threads",  "raw SystemC events/s", "ratio",  "peak RSS MB"};

Row scenario_cells(const ScenarioRow& s, double raw) {
  return {s.name,
          fmt::format("{:.3f}", s.simulated_s),
          fmt::format("{:.3f}", s.wall_s),
          fmt::format("{:.2f}", s.x_real_time),
          grouped(s.events_per_s()),
          std::to_string(s.threads),
          raw > 0 ? grouped(raw) : "",
          raw > 0 ? fmt::format("{:.3f}", s.events_per_s() / raw) : "",
          fmt::format("{:.1f}", s.peak_rss_mb)};
}

// All rings in one line (each one's rate is in its scenarios' rows): their summed time, their
// overall rate, the range of thread counts and the largest RSS.
Row pingpong_cells(const std::vector<PingpongRow>& rings) {
  double sim = 0, wall = 0, deltas = 0, rss = 0;
  for (const auto& p : rings) {
    sim += double(p.hops) * 1e-9;  // one nanosecond per hop
    wall += p.wall_s;
    deltas += double(p.deltas);
    rss = std::max(rss, p.peak_rss_mb);
  }
  const int lo = rings.front().threads, hi = rings.back().threads;
  return {"SystemC ping-pong",
          fmt::format("{:.3f}", sim),
          fmt::format("{:.3f}", wall),
          fmt::format("{:.2f}", rate(sim, wall)),
          grouped(rate(deltas, wall)),
          lo == hi ? std::to_string(lo) : fmt::format("{}..{}", lo, hi),
          "",
          "",
          fmt::format("{:.1f}", rss)};
}

std::string padded(const std::string& s, size_t width, bool left) {
  const std::string fill(width - std::min(width, columns(s)), ' ');
  return left ? s + fill : fill + s;
}

// One line: the first column left-aligned, numbers right-aligned.
std::string line(const Row& cells, const std::vector<size_t>& widths, bool markdown) {
  std::string out = markdown ? "| " : "";
  for (size_t c = 0; c < cells.size(); ++c) {
    if (c > 0) out += markdown ? " | " : "  ";
    out += padded(cells[c], widths[c], c == 0);
  }
  return out + (markdown ? " |\n" : "\n");
}

// Dashes under the header (markdown: the delimiter row, which also aligns the columns).
std::string rule(const std::vector<size_t>& widths, bool markdown) {
  Row cells;
  for (size_t c = 0; c < widths.size(); ++c) {
    const std::string dashes(widths[c] - (markdown ? 1 : 0), '-');
    cells.push_back(!markdown ? dashes : c == 0 ? ":" + dashes : dashes + ":");
  }
  return line(cells, widths, markdown);
}

}  // namespace

double ScenarioRow::events_per_s() const { return rate(double(delta_cycles), wall_s); }

double PingpongRow::events_per_s() const { return rate(double(deltas), wall_s); }

double Report::raw_rate(int threads) const {
  for (const auto& p : pingpong)
    if (p.threads == threads) return p.events_per_s();
  return 0;
}

std::string format_table(const Report& r, bool markdown) {
  std::vector<Row> rows{kHeader};
  for (const auto& s : r.scenarios) rows.push_back(scenario_cells(s, r.raw_rate(s.threads)));
  if (!r.pingpong.empty()) rows.push_back(pingpong_cells(r.pingpong));
  std::vector<size_t> widths(kHeader.size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], columns(row[c]));
  std::string out = line(rows[0], widths, markdown) + rule(widths, markdown);
  for (size_t i = 1; i < rows.size(); ++i) out += line(rows[i], widths, markdown);
  return out;
}

nlohmann::json report_json(const Report& r) {
  nlohmann::json scenarios = nlohmann::json::array(), pingpong = nlohmann::json::array();
  for (const auto& s : r.scenarios) {
    const double raw = r.raw_rate(s.threads);
    scenarios.push_back({{"name", s.name},
                         {"file", s.file},
                         {"simulated_seconds", s.simulated_s},
                         {"wall_seconds", s.wall_s},
                         {"x_real_time", s.x_real_time},
                         {"delta_cycles", s.delta_cycles},
                         {"events_per_s", s.events_per_s()},
                         {"systemc_threads", s.threads},
                         {"raw_events_per_s", raw},
                         {"ratio", raw > 0 ? s.events_per_s() / raw : 0.0},
                         {"peak_rss_mb", s.peak_rss_mb}});
  }
  for (const auto& p : r.pingpong)
    pingpong.push_back({{"threads", p.threads},
                        {"hops", p.hops},
                        {"deltas", p.deltas},
                        {"wall_seconds", p.wall_s},
                        {"events_per_s", p.events_per_s()},
                        {"peak_rss_mb", p.peak_rss_mb}});
  return {{"scenarios", scenarios}, {"pingpong", pingpong}};
}

}  // namespace latsim::bench
