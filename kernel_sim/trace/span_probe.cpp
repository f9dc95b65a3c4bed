#include "kernel_sim/trace/span_probe.h"
#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace latsim::kernel {
namespace {

bool identifier(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::vector<std::pair<std::string, std::string>> parse(const std::string& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    const auto dots = item.find('-');
    std::string from = item.substr(0, dots),
                to = dots == std::string::npos ? "" : item.substr(dots + 1);
    if (!identifier(from) || (dots != std::string::npos && !identifier(to)))
      throw std::invalid_argument("bad span '" + item +
                                  "': expected FUNCTION or FUNCTION-FUNCTION, e.g. "
                                  "mark_offset_tsc-do_timer");
    out.emplace_back(from, to);
  }
  return out;
}

double us_at(const std::vector<uint64_t>& sorted, double q) {
  const size_t i = std::min(sorted.size() - 1, size_t(q * double(sorted.size() - 1) + 0.5));
  return double(sorted[i]) / 1e6;
}

}  // namespace

void check_span_spec(const std::string& spec) { parse(spec); }

SpanProbe::SpanProbe(int ncpus, const std::string& spec) {
  for (auto& [from, to] : parse(spec)) {
    Span s;
    s.from = from;
    s.to = to;
    s.open.assign(size_t(ncpus), false);
    s.t0.assign(size_t(ncpus), sc_core::SC_ZERO_TIME);
    spans_.push_back(std::move(s));
  }
}

void SpanProbe::close(Span& s, int cpu, sc_core::sc_time now) {
  s.ps.push_back((now - s.t0[size_t(cpu)]).value());  // SystemC resolution is 1 ps
  s.open[size_t(cpu)] = false;
}

void SpanProbe::mcount(int cpu, sc_core::sc_time now, const char* fn) {
  for (auto& s : spans_) {
    const size_t c = size_t(cpu);
    if (s.open[c] && (s.to.empty() || s.to == fn)) close(s, cpu, now);
    if (!s.open[c] && s.from == fn) s.open[c] = true, s.t0[c] = now;
  }
}

void SpanProbe::section_end(int cpu, sc_core::sc_time now) {
  for (auto& s : spans_) {
    if (!s.open[size_t(cpu)]) continue;
    if (s.to.empty())
      close(s, cpu, now);  // the last step of a trace runs to the section's end
    else
      s.open[size_t(cpu)] = false;  // B never came inside the section: not a span
  }
}

std::vector<SpanStats> SpanProbe::stats() const {
  std::vector<SpanStats> out;
  for (const auto& s : spans_) {
    SpanStats st;
    st.name = s.to.empty() ? s.from : s.from + "-" + s.to;
    st.count = s.ps.size();
    if (!s.ps.empty()) {
      std::vector<uint64_t> v = s.ps;
      std::sort(v.begin(), v.end());
      st.median_us = us_at(v, 0.5);
      st.p90_us = us_at(v, 0.9);
      st.max_us = double(v.back()) / 1e6;
    }
    out.push_back(st);
  }
  return out;
}

}  // namespace latsim::kernel
