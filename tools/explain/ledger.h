#pragma once
// A run's blame ledgers (traces/blame.json, written by platform/blame_json.cpp) read back
// and grouped the way a kernel engineer asks: which bus master, which port, which lock,
// which interrupt, which function.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace latsim::explain {

// One row of the explanation: a cause, its time and what it was doing.
struct Row {
  std::string kind;   // bus_master, pci, isa, video_fifo, spin, interrupt, softirq, code, ...
  std::string label;  // "bus-master DMA by ide", "executing __copy_to_user_ll"
  std::string name;   // the master, port, lock, interrupt or function on its own
  uint64_t ps = 0;
  double share = 0;      // of the section
  std::string detail;    // who was held, by whom, in which functions
  std::string sentence;  // the row as a clause: "held off memory by ide's bus-master DMA"
};

struct Explained {
  nlohmann::json trace;   // the trace's ledger as blame.json has it
  std::vector<Row> rows;  // largest first
};

// Picoseconds as microseconds with one decimal, truncated: "2302.3".
std::string us(uint64_t ps);

// Reads RUN_DIR/traces/blame.json after checking that the directory is a complete run
// of this latsim; throws std::runtime_error with a one-line reason otherwise.
nlohmann::json load_ledgers(const std::filesystem::path& run_dir);
// The kept trace `n` (1 = the longest), or the longest section when n == 0.
const nlohmann::json& pick_trace(const nlohmann::json& ledgers, int n);
Explained explain_trace(const nlohmann::json& trace);
// The longest cyclictest wake-up of any thread (blame.json "windows", measure "wake-up").
const nlohmann::json& pick_wakeup(const nlohmann::json& ledgers);
// The window named `label` ("latencytest dsk wrt loop"); the error lists the labels.
const nlohmann::json& pick_window(const nlohmann::json& ledgers, const std::string& label);
// A trace's ledger, or a measured window's (it has a "label").
bool is_window(const nlohmann::json& t);
// "traces/max.txt: 2302.3 us on CPU1, task cc1/318, kmap_atomic+0x23/0xe0 .. ..."
std::string title(const nlohmann::json& t);
// The title, then the three largest causes as clauses.
std::string summary_sentence(const Explained& e);

}  // namespace latsim::explain
