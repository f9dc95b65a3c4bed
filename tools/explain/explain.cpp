#include "tools/explain/explain.h"
#include <fmt/format.h>
#include <unistd.h>
#include <iostream>
#include "tools/explain/whatif.h"
#include "tools/option_range.h"

namespace latsim::explain {
using nlohmann::json;

namespace {

constexpr size_t kTableRows = 12;  // rows of the table before "N smaller causes"

std::string us_or_dash(double v) { return v < 0 ? "-" : fmt::format("{:.1f}", v); }

void print_table(const Explained& e) {
  const json& t = e.trace;
  std::cout << title(t) << "\n\n";
  std::cout << fmt::format("  {:<36} {:>9} {:>6}  {}\n", "cause", "us", "share", "where");
  // The causes that matter, then the rest in one line (--json has every one).
  uint64_t rest_ps = 0;
  size_t shown = 0;
  for (const Row& r : e.rows) {
    if (shown < kTableRows && (shown == 0 || r.share >= 0.001)) {
      std::string line =
          fmt::format("  {:<36} {:>9} {:>5.1f}%  {}", r.label, us(r.ps), 100 * r.share, r.detail);
      line.erase(line.find_last_not_of(' ') + 1);
      std::cout << line << "\n";
      ++shown;
    } else {
      rest_ps += r.ps;
    }
  }
  if (shown < e.rows.size())
    std::cout << fmt::format(
        "  {:<36} {:>9} {:>5.1f}%\n", fmt::format("{} smaller causes", e.rows.size() - shown),
        us(rest_ps),
        100.0 * double(rest_ps) / double(std::max<uint64_t>(1, t.value("length_ps", uint64_t(1)))));
  const uint64_t blamed = t.value("blamed_ps", uint64_t(0)),
                 length = t.value("length_ps", uint64_t(0));
  std::cout << fmt::format("  {:<36} {:>9} {:>5.1f}%  {}\n\n", "total", us(blamed),
                           length ? 100.0 * double(blamed) / double(length) : 0.0,
                           blamed == length ? "the causes sum to the section exactly"
                                            : fmt::format("the section is {} ps; {} ps unblamed",
                                                          length, int64_t(length - blamed)));
  std::cout << summary_sentence(e) << "\n";
}

void print_whatifs(const std::vector<WhatIf>& w, bool window) {
  std::cout << fmt::format("\n  {:<30} {:<40} {:>10} {:>9} {:>9}\n", "what if", "--set",
                           "blamed us", "max us", "same us");
  for (const WhatIf& x : w) {
    if (x.set.empty()) {
      std::cout << fmt::format("  {:<30} {:<40} {:>10}  no switch for this cause\n", x.cause, "-",
                               us(x.blamed_ps));
      continue;
    }
    std::cout << fmt::format("  {:<30} {:<40} {:>10} {:>9} {:>9}{}\n", x.change, x.set,
                             us(x.blamed_ps), us_or_dash(x.max_us), us_or_dash(x.same_us),
                             !x.error.empty() ? "  rerun failed: " + x.error
                             : x.disagrees    ? "  blame and rerun differ by more than 25 %"
                                              : "");
  }
  std::cout << (window ? "\n  max us: the rerun's longest interval of the same measure; same us: "
                         "the one with the same label (-: not seen).\n"
                       : "\n  same us: the rerun's longest section with the same start and end "
                         "sites (-: not seen).\n");
}

json to_json(const Explained& e, const std::vector<WhatIf>& w, bool whatif) {
  json rows = json::array();
  for (const Row& r : e.rows)
    rows.push_back({{"kind", r.kind},
                    {"cause", r.label},
                    {"name", r.name},
                    {"ps", r.ps},
                    {"share", r.share},
                    {"where", r.detail}});
  json j = {{"trace", e.trace}, {"rows", rows}, {"sentence", summary_sentence(e)}};
  if (!whatif) return j;
  j["whatif"] = json::array();
  for (const WhatIf& x : w)
    j["whatif"].push_back({{"cause", x.cause},
                           {"blamed_ps", x.blamed_ps},
                           {"change", x.change},
                           {"set", x.set},
                           {"max_us", x.max_us},
                           {"same_us", x.same_us},
                           {"disagrees", x.disagrees},
                           {"error", x.error}});
  return j;
}

}  // namespace

int run_explain(const ExplainOptions& o) {
  const json ledgers = load_ledgers(o.run_dir);
  const Explained e = explain_trace(!o.window.empty() ? pick_window(ledgers, o.window)
                                    : o.cyclictest    ? pick_wakeup(ledgers)
                                                      : pick_trace(ledgers, o.trace));
  std::vector<WhatIf> w;
  if (o.whatif) {
    w = plan_whatifs(e, o.top);
    run_whatifs(o.run_dir, e, w, o.jobs, !o.quiet && isatty(STDERR_FILENO));
  }
  if (o.json) {
    std::cout << to_json(e, w, o.whatif).dump(1) << "\n";
    return 0;
  }
  print_table(e);
  if (o.whatif) print_whatifs(w, is_window(e.trace));
  return 0;
}

Command::Command(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "explain",
      "Say why a latency happened: where every picosecond of a traced section, a wake-up or a\n"
      "latencytest loop or write went (bus-master DMA holding the CPU off, port cycles, a lock\n"
      "spun on, interrupts, the code itself, other tasks), from the blame ledger the run\n"
      "recorded (traces/blame.json: tracing on, tracing.blame not false).\n"
      "The causes sum to the interval exactly. Exit status: 0, 1 when it cannot explain.");
  cmd_->footer(
      "Examples:\n"
      "  latsim explain out/disk-dma-kernel-build             the longest section (max.txt)\n"
      "  latsim explain out/disk-dma-kernel-build --trace 3   traces/trace-003-*.txt\n"
      "  latsim explain out/disk-dma-kernel-build --whatif    and rerun without each top cause\n"
      "  latsim explain out/video-fifo-stall --cyclictest     the longest cyclictest wake-up\n"
      "  latsim explain out/latencytest-stress --window 'latencytest dsk wrt loop'\n"
      "                                          the disk-write phase's longest CPU loop");
  cmd_->add_option("run_dir", o_.run_dir, "A run's output directory")->required();
  cmd_->add_option("--trace", o_.trace, "Explain traces/trace-NNN (1 = the longest kept)")
      ->check(cli::in_range(1, 100000));
  cmd_->add_flag(
      "--max", [this](int64_t) { o_.trace = 0; },
      "Explain the longest section, traces/max.txt (the default)");
  cmd_->add_flag("--cyclictest", o_.cyclictest,
                 "Explain the longest cyclictest wake-up instead: from the time the timer was\n"
                 "due until the thread read the clock, on the CPU it ran on");
  cmd_->add_option("--window", o_.window,
                   "Explain a measured interval by its label instead: a cyclictest thread's\n"
                   "longest wake-up ('cyclictest T0'), a latencytest phase's longest CPU loop or\n"
                   "write-to-write interval ('latencytest dsk wrt loop', '... write'); a wrong\n"
                   "label lists the run's")
      ->excludes("--cyclictest");
  cmd_->add_flag("--json", o_.json, "Print the ledger, the rows and the reruns as JSON");
  cmd_->add_flag("--whatif", o_.whatif,
                 "Rerun the scenario and seed with each top cause's mechanism switched off\n"
                 "(one child process per rerun) and print the latencies beside the blame");
  cmd_->add_option("-j,--jobs", o_.jobs, "Reruns at a time (default: one per CPU)")
      ->check(cli::in_range(1, 1024));
  cmd_->add_option("--top", o_.top, "How many of the largest causes --whatif tries (default 5)")
      ->check(cli::in_range(1, 100));
  cmd_->add_flag("-q,--quiet", o_.quiet, "No progress line on stderr");
}

bool Command::selected() const { return cmd_->parsed(); }

int Command::run() const {
  try {
    return run_explain(o_);
  } catch (const std::exception& e) {
    std::cerr << "latsim explain: error: " << e.what() << "\n";
  }
  return 1;
}

}  // namespace latsim::explain
