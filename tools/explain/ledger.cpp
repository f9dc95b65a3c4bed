#include "tools/explain/ledger.h"
#include <fmt/format.h>
#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>
#include "platform/outputs.h"

namespace latsim::explain {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", p.string()));
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON ({})", p.string(), e.what()));
  }
}

// The row a cause belongs to: its kind and name, as a reader groups them.
struct Group {
  std::string kind, name, label, sentence;
};

Group group_of(const json& c) {
  const std::string kind = c.value("kind", ""), name = c.value("name", "");
  const std::string context = c.value("context", ""), irq = c.value("interrupt", "");
  if (kind == "bus_master")
    return {kind, name, "bus-master DMA by " + name,
            fmt::format("held off the bus by {}'s bus-master DMA", name)};
  // Port cycles: one row per bridge, the ports in its detail.
  if (kind == "pci") return {kind, "pci", "PCI port/MMIO cycles", "in PCI port and MMIO cycles"};
  if (kind == "isa")
    return {kind, "isa", "ISA port cycles", "in ISA port cycles (behind the PCI-ISA bridge)"};
  if (kind == "video_fifo")  // whichever port the CPU was after, the card held the bus
    return {kind, "video card", "bus held by the full video FIFO",
            "stalled while the video card's full command FIFO held the PCI bus"};
  if (kind == "spin") return {kind, name, "spinning on " + name, "spinning on " + name};
  if (kind == "smm") return {kind, name, "SMI handler (SMM)", "in the BIOS's SMI handler"};
  if (kind == "halted") return {kind, name, "hlt", "halted"};
  if (context == "irq" || context == "nmi")
    return {"interrupt", irq, "interrupt " + irq, "in the " + irq + " interrupt"};
  if (context == "softirq") return {"softirq", "softirq", "softirqs", "in softirqs"};
  if (context == "user") {
    const std::string task = c.value("task", "");
    return {"user", task, "user code of " + task, "in user code of " + task};
  }
  if (context == "idle") return {"idle", "idle", "idle loop", "in the idle loop"};
  return {"code", name, "executing " + name, "executing " + name};
}

// "a 128 KB read at sector 8312576 issued for cat/303"
std::string request_of(const json& c) {
  const json& r = c["request"];
  return fmt::format("a {} KB {} at sector {} issued for {}", r.value("kb", 0),
                     r.value("direction", ""), r.value("sector", 0), r.value("issued_for", "?"));
}

// Where inside a row the time went: "__copy_to_user_ll (IRQ 0 timer)", the task named
// when it is not the trace's own.
std::string where_of(const json& c, const std::string& kind, const std::string& trace_task) {
  if (kind == "spin")
    return fmt::format("held by {} on CPU{} in {}", c.value("holder", "?"),
                       c.value("holder_cpu", -1), c.value("holder_fn", "?"));
  const std::string fn = c.value("fn", c.value("name", ""));
  const std::string irq = c.value("interrupt", ""), task = c.value("task", "");
  std::string w = fn.empty() ? task : fn;
  if (kind == "video_fifo" || kind == "pci" || kind == "isa") w = c.value("name", "") + " in " + w;
  if (!irq.empty() && kind != "interrupt") w += " (" + irq + ")";
  if (kind != "user" && !fn.empty() && !task.empty() && task != trace_task) w += " of " + task;
  return w;
}

}  // namespace

std::string us(uint64_t ps) { return fmt::format("{:.1f}", double(ps / 100000) / 10.0); }

json load_ledgers(const fs::path& run_dir) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec))
    throw std::runtime_error(fmt::format("{}: no such run directory", run_dir.string()));
  if (!fs::exists(run_dir / "COMPLETE", ec))
    throw std::runtime_error(
        fmt::format("{}: not a complete latsim run (no COMPLETE file)", run_dir.string()));
  const json info = read_json(run_dir / "run-info.json");
  const std::string made_by = info.value("/versions/latsim"_json_pointer, std::string("?"));
  if (made_by != platform::kLatsimVersion)
    throw std::runtime_error(fmt::format("{} was written by latsim {}, this is {}: rerun it",
                                         run_dir.string(), made_by, platform::kLatsimVersion));
  const fs::path ledgers = run_dir / "traces" / "blame.json";
  if (!fs::exists(ledgers, ec))
    throw std::runtime_error(fmt::format(
        "{}: no blame ledger (traces/blame.json): the run was made without tracing or with "
        "tracing.blame=false; rerun it with --set tracing.enabled=true --set tracing.blame=true",
        run_dir.string()));
  return read_json(ledgers);
}

const json& pick_wakeup(const json& ledgers) {
  const json* worst = nullptr;
  if (ledgers.contains("windows"))
    for (const auto& w : ledgers["windows"])
      if (w.value("measure", "") == "wake-up" &&
          (!worst || w["length_ps"].get<uint64_t>() > (*worst)["length_ps"].get<uint64_t>()))
        worst = &w;
  if (!worst)
    throw std::runtime_error(
        "the run has no cyclictest wake-up ledger (no cyclictest workload, or none woke late)");
  return *worst;
}

const json& pick_window(const json& ledgers, const std::string& label) {
  std::vector<std::string> labels;
  if (ledgers.contains("windows"))
    for (const auto& w : ledgers["windows"]) {
      if (w.value("label", "") == label) return w;
      labels.push_back(fmt::format("\"{}\"", w.value("label", "")));
    }
  throw std::runtime_error(
      labels.empty() ? fmt::format("--window \"{}\": the run measured no window (no cyclictest or "
                                   "latencytest workload)",
                                   label)
                     : fmt::format("--window \"{}\": no such window; the run has {}", label,
                                   fmt::join(labels, ", ")));
}

const json& pick_trace(const json& ledgers, int n) {
  if (n == 0) {
    if (!ledgers.contains("max"))
      throw std::runtime_error("the run saw no critical section: there is nothing to explain");
    return ledgers["max"];
  }
  const auto& traces = ledgers["traces"];
  if (n < 1 || size_t(n) > traces.size())
    throw std::runtime_error(
        traces.empty() ? fmt::format("--trace {}: the run kept no trace over the threshold", n)
                       : fmt::format("--trace {}: the run kept {} traces (1..{})", n, traces.size(),
                                     traces.size()));
  return traces[size_t(n - 1)];
}

Explained explain_trace(const json& trace) {
  Explained e;
  e.trace = trace;
  const uint64_t length = trace.value("length_ps", uint64_t(0));
  const std::string task = trace.value("task", "");
  std::map<std::pair<std::string, std::string>, size_t> index;  // (kind, name) -> row
  std::vector<std::map<std::string, uint64_t>> where;           // per row: place -> ps
  std::vector<std::map<std::string, uint64_t>> requests;        // per row: disk request -> ps
  for (const auto& c : trace["causes"]) {
    const Group g = group_of(c);
    auto [it, added] = index.emplace(std::make_pair(g.kind, g.name), e.rows.size());
    if (added) {
      e.rows.push_back({g.kind, g.label, g.name, 0, 0, "", g.sentence});
      where.emplace_back();
      requests.emplace_back();
    }
    const uint64_t ps = c.value("ps", uint64_t(0));
    e.rows[it->second].ps += ps;
    where[it->second][where_of(c, g.kind, task)] += ps;
    if (c.contains("request")) requests[it->second][request_of(c)] += ps;
  }
  for (size_t i = 0; i < e.rows.size(); ++i) {
    Row& r = e.rows[i];
    r.share = length ? double(r.ps) / double(length) : 0;
    std::vector<std::pair<uint64_t, std::string>> top;
    for (const auto& [w, ps] : where[i]) top.emplace_back(ps, w);
    std::stable_sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.first > b.first; });
    if (top.size() == 1 && top[0].second == r.name) top.clear();  // "executing f": in f
    for (size_t k = 0; k < top.size() && k < 3; ++k)
      r.detail += fmt::format("{}{} {} us", k ? "; " : "", top[k].second, us(top[k].first));
    if (top.size() > 3) r.detail += fmt::format("; {} more", top.size() - 3);
    // A bus master's row says which disk request it was moving, the largest first.
    std::string req;
    uint64_t req_ps = 0;
    for (const auto& [q, ps] : requests[i])
      if (ps > req_ps) req = q, req_ps = ps;
    if (!req.empty()) {
      r.sentence += " (" + req + (requests[i].size() > 1 ? ", and others" : "") + ")";
      r.detail = req + (requests[i].size() > 1 ? " and others" : "") + "; held in " + r.detail;
    }
  }
  std::stable_sort(e.rows.begin(), e.rows.end(),
                   [](const Row& a, const Row& b) { return a.ps > b.ps; });
  return e;
}

bool is_window(const json& t) { return t.contains("label"); }

std::string title(const json& t) {
  if (is_window(t) && t.value("measure", "") == "wake-up")
    return fmt::format("{} (pid {}) woke {} us late on CPU{}", t.value("label", ""),
                       t.value("pid", -1), us(t.value("length_ps", 0ull)), t.value("cpu", 0));
  if (is_window(t))  // latencytest: "the CPU loop" or "write to write" took
    return fmt::format(
        "{} (pid {}): {} us on CPU{}{}", t.value("label", ""), t.value("pid", -1),
        us(t.value("length_ps", 0ull)), t.value("cpu", 0),
        t.value("measure", "") == "write" ? ", from one write's return to the next's" : "");
  std::string s =
      fmt::format("traces/{}: {} us on CPU{}, task {}, {} .. {}", t.value("file", ""),
                  us(t.value("length_ps", 0ull)), t.value("cpu", 0), t.value("task", ""),
                  t.value("started_at", ""), t.value("ended_at", ""));
  // A section a spinlock's acquisition opened: the lock and the task that took it.
  if (!t.value("lock", "").empty())
    s += fmt::format("; opened as {} took {}", t.value("opened_by", ""), t.value("lock", ""));
  return s;
}

// Why the time other tasks ran did not go to the woken one: the CPU halted until an
// interrupt came (nothing had woken it yet); the others' code ran with preemption or
// interrupts off; or at a priority at least the woken task's (the kernel's scale: lower is
// higher); or below it with preemption on, before the timer's interrupt or the reschedule
// it asked for was taken (need_resched to the switch; a store the bus holds delays both).
struct NotPreempted {
  uint64_t halted = 0, off = 0, higher = 0, pending = 0;
};

std::string not_preempted_clause(const NotPreempted& n) {
  std::vector<std::string> parts;
  auto part = [&](uint64_t ps, const char* why) {
    if (ps >= 100000) parts.push_back(fmt::format("{} us {}", us(ps), why));  // 0.1 us shown
  };
  part(n.halted, "halted until an interrupt");
  part(n.off, "not preemptible");
  part(n.higher, "at an equal or higher priority");
  part(n.pending, "at a lower priority, before the wake-up was acted on");
  if (parts.empty()) return "";
  std::string s = " (";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s + ")";
}

// For a window: the time other tasks ran on its CPU and why they were not preempted, and
// how much of the window had preemption or interrupts off (a critical section, which
// nothing could preempt).
std::string window_clause(const json& t) {
  const std::string self = fmt::format("/{}", t.value("pid", -1));
  const int prio = t.value("prio", -1);
  uint64_t others = 0, off = 0;
  NotPreempted why;
  std::map<std::string, uint64_t> who;
  for (const auto& c : t["causes"]) {
    const uint64_t ps = c.value("ps", uint64_t(0));
    const bool critical = c.value("critical", false);
    if (critical) off += ps;
    const std::string task = c.value("task", "");
    if (task.empty() || (task.size() >= self.size() &&
                         task.compare(task.size() - self.size(), self.size(), self) == 0))
      continue;
    others += ps;
    who[task] += ps;
    if (c.value("kind", "") == "halted")
      why.halted += ps;
    else if (critical)
      why.off += ps;
    else if (c.value("prio", prio) <= prio)
      why.higher += ps;
    else
      why.pending += ps;
  }
  const double length = double(t.value("length_ps", uint64_t(1)));
  std::vector<std::pair<uint64_t, std::string>> ranked;
  for (const auto& [task, ps] : who) ranked.emplace_back(ps, task);
  std::sort(ranked.rbegin(), ranked.rend());
  std::string s;
  if (others) {
    s += fmt::format("; other tasks ran {} us ({:.0f} %): ", us(others),
                     100 * double(others) / length);
    for (size_t i = 0; i < ranked.size() && i < 3; ++i)
      s += fmt::format("{}{} {} us", i ? ", " : "", ranked[i].second, us(ranked[i].first));
    // Not for a write (the thread slept in it), nor a ledger without priorities.
    if (t.value("measure", "") != "write" && prio >= 0) s += not_preempted_clause(why);
  }
  return s + fmt::format("; {} us ({:.0f} %) with preemption or interrupts off", us(off),
                         100 * double(off) / length);
}

std::string summary_sentence(const Explained& e) {
  const json& t = e.trace;
  std::string s = is_window(t)
                      ? title(t)
                      : fmt::format("{} us on CPU{} ({}, {} .. {}", us(t.value("length_ps", 0ull)),
                                    t.value("cpu", 0), t.value("task", ""),
                                    t.value("started_at", ""), t.value("ended_at", ""));
  if (!is_window(t) && !t.value("lock", "").empty())
    s += fmt::format("; opened as {} took {}", t.value("opened_by", ""), t.value("lock", ""));
  s += is_window(t) ? ":" : "):";
  for (size_t i = 0; i < e.rows.size() && i < 3; ++i)
    s += fmt::format("{} {} us ({:.0f} %) {}", i ? ";" : "", us(e.rows[i].ps),
                     100 * e.rows[i].share, e.rows[i].sentence);
  if (e.rows.size() > 3) s += fmt::format("; {} smaller causes", e.rows.size() - 3);
  if (is_window(t)) s += window_clause(t);
  return s + ".";
}

}  // namespace latsim::explain
