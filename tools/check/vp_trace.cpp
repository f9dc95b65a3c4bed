#include "tools/check/vp_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace latsim::check {

namespace {

// "0.764" (milliseconds with three decimals, as the tracer prints them) -> 764 us.
bool parse_ms(const std::string& s, int64_t& us) {
  const size_t dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || s.size() - dot - 1 != 3) return false;
  int64_t v = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == dot) continue;
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  us = v;
  return true;
}

bool is_hex8(const std::string& s) {
  return s.size() == 8 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit((unsigned char)c); });
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

// One entry line; false when it is not one.
bool parse_entry(const std::string& line, TraceStep& st) {
  const size_t open = line.find("ms (+");
  if (open == std::string::npos) return false;
  const size_t close = line.find("ms): ", open);
  if (close == std::string::npos) return false;
  auto head = words(line.substr(0, open));  // [pid] [preempt_count] T.TTT
  if (head.empty() || head.size() > 3 || !parse_ms(head.back(), st.at_us)) return false;
  if (!parse_ms(line.substr(open + 5, close - open - 5), st.step_us)) return false;
  if (head.size() >= 2) {
    if (!is_hex8(head[head.size() - 2])) return false;
    st.preempt_count = uint32_t(std::stoul(head[head.size() - 2], nullptr, 16));
  }
  std::string rest = line.substr(close + 5);
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.pop_back();
  const size_t paren = rest.find(" (");
  if (paren == std::string::npos || rest.back() != ')') return false;
  st.fn = rest.substr(0, paren);
  st.parent = rest.substr(paren + 2, rest.size() - paren - 3);
  return !st.fn.empty() && st.fn.find(' ') == std::string::npos;
}

// D measured since the previous entry (v1.0.3) rather than to the next: the timestamps say
// which. Each entry votes for the reading its D agrees with (within 1 us: both columns are
// floored to the microsecond); a tie keeps the documented layout, to the next.
bool printed_since_previous(const std::vector<TraceStep>& e, int64_t latency_us) {
  auto near = [](int64_t a, int64_t b) { return std::abs(a - b) <= 1; };
  size_t to_next = 0, since_prev = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    const int64_t next = i + 1 < e.size() ? e[i + 1].at_us : latency_us;
    const int64_t prev = i > 0 ? e[i - 1].at_us : 0;
    if (near(e[i].step_us, next - e[i].at_us)) ++to_next;
    if (near(e[i].step_us, e[i].at_us - prev)) ++since_prev;
  }
  return since_prev > to_next;
}

void link_steps(VpTrace& t) {
  auto& e = t.steps;
  if (printed_since_previous(e, t.latency_us)) {
    for (size_t i = 0; i < e.size(); ++i)
      e[i].step_us =
          i + 1 < e.size() ? e[i + 1].step_us : std::max<int64_t>(0, t.latency_us - e[i].at_us);
  }
  for (size_t i = 0; i + 1 < e.size(); ++i) e[i].next_parent = e[i + 1].parent;
}

// "  rtl8139_poll+0x3c/0x160" -> "rtl8139_poll": the function of a code address.
std::string site_function(const std::string& site) {
  const auto w = words(site);
  if (w.empty()) return "";
  return w[0].substr(0, w[0].find('+'));
}

}  // namespace

const TraceStep* VpTrace::longest_step() const {
  const TraceStep* best = nullptr;
  for (const auto& s : steps)
    if (!best || s.step_us > best->step_us) best = &s;
  return best;
}

VpTrace parse_vp_trace(const std::string& text, const std::string& name) {
  VpTrace t;
  t.file = name;
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  bool header = false, latency = false, body = false;
  auto fail = [&](const std::string& why) {
    throw TraceFormatError(fmt::format("{}:{}: {}", name, n, why));
  };
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (n == 1) {
      if (line.rfind("preemption latency trace", 0) != 0)
        fail("not a latency trace (expected `preemption latency trace v1.0.x`)");
      header = true;
      continue;
    }
    if (!body) {
      if (line.rfind("=======>", 0) == 0) {
        if (!latency) fail("`=======>` before the ` latency: N us` line");
        body = true;
      } else if (auto p = line.find("latency: "); p != std::string::npos && !latency) {
        const auto w = words(line.substr(p + 9));
        if (w.empty() || !std::all_of(w[0].begin(), w[0].end(), ::isdigit)) fail("bad latency");
        t.latency_us = std::stoll(w[0]);
        latency = true;
      } else if (auto q = line.find("| task: "); q != std::string::npos) {
        const std::string rest = line.substr(q + 8);
        t.task = rest.substr(0, rest.find(','));
      } else if (auto a = line.find("=> started at:"); a != std::string::npos) {
        t.started_in = site_function(line.substr(a + 14));
      } else if (auto b = line.find("=> ended at:"); b != std::string::npos) {
        t.ended_in = site_function(line.substr(b + 12));
      }
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    TraceStep st;
    if (!parse_entry(line, st))
      fail(
          fmt::format("expected `PPPPPPPP T.TTTms (+D.DDDms): function (parent)`, got `{}`", line));
    st.line = n;
    t.steps.push_back(std::move(st));
  }
  if (!header) throw TraceFormatError(name + ": empty file");
  if (!body) throw TraceFormatError(name + ": no `=======>` line (the entries' start)");
  link_steps(t);
  return t;
}

std::vector<VpTrace> read_trace_dir(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<VpTrace> traces;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    if (!in) throw TraceFormatError(f.string() + ": cannot read");
    traces.push_back(parse_vp_trace(s.str(), f.filename().string()));
  }
  return traces;
}

const VpTrace* longest_trace(const std::vector<VpTrace>& traces) {
  const VpTrace* best = nullptr;
  for (const auto& t : traces)
    if (!best || t.latency_us > best->latency_us) best = &t;
  return best;
}

}  // namespace latsim::check
