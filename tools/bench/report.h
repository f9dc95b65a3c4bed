#pragma once
// What `latsim bench` measured, as the table it prints and the JSON file it writes.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace latsim::bench {

// One `latsim run` child: its run-info.json figures and the peak RSS wait4 reported.
struct ScenarioRow {
  std::string name, file;
  double simulated_s = 0, wall_s = 0, x_real_time = 0, peak_rss_mb = 0;
  uint64_t delta_cycles = 0;
  int threads = 0;              // SystemC thread processes (run-info.json's systemc_threads)
  double events_per_s() const;  // delta cycles per wall second
};

// One `latsim bench --pingpong N` child: the bare SystemC kernel with N threads.
struct PingpongRow {
  int threads = 0;
  uint64_t hops = 0, deltas = 0;
  double wall_s = 0, peak_rss_mb = 0;
  double events_per_s() const;
};

struct Report {
  std::vector<ScenarioRow> scenarios;
  std::vector<PingpongRow> pingpong;  // one per distinct thread count, ascending
  // The ping-pong rate for a scenario's thread count; 0 when none was measured.
  double raw_rate(int threads) const;
};

// The table: a row per scenario and a last one for all the rings, aligned in columns
// (markdown: a Markdown pipe table).
std::string format_table(const Report& r, bool markdown);
nlohmann::json report_json(const Report& r);

}  // namespace latsim::bench
