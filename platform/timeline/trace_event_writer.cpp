#include "platform/timeline/trace_event_writer.h"
#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include "platform/timeline/stream_file.h"

namespace latsim::platform::timeline {
namespace {

constexpr size_t kFlushBytes = 1 << 20;

// µs with three decimals, from integer ps (exact, no floating-point rounding).
void append_us(std::string& out, uint64_t ps) {
  const uint64_t ns = ps / 1000;
  fmt::format_to(std::back_inserter(out), "{}.{:03d}", ns / 1000, unsigned(ns % 1000));
}

}  // namespace

void append_json_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", unsigned(c));
    } else {
      out += c;
    }
  }
}

TraceEventWriter::TraceEventWriter(std::string path, TimeWindow window)
    : path_(std::move(path)), w_(window) {
  f_ = std::fopen((path_ + ".tmp").c_str(), "wb");
  if (!f_) throw std::runtime_error("cannot write timeline " + path_ + ".tmp");
  buf_ = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  started_ = w_.from_ps == 0;
}

TraceEventWriter::~TraceEventWriter() {
  if (!f_) return;
  std::fclose(f_);  // finish() was not reached (an exception): leave nothing half-written
  std::remove((path_ + ".tmp").c_str());
}

void TraceEventWriter::flush_if_full() {
  if (buf_.size() < kFlushBytes) return;
  std::fwrite(buf_.data(), 1, buf_.size(), f_);
  buf_.clear();
}

void TraceEventWriter::event(char ph, int pid, int tid, uint64_t ps, std::string_view name,
                             std::string_view cat, std::string_view extra) {
  if (!first_) buf_ += ",\n";
  first_ = false;
  fmt::format_to(std::back_inserter(buf_), "{{\"ph\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":", ph, pid,
                 tid);
  append_us(buf_, ps);
  if (!name.empty()) {
    buf_ += ",\"name\":\"";
    append_json_escaped(buf_, name);
    buf_ += '"';
  }
  if (!cat.empty()) {
    buf_ += ",\"cat\":\"";
    append_json_escaped(buf_, cat);
    buf_ += '"';
  }
  buf_ += extra;
  buf_ += '}';
  events_++;
  flush_if_full();
}

void TraceEventWriter::process_name(int pid, std::string_view name, int sort_index) {
  std::string n;
  append_json_escaped(n, name);
  event('M', pid, 0, 0, "process_name", {}, fmt::format(",\"args\":{{\"name\":\"{}\"}}", n));
  event('M', pid, 0, 0, "process_sort_index", {},
        fmt::format(",\"args\":{{\"sort_index\":{}}}", sort_index));
}

void TraceEventWriter::thread_name(int pid, int tid, std::string_view name, int sort_index) {
  std::string n;
  append_json_escaped(n, name);
  event('M', pid, tid, 0, "thread_name", {}, fmt::format(",\"args\":{{\"name\":\"{}\"}}", n));
  event('M', pid, tid, 0, "thread_sort_index", {},
        fmt::format(",\"args\":{{\"sort_index\":{}}}", sort_index));
}

void TraceEventWriter::advance(uint64_t ps) {
  if (!started_ && ps >= w_.from_ps) {
    started_ = true;
    for (auto& [key, stack] : open_) {
      for (auto& o : stack) {
        event('B', key.first, key.second, w_.from_ps, o.name, o.cat, {});
        o.emitted = true;
      }
    }
  }
  if (!ended_ && ps > w_.to_ps) {
    ended_ = true;
    for (auto& [key, stack] : open_) {
      for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        if (!it->emitted) continue;
        event('E', key.first, key.second, w_.to_ps, it->name, it->cat, {});
        it->emitted = false;
      }
    }
  }
}

void TraceEventWriter::begin(int pid, int tid, uint64_t ps, std::string_view name,
                             std::string_view cat, std::string_view args_json) {
  advance(ps);
  const bool live = started_ && !ended_;
  open_[{pid, tid}].push_back({std::string(name), std::string(cat), live});
  if (!live) return;
  std::string extra;
  if (!args_json.empty()) extra = fmt::format(",\"args\":{}", args_json);
  event('B', pid, tid, ps, name, cat, extra);
}

void TraceEventWriter::end(int pid, int tid, uint64_t ps) {
  advance(ps);
  auto it = open_.find({pid, tid});
  if (it == open_.end() || it->second.empty()) return;
  // E repeats B's name: speedscope matches them by name.
  const Open& top = it->second.back();
  if (top.emitted) event('E', pid, tid, ps, top.name, top.cat, {});
  it->second.pop_back();
}

size_t TraceEventWriter::depth(int pid, int tid) const {
  auto it = open_.find({pid, tid});
  return it == open_.end() ? 0 : it->second.size();
}

void TraceEventWriter::complete(int pid, int tid, uint64_t from_ps, uint64_t to_ps,
                                std::string_view name, std::string_view cat,
                                std::string_view args_json) {
  if (to_ps < w_.from_ps || from_ps > w_.to_ps) return;
  from_ps = std::max(from_ps, w_.from_ps);
  to_ps = std::min(to_ps, w_.to_ps);
  std::string extra = ",\"dur\":";
  append_us(extra, to_ps - from_ps);
  if (!args_json.empty()) extra += fmt::format(",\"args\":{}", args_json);
  event('X', pid, tid, from_ps, name, cat, extra);
}

void TraceEventWriter::instant(int pid, int tid, uint64_t ps, std::string_view name,
                               std::string_view cat) {
  if (!w_.contains(ps)) return;
  event('i', pid, tid, ps, name, cat, ",\"s\":\"t\"");
}

void TraceEventWriter::counter(int pid, uint64_t ps, std::string_view name, std::string_view series,
                               double v) {
  if (!w_.contains(ps)) return;
  event('C', pid, 0, ps, name, {}, fmt::format(",\"args\":{{\"{}\":{}}}", series, v));
}

void TraceEventWriter::finish(uint64_t end_ps) {
  if (!f_) return;
  advance(std::min(end_ps, w_.to_ps));
  const uint64_t at = std::min(end_ps, w_.to_ps);
  for (auto& [key, stack] : open_) {
    for (auto it = stack.rbegin(); it != stack.rend(); ++it)
      if (it->emitted) event('E', key.first, key.second, at, it->name, it->cat, {});
    stack.clear();
  }
  buf_ += "\n]}\n";
  close_streamed_file(f_, buf_, path_, "timeline ");
}

}  // namespace latsim::platform::timeline
