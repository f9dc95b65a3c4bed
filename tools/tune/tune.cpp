#include "tools/tune/tune.h"
#include "tools/log_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/params.h"
#include "platform/output_file.h"
#include "platform/output_transaction.h"
#include "platform/scenario_emit.h"
#include "platform/scenario_loader.h"
#include "tools/sweep/grid.h"
#include "tools/sweep/grid_check.h"
#include "tools/sweep/results.h"
#include "tools/sweep/runner.h"
#include "tools/sweep/sweep_dir.h"
#include "tools/tune/search.h"

namespace latsim::tune {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using sweep::Grid;
using sweep::Manifest;
using sweep::Point;

constexpr size_t kViolationsShown = 10;

// Thrown when a signal stopped the runs.
struct Interrupted {
  int signal = 0;
};

// A knob's short name: the last step of its key (max_sectors_kb).
std::string short_name(const std::string& key) {
  const size_t cut = key.find_last_of("/.");
  return cut == std::string::npos ? key : key.substr(cut + 1);
}

// The unit a metric's name ends with, for sentences.
std::string unit_of(const std::string& metric) {
  if (metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_us") == 0) return " µs";
  if (metric.size() > 5 && metric.compare(metric.size() - 5, 5, "_mb_s") == 0) return " MB/s";
  return "";
}

std::string num(double v) { return fmt::format("{:g}", v); }

// Sweep's grid errors speak of --param; tune's option is --knob.
std::string as_knob(std::string s) {
  for (size_t at; (at = s.find("--param")) != std::string::npos;) s.replace(at, 7, "--knob");
  return s;
}

// The walk reads "up" as the order given: numbers must be given smallest first.
void check_order(const sweep::Param& p) {
  for (size_t i = 1; i < p.values.size(); ++i) {
    const auto a = sweep::typed_value(p.values[i - 1]), b = sweep::typed_value(p.values[i]);
    if (a.is_number() && b.is_number() && a.get<double>() >= b.get<double>())
      throw TuneError(fmt::format("--knob {}: list the values smallest first ({} comes after {})",
                                  p.key, p.values[i], p.values[i - 1]));
  }
}

struct Setup {
  Manifest m;  // the grid: knobs x seeds, and the fixed overrides
  SearchSpec spec;
  metrics::MetricPath objective;
};

Setup setup_of(const TuneOptions& o) {
  Setup su;
  if (o.maximise.empty() == o.minimise.empty())
    throw TuneError("say what to optimise: exactly one of --maximise METRIC or --minimise METRIC");
  su.spec.target = parse_target(o.target);
  std::string error;
  const std::string obj = o.maximise.empty() ? o.minimise : o.maximise;
  const auto path = metrics::parse_metric_path(obj, error);
  if (!path)
    throw TuneError(
        fmt::format("--{} `{}`: {}", o.maximise.empty() ? "minimise" : "maximise", obj, error));
  su.objective = *path;
  su.spec.sense = o.maximise.empty() ? Sense::Min : Sense::Max;
  su.spec.budget = o.budget;
  if (o.knobs.empty()) throw TuneError("give at least one --knob KEY=VALUES to tune");

  std::vector<std::string> sets = o.sets;
  if (!o.duration.empty()) sets.push_back("duration=" + o.duration);
  std::vector<std::string> load_sets = sets;
  if (!o.seed.empty()) load_sets.push_back("seed=" + o.seed);
  const auto s = platform::load_scenario(o.scenario, load_sets);  // throws ScenarioError

  Manifest& m = su.m;
  std::vector<std::string> where;
  try {
    for (const auto& k : o.knobs) {
      m.grid.params.push_back(sweep::parse_param(k));
      where.push_back("--knob " + m.grid.params.back().key);
    }
    for (const auto& p : m.grid.params) check_order(p);
    for (const auto& kv : sets)
      if (kv.substr(0, kv.find('=')) != "seed") m.grid.sets.push_back(kv);
    for (size_t i = 0; i < o.seeds; ++i) m.grid.seeds.push_back(s.seed + i);
    m.grid.check();
  } catch (const sweep::GridError& e) {
    throw TuneError(as_knob(e.what()));
  }
  const std::string text = platform::read_input_file(o.scenario, "scenario file");
  try {
    sweep::check_grid(o.scenario, text, m.grid, where);
  } catch (const platform::InputError& e) {
    // The summary line speaks for the command that checked.
    auto d = e.diagnostics();
    for (auto& x : d)
      if (x.location == "latsim sweep") x.location = "latsim tune";
    throw platform::InputError(std::move(d));
  }
  m.scenario_path = o.scenario;
  m.scenario_name = s.name;
  m.scenario_hash = sweep::fnv1a_hex(text);
  m.duration_s = s.duration_s;
  m.metrics = {su.spec.target.metric.text, su.objective.text};
  for (const auto& p : m.grid.params) su.spec.sizes.push_back(p.values.size());
  su.spec.seeds = o.seeds;
  return su;
}

// Prepare DIR: a new one, or (--resume) one of the same grid.
void prepare_dir(const fs::path& dir, const Manifest& m, bool resume) {
  const fs::path manifest = dir / "tune-grid.json";
  bool empty = true;
  std::error_code ec;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir, ec)) empty &= e.path().filename() == ".lock";
  const bool has = fs::exists(manifest);
  if (!has && !empty)
    throw std::runtime_error(fmt::format(
        "refusing to tune into {}: it is not empty and holds no tune-grid.json", dir.string()));
  if (has && !resume)
    throw std::runtime_error(fmt::format(
        "{} holds a tune already: add --resume to continue it (finished runs are kept), or "
        "choose another --out",
        dir.string()));
  if (!has) return;
  const Manifest old =
      Manifest::from_json(json::parse(sweep::read_text(manifest)), manifest.string());
  const auto diff = m.differences(old);
  if (!diff.empty())
    throw std::runtime_error(fmt::format("cannot resume: {} holds a different tune: {}",
                                         dir.string(), fmt::join(diff, "; ")));
}

std::string setting_text(const Grid& g, const Setting& s) {
  std::vector<std::string> kv;
  for (size_t i = 0; i < s.size(); ++i)
    kv.push_back(short_name(g.params[i].key) + "=" + g.params[i].values[s[i]]);
  return fmt::format("{}", fmt::join(kv, " "));
}

// A run's point of the grid (the same id a sweep of the grid gives it).
Point point_of(const Setup& su, const Run& r) {
  size_t combo = 0;
  for (size_t i = 0; i < r.setting.size(); ++i) combo = combo * su.spec.sizes[i] + r.setting[i];
  return su.m.grid.point(combo * su.spec.seeds + r.seed);
}

// Runs as child `latsim run`s in DIR/points/<id>/, each once: a finished one is read back.
class ChildRuns : public Evaluator {
 public:
  ChildRuns(const TuneOptions& o, const Setup& su, fs::path dir)
      : o_(o), su_(su), dir_(std::move(dir)) {}

  Point point(const Run& r) const { return point_of(su_, r); }

  std::vector<Sample> evaluate(const std::vector<Run>& runs) override {
    std::vector<Point> todo;
    std::vector<sweep::Job> jobs;
    const std::string self = std::to_string(::getpid());
    for (const auto& r : runs) {
      Point p = point(r);
      if (platform::run_complete(sweep::point_dir(dir_, p))) continue;
      jobs.push_back(job(p, self));
      todo.push_back(std::move(p));
    }
    sweep::RunnerOptions ro;
    ro.jobs = o_.jobs ? o_.jobs : sweep::default_jobs();
    std::vector<std::string> failures;
    const auto sum = sweep::run_jobs(jobs, ro, [&](size_t k, const sweep::JobResult& r) {
      return settle(todo[k], jobs[k].stderr_path, r, failures);
    });
    if (sum.signal) throw Interrupted{sum.signal};
    if (!failures.empty()) throw std::runtime_error(fmt::format("{}", fmt::join(failures, "\n")));
    std::vector<Sample> out;
    for (const auto& r : runs) {
      out.push_back(sample(point(r)));
      ++done_;
      if (!o_.quiet)
        std::cerr << fmt::format(
            "tune: run {}: {} seed {}: {} {}{}, {} {}\n", done_,
            setting_text(su_.m.grid, r.setting), point(r).seed, su_.spec.target.metric.text,
            num(out.back().target),
            su_.spec.target.met(out.back().target) ? "" : " (fails the target)", su_.objective.text,
            num(out.back().objective));
    }
    return out;
  }

 private:
  sweep::Job job(const Point& p, const std::string& self) const {
    sweep::Job j;
    j.argv = {"/proc/self/exe", "run", o_.scenario};
    for (const auto& s : su_.m.grid.overrides(p)) j.argv.insert(j.argv.end(), {"--set", s});
    j.argv.insert(j.argv.end(), {"--seed", std::to_string(p.seed), "-q", "--out",
                                 sweep::point_dir(dir_, p).string()});
    for (const auto& a : cli::child_log_args(o_.log)) j.argv.push_back(a);
    j.stderr_path = (dir_ / "points" / ("." + p.id + ".stderr-" + self)).string();
    j.timeout_s = o_.run_timeout;
    return j;
  }

  // Tidy up after a run; a message when it failed (recorded as a sweep records one).
  std::optional<std::string> settle(const Point& p, const fs::path& err, const sweep::JobResult& r,
                                    std::vector<std::string>& failures) const {
    const fs::path pdir = sweep::point_dir(dir_, p);
    std::error_code ec;
    for (const char* kind : {"tmp", "old"})
      if (r.outcome != sweep::Outcome::Exited || !r.ok())
        fs::remove_all(platform::temporary_sibling(pdir, kind, r.pid), ec);
    if (r.outcome == sweep::Outcome::Interrupted) {
      fs::remove(err, ec);
      return std::nullopt;
    }
    if (r.ok() && platform::run_complete(pdir)) {
      fs::remove(sweep::point_failure(dir_, p), ec);
      fs::remove(sweep::point_stderr(dir_, p), ec);
      if (fs::file_size(err, ec) > 0 && !ec)
        fs::rename(err, pdir / "stderr.txt", ec);
      else
        fs::remove(err, ec);
      return std::nullopt;
    }
    const std::string error = r.ok() ? "exited 0 without completing its output" : r.describe();
    const std::string tail = sweep::tail_of(err.string());
    fs::rename(err, sweep::point_stderr(dir_, p), ec);
    sweep::write_failure(dir_, p, error, tail);
    const std::string msg = fmt::format("run {} (seed {}) failed: {}; see {}", p.canonical, p.seed,
                                        error, sweep::point_stderr(dir_, p).string());
    failures.push_back(msg);
    return msg;
  }

  Sample sample(const Point& p) const {
    const fs::path file = sweep::point_dir(dir_, p) / "metrics.json";
    const json metrics = json::parse(sweep::read_text(file));
    Sample s;
    std::string error;
    const auto t = metrics::metric_value(metrics, su_.spec.target.metric, error);
    if (!t) throw TuneError(fmt::format("--target: {} (in {})", error, file.string()));
    const auto v = metrics::metric_value(metrics, su_.objective, error);
    if (!v) throw TuneError(fmt::format("objective: {} (in {})", error, file.string()));
    s.target = *t;
    s.objective = *v;
    return s;
  }

  const TuneOptions& o_;
  const Setup& su_;
  fs::path dir_;
  size_t done_ = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

json setting_json(const Grid& g, const Setting& s) {
  json j = json::object();
  for (size_t i = 0; i < s.size(); ++i)
    j[g.params[i].key] = sweep::typed_value(g.params[i].values[s[i]]);
  return j;
}

// A setting's figures on every seed it ran, with the worst and median when it ran on all.
json figures_json(const Setup& su, const Setting& s, const std::vector<std::optional<Sample>>& v) {
  json runs = json::array();
  std::vector<double> t, o;
  for (size_t k = 0; k < v.size(); ++k) {
    if (!v[k]) continue;
    runs.push_back({{"seed", su.m.grid.seeds[k]},
                    {"id", point_of(su, Run{s, k}).id},
                    {"target", v[k]->target},
                    {"objective", v[k]->objective}});
    t.push_back(v[k]->target);
    o.push_back(v[k]->objective);
  }
  json j = {{"runs", runs}, {"feasible", feasible(su.spec, v)}};
  if (complete(v)) {
    j["target_worst"] = worst_target(su.spec, v);
    j["target_median"] = median(t);
    j["objective_worst"] = worst_objective(su.spec, v);
    j["objective_median"] = median(o);
  }
  return j;
}

// The worst target figure of the seeds a setting ran on, and that seed.
double worst_run(const Setup& su, const std::vector<std::optional<Sample>>& v) {
  std::optional<double> w;
  for (const auto& x : v)
    if (x && (!w || su.spec.target.worse(x->target, *w))) w = x->target;
  return w.value_or(0);
}

// "max_sectors_kb above 48 breaks the target: 48 → 598 µs, 64 → 1298 µs".
std::vector<std::string> binding(const Setup& su, SearchResult& r) {
  std::vector<std::string> out;
  const auto& g = su.m.grid;
  const std::string tu = unit_of(su.spec.target.metric.text);
  const std::string ou = unit_of(su.objective.text);
  const auto& best = r.samples[*r.best];
  for (const auto& n : r.neighbours) {
    const auto& ns = r.samples[n.setting];
    const std::string name = short_name(g.params[n.knob].key);
    const std::string from = g.params[n.knob].values[(*r.best)[n.knob]];
    const std::string to = g.params[n.knob].values[n.setting[n.knob]];
    if (!n.feasible)
      out.push_back(fmt::format("{} above {} breaks the target: {} → {}{}, {} → {}{}", name, from,
                                from, num(worst_target(su.spec, best)), tu, to,
                                num(worst_run(su, ns)), tu));
    else
      out.push_back(
          fmt::format("{} above {} meets the target but does no better: {} {} → {}{}, "
                      "{} → {}{}",
                      name, from, su.objective.text, from, num(worst_objective(su.spec, best)), ou,
                      to, num(worst_objective(su.spec, ns)), ou));
  }
  for (size_t i = 0; i < r.best->size(); ++i)
    if ((*r.best)[i] + 1 == su.spec.sizes[i])
      out.push_back(
          fmt::format("{} is at its largest value tried ({}): the range binds, not the target",
                      short_name(g.params[i].key), g.params[i].values[(*r.best)[i]]));
  return out;
}

std::string violation_text(const Setup& su, const Violation& v) {
  const std::string metric = v.of_target ? su.spec.target.metric.text : su.objective.text;
  const std::string way = v.of_target ? "comes nearer the target" : "gets worse";
  return fmt::format("assumption not held: {} {} as knobs grow: {} at {}, {} at {} (seed {})",
                     metric, way, num(v.lo_value), setting_text(su.m.grid, v.lo), num(v.hi_value),
                     setting_text(su.m.grid, v.hi), su.m.grid.seeds[v.seed]);
}

struct Report {
  json j;
  std::string md;
  int status = 0;
};

Report report(const Setup& su, SearchResult& r) {
  const auto& g = su.m.grid;
  const auto& spec = su.spec;
  const std::string goal =
      fmt::format("{} {} {}", spec.target.metric.text, spec.target.op(), num(spec.target.bound));
  const std::string obj =
      fmt::format("{} {}", spec.sense == Sense::Max ? "maximise" : "minimise", su.objective.text);
  const size_t settings = g.size() / g.seeds.size();
  Report rep;
  json& j = rep.j;
  j["scenario"] = su.m.scenario_name;
  j["target"] = goal;
  j["objective"] = obj;
  j["aggregation"] = "worst of seeds";
  j["seeds"] = g.seeds;
  json knobs = json::array();
  for (const auto& p : g.params) knobs.push_back({{"key", p.key}, {"values", p.values}});
  j["knobs"] = knobs;
  j["grid_settings"] = settings;
  j["grid_runs"] = g.size();
  j["runs"] = r.runs;
  j["budget_spent"] = r.budget_spent;

  std::string md = fmt::format("# tune {}: {}, {} (worst of {} seeds)\n\n", su.m.scenario_name,
                               goal, obj, g.seeds.size());
  auto seed_table = [&](const std::vector<std::optional<Sample>>& v) {
    std::string t = fmt::format("| seed | {} | {} |\n|---:|---:|---:|\n", spec.target.metric.text,
                                su.objective.text);
    for (size_t k = 0; k < v.size(); ++k)
      if (v[k])
        t += fmt::format("| {} | {} | {} |\n", g.seeds[k], num(v[k]->target), num(v[k]->objective));
    return t;
  };
  if (r.best) {
    const auto& v = r.samples[*r.best];
    const json f = figures_json(su, *r.best, v);
    j["answer"] = {{"met", true}, {"setting", setting_json(g, *r.best)}, {"figures", f}};
    md += fmt::format(
        "**Answer: {}** meets the target on all {} seeds: {} worst {}, median {}; {} worst {}, "
        "median {}\n\n",
        setting_text(g, *r.best), g.seeds.size(), spec.target.metric.text,
        num(f["target_worst"].get<double>()), num(f["target_median"].get<double>()),
        su.objective.text, num(f["objective_worst"].get<double>()),
        num(f["objective_median"].get<double>()));
    md += seed_table(v) + "\n";
  } else {
    rep.status = kNotMetStatus;
    j["answer"] = {{"met", false}};
    if (r.closest) {
      const auto& v = r.samples[*r.closest];
      j["answer"]["nearest"] = {{"setting", setting_json(g, *r.closest)},
                                {"figures", figures_json(su, *r.closest, v)}};
      md += fmt::format(
          "**No setting meets the target.** The nearest: {}, {} worst {} over the {} seeds "
          "(the target is {})\n\n",
          setting_text(g, *r.closest), spec.target.metric.text, num(worst_target(spec, v)),
          g.seeds.size(), goal);
      md += seed_table(v) + "\n";
    } else {
      md +=
          "**No setting meets the target**, and the budget ran out before any setting ran on "
          "every seed.\n\n";
    }
  }
  md += fmt::format("Runs: {} of the grid's {} ({} settings x {} seeds)", r.runs, g.size(),
                    settings, g.seeds.size());
  if (r.budget_spent)
    md += fmt::format(
        "; **budget spent** ({} runs): the search stopped, the answer is the best "
        "found so far",
        spec.budget);
  md += ".\n";

  if (r.best) {
    const auto bind = binding(su, r);
    j["binding"] = bind;
    md += "\n## Binding constraint\n\n";
    for (const auto& b : bind) md += "- " + b + "\n";
    json nj = json::array();
    for (const auto& n : r.neighbours)
      nj.push_back({{"knob", g.params[n.knob].key},
                    {"setting", setting_json(g, n.setting)},
                    {"figures", figures_json(su, n.setting, r.samples[n.setting])}});
    j["neighbours"] = nj;
    if (!r.neighbours.empty()) {
      md += "\nThe neighbours (one step up in each knob), on the seeds they ran:\n\n";
      for (const auto& n : r.neighbours) {
        md += fmt::format("{}:\n\n", setting_text(g, n.setting));
        md += seed_table(r.samples[n.setting]) + "\n";
      }
    }
  }

  // The frontier the walk found: the boundary settings, worst of seeds.
  std::vector<std::vector<double>> pts;
  for (const auto& b : r.boundary)
    pts.push_back({worst_target(spec, r.samples[b]), worst_objective(spec, r.samples[b])});
  const Sense tsense = spec.target.worse(1, 0) ? Sense::Min : Sense::Max;
  const auto optimal = pareto_optimal(pts, {tsense, spec.sense});
  json fj = json::array();
  md += "\n## Frontier (feasible boundary settings, worst of seeds)\n\n";
  if (r.boundary.empty())
    md += "None: no setting the walk ran met the target on every seed.\n";
  else
    md += fmt::format("| setting | {} | {} | Pareto-optimal |\n|---|---:|---:|:---:|\n",
                      spec.target.metric.text, su.objective.text);
  for (size_t i = 0; i < r.boundary.size(); ++i) {
    fj.push_back({{"setting", setting_json(g, r.boundary[i])},
                  {"target_worst", pts[i][0]},
                  {"objective_worst", pts[i][1]},
                  {"pareto_optimal", bool(optimal[i])}});
    md += fmt::format("| {} | {} | {} | {} |\n", setting_text(g, r.boundary[i]), num(pts[i][0]),
                      num(pts[i][1]), optimal[i] ? "yes" : "");
  }
  j["frontier"] = fj;

  json vj = json::array();
  md += "\n## Assumptions\n\n";
  md += fmt::format(
      "{} never comes nearer the target and {} never gets worse as a knob grows "
      "(checked on every pair of runs on one seed).\n\n",
      spec.target.metric.text, su.objective.text);
  for (size_t i = 0; i < r.violations.size(); ++i) {
    const std::string t = violation_text(su, r.violations[i]);
    vj.push_back(t);
    if (i < kViolationsShown) md += "- " + t + "\n";
  }
  if (r.violations.size() > kViolationsShown)
    md += fmt::format("- and {} more (tune.json)\n", r.violations.size() - kViolationsShown);
  if (r.violations.empty()) md += "Held on every such pair of the runs made.\n";
  j["violations"] = vj;

  json ej = json::array();
  for (const auto& [s, v] : r.samples)
    ej.push_back({{"setting", setting_json(g, s)}, {"figures", figures_json(su, s, v)}});
  j["evaluated"] = ej;
  rep.md = md;
  return rep;
}

// The scenario with the chosen knobs set, as `latsim run` resolves it for the first seed.
std::string tuned_yaml(const TuneOptions& o, const Setup& su, const Setting& s) {
  const auto& g = su.m.grid;
  std::vector<std::string> sets = g.sets;
  for (size_t i = 0; i < s.size(); ++i)
    sets.push_back(g.params[i].key + "=" + g.params[i].values[s[i]]);
  sets.push_back("seed=" + std::to_string(g.seeds[0]));
  return platform::scenario_to_yaml(platform::load_scenario(o.scenario, sets));
}

}  // namespace

int run_tune(const TuneOptions& o) {
  const Setup su = setup_of(o);
  const fs::path dir =
      sweep::checked_sweep_dir(o.out.empty() ? "out/" + su.m.scenario_name + "-tune" : o.out);
  platform::remove_stale_temporaries(dir);
  prepare_dir(dir, su.m, o.resume);  // refuse before touching anything else
  fs::create_directories(dir);
  const sweep::DirLock lock(dir);
  prepare_dir(dir, su.m, o.resume);
  platform::write_file_atomic(dir / "tune-grid.json", su.m.to_json().dump(2) + "\n");
  fs::create_directories(dir / "points");
  platform::remove_stale_temporaries(dir / "points");

  ChildRuns runs(o, su, dir);
  SearchResult r;
  try {
    r = search(su.spec, runs);
  } catch (const Interrupted& i) {
    std::cerr << fmt::format(
        "tune: stopped by signal {}; the finished runs are kept in {}/points; run the same "
        "command with --resume to go on\n",
        i.signal, dir.string());
    return 128 + i.signal;
  }
  Report rep = report(su, r);
  std::vector<std::string> files{"tune.json", "tune.md"};
  if (r.best) {
    platform::write_file_atomic(dir / "tuned.yaml", tuned_yaml(o, su, *r.best));
    files.push_back("tuned.yaml");
  } else {
    std::error_code ec;
    fs::remove(dir / "tuned.yaml", ec);  // an earlier answer's, no longer true
  }
  platform::write_file_atomic(dir / "tune.json", rep.j.dump(2) + "\n");
  platform::write_file_atomic(dir / "tune.md", rep.md);
  std::cout << rep.md
            << fmt::format("\noutputs in {}/: {}\n", dir.string(), fmt::join(files, ", "));
  for (const auto& v : r.violations)
    std::cerr << "tune: warning: " << violation_text(su, v) << "\n";
  if (r.budget_spent) std::cerr << fmt::format("tune: budget spent after {} runs\n", r.runs);
  return rep.status;
}

}  // namespace latsim::tune
