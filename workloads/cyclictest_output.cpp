// What cyclictest prints (rt-tests src/cyclictest/cyclictest.c print_stat,
// print_hist, write_stats; src/lib/rt-utils.c rt_write_json), byte for byte as
// Debian's rt-tests 2.4 writes them.
#include <fmt/format.h>
#include <ctime>
#include "workloads/cyclictest.h"
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {

// rt-tests' VERSION printed with "%1.2f"; the layout copied is that of rt-tests 2.4.
constexpr const char* kRtTestVersion = "2.40";

int64_t avg_of(const CyclicStats& s) { return s.cycles ? int64_t(s.sum / double(s.cycles)) : 0; }

// "%a, %d %b %Y %H:%M:%S %z" of a simulated instant (the epoch is the boot).
std::string rfc2822(double seconds) {
  const std::time_t t = std::time_t(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

// A string's JSON text without its quotes, escaped by the JSON library: control
// characters as \uXXXX, invalid UTF-8 replaced (a kernel.version may hold either).
std::string json_string(const std::string& s) {
  const std::string quoted =
      nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

}  // namespace

std::string Cyclictest::cmdline(const std::string& json_file) const {
  std::string c = "cyclictest";
  if (nthreads() > 1) c += fmt::format(" -t {}", nthreads());
  c += fmt::format(" -p {} -i {}", p_.priority, p_.interval_us);
  if (nthreads() > 1 && p_.histogram_us == 0) c += fmt::format(" -d {}", p_.distance_us);
  if (p_.loops) c += fmt::format(" -l {}", p_.loops);
  if (pin_all_) c += " -a";
  for (size_t i = 0; i < pinned_.size(); ++i)
    c += fmt::format("{}{}", i ? "," : " -a ", pinned_[i]);
  if (p_.priospread) c += " --priospread";
  if (p_.posix_timers) c += " -x";
  if (p_.histogram_us) c += fmt::format(" -h {}", p_.histogram_us);
  c += " -q";
  if (!json_file.empty()) c += " --json=" + json_file;
  return c;
}

std::string Cyclictest::summary_line(int thread) const {
  const CyclicStats& s = st_[size_t(thread)];
  return fmt::format("T:{:2d} ({:5d}) P:{:2d} I:{} C:{:7d} Min:{:7d} Act:{:5d} Avg:{:5d} Max:{:8d}",
                     thread, s.pid, prio_[size_t(thread)], intv_[size_t(thread)], s.cycles, s.min,
                     s.act, avg_of(s), s.max);
}

std::string Cyclictest::report() const {
  if (p_.histogram_us > 0) return histogram_block();
  std::string out;
  for (int i = 0; i < nthreads(); ++i) out += summary_line(i) + "\n";
  return out;
}

std::string Cyclictest::histogram_block() const {
  // print_hist(): bucket rows "%06d " with per-thread "%06lu" columns separated by
  // tabs, then the per-thread summary rows.
  std::string out = "# Histogram\n";
  for (int i = 0; i < p_.histogram_us; ++i) {
    out += fmt::format("{:06d} ", i);
    for (size_t j = 0; j < st_.size(); ++j) {
      auto it = st_[j].histogram.find(i);
      out += fmt::format("{:06d}", it == st_[j].histogram.end() ? 0 : it->second);
      if (j + 1 < st_.size()) out += "\t";
    }
    out += "\n";
  }
  auto row = [&](const char* title, const char* f, auto value) {
    out += title;
    for (const auto& s : st_) out += fmt::format(fmt::runtime(f), value(s));
    out += "\n";
  };
  row("# Total:", " {:09d}", [](const CyclicStats& s) { return s.cycles - s.overflows; });
  row("# Min Latencies:", " {:05d}", [](const CyclicStats& s) { return s.min; });
  row("# Avg Latencies:", " {:05d}", [](const CyclicStats& s) { return avg_of(s); });
  row("# Max Latencies:", " {:05d}", [](const CyclicStats& s) { return s.max; });
  row("# Histogram Overflows:", " {:05d}", [](const CyclicStats& s) { return s.overflows; });
  out += "# Histogram Overflow at cycle number:\n";
  for (size_t j = 0; j < st_.size(); ++j) {
    const auto& s = st_[j];
    out += fmt::format("# Thread {}:", j);
    for (uint64_t c : s.outliers) out += fmt::format(" {:05d}", c);
    if (s.overflows > s.outliers.size())
      out += fmt::format(" # {:05d} others", s.overflows - s.outliers.size());
    out += "\n";
  }
  return out + "\n";
}

std::string Cyclictest::json(const CyclictestRunInfo& r) const {
  std::string o = "{\n";
  o += "  \"file_version\": 1,\n";
  o += fmt::format("  \"cmdline:\": \"{}\",\n", json_string(r.cmdline));
  o += fmt::format("  \"rt_test_version:\": \"{}\",\n", kRtTestVersion);
  o += fmt::format("  \"start_time\": \"{}\",\n", rfc2822(r.start_s));
  o += fmt::format("  \"end_time\": \"{}\",\n", rfc2822(r.end_s));
  o += "  \"return_code\": 0,\n";
  o += "  \"sysinfo\": {\n";
  o += "    \"sysname\": \"Linux\",\n";
  o += "    \"nodename\": \"latsim\",\n";
  o += fmt::format("    \"release\": \"{}\",\n", json_string(r.release));
  o += fmt::format("    \"version\": \"{}\",\n", json_string(r.version));
  o += "    \"machine\": \"i686\",\n";
  o += fmt::format("    \"realtime\": {}\n", r.realtime ? 1 : 0);
  o += "  },\n";
  o += fmt::format("  \"num_threads\": {},\n", nthreads());
  o += "  \"resolution_in_ns\": 0,\n";  // the -N flag, not a resolution
  o += "  \"thread\": {\n";
  for (size_t j = 0; j < st_.size(); ++j) {
    const CyclicStats& s = st_[j];
    o += fmt::format("    \"{}\": {{\n", j);
    // Only buckets below -h with a count; without -h the object is empty.
    std::string h;
    if (p_.histogram_us > 0)
      for (const auto& [us, n] : s.histogram)
        if (us >= 0 && us < p_.histogram_us && n)
          h += fmt::format("{}        \"{}\": {}", h.empty() ? "" : ",\n", us, n);
    o += h.empty() ? "      \"histogram\": {      },\n"
                   : "      \"histogram\": {\n" + h + "\n      },\n";
    o += fmt::format("      \"cycles\": {},\n", s.cycles);
    o += fmt::format("      \"min\": {},\n", s.min);
    o += fmt::format("      \"max\": {},\n", s.max);
    o += fmt::format("      \"avg\": {:.2f},\n", s.cycles ? s.sum / double(s.cycles) : 0.0);
    o += fmt::format("      \"cpu\": {},\n", s.cpu);
    o += "      \"node\": 0\n";
    o += j + 1 < st_.size() ? "    },\n" : "    }\n";
  }
  o += "  }\n}";
  return o;
}

std::string Cyclictest::timerlat_top(const std::map<int, TimerlatStats>& cpus, double duration_s) {
  // timerlat_top.c: header, then "%3d #%-9llu |" and "%9llu " columns, in µs.
  const uint64_t d = uint64_t(duration_s);
  std::string o = "                                     Timer Latency\n";
  o += fmt::format(
      "{:3d} {:02d}:{:02d}:{:02d}   |          IRQ Timer Latency (us)        |"
      "         Thread Timer Latency (us)\n",
      d / 86400, d / 3600 % 24, d / 60 % 60, d % 60);
  o += "CPU COUNT      |      cur       min       avg       max |      cur       min       avg"
       "       max\n";
  for (const auto& [cpu, t] : cpus) {
    auto avg = [n = t.count](double sum) { return n ? uint64_t(sum / double(n)) : 0; };
    o += fmt::format("{:3d} #{:<9d} |", cpu, t.count);
    for (uint64_t v : {t.irq_cur, t.irq_min, avg(t.irq_sum), t.irq_max})
      o += fmt::format("{:9d} ", v / 1000);
    o += "|";
    for (uint64_t v : {t.thr_cur, t.thr_min, avg(t.thr_sum), t.thr_max})
      o += fmt::format("{:9d} ", v / 1000);
    o += "\n";
  }
  return o;
}

namespace {

// --json file of a cyclictest workload: cyclictest.json, or cyclictest-<name>.json.
std::string json_file_name(const std::string& name) {
  return name == "cyclictest" ? "cyclictest.json" : "cyclictest-" + name + ".json";
}

void merge(TimerlatStats& a, const TimerlatStats& b) {
  if (!b.count) return;
  if (!a.count || b.irq_min < a.irq_min) a.irq_min = b.irq_min;
  if (!a.count || b.thr_min < a.thr_min) a.thr_min = b.thr_min;
  a.irq_max = std::max(a.irq_max, b.irq_max);
  a.thr_max = std::max(a.thr_max, b.thr_max);
  a.irq_cur = b.irq_cur;
  a.thr_cur = b.thr_cur;
  a.irq_sum += b.irq_sum;
  a.thr_sum += b.thr_sum;
  a.count += b.count;
}

// One thread's figures with the rtla timerlat split: IRQ (timer fired -> handler) and
// thread (-> running).
nlohmann::json thread_metrics(const Cyclictest& c, int i) {
  const auto& st = c.stats(i);
  auto avg_us = [&](double ns) { return st.cycles ? round3(ns / double(st.cycles) / 1e3) : 0.0; };
  return {{"pid", st.pid},
          {"cpu", st.cpu},
          {"priority", c.priority(i)},
          {"interval_us", c.interval_us(i)},
          {"count", st.cycles},
          {"min_us", st.min},
          {"avg_us", st.cycles ? round3(st.sum / double(st.cycles)) : 0.0},
          {"max_us", st.max},
          {"irq_latency_us",
           {{"min", round3(st.irq_min_ns / 1e3)},
            {"avg", avg_us(st.irq_sum_ns)},
            {"max", round3(st.irq_max_ns / 1e3)}}},
          {"thread_latency_us",
           {{"min", round3(st.thr_min_ns / 1e3)},
            {"avg", avg_us(st.thr_sum_ns)},
            {"max", round3(st.thr_max_ns / 1e3)}}},
          {"handler_to_thread_us",
           {{"min", round3(st.after_irq_min_ns / 1e3)},
            {"avg", avg_us(st.after_irq_sum_ns)},
            {"max", round3(st.after_irq_max_ns / 1e3)}}},
          {"timer_overruns", st.timer_overruns},
          {"context_switches", st.context_switches},
          {"migrations", st.migrations}};
}

}  // namespace

// count/min/avg/max over all threads, then each thread.
nlohmann::json Cyclictest::metrics(Kernel&, double) const {
  uint64_t count = 0;
  int64_t mn = 0, mx = 0;
  double sum = 0;
  uint64_t irq_max = 0, thr_max = 0;
  nlohmann::json threads = nlohmann::json::array();
  for (int i = 0; i < nthreads(); ++i) {
    const auto& st = stats(i);
    if (st.cycles && (count == 0 || st.min < mn)) mn = st.min;
    mx = std::max(mx, st.max);
    count += st.cycles;
    sum += st.sum;
    irq_max = std::max(irq_max, st.irq_max_ns);
    thr_max = std::max(thr_max, st.thr_max_ns);
    threads.push_back(thread_metrics(*this, i));
  }
  return {{"count", count},
          {"min_us", mn},
          {"avg_us", count ? round3(sum / double(count)) : 0.0},
          {"max_us", mx},
          {"irq_latency_max_us", round3(irq_max / 1e3)},
          {"thread_latency_max_us", round3(thr_max / 1e3)},
          {"threads", threads}};
}

// One histogram plot per measuring thread.
void Cyclictest::collect(PlotData& plots) const {
  for (int i = 0; i < nthreads(); ++i) {
    const auto& st = stats(i);
    const std::string task = nthreads() > 1 ? fmt::format("{}-T{}", name(), i) : name();
    plots.histograms.push_back({task,
                                {st.histogram.begin(), st.histogram.end()},
                                double(st.min),
                                st.cycles ? st.sum / double(st.cycles) : 0.0,
                                double(st.max),
                                st.cycles});
  }
}

// cyclictest -q: the summary lines, or with -h the histogram block instead;
// --json=cyclictest.json; and the same samples as `rtla timerlat top` shows them.
void Cyclictest::write_files(const std::vector<const Cyclictest*>& all, const RunEnd& end) {
  std::string text;
  std::map<int, TimerlatStats> timerlat;
  for (const Cyclictest* c : all) {
    text += c->report();
    const std::string file = json_file_name(c->name());
    CyclictestRunInfo info;
    info.cmdline = c->cmdline(file);
    info.release = end.kernel.params().version;
    info.version = end.kernel.params().kernel_preemption ? "#1 SMP PREEMPT" : "#1 SMP";
    info.realtime = end.kernel.flavour().sys_kernel_realtime;
    info.start_s = c->start_s();
    info.end_s = end.now_s;
    end.write(file, c->json(info));
    for (const auto& [cpu, t] : c->timerlat()) merge(timerlat[cpu], t);
  }
  end.write("cyclictest.txt", text);
  if (!timerlat.empty()) end.write("timerlat.txt", timerlat_top(timerlat, end.now_s));
}

}  // namespace latsim::workloads
