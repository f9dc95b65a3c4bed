#pragma once
// Benno Senoner's latencytest 0.42 as Mark H Johnson ran it in 2004 (seed 000):
// a SCHED_FIFO audio writer at the highest priority writes fragments of
// 3 x 256 bytes (44.1 kHz, 16-bit stereo) to the sound card and, after each
// write, runs a CPU loop calibrated at 80 % of a fragment; a non-RT CPU burner
// keeps the other CPU busy; the stress loads run one after another, each for
// phase_s. Per phase: the longest write-to-write period and CPU loop above
// nominal, and the share of samples within 1 ms and 2 ms of nominal.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include "workloads/latencytest_samples.h"
#include "workloads/stress.h"

namespace latsim::workloads {

struct LatencytestParams {
  int fragments = 3;
  int fragment_bytes = 256;
  unsigned rate_hz = 44100;
  double cpu_load = 0.80;  // CPU loop: share of a fragment
  int priority = 99;       // highest SCHED_FIFO priority
  bool burner = true;      // the non-RT CPU burner on the other CPU
  double warmup_s = 0.5;   // before the first phase (buffer fill, boot noise)
  double phase_s = 5.0;
  // In the seed's order; "x11" needs a video card driver: approximated, see stress.
  std::vector<std::string> phases = {"x11",        "proc",      "net_out",  "net_in",
                                     "disk_write", "disk_copy", "disk_read"};
  double net_packets_per_s = 8000;  // assumption: close to 100 Mbit/s of full frames
  uint32_t net_bytes = 1472;        // UDP payload of a 1514-byte frame
  int file_mb = 350;
  int block_kb = 64;
};

struct LatencytestPhase {
  std::string name;
  Window window;
  uint64_t samples = 0;
  double max_cpu_ms = 0, max_write_ms = 0;
  sc_time max_cpu_at;    // the longest CPU loop's start
  int max_cpu_cpu = -1;  // and the CPU it started on
  sc_time max_write_at;  // when the longest write-to-write interval ended (its write returned)
  // What the longest loop's CPU did meanwhile: the loop probe's counters, end - start.
  std::vector<std::pair<std::string, double>> max_cpu_breakdown;
  uint64_t cpu_within1 = 0, cpu_within2 = 0, write_within1 = 0, write_within2 = 0;
};

class Latencytest : public Program {
 public:
  Latencytest(std::string name, LatencytestParams p);
  const std::string& name() const override { return name_; }
  bool measures() const override { return true; }
  void start(Kernel& k) override;

  double fragment_ms() const;  // nominal write-to-write period
  double cpu_ms() const;       // nominal CPU loop
  const std::vector<LatencytestPhase>& phases() const { return phases_; }
  const LatencytestParams& params() const { return p_; }
  // [start, stop) of a named phase, in seconds; false if the run has no such phase.
  static bool phase_window(const LatencytestParams& p, const std::string& phase, double& start_s,
                           double& stop_s);
  // The seed's "BASIC RESULTS" table with this run's column, plus the factors.
  std::string report(const std::string& kernel_version) const;
  static std::string phase_label(const std::string& phase);
  // Observer of every measured sample (write-to-write period and CPU loop in ms, and
  // when the write returned): the per-sample plot of the 2004 tool.
  using SampleHook = std::function<void(double write_ms, double cpu_ms, sc_time at)>;
  void on_sample(SampleHook f) { sample_hook_ = std::move(f); }
  // Named counters of one CPU (time in interrupts by source, stalls by cause...), read
  // at the start and end of every CPU loop on the CPU it started on; each phase keeps
  // their differences over its longest loop (LatencytestPhase::max_cpu_breakdown).
  using Counters = std::vector<std::pair<std::string, double>>;
  using LoopProbe = std::function<Counters(int cpu)>;
  void set_loop_probe(LoopProbe f) { loop_probe_ = std::move(f); }

  // The machine's CPU counters as the loop probe; every sample kept for the plot.
  void attach(const Attachment& a) override;
  nlohmann::json metrics(Kernel& k, double sim_s) const override;
  void collect(PlotData& plots) const override;

 private:
  void audio(Kernel& k);
  void record(double write_ms, double cpu_ms, sc_time at, sc_time loop_start, int cpu,
              const Counters& before);
  // Closes blame window `id` (a `measure`) of the sample taken at `at`, labelled
  // "latencytest dsk wrt <what>"; dropped when no phase counts the sample.
  void close_window(Kernel& k, int id, sc_time at, bool measured, const char* what,
                    const char* measure) const;
  std::string name_;
  LatencytestParams p_;
  std::vector<LatencytestPhase> phases_;
  uint64_t cpu_cycles_ = 0;
  Spinlock tasklist_lock_{"tasklist_lock"};
  SampleHook sample_hook_;
  LoopProbe loop_probe_;
  std::optional<LatencytestSamples> samples_;
};

}  // namespace latsim::workloads
