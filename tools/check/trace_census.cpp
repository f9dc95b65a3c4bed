#include "tools/check/trace_census.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace latsim::check {

namespace {

// The tracer writes the longest section twice: as its own trace-N file and as max.txt.
bool is_copy_of_longest(const VpTrace& t) { return t.file == "max.txt"; }

std::string section_key(const VpTrace& t) {
  return (t.started_in.empty() ? "?" : t.started_in) + " .. " +
         (t.ended_in.empty() ? "?" : t.ended_in);
}

// "spin_lock (timer_interrupt) -> do_timer": the entry the step starts at and the one that
// ends it; a last entry's step runs to the section's end.
std::string step_key(const TraceStep& s, const TraceStep* next) {
  return fmt::format("{} ({}) -> {}", s.fn, s.parent, next ? next->fn : "end of section");
}

void add(std::map<std::string, CensusRow>& rows, const std::string& key, int64_t us,
         const std::string& file) {
  CensusRow& r = rows[key];
  r.key = key;
  r.traces++;
  r.longest_us = std::max(r.longest_us, us);
  r.files.push_back(file);
}

std::vector<CensusRow> ranked(std::map<std::string, CensusRow> rows) {
  std::vector<CensusRow> v;
  for (auto& [k, r] : rows) v.push_back(std::move(r));
  std::stable_sort(v.begin(), v.end(), [](const CensusRow& a, const CensusRow& b) {
    if (a.traces != b.traces) return a.traces > b.traces;
    return a.longest_us > b.longest_us;  // the map already ordered equal rows by key
  });
  return v;
}

std::string table(const std::vector<CensusRow>& rows, const char* what, size_t top,
                  size_t examples) {
  size_t width = std::string(what).size();
  for (size_t i = 0; i < rows.size() && i < top; ++i) width = std::max(width, rows[i].key.size());
  std::string out = fmt::format(" traces  longest  {:<{}}  trace numbers\n", what, width);
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const CensusRow& r = rows[i];
    std::string nums;
    for (size_t j = 0; j < r.files.size() && j < examples; ++j)
      nums += (j ? " " : "") + trace_number(r.files[j]);
    if (r.files.size() > examples) nums += " ...";
    out += fmt::format("{:>7}  {:>4} us  {:<{}}  {}\n", r.traces, r.longest_us, r.key, width, nums);
  }
  if (rows.size() > top) out += fmt::format("  ({} more rows: --top)\n", rows.size() - top);
  return out;
}

// The tracer numbers its files by rank, the longest first, padded to three digits only
// (trace-999-.., trace-1000-..): list them in that order, other names after.
std::vector<const VpTrace*> in_trace_order(const std::vector<VpTrace>& traces) {
  auto key = [](const VpTrace& t) {
    const std::string n = trace_number(t.file);
    const bool numbered =
        n != t.file && !n.empty() && n.find_first_not_of("0123456789") == std::string::npos;
    return std::make_tuple(!numbered, numbered ? std::stoull(n) : 0ull, t.file);
  };
  std::vector<const VpTrace*> v;
  for (const auto& t : traces) v.push_back(&t);
  std::stable_sort(v.begin(), v.end(),
                   [&](const VpTrace* a, const VpTrace* b) { return key(*a) < key(*b); });
  return v;
}

}  // namespace

std::string trace_number(const std::string& file) {
  if (file.rfind("trace-", 0) != 0) return file;
  const size_t end = file.find('-', 6);
  return end == std::string::npos ? file : file.substr(6, end - 6);
}

TraceCensus take_census(const std::vector<VpTrace>& traces, int64_t min_us) {
  TraceCensus c;
  std::map<std::string, CensusRow> sections, steps;
  for (const VpTrace* tp : in_trace_order(traces)) {
    const VpTrace& t = *tp;
    if (is_copy_of_longest(t) || t.latency_us < min_us) continue;
    c.shortest_us = c.traces ? std::min(c.shortest_us, t.latency_us) : t.latency_us;
    c.longest_us = std::max(c.longest_us, t.latency_us);
    c.traces++;
    add(sections, section_key(t), t.latency_us, t.file);
    if (const TraceStep* s = t.longest_step()) {
      const size_t i = size_t(s - t.steps.data());
      add(steps, step_key(*s, i + 1 < t.steps.size() ? &t.steps[i + 1] : nullptr), s->step_us,
          t.file);
    }
  }
  c.by_section = ranked(std::move(sections));
  c.by_step = ranked(std::move(steps));
  return c;
}

std::string format_census(const TraceCensus& c, const std::string& where, size_t top,
                          size_t examples) {
  if (c.traces == 0) return fmt::format("no latency traces in {}\n", where);
  std::string out = fmt::format(
      "{} trace{} in {} ({}..{} us; max.txt, a copy of the longest, "
      "not counted)\n\n",
      c.traces, c.traces == 1 ? "" : "s", where, c.shortest_us, c.longest_us);
  out += "By section (the function it started in .. the one it ended in):\n";
  out += table(c.by_section, "section", top, examples);
  out += "\nBy longest step (the entry it starts at, its caller, the entry that ends it):\n";
  out += table(c.by_step, "step", top, examples);
  return out;
}

}  // namespace latsim::check
