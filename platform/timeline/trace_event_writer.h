#pragma once
// Chrome trace-event JSON (the JSON Object Format that Perfetto UI, chrome://tracing
// and speedscope open), streamed to disk: events are written as they come, so
// memory holds only the open slices of each track, never the trace. `ts` is in
// µs with ns digits. Slices open when the window starts are begun at its start;
// those still open when it ends are ended at its end.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "platform/timeline/out_buffer.h"
#include "platform/timeline/stream_file.h"
#include "platform/timeline/time_window.h"

namespace latsim::platform::timeline {

class TraceEventWriter {
 public:
  // Writes to `path`, closed (fsync'd) by finish(); throws OutputError if it cannot open it.
  // Destroyed unfinished (an exception unwound the run), the file is removed.
  TraceEventWriter(std::string path, TimeWindow window);
  ~TraceEventWriter();
  TraceEventWriter(const TraceEventWriter&) = delete;
  TraceEventWriter& operator=(const TraceEventWriter&) = delete;

  // Metadata (ph M): names of a process (pid) and a thread (track) and their order.
  void process_name(int pid, std::string_view name, int sort_index);
  void thread_name(int pid, int tid, std::string_view name, int sort_index);

  // Nested slices of one track (ph B/E). Times must not go back (simulated now).
  void begin(int pid, int tid, uint64_t ps, std::string_view name, std::string_view cat,
             std::string_view args_json = {});
  void end(int pid, int tid, uint64_t ps);
  size_t depth(int pid, int tid) const;
  // A slice known whole (ph X), clipped to the window; may lie ahead of the others.
  // Dropped when it rounds to no time at all (1 ns resolution).
  void complete(int pid, int tid, uint64_t from_ps, uint64_t to_ps, std::string_view name,
                std::string_view cat, std::string_view args_json = {});
  // A name/category pair interned once (escaped once): what the recorder uses for
  // the millions of function slices, with begin(..., label) and end().
  int label(std::string_view name, std::string_view cat);
  void begin(int pid, int tid, uint64_t ps, int label);
  void instant(int pid, int tid, uint64_t ps, std::string_view name, std::string_view cat);
  // A B or E written as it is, outside the open-slice stacks and the window: for a track
  // drawn whole at the end, whose caller keeps it in time order, nested and in the window.
  void edge(char ph, int pid, int tid, uint64_t ps, std::string_view name, std::string_view cat,
            std::string_view args_json);
  // A flow arrow (ph s, then f): from the slice enclosing `from_ps` on track `from` to the
  // one enclosing `to_ps` on `to` (Perfetto draws it between them). Dropped unless both
  // ends lie in the window; each call gets the next id.
  void flow(std::pair<int, int> from, uint64_t from_ps, std::pair<int, int> to, uint64_t to_ps,
            std::string_view name, std::string_view cat);
  void counter(int pid, uint64_t ps, std::string_view name, std::string_view series, double v);

  // Close what is open at `end_ps` (or the window's end), write the closing
  // bracket and close the file; throws the first write failure.
  void finish(uint64_t end_ps);
  bool failed() const;  // a write failed: finish() throws it
  uint64_t events() const { return events_; }

 private:
  struct Open {
    std::string name, cat;  // unless interned:
    int label;              // >= 0: labels_[label]
    bool emitted;
  };
  void emit(char ph, const std::pair<int, int>& track, uint64_t ps, const Open& o);
  void push(int pid, int tid, uint64_t ps, Open o, std::string_view args_json);
  void advance(uint64_t ps);
  void open_event(char ph, int pid, int tid, uint64_t ps);
  void put_name(std::string_view name, std::string_view cat);
  void close_event(std::string_view args_json);
  void event(char ph, int pid, int tid, uint64_t ps, std::string_view name, std::string_view cat,
             std::string_view args_json);
  bool open_complete(int pid, int tid, uint64_t& from_ps, uint64_t& to_ps);

  std::string path_;
  TimeWindow w_;
  std::unique_ptr<StreamFile> f_;
  OutBuffer out_;
  // Interned labels: the `,"name":..,"cat":..` fragment of B and the `,"name":..` of E.
  std::vector<std::pair<std::string, std::string>> labels_;
  bool first_ = true, started_ = false, ended_ = false;
  uint64_t events_ = 0;
  uint64_t flows_ = 0;
  std::map<std::pair<int, int>, std::vector<Open>> open_;
};

// Appends `s` to `out` with JSON string escapes.
void append_json_escaped(std::string& out, std::string_view s);

}  // namespace latsim::platform::timeline
