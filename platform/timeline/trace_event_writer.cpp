#include "platform/timeline/trace_event_writer.h"
#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include "platform/timeline/stream_file.h"

namespace latsim::platform::timeline {

void append_json_escaped(std::string& out, std::string_view s) {
  OutBuffer b(s.size() + 16);
  b.put_escaped(s);
  out += b.take();
}

TraceEventWriter::TraceEventWriter(std::string path, TimeWindow window)
    : path_(std::move(path)), w_(window) {
  f_ = std::make_unique<StreamFile>(path_);
  out_.put("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  started_ = w_.from_ps == 0;
}

TraceEventWriter::~TraceEventWriter() = default;

bool TraceEventWriter::failed() const { return f_ && f_->failed(); }

void TraceEventWriter::open_event(char ph, int pid, int tid, uint64_t ps) {
  out_.put(first_ ? "{\"ph\":\"" : ",\n{\"ph\":\"");
  first_ = false;
  out_.put(ph);
  out_.put("\",\"pid\":");
  out_.put_uint(uint64_t(pid));
  out_.put(",\"tid\":");
  out_.put_uint(uint64_t(tid));
  out_.put(",\"ts\":");
  out_.put_us(ps);
}

void TraceEventWriter::put_name(std::string_view name, std::string_view cat) {
  if (!name.empty()) {
    out_.put(",\"name\":\"");
    out_.put_escaped(name);
    out_.put('"');
  }
  if (!cat.empty()) {
    out_.put(",\"cat\":\"");
    out_.put_escaped(cat);
    out_.put('"');
  }
}

void TraceEventWriter::close_event(std::string_view args_json) {
  if (!args_json.empty()) {
    out_.put(",\"args\":");
    out_.put(args_json);
  }
  out_.put('}');
  events_++;
  out_.drain_to(*f_);
}

void TraceEventWriter::event(char ph, int pid, int tid, uint64_t ps, std::string_view name,
                             std::string_view cat, std::string_view args_json) {
  open_event(ph, pid, tid, ps);
  put_name(name, cat);
  close_event(args_json);
}

void TraceEventWriter::process_name(int pid, std::string_view name, int sort_index) {
  std::string n;
  append_json_escaped(n, name);
  event('M', pid, 0, 0, "process_name", {}, "{\"name\":\"" + n + "\"}");
  event('M', pid, 0, 0, "process_sort_index", {}, fmt::format("{{\"sort_index\":{}}}", sort_index));
}

void TraceEventWriter::thread_name(int pid, int tid, std::string_view name, int sort_index) {
  std::string n;
  append_json_escaped(n, name);
  event('M', pid, tid, 0, "thread_name", {}, "{\"name\":\"" + n + "\"}");
  event('M', pid, tid, 0, "thread_sort_index", {},
        fmt::format("{{\"sort_index\":{}}}", sort_index));
}

void TraceEventWriter::advance(uint64_t ps) {
  if (!started_ && ps >= w_.from_ps) {
    started_ = true;
    for (auto& [key, stack] : open_) {
      for (auto& o : stack) {
        emit('B', key, w_.from_ps, o);
        o.emitted = true;
      }
    }
  }
  if (!ended_ && ps > w_.to_ps) {
    ended_ = true;
    for (auto& [key, stack] : open_) {
      for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        if (!it->emitted) continue;
        emit('E', key, w_.to_ps, *it);
        it->emitted = false;
      }
    }
  }
}

// E repeats B's name (speedscope matches them by name); the category is B's alone.
void TraceEventWriter::emit(char ph, const std::pair<int, int>& track, uint64_t ps, const Open& o) {
  open_event(ph, track.first, track.second, ps);
  if (o.label >= 0)
    out_.put(ph == 'B' ? labels_[size_t(o.label)].first : labels_[size_t(o.label)].second);
  else
    put_name(o.name, ph == 'B' ? std::string_view(o.cat) : std::string_view());
  close_event({});
}

void TraceEventWriter::push(int pid, int tid, uint64_t ps, Open o, std::string_view args_json) {
  advance(ps);
  o.emitted = started_ && !ended_;
  auto& stack = open_[{pid, tid}];
  stack.push_back(std::move(o));
  if (!stack.back().emitted) return;
  if (args_json.empty()) return emit('B', {pid, tid}, ps, stack.back());
  open_event('B', pid, tid, ps);
  put_name(stack.back().name, stack.back().cat);
  close_event(args_json);
}

void TraceEventWriter::begin(int pid, int tid, uint64_t ps, std::string_view name,
                             std::string_view cat, std::string_view args_json) {
  push(pid, tid, ps, Open{std::string(name), std::string(cat), -1, false}, args_json);
}

void TraceEventWriter::begin(int pid, int tid, uint64_t ps, int label) {
  push(pid, tid, ps, Open{{}, {}, label, false}, {});
}

void TraceEventWriter::end(int pid, int tid, uint64_t ps) {
  advance(ps);
  auto it = open_.find({pid, tid});
  if (it == open_.end() || it->second.empty()) return;
  const Open& top = it->second.back();
  if (top.emitted) emit('E', it->first, ps, top);
  it->second.pop_back();
}

size_t TraceEventWriter::depth(int pid, int tid) const {
  auto it = open_.find({pid, tid});
  return it == open_.end() ? 0 : it->second.size();
}

bool TraceEventWriter::open_complete(int pid, int tid, uint64_t& from_ps, uint64_t& to_ps) {
  if (to_ps < w_.from_ps || from_ps > w_.to_ps) return false;
  from_ps = std::max(from_ps, w_.from_ps);
  to_ps = std::min(to_ps, w_.to_ps);
  // Shorter than the file's 1 ns resolution: invisible, and speedscope mis-nests it.
  if (to_ps / 1000 <= from_ps / 1000) return false;
  open_event('X', pid, tid, from_ps);
  return true;
}

void TraceEventWriter::complete(int pid, int tid, uint64_t from_ps, uint64_t to_ps,
                                std::string_view name, std::string_view cat,
                                std::string_view args_json) {
  if (!open_complete(pid, tid, from_ps, to_ps)) return;
  put_name(name, cat);
  out_.put(",\"dur\":");
  out_.put_us(to_ps - from_ps);
  close_event(args_json);
}

int TraceEventWriter::label(std::string_view name, std::string_view cat) {
  OutBuffer b(name.size() + cat.size() + 32);
  b.put(",\"name\":\"");
  b.put_escaped(name);
  b.put('"');
  std::string e = b.take();  // E: the name alone
  b.put(e);
  if (!cat.empty()) {
    b.put(",\"cat\":\"");
    b.put_escaped(cat);
    b.put('"');
  }
  labels_.emplace_back(b.take(), std::move(e));
  return int(labels_.size() - 1);
}

void TraceEventWriter::instant(int pid, int tid, uint64_t ps, std::string_view name,
                               std::string_view cat) {
  if (!w_.contains(ps)) return;
  open_event('i', pid, tid, ps);
  put_name(name, cat);
  out_.put(",\"s\":\"t\"");
  close_event({});
}

void TraceEventWriter::edge(char ph, int pid, int tid, uint64_t ps, std::string_view name,
                            std::string_view cat, std::string_view args_json) {
  event(ph, pid, tid, ps, name, cat, args_json);
}

void TraceEventWriter::flow(std::pair<int, int> from, uint64_t from_ps, std::pair<int, int> to,
                            uint64_t to_ps, std::string_view name, std::string_view cat) {
  if (!w_.contains(from_ps) || !w_.contains(to_ps)) return;
  const uint64_t id = ++flows_;
  open_event('s', from.first, from.second, from_ps);
  put_name(name, cat);
  out_.put(",\"id\":");
  out_.put_uint(id);
  close_event({});
  open_event('f', to.first, to.second, to_ps);
  put_name(name, cat);
  out_.put(",\"id\":");
  out_.put_uint(id);
  out_.put(",\"bp\":\"e\"");  // binds to the enclosing slice, not the next one
  close_event({});
}

void TraceEventWriter::counter(int pid, uint64_t ps, std::string_view name, std::string_view series,
                               double v) {
  if (!w_.contains(ps)) return;
  open_event('C', pid, 0, ps);
  put_name(name, {});
  out_.put(",\"args\":{\"");
  out_.put_escaped(series);
  out_.put("\":");
  if (v >= 0 && v < 1e15 && v == double(uint64_t(v)))
    out_.put_uint(uint64_t(v));  // levels and counts: integers
  else
    out_.put(fmt::format("{}", v));
  out_.put('}');
  close_event({});
}

void TraceEventWriter::finish(uint64_t end_ps) {
  if (!f_) return;
  advance(std::min(end_ps, w_.to_ps));
  const uint64_t at = std::min(end_ps, w_.to_ps);
  for (auto& [key, stack] : open_) {
    for (auto it = stack.rbegin(); it != stack.rend(); ++it)
      if (it->emitted) emit('E', key, at, *it);
    stack.clear();
  }
  out_.put("\n]}\n");
  const auto f = std::move(f_);
  f->finish(out_.take());
}

}  // namespace latsim::platform::timeline
