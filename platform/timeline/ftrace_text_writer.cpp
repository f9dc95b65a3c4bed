#include "platform/timeline/ftrace_text_writer.h"
#include <fmt/format.h>
#include <stdexcept>
#include "platform/timeline/stream_file.h"

namespace latsim::platform::timeline {

FtraceTextWriter::FtraceTextWriter(std::string path, TimeWindow window, int ncpus)
    : path_(std::move(path)), w_(window) {
  f_ = std::fopen((path_ + ".tmp").c_str(), "wb");
  if (!f_) throw std::runtime_error("cannot write " + path_ + ".tmp");
  // The header of /sys/kernel/debug/tracing/trace (nop tracer, irq-info on).
  buf_ = fmt::format(
      "# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:{}\n#\n"
      "#                                _-----=> irqs-off\n"
      "#                               / _----=> need-resched\n"
      "#                              | / _---=> hardirq/softirq\n"
      "#                              || / _--=> preempt-depth\n"
      "#                              ||| /     delay\n"
      "#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION\n"
      "#              | |         |   ||||      |         |\n",
      ncpus);
}

FtraceTextWriter::~FtraceTextWriter() {
  if (!f_) return;
  std::fclose(f_);
  std::remove((path_ + ".tmp").c_str());
}

void FtraceTextWriter::head(int cpu, uint64_t ps, bool irqs_off, const SchedTask& cur) {
  const uint64_t us = ps / 1000000;
  fmt::format_to(std::back_inserter(buf_), "{:>16}-{:<7} [{:03d}] {}... {:>5}.{:06d}: ", cur.comm,
                 cur.pid, cpu, irqs_off ? 'd' : '.', us / 1000000, unsigned(us % 1000000));
}

void FtraceTextWriter::sched_switch(int cpu, uint64_t ps, bool irqs_off, const SchedTask& prev,
                                    char prev_state, const SchedTask& next) {
  if (!w_.contains(ps)) return;
  head(cpu, ps, irqs_off, prev);
  fmt::format_to(std::back_inserter(buf_),
                 "sched_switch: prev_comm={} prev_pid={} prev_prio={} prev_state={} ==> "
                 "next_comm={} next_pid={} next_prio={}\n",
                 prev.comm, prev.pid, prev.prio, prev_state, next.comm, next.pid, next.prio);
  if (buf_.size() > (1u << 20)) std::fwrite(buf_.data(), 1, buf_.size(), f_), buf_.clear();
}

void FtraceTextWriter::sched_wakeup(int cpu, uint64_t ps, bool irqs_off, const SchedTask& waker,
                                    const SchedTask& p, int target_cpu) {
  if (!w_.contains(ps)) return;
  head(cpu, ps, irqs_off, waker);
  fmt::format_to(std::back_inserter(buf_),
                 "sched_wakeup: comm={} pid={} prio={} target_cpu={:03d}\n", p.comm, p.pid, p.prio,
                 target_cpu);
  if (buf_.size() > (1u << 20)) std::fwrite(buf_.data(), 1, buf_.size(), f_), buf_.clear();
}

void FtraceTextWriter::finish() {
  if (!f_) return;
  close_streamed_file(f_, buf_, path_, "");
}

}  // namespace latsim::platform::timeline
