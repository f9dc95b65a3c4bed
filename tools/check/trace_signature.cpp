#include "tools/check/trace_signature.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace latsim::check {

std::string TraceSignature::what() const {
  switch (kind) {
    case Kind::LongestStepIn:
      return "trace: longest step";
    case Kind::SlowMotion:
      return "trace: slow motion";
    case Kind::LongestTraceHas:
      return "trace: longest has";
  }
  return "trace";
}

std::string TraceSignature::expected() const {
  switch (kind) {
    case Kind::LongestStepIn:
      if (min_step_us == 0) return fmt::format("in {}", fmt::join(functions, "/"));
      return fmt::format("in {}, ≥ {} us", fmt::join(functions, "/"), min_step_us);
    case Kind::SlowMotion:
      if (step_under_us)
        return fmt::format("≥ {} step{} in a row of {}..{} us", count_at_least,
                           count_at_least == 1 ? "" : "s", step_over_us, *step_under_us);
      return fmt::format("≥ {} step{} in a row > {} us", count_at_least,
                         count_at_least == 1 ? "" : "s", step_over_us);
    case Kind::LongestTraceHas:
      return fmt::format("{}", fmt::join(functions, ", "));
  }
  return "";
}

namespace {

SignatureResult longest_step_in(const TraceSignature& sig, const std::vector<VpTrace>& traces) {
  const VpTrace* t = longest_trace(traces);
  const TraceStep* s = t ? t->longest_step() : nullptr;
  if (!s) return {false, t ? fmt::format("{} has no entries", t->file) : "no traces", 0};
  const bool named =
      std::find(sig.functions.begin(), sig.functions.end(), s->fn) != sig.functions.end();
  return {named && s->step_us >= sig.min_step_us,
          fmt::format("{} {} us ({}, {} us)", s->fn, s->step_us, t->file, t->latency_us),
          double(s->step_us)};
}

SignatureResult slow_motion(const TraceSignature& sig, const std::vector<VpTrace>& traces) {
  if (traces.empty()) return {false, "no traces", 0};
  auto slow = [&](const TraceStep& s) {
    return s.step_us > sig.step_over_us && (!sig.step_under_us || s.step_us < *sig.step_under_us);
  };
  size_t best = 0;
  const VpTrace* best_trace = nullptr;
  const TraceStep* best_first = nullptr;
  for (const auto& t : traces) {
    size_t run = 0;
    for (size_t i = 0; i < t.steps.size(); ++i) {
      run = slow(t.steps[i]) ? run + 1 : 0;
      if (run > best) {
        best = run;
        best_trace = &t;
        best_first = &t.steps[i + 1 - run];
      }
    }
  }
  if (!best) return {false, "0 steps", 0};
  return {best >= sig.count_at_least,
          fmt::format("{} step{} ({}:{}, from {})", best, best == 1 ? "" : "s", best_trace->file,
                      best_first->line, best_first->fn),
          double(best)};
}

SignatureResult longest_trace_has(const TraceSignature& sig, const std::vector<VpTrace>& traces) {
  const VpTrace* t = longest_trace(traces);
  if (!t) return {false, "no traces", 0};
  std::vector<std::string> missing;
  for (const auto& fn : sig.functions) {
    const bool found = std::any_of(t->steps.begin(), t->steps.end(),
                                   [&](const TraceStep& s) { return s.fn == fn; });
    if (!found) missing.push_back(fn);
  }
  const size_t found = sig.functions.size() - missing.size();
  if (missing.empty())
    return {true, fmt::format("all ({}, {} us)", t->file, t->latency_us), double(found)};
  return {false,
          fmt::format("missing {} ({}, {} us)", fmt::join(missing, ", "), t->file, t->latency_us),
          double(found)};
}

}  // namespace

SignatureResult evaluate(const TraceSignature& sig, const std::vector<VpTrace>& traces) {
  switch (sig.kind) {
    case TraceSignature::Kind::LongestStepIn:
      return longest_step_in(sig, traces);
    case TraceSignature::Kind::SlowMotion:
      return slow_motion(sig, traces);
    case TraceSignature::Kind::LongestTraceHas:
      return longest_trace_has(sig, traces);
  }
  return {};
}

}  // namespace latsim::check
