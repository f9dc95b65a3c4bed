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
    case Kind::LongestSectionIn:
      return "trace: longest section";
  }
  return "trace";
}

std::string TraceSignature::expected() const {
  switch (kind) {
    case Kind::LongestStepIn:
      if (min_step_us == 0) return fmt::format("in {}", fmt::join(functions, "/"));
      return fmt::format("in {}, ≥ {} us", fmt::join(functions, "/"), min_step_us);
    case Kind::SlowMotion: {
      const std::string in =
          in_traces_over_us ? fmt::format(" in traces ≥ {} us", in_traces_over_us) : "";
      if (step_under_us)
        return fmt::format("≥ {} step{} in a row of {}..{} us{}", count_at_least,
                           count_at_least == 1 ? "" : "s", step_over_us, *step_under_us, in);
      return fmt::format("≥ {} step{} in a row > {} us{}", count_at_least,
                         count_at_least == 1 ? "" : "s", step_over_us, in);
    }
    case Kind::LongestTraceHas:
      return fmt::format("{}", fmt::join(functions, ", "));
    case Kind::LongestSectionIn: {
      const std::string in = fmt::format("in {}", fmt::join(functions, "/"));
      if (min_us && max_us) return fmt::format("{}, {}..{} us", in, *min_us, *max_us);
      if (min_us) return fmt::format("{}, ≥ {} us", in, *min_us);
      if (max_us) return fmt::format("{}, ≤ {} us", in, *max_us);
      return in;
    }
  }
  return "";
}

namespace {

SignatureResult longest_step_in(const TraceSignature& sig, const std::vector<VpTrace>& traces) {
  const VpTrace* t = longest_trace(traces);
  const TraceStep* s = t ? t->longest_step() : nullptr;
  if (!s) return {false, t ? fmt::format("{} has no entries", t->file) : "no traces", 0};
  const bool named = std::any_of(sig.functions.begin(), sig.functions.end(),
                                 [&](const std::string& f) { return s->in(f); });
  const std::string where = s->next_parent.empty() || s->next_parent == s->fn
                                ? s->fn
                                : fmt::format("{} (then {})", s->fn, s->next_parent);
  return {named && s->step_us >= sig.min_step_us,
          fmt::format("{} {} us ({}, {} us)", where, s->step_us, t->file, t->latency_us),
          double(s->step_us)};
}

// The longest run of consecutive steps that `slow` accepts, over the traces of at least
// `min_latency_us`.
struct Run {
  size_t length = 0;
  const VpTrace* trace = nullptr;
  const TraceStep* first = nullptr;
  int64_t shortest = 0, longest = 0;  // its steps' range
};

template <typename Pred>
Run longest_run(const std::vector<VpTrace>& traces, int64_t min_latency_us, Pred slow) {
  Run best;
  for (const auto& t : traces) {
    if (t.latency_us < min_latency_us) continue;
    size_t run = 0;
    for (size_t i = 0; i < t.steps.size(); ++i) {
      run = slow(t.steps[i]) ? run + 1 : 0;
      if (run <= best.length) continue;
      best = {run, &t, &t.steps[i + 1 - run], t.steps[i].step_us, t.steps[i].step_us};
      for (size_t k = i + 1 - run; k <= i; ++k) {
        best.shortest = std::min(best.shortest, t.steps[k].step_us);
        best.longest = std::max(best.longest, t.steps[k].step_us);
      }
    }
  }
  return best;
}

SignatureResult slow_motion(const TraceSignature& sig, const std::vector<VpTrace>& traces) {
  if (traces.empty()) return {false, "no traces", 0};
  // Only traces as long as a tracer threshold of in_traces_over_us would have kept.
  const int64_t kept = sig.in_traces_over_us;
  if (std::none_of(traces.begin(), traces.end(),
                   [&](const VpTrace& t) { return t.latency_us >= kept; }))
    return {false, fmt::format("no trace of {} us or more", kept), 0};
  const Run best = longest_run(traces, kept, [&](const TraceStep& s) {
    return s.step_us > sig.step_over_us && (!sig.step_under_us || s.step_us < *sig.step_under_us);
  });
  std::string measured =
      best.length == 0
          ? "0 steps"
          : fmt::format("{} step{} ({}:{}, from {})", best.length, best.length == 1 ? "" : "s",
                        best.trace->file, best.first->line, best.first->fn);
  const bool holds = best.length >= sig.count_at_least;
  if (!holds && sig.step_under_us) {
    // What the traces show instead: the longest run without the upper bound.
    const Run over =
        longest_run(traces, kept, [&](const TraceStep& s) { return s.step_us > sig.step_over_us; });
    if (over.length > best.length)
      measured += fmt::format("; {} in a row of {}..{} us at {}:{}", over.length, over.shortest,
                              over.longest, over.trace->file, over.first->line);
  }
  return {holds, measured, double(best.length)};
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

// The longest of the sections that started or ended in one of the functions: seed 000's
// rtl8139_poll traces are named by their sites ("started at rtl8139_poll+0x3c/0x160").
SignatureResult longest_section_in(const TraceSignature& sig, const std::vector<VpTrace>& traces) {
  const VpTrace* best = nullptr;
  for (const auto& t : traces) {
    const bool in = std::any_of(sig.functions.begin(), sig.functions.end(), [&](const auto& f) {
      return t.started_in == f || t.ended_in == f;
    });
    if (in && (!best || t.latency_us > best->latency_us)) best = &t;
  }
  if (!best)
    return {false,
            fmt::format("no trace started or ended in {} ({} traces)",
                        fmt::join(sig.functions, "/"), traces.size()),
            0};
  const int64_t us = best->latency_us;
  const bool holds = (!sig.min_us || us >= *sig.min_us) && (!sig.max_us || us <= *sig.max_us);
  return {holds,
          fmt::format("{} us ({}, {} .. {})", us, best->file, best->started_in, best->ended_in),
          double(us)};
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
    case TraceSignature::Kind::LongestSectionIn:
      return longest_section_in(sig, traces);
  }
  return {};
}

}  // namespace latsim::check
