#pragma once
// Load generators of the 2004 latency tests, each a task loop that may be limited
// to a time window (latencytest runs them one after another): a non-RT CPU
// burner, /proc reads, UDP-like network out and in, file write (head -c N
// /dev/zero > tmpfile), file copy (cp) and file read (cat > /dev/null).
#include <string>
#include "workloads/program.h"

namespace latsim::workloads {

struct Window {
  sc_time start = sc_core::SC_ZERO_TIME;
  sc_time stop = sc_core::sc_max_time();
};

// Sleep (tick-granular) until the window opens; false once it has closed.
bool enter_window(Kernel& k, const Window& w);
[[noreturn]] void sleep_forever(Kernel& k);

constexpr uint64_t kReadFileLba = 8000000;    // assumption: tmpfile ~4 GB into hda
constexpr uint64_t kWriteFileLba = 20000000;  // assumption: the copy ~10 GB into hda

// One loop each; they return when the window closes.
void cpu_burn(Kernel& k, const Window& w, uint64_t misses_per_ms);
void proc_read(Kernel& k, const Window& w, Spinlock& tasklist_lock);
void net_out(Kernel& k, const Window& w, double packets_per_s, uint32_t bytes);
void net_in(Kernel& k, const Window& w);
void disk_write(Kernel& k, const Window& w, int block_kb);
void disk_copy(Kernel& k, const Window& w, int block_kb);
void disk_read(Kernel& k, const Window& w, int block_kb);

// A standalone load of one kind, running for the whole scenario.
class StressLoad : public Program {
 public:
  struct Params {
    std::string kind;  // cpu_burner | proc_read | net_out | net_in | disk_write | disk_copy
    int nice = 0;
    double packets_per_s = 8000;  // net_out
    uint32_t bytes = 1472;        // net_out: UDP payload of a full 1514-byte frame
    int file_mb = 350;            // disk_*: 350,000,000-byte tmpfile (CALIBRATION.md)
    int block_kb = 64;
    Window window;
  };
  StressLoad(std::string name, Params p) : name_(std::move(name)), p_(std::move(p)) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override;

 private:
  std::string name_;
  Params p_;
  Spinlock tasklist_lock_{"tasklist_lock"};
};

// Start the task(s) for one kind within `w`; shared by StressLoad and latencytest.
void start_stress(Kernel& k, const std::string& kind, const StressLoad::Params& p,
                  Spinlock& tasklist_lock);

}  // namespace latsim::workloads
