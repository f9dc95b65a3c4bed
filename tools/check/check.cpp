#include "tools/check/check.h"
#include "tools/log_options.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "platform/output_file.h"
#include "platform/output_transaction.h"
#include "tools/check/evaluate.h"
#include "tools/check/hypothesis.h"
#include "tools/check/report.h"
#include "tools/sweep/results.h"
#include "tools/sweep/runner.h"
#include "tools/sweep/sweep_dir.h"

namespace latsim::check {

namespace fs = std::filesystem;

namespace {

// Every file loaded, or every problem of every file on stderr.
std::optional<std::vector<Hypothesis>> load_all(const CheckOptions& o) {
  std::vector<std::string> extra = o.sets;
  if (!o.duration.empty()) extra.push_back("duration=" + o.duration);
  std::vector<Hypothesis> hs;
  bool bad = false;
  std::map<std::string, std::string> names;
  for (const auto& f : o.files) {
    try {
      hs.push_back(load_hypothesis(f, extra));
      if (o.seeds) hs.back().seeds = o.seeds;
      const auto [it, fresh] = names.emplace(hs.back().name, f);
      if (!fresh) {
        std::cerr << fmt::format(
            "{}: error: a hypothesis named `{}` (the file's stem) is already given by {}\n", f,
            hs.back().name, it->second);
        bad = true;
      }
    } catch (const HypothesisError& e) {
      std::cerr << e.what() << "\n";
      bad = true;
    }
  }
  if (bad) return std::nullopt;
  // A --set of a key a case sets itself changes what that case means: say so.
  auto key_of = [](const std::string& set) { return set.substr(0, set.find('=')); };
  for (const auto& s : o.sets)
    for (const auto& h : hs)
      for (const auto& c : h.cases)
        for (const auto& cs : c.sets)
          if (key_of(cs) == key_of(s))
            std::cerr << fmt::format("latsim check: note: --set {} replaces {}/{}'s own {}\n", s,
                                     h.name, c.name, cs);
  return hs;
}

std::string last_line(const std::string& text) {
  const auto nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

// ", with --set A --set B": a counterfactual's summary says what it changed.
std::string overrides_text(const std::vector<std::string>& sets) {
  std::string t;
  for (const auto& s : sets) t += (t.empty() ? ", with --set " : " --set ") + s;
  return t;
}

// Where one run of a case writes.
fs::path run_dir(const fs::path& out, const Hypothesis& h, const Case& c, uint64_t seed) {
  return out / h.name / c.name / fmt::format("seed-{}", seed);
}

// `--validate`: what each file holds, nothing run.
int print_validation(const std::vector<Hypothesis>& hs) {
  for (const auto& h : hs) {
    size_t expect = 0;
    for (const auto& c : h.cases) expect += c.expect.size();
    std::cout << fmt::format(
        "{}: ok ({}: {} case(s), {} expectation(s), {} comparison(s), "
        "{} seed(s) each; base {})\n",
        h.file, h.name, h.cases.size(), expect, h.compare.size(), h.seeds, h.base);
  }
  return 0;
}

// The checked output directory, created and locked; nullopt (said on stderr) when refused.
std::optional<fs::path> open_out(const std::string& dir, std::optional<sweep::DirLock>& lock) {
  fs::path out;
  try {
    out = sweep::checked_sweep_dir(dir);
  } catch (const std::exception& e) {
    std::cerr << "latsim check: error: " << e.what() << "\n";
    return std::nullopt;
  }
  fs::create_directories(out);
  try {
    lock.emplace(out);
  } catch (const std::exception&) {
    std::cerr << fmt::format("latsim check: error: another latsim command is writing to {}\n",
                             out.string());
    return std::nullopt;
  }
  return out;
}

// One job per hypothesis x case x seed; runs[h][c][s] says how each went.
struct Plan {
  struct Where {
    size_t h, c, s;
  };
  std::vector<std::vector<std::vector<RunOutcome>>> runs;
  std::vector<sweep::Job> jobs;
  std::vector<Where> where;  // per job
};

// The `latsim run` of one seed of a case, writing into r.dir.
sweep::Job case_job(const CheckOptions& o, const Hypothesis& h, const Case& c, const RunOutcome& r,
                    const std::string& self) {
  sweep::Job j;
  j.argv = {"/proc/self/exe", "run", h.base};
  auto add_set = [&](const std::string& s) {
    j.argv.push_back("--set");
    j.argv.push_back(s);
  };
  if (!h.duration.empty()) add_set("duration=" + h.duration);
  for (const auto& s : c.sets) add_set(s);
  for (const auto& s : o.sets) add_set(s);
  if (!o.duration.empty()) add_set("duration=" + o.duration);
  j.argv.insert(j.argv.end(), {"--seed", std::to_string(r.seed), "-q", "--out", r.dir.string()});
  for (const auto& a : cli::child_log_args(o.log)) j.argv.push_back(a);
  j.stderr_path = (r.dir.parent_path() / fmt::format(".seed-{}.stderr-{}", r.seed, self)).string();
  j.timeout_s = o.case_timeout;
  return j;
}

Plan plan_runs(const CheckOptions& o, const std::vector<Hypothesis>& hs, const fs::path& out) {
  Plan plan;
  plan.runs.resize(hs.size());
  const std::string self = std::to_string(::getpid());
  for (size_t hi = 0; hi < hs.size(); ++hi) {
    const Hypothesis& h = hs[hi];
    plan.runs[hi].resize(h.cases.size());
    for (size_t ci = 0; ci < h.cases.size(); ++ci) {
      const Case& c = h.cases[ci];
      for (size_t si = 0; si < h.seeds; ++si) {
        RunOutcome r;
        r.seed = c.seed + si;
        r.dir = run_dir(out, h, c, r.seed);
        // An earlier check's output of this run goes first: never judge stale files.
        std::error_code ec;
        if (fs::exists(r.dir / "run-info.json", ec)) fs::remove_all(r.dir, ec);
        fs::create_directories(r.dir.parent_path());
        plan.jobs.push_back(case_job(o, h, c, r, self));
        plan.where.push_back({hi, ci, si});
        plan.runs[hi][ci].push_back(std::move(r));
      }
    }
  }
  return plan;
}

// Record how job k went and keep its stderr; a message when the run failed.
std::optional<std::string> settle(Plan& plan, const std::vector<Hypothesis>& hs, size_t k,
                                  const sweep::JobResult& jr) {
  const Plan::Where w = plan.where[k];
  RunOutcome& r = plan.runs[w.h][w.c][w.s];
  const fs::path err = plan.jobs[k].stderr_path;
  std::error_code ec;
  if (jr.outcome == sweep::Outcome::Interrupted) {
    fs::remove(err, ec);
    return std::nullopt;
  }
  r.ok = jr.ok() && platform::run_complete(r.dir);
  const std::string tail = sweep::tail_of(err.string());
  const fs::path keep =
      r.ok ? r.dir / "stderr.txt" : r.dir.parent_path() / fmt::format("seed-{}.stderr.txt", r.seed);
  fs::remove(r.dir.parent_path() / fmt::format("seed-{}.stderr.txt", r.seed), ec);
  if (fs::file_size(err, ec) > 0 && !ec)
    fs::rename(err, keep, ec);
  else
    fs::remove(err, ec);
  if (r.ok) return std::nullopt;
  const std::string how =
      jr.ok() ? "exited 0 without completing its output directory" : jr.describe();
  const std::string last = last_line(tail);
  r.error = last.empty() ? how : fmt::format("{}: {}", how, last);
  return fmt::format("check: {}/{} seed {} failed: {}", hs[w.h].name, hs[w.h].cases[w.c].name,
                     r.seed, r.error);
}

// Every hypothesis judged, its verdicts.json written, and the JUnit file if asked for.
std::vector<HypothesisResult> judge(const CheckOptions& o, const std::vector<Hypothesis>& hs,
                                    const Plan& plan, const fs::path& out) {
  std::vector<HypothesisResult> results;
  for (size_t hi = 0; hi < hs.size(); ++hi) {
    HypothesisResult res{&hs[hi], evaluate(hs[hi], plan.runs[hi]), o.sets};
    platform::write_file_atomic(out / hs[hi].name / "verdicts.json",
                                verdicts_json(res).dump(2) + "\n");
    results.push_back(std::move(res));
  }
  if (!o.junit.empty()) {
    const fs::path junit = fs::absolute(o.junit);
    fs::create_directories(junit.parent_path());
    platform::write_file_atomic(junit, junit_xml(results));
  }
  return results;
}

// The verdict table, the failures and the summary line on stdout; the exit status.
int print_report(const CheckOptions& o, const std::vector<HypothesisResult>& results, size_t runs,
                 size_t jobs, std::chrono::steady_clock::time_point t0, const fs::path& out) {
  std::vector<Row> all;
  for (const auto& res : results) all.insert(all.end(), res.rows.begin(), res.rows.end());
  size_t pass = 0, fail = 0, error = 0, known = 0, promoted = 0, figures = 0, figures_hold = 0;
  for (const auto& r : all) {
    figures += r.kind == RowKind::SeedFigure;
    figures_hold += r.kind == RowKind::SeedFigure && r.verdict == Verdict::Pass;
    pass += r.verdict == Verdict::Pass;
    fail += r.verdict == Verdict::Fail;
    error += r.verdict == Verdict::Error;
    known += r.verdict == Verdict::KnownMiss;
    promoted += r.promoted();
  }
  // csv and json: stdout holds the verdicts only, what a person reads goes to stderr.
  const std::string format = !o.format.empty()              ? o.format
                             : ::isatty(STDOUT_FILENO) != 0 ? "table"
                                                            : "md";
  const bool data = format == "csv" || format == "json";
  std::ostream& text = data ? std::cerr : std::cout;
  if (format == "csv") std::cout << verdicts_csv(all);
  if (format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& res : results) j.push_back(verdicts_json(res));
    std::cout << j.dump(2) << "\n";
  }
  if (!o.quiet && !data) {
    std::cout << (format == "md" ? verdict_table(all) : fitted_table(all, terminal_width()))
              << "\n";
    for (const auto& res : results)
      std::cout << fmt::format("{} {}: {}\n", res.passed() ? "PASS" : "FAIL", res.hypothesis->name,
                               res.hypothesis->claim);
  }
  if (fail + error + known + promoted) {
    if (!o.quiet && !data) text << "\n";
    for (const auto& r : all)
      if (r.verdict != Verdict::Pass)
        text << fmt::format("{}: {}: {}/{}: {}\n", r.location, verdict_text(r.verdict),
                            r.hypothesis, r.case_name, r.detail);
      else if (r.promoted())
        text << fmt::format(
            "{}: known miss now holds: {}/{}: {} (expected {}); drop its known_miss\n", r.location,
            r.hypothesis, r.case_name, r.measured, r.expected);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  text << fmt::format(
      "\ncheck: {} of {} expectations hold{}, {} known miss{}, {} fail, {} could not be judged "
      "({} hypothes{}, {} runs, {:.1f} s wall, -j {}{}); outputs in {}/\n",
      pass, all.size(),
      promoted ? fmt::format(" ({} of them known misses that now hold)", promoted) : "", known,
      known == 1 ? "" : "es", fail, error, results.size(), results.size() == 1 ? "is" : "es", runs,
      wall, jobs, overrides_text(o.sets), out.string());
  // The scoreboard's headline: the seeds' own figures, apart from orderings and bounds.
  if (figures)
    text << fmt::format("check: {} of {} seed figures hold within their bands\n", figures_hold,
                        figures);
  const bool failed = fail + error || (o.strict && known) || (o.exact && promoted);
  return failed ? kCheckFailed : 0;
}

}  // namespace

size_t terminal_width() {
  if (const char* c = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(c, &end, 10);
    if (end != c && *end == '\0' && n > 0 && n < 100000) return size_t(n);
  }
  winsize ws{};
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 0;
}

int run_check(const CheckOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto loaded = load_all(o);
  if (!loaded) return kBadInput;
  const std::vector<Hypothesis>& hs = *loaded;
  if (o.validate) return print_validation(hs);

  std::optional<sweep::DirLock> lock;
  const auto out = open_out(o.out, lock);
  if (!out) return kBadInput;
  Plan plan = plan_runs(o, hs, *out);

  sweep::RunnerOptions ro;
  ro.jobs = o.jobs ? o.jobs : sweep::default_jobs();
  ro.progress = !o.quiet && ::isatty(STDERR_FILENO);
  ro.label = "check";
  ro.noun = "runs";
  const sweep::RunSummary sum = sweep::run_jobs(
      plan.jobs, ro, [&](size_t k, const sweep::JobResult& jr) { return settle(plan, hs, k, jr); });
  if (sum.signal) {
    std::cerr << fmt::format("check: stopped by signal {}; no verdicts\n", sum.signal);
    return 128 + sum.signal;
  }

  const auto results = judge(o, hs, plan, *out);
  return print_report(o, results, plan.jobs.size(), ro.jobs, t0, *out);
}

}  // namespace latsim::check
