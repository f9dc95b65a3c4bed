#include "platform/timeline/ftrace_text_writer.h"
#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>
#include "platform/timeline/stream_file.h"

namespace latsim::platform::timeline {

std::string ftrace_comm(std::string_view comm) {
  std::string c(comm);
  if (c.size() > 4 && c.compare(0, 4, "IRQ ") == 0 &&
      c.find_first_not_of("0123456789", 4) == std::string::npos)
    return "irq/" + c.substr(4);
  std::replace(c.begin(), c.end(), ' ', '_');
  return c;
}

FtraceTextWriter::FtraceTextWriter(std::string path, TimeWindow window, int ncpus)
    : path_(std::move(path)), w_(window), ncpus_(ncpus) {
  f_ = std::make_unique<StreamFile>(path_);
  out_.put(header(0));
}

// The header of /sys/kernel/debug/tracing/trace (nop tracer, irq-info on). The counts are
// known at the end, when finish() writes them over the first line: it is padded to a fixed
// width with trailing spaces.
std::string FtraceTextWriter::header(uint64_t entries) const {
  std::string counts =
      fmt::format("# entries-in-buffer/entries-written: {}/{}   #P:{}", entries, entries, ncpus_);
  counts.resize(std::max<size_t>(counts.size(), 86), ' ');  // two 20-digit counts fit
  return fmt::format(
      "# tracer: nop\n#\n{}\n#\n"
      "#                                _-----=> irqs-off\n"
      "#                               / _----=> need-resched\n"
      "#                              | / _---=> hardirq/softirq\n"
      "#                              || / _--=> preempt-depth\n"
      "#                              ||| /     delay\n"
      "#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION\n"
      "#              | |         |   ||||      |         |\n",
      counts);
}

FtraceTextWriter::~FtraceTextWriter() = default;

// "{:>16}-{:<7} [{:03d}] {}... {:>5}.{:06d}: " written by hand: one line per
// switch and wakeup of a whole run.
void FtraceTextWriter::head(int cpu, uint64_t ps, bool irqs_off, const SchedTask& cur) {
  const uint64_t us = ps / 1000000;
  ++entries_;
  out_.put_padded(ftrace_comm(cur.comm), 16, true);
  out_.put('-');
  out_.put_padded(fmt::format_int(cur.pid).c_str(), 7, false);
  out_.put(" [");
  out_.put_uint_padded(uint64_t(cpu), 3, '0');
  out_.put("] ");
  out_.put(irqs_off ? 'd' : '.');
  out_.put("... ");
  out_.put_uint_padded(us / 1000000, 5, ' ');
  out_.put('.');
  out_.put_uint_padded(us % 1000000, 6, '0');
  out_.put(": ");
}

void FtraceTextWriter::put_task(const char* comm, const char* pid, const char* prio,
                                const SchedTask& t) {
  out_.put(comm);
  out_.put(ftrace_comm(t.comm));
  out_.put(pid);
  out_.put(fmt::format_int(t.pid).c_str());
  out_.put(prio);
  out_.put(fmt::format_int(t.prio).c_str());
}

void FtraceTextWriter::sched_switch(int cpu, uint64_t ps, bool irqs_off, const SchedTask& prev,
                                    char prev_state, const SchedTask& next) {
  if (!w_.contains(ps)) return;
  head(cpu, ps, irqs_off, prev);
  put_task("sched_switch: prev_comm=", " prev_pid=", " prev_prio=", prev);
  out_.put(" prev_state=");
  out_.put(prev_state);
  put_task(" ==> next_comm=", " next_pid=", " next_prio=", next);
  out_.put('\n');
  out_.drain_to(*f_);
}

void FtraceTextWriter::sched_wakeup(int cpu, uint64_t ps, bool irqs_off, const SchedTask& waker,
                                    const SchedTask& p, int target_cpu) {
  if (!w_.contains(ps)) return;
  head(cpu, ps, irqs_off, waker);
  put_task("sched_wakeup: comm=", " pid=", " prio=", p);
  out_.put(" target_cpu=");
  out_.put_uint_padded(uint64_t(target_cpu), 3, '0');
  out_.put('\n');
  out_.drain_to(*f_);
}

bool FtraceTextWriter::failed() const { return f_ && f_->failed(); }

void FtraceTextWriter::finish() {
  if (!f_) return;
  const auto f = std::move(f_);
  f->write(out_.take());
  f->write_at(0, header(entries_));
  f->finish({});
}

}  // namespace latsim::platform::timeline
