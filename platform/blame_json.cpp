#include "platform/blame_json.h"
#include <fmt/format.h>
#include <algorithm>
#include <map>
#include "kernel_sim/trace/kernel_blame.h"

namespace latsim::platform {
namespace {

using kernel::BlameItem;
using kernel::BlameKind;

std::string task_name(const BlameItem& i) {
  return i.key.pid < 0 ? std::string() : fmt::format("{}/{}", i.task, i.key.pid);
}

// The outermost interrupt's source as /proc/interrupts names it.
std::string intr_name(const RunView& v, int src) {
  if (src == int(kernel::INTR_NMI)) return "NMI";
  if (src == int(kernel::INTR_LOC)) return "LOC";
  if (src == int(kernel::INTR_IPI)) return "IPI";
  if (src == int(kernel::INTR_EXT)) return "external";  // before get_irq named the line
  if (src < 0 || src >= int(kernel::NR_IRQS)) return "";
  const std::string& n = v.k.irq_desc(unsigned(src)).name;
  return fmt::format("IRQ {}{}{}", src, n.empty() ? "" : " ", n);
}

std::string master_name(const RunView& v, int64_t id) {
  const auto& names = v.m.pci.master_names();
  if (id < 0 || size_t(id) >= names.size()) return "unnamed bus master";
  return names[size_t(id)];
}

// What the cause is, in a few words: the function, master, port or lock.
std::string cause_name(const RunView& v, const BlameItem& i) {
  const auto& k = i.key;
  switch (k.kind) {
    case BlameKind::Code:
      return k.context == kernel::BlameContext::User ? "user code" : std::string(k.fn);
    case BlameKind::BusMaster:
      return master_name(v, k.id);
    case BlameKind::Pci:
    case BlameKind::Isa:
    case BlameKind::VideoFifo:
      return k.id < 0x10000 ? fmt::format("port 0x{:x}", k.id) : fmt::format("mmio 0x{:x}", k.id);
    case BlameKind::Spin:
      return k.lock;
    case BlameKind::Smm:
      return "SMI handler";
    case BlameKind::Halted:
      return "hlt";
  }
  return "";
}

nlohmann::json cause_json(const RunView& v, const BlameItem& i, uint64_t total_ps) {
  const auto& k = i.key;
  nlohmann::json c = {{"kind", kernel::blame_kind_name(k.kind)},
                      {"name", cause_name(v, i)},
                      {"ps", i.ps},
                      {"us", double(i.ps / 1000) / 1000.0},
                      {"share", total_ps ? double(i.ps) / double(total_ps) : 0.0}};
  c["context"] = kernel::blame_context_name(k.context);
  c["critical"] = k.critical;  // preemption or interrupts off: nothing could preempt it
  if (k.irq >= 0) c["interrupt"] = intr_name(v, k.irq);
  if (k.kind == BlameKind::Spin) {
    c["holder"] = task_name(i);
    c["holder_cpu"] = k.id;
    c["holder_fn"] = k.fn;
  } else {
    c["task"] = task_name(i);
    if (k.kind != BlameKind::Code) c["fn"] = k.fn;
    if (k.prio >= 0) c["prio"] = k.prio;  // the kernel's: 0..99 real-time, 100..139 nice
  }
  if (k.request) {
    const auto& r = i.request;
    c["request"] = {{"sector", r.sector},
                    {"sectors", r.sectors},
                    {"kb", r.sectors / 2},
                    {"direction", r.write ? "write" : "read"},
                    {"issued_for", r.pid < 0 ? std::string() : fmt::format("{}/{}", r.comm, r.pid)},
                    {"command", r.seq}};
  }
  return c;
}

// An interval's ledger: its span, the sum of its causes and the causes, largest first.
nlohmann::json interval_blame(const RunView& v, const std::vector<BlameItem>& ledger,
                              sc_core::sc_time start, sc_core::sc_time end) {
  std::vector<BlameItem> items = ledger;
  // Largest first; equal ones keep the order they were first charged in.
  std::stable_sort(items.begin(), items.end(),
                   [](const BlameItem& a, const BlameItem& b) { return a.ps > b.ps; });
  const uint64_t length = (end - start).value();
  uint64_t sum = 0;
  nlohmann::json causes = nlohmann::json::array();
  for (const auto& i : items) {
    sum += i.ps;
    causes.push_back(cause_json(v, i, length));
  }
  return {{"t_start_ps", start.value()},
          {"t_end_ps", end.value()},
          {"length_ps", length},
          {"blamed_ps", sum},
          {"causes", causes}};
}

}  // namespace

nlohmann::json trace_blame(const RunView& v, const kernel::LatencyTrace& t) {
  nlohmann::json j = interval_blame(v, t.blame, t.t_start, t.t_end);
  j["latency_us"] = t.latency_us;
  j["cpu"] = t.cpu;
  j["task"] = fmt::format("{}/{}", t.task.comm, t.task.pid);
  j["opened_by"] = fmt::format("{}/{}", t.opened_by.comm, t.opened_by.pid);
  j["lock"] = t.lock;
  j["started_at"] = kernel::format_site(t.start);
  j["ended_at"] = kernel::format_site(t.end);
  return j;
}

namespace {

nlohmann::json by_kind(const RunView& v, const std::vector<BlameItem>& items, uint64_t length) {
  std::map<std::string, std::map<std::string, uint64_t>> ps;  // kind -> name -> ps
  for (const auto& i : items) ps[kernel::blame_kind_name(i.key.kind)][cause_name(v, i)] += i.ps;
  auto entry = [length](uint64_t p) {
    return nlohmann::json{{"us", double(p / 1000) / 1000.0},
                          {"share", length ? double(p) / double(length) : 0.0}};
  };
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [kind, names] : ps) {
    uint64_t total = 0;
    for (const auto& [name, p] : names) {
      total += p;
      // By name only what is at least 0.1 % of the interval: the kind's total has the rest.
      if (p * 1000 >= length) j[kind]["by"][name] = entry(p);
    }
    j[kind].update(entry(total));
  }
  return j;
}

}  // namespace

nlohmann::json blame_summary(const RunView& v) {
  nlohmann::json j = nlohmann::json::object();
  const auto& tr = v.k.tracer();
  if (tr.sections()) {
    const auto& t = tr.max_trace();
    j["max"] = by_kind(v, t.blame, (t.t_end - t.t_start).value());
  }
  const kernel::WindowBlame* worst = nullptr;  // the longest cyclictest wake-up
  if (const kernel::KernelBlame* b = v.k.blame())
    for (const auto& w : b->windows())
      if (w.measure == "wake-up" && (!worst || w.end - w.start > worst->end - worst->start))
        worst = &w;
  if (worst) j["cyclictest"] = by_kind(v, worst->items, (worst->end - worst->start).value());
  return j;
}

nlohmann::json blame_ledgers(const RunView& v) {
  const auto& tr = v.k.tracer();
  nlohmann::json j = {{"traces", nlohmann::json::array()}};
  int n = 0;
  for (const auto& t : tr.traces()) {
    nlohmann::json e = trace_blame(v, t);
    e["file"] = kernel::LatencyTracer::file_name(++n, t);
    j["traces"].push_back(std::move(e));
  }
  if (tr.sections()) {
    j["max"] = trace_blame(v, tr.max_trace());
    j["max"]["file"] = "max.txt";
  }
  // Each measured interval's longest (a cyclictest thread's wake-up, a latencytest phase's
  // CPU loop or write), on the CPU where it ended.
  j["windows"] = nlohmann::json::array();
  if (const kernel::KernelBlame* b = v.k.blame())
    for (const auto& w : b->windows()) {
      nlohmann::json e = interval_blame(v, w.items, w.start, w.end);
      e["label"] = w.label;
      e["measure"] = w.measure;
      e["pid"] = w.pid;
      e["prio"] = w.prio;
      e["cpu"] = w.cpu;
      e["latency_us"] = (w.end - w.start).value() / 1000000;
      j["windows"].push_back(std::move(e));
    }
  return j;
}

}  // namespace latsim::platform
