#include "platform/timeline/session.h"
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <stdexcept>
#include "platform/run.h"
#include "platform/timeline/timeline_recorder.h"
#include "platform/timeline/trace_dat_recorder.h"
#include "platform/timeline/vcd_recorder.h"

namespace latsim::platform::timeline {

std::unique_ptr<Session> Session::attach(const Scenario& s, Machine& m, kernel::Kernel& k,
                                         TimeWindow w, OutputTransaction* tx) {
  if (s.outputs.timeline.empty() && s.outputs.vcd.empty() && s.outputs.trace_dat.empty())
    return nullptr;
  auto stage = [tx](const std::string& path) { return tx ? tx->stage(path) : path; };
  std::unique_ptr<Session> ss(new Session);
  const auto& masters = m.pci.master_names();
  // The board's interrupt wires, named after their pins.
  const std::vector<std::pair<irq::IrqLine*, const char*>> lines = {
      {&m.pit.out0, "pit_out0"},
      {&m.ide.intrq, "ide_intrq"},
      {&m.pic_master.intr, "pic_master_int"},
      {&m.pic_slave.intr, "pic_slave_int"},
      {&m.nic.inta, "rtl8139_inta"},
      {&m.sound.inta, "es1371_inta"}};
  std::vector<std::string> names;
  for (const auto& l : lines) names.push_back(l.second);
  if (!s.outputs.timeline.empty()) {
    const std::string& detail = s.outputs.timeline_detail;
    const bool functions =
        detail == "functions" || (detail != "tasks" && !s.outputs.timeline_window.empty());
    ss->timeline_ = std::make_unique<TimelineRecorder>(k, masters, stage(s.outputs.timeline),
                                                       stage(ftrace_path_for(s.outputs.timeline)),
                                                       w, functions);
    ss->kobs_.push_back(ss->timeline_.get());
    ss->probes_.push_back(ss->timeline_.get());
  }
  if (!s.outputs.vcd.empty()) {
    std::vector<std::string> counters;
    if (m.video) counters.push_back("video_fifo_level");
    ss->vcd_ =
        std::make_unique<VcdRecorder>(stage(s.outputs.vcd), w, k.ncpus(), names, masters, counters);
    ss->kobs_.push_back(ss->vcd_.get());
    ss->probes_.push_back(ss->vcd_.get());
  }
  if (!s.outputs.trace_dat.empty()) {
    ss->trace_dat_ = std::make_unique<TraceDatRecorder>(k, masters, stage(s.outputs.trace_dat), w);
    ss->kobs_.push_back(ss->trace_dat_.get());
    ss->probes_.push_back(ss->trace_dat_.get());
  }
  k.set_observer(ss.get());
  m.pci.set_probe(ss.get());
  for (auto& c : m.cpus) c->set_probe(ss.get());
  for (const auto& l : lines) l.first->set_probe(ss.get(), l.second);
  if (m.video) {
    Session* p = ss.get();
    m.video->on_level(
        [p](sc_core::sc_time t, unsigned n) { p->counter("video_fifo_level", t, n); });
  }
  return ss;
}

Session::~Session() = default;

bool Session::failed() const {
  return (timeline_ && timeline_->failed()) || (vcd_ && vcd_->failed()) ||
         (trace_dat_ && trace_dat_->failed());
}

void Session::finish(sc_core::sc_time end, const nlohmann::json* blame) {
  if (timeline_) timeline_->finish(end, blame);
  if (vcd_) vcd_->finish(end);
  if (trace_dat_) trace_dat_->finish(end);
}

void Session::sched_switch(int cpu, sc_core::sc_time t, const kernel::Task& prev,
                           const kernel::Task& next) {
  for (auto* o : kobs_) o->sched_switch(cpu, t, prev, next);
}
void Session::lock_spin(int cpu, sc_core::sc_time from, sc_core::sc_time to, const char* lock,
                        int holder) {
  for (auto* o : kobs_) o->lock_spin(cpu, from, to, lock, holder);
}
void Session::sched_wakeup(int cpu, sc_core::sc_time t, const kernel::Task& p, int target) {
  for (auto* o : kobs_) o->sched_wakeup(cpu, t, p, target);
}
void Session::function_entry(int cpu, sc_core::sc_time t, const char* fn, const char* parent) {
  // (the VCD has no use for it; the trace.dat takes IF changes' callers from it)
  if (timeline_) timeline_->function_entry(cpu, t, fn, parent);
  if (trace_dat_) trace_dat_->function_entry(cpu, t, fn, parent);
}
void Session::irq_entry(int cpu, sc_core::sc_time t, unsigned vector, bool nmi) {
  for (auto* o : kobs_) o->irq_entry(cpu, t, vector, nmi);
}
void Session::irq_exit(int cpu, sc_core::sc_time t) {
  for (auto* o : kobs_) o->irq_exit(cpu, t);
}
void Session::softirq_entry(int cpu, sc_core::sc_time t) {
  for (auto* o : kobs_) o->softirq_entry(cpu, t);
}
void Session::softirq_exit(int cpu, sc_core::sc_time t) {
  for (auto* o : kobs_) o->softirq_exit(cpu, t);
}
void Session::softirq_action_entry(int cpu, sc_core::sc_time t, unsigned nr) {
  if (trace_dat_) trace_dat_->softirq_action_entry(cpu, t, nr);
}
void Session::softirq_action_exit(int cpu, sc_core::sc_time t, unsigned nr) {
  if (trace_dat_) trace_dat_->softirq_action_exit(cpu, t, nr);
}
void Session::preempt_toggle(int cpu, sc_core::sc_time t, bool disabled,
                             const kernel::CodeSite& site) {
  if (trace_dat_) trace_dat_->preempt_toggle(cpu, t, disabled, site);
}
void Session::critical_edge(int cpu, sc_core::sc_time t, bool critical,
                            const kernel::CodeSite& site) {
  for (auto* o : kobs_) o->critical_edge(cpu, t, critical, site);
}
void Session::irq_line(const char* name, sc_core::sc_time t, bool level) {
  for (auto* p : probes_) p->irq_line(name, t, level);
}
void Session::pci_train(int master, sc_core::sc_time start, sc_core::sc_time end,
                        sc_core::sc_time period, sc_core::sc_time tenure, uint64_t bytes) {
  for (auto* p : probes_) p->pci_train(master, start, end, period, tenure, bytes);
}
void Session::pci_host_hold(sc_core::sc_time from, sc_core::sc_time to) {
  for (auto* p : probes_) p->pci_host_hold(from, to);
}
void Session::counter(const char* name, sc_core::sc_time t, uint64_t value) {
  for (auto* p : probes_) p->counter(name, t, value);
}

void Session::cpu_if(int cpu, sc_core::sc_time t, bool enabled) {
  for (auto* p : probes_) p->cpu_if(cpu, t, enabled);
}
void Session::pci_train_deferred(int master, sc_core::sc_time old_start, sc_core::sc_time start,
                                 sc_core::sc_time end) {
  if (timeline_) timeline_->pci_train_deferred(master, old_start, start, end);
  if (trace_dat_) trace_dat_->pci_train_deferred(master, old_start, start, end);
}
void Session::fsb_holdoff(int cpu, sc_core::sc_time from, sc_core::sc_time to, int master) {
  if (timeline_) timeline_->fsb_holdoff(cpu, from, to, master);  // not a VCD signal (yet)
  if (trace_dat_) trace_dat_->fsb_holdoff(cpu, from, to, master);
}
void Session::fifo_stall(int cpu, sc_core::sc_time from, sc_core::sc_time to) {
  if (trace_dat_) trace_dat_->fifo_stall(cpu, from, to);
}

std::string ftrace_path_for(const std::string& timeline_path) {
  std::string p = timeline_path;
  if (p.size() > 5 && p.compare(p.size() - 5, 5, ".json") == 0) p.resize(p.size() - 5);
  return p + ".ftrace.txt";
}

TimeWindow resolve_window(const Scenario& s) {
  const WindowSpec spec = parse_window_spec(s.outputs.timeline_window);
  if (spec.around_max_ps == 0) return spec.fixed;
  const uint64_t span = spec.around_max_ps;
  // Runs are deterministic: a first run without recorders finds when the longest
  // section was; this process then records the same run around it.
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    int rc = 1;
    try {
      Scenario c = s;
      c.outputs.timeline.clear();
      c.outputs.vcd.clear();
      c.outputs.trace_dat.clear();
      c.outputs.timeline_window.clear();
      RunOptions o;  // no out_dir: the trigger run writes nothing
      o.quiet = true;
      o.progress = false;
      const RunResult r = run_scenario(c, o);
      const std::string msg =
          fmt::format("{} {}\n", to_ps(r.max_section_start), to_ps(r.max_section_end));
      rc = ::write(fds[1], msg.data(), msg.size()) == ssize_t(msg.size()) ? 0 : 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "latsim: trigger run: %s\n", e.what());
    }
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(rc);
  }
  ::close(fds[1]);
  char buf[128] = {};
  ssize_t n = 0, got = 0;
  while ((n = ::read(fds[0], buf + got, sizeof buf - 1 - size_t(got))) > 0) got += n;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  unsigned long long a = 0, b = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || std::sscanf(buf, "%llu %llu", &a, &b) != 2)
    throw std::runtime_error("the trigger run (to find the maximum latency) failed");
  return window_around(a + (b - a) / 2, span);
}

}  // namespace latsim::platform::timeline
