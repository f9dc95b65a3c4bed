#pragma once
// ftrace text of the scheduler events (`trace` file of the nop tracer with
// sched_switch/sched_wakeup enabled), which Perfetto and KernelShark-style
// tools import. Streamed to disk like the timeline.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include "platform/timeline/out_buffer.h"
#include "platform/timeline/stream_file.h"
#include "platform/timeline/time_window.h"

namespace latsim::platform::timeline {

// A task name as trace parsers split it: no spaces ("IRQ 14" -> "irq/14", as Linux names
// its interrupt threads; any other space -> '_').
std::string ftrace_comm(std::string_view comm);

struct SchedTask {
  std::string_view comm;
  int pid, prio;
};

class FtraceTextWriter {
 public:
  // Writes to `path`, closed (fsync'd) by finish(); throws OutputError if it cannot open it.
  FtraceTextWriter(std::string path, TimeWindow window, int ncpus);
  ~FtraceTextWriter();
  FtraceTextWriter(const FtraceTextWriter&) = delete;
  FtraceTextWriter& operator=(const FtraceTextWriter&) = delete;

  // prev_state: R (preempted), S, D or X, as the kernel's task_state_to_char.
  void sched_switch(int cpu, uint64_t ps, bool irqs_off, const SchedTask& prev, char prev_state,
                    const SchedTask& next);
  void sched_wakeup(int cpu, uint64_t ps, bool irqs_off, const SchedTask& waker, const SchedTask& p,
                    int target_cpu);
  bool failed() const;  // a write failed: finish() throws it
  void finish();

 private:
  std::string header(uint64_t entries) const;
  void head(int cpu, uint64_t ps, bool irqs_off, const SchedTask& cur);
  void put_task(const char* comm, const char* pid, const char* prio, const SchedTask& t);
  std::string path_;
  TimeWindow w_;
  std::unique_ptr<StreamFile> f_;
  OutBuffer out_;
  int ncpus_;
  uint64_t entries_ = 0;
};

}  // namespace latsim::platform::timeline
