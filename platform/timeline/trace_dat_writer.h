#pragma once
// A trace.dat file (trace-cmd's format, version 6, flyrecord) that `trace-cmd report` and
// KernelShark read: the event formats as in tracefs, one ring buffer of 4 KiB pages per CPU,
// the pid -> comm table and a kallsyms of the function names the events point at.
// Written by hand: libtracecmd (Debian 12) installs only its reading API; its writer is
// private and takes ring-buffer pages from a live kernel's tracefs.
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include "platform/timeline/stream_file.h"

namespace latsim::platform::timeline {

// One field of an event's format, after the common ones: a C declaration ("pid_t pid",
// "char comm[16]", "__data_loc char[] name"), its size in the record and its signedness.
struct TraceField {
  std::string decl;
  int size;
  bool is_signed;
};

// An event's record after the 8-byte common header, built field by field in the order
// of its format; strings of __data_loc fields follow the fixed part.
class TraceRecord {
 public:
  TraceRecord& u16(uint16_t v) { return le(v, 2); }
  TraceRecord& u32(uint32_t v) { return le(v, 4); }
  TraceRecord& i32(int32_t v) { return le(uint32_t(v), 4); }
  TraceRecord& u64(uint64_t v) { return le(v, 8); }
  // char name[n]: truncated to n - 1 bytes, NUL-padded.
  TraceRecord& chars(std::string_view s, size_t n);
  // __data_loc char[]: (length << 16 | offset) here, the string at the end.
  TraceRecord& str(std::string_view s);
  const std::string& fixed() const { return fixed_; }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  TraceRecord& le(uint64_t v, int bytes);
  std::string fixed_;
  std::vector<std::string> strings_;  // (the offset is known once the fixed part is)
  std::vector<size_t> locs_;          // where each data_loc word is in fixed_
  friend class TraceDatWriter;
};

class TraceDatWriter {
 public:
  // Writes to `path` at finish() (streamed through a temporary per CPU meanwhile); throws
  // OutputError if it cannot open it.
  TraceDatWriter(std::string path, int ncpus);
  ~TraceDatWriter();
  TraceDatWriter(const TraceDatWriter&) = delete;
  TraceDatWriter& operator=(const TraceDatWriter&) = delete;

  // An event type "system/name"; returns its id (common_type). Before any record().
  int add_event(const std::string& system, const std::string& name, std::vector<TraceField> fields,
                const std::string& print_fmt);
  // The task names the report shows beside pids (the last one given wins).
  void set_comm(int pid, std::string_view comm);
  // A function's address for %pS: kallsyms gets one symbol per name, in first-use order,
  // as an offset from _stext (the preemptirq events' caller_offs/parent_offs); "" is
  // "unknown".
  int32_t symbol(std::string_view fn);

  // flags: TRACE_FLAG_* (irqs off, hardirq, softirq); preempt: the preempt count's low byte.
  void record(int cpu, uint64_t ns, int type, uint8_t flags, uint8_t preempt, int pid,
              const TraceRecord& r);
  // No record before `ns` is still to come on `cpu`: those pending may be written.
  void advance(int cpu, uint64_t ns);
  bool failed() const;
  // The headers and the CPUs' pages; throws OutputError.
  void finish();

  size_t records(int cpu) const { return cpus_[size_t(cpu)].count; }
  // Records that came after a later one had been written, written at that one's time.
  uint64_t late() const { return late_; }

  static constexpr uint8_t kIrqsOff = 0x01, kHardirq = 0x08, kSoftirq = 0x10;
  static constexpr size_t kPageSize = 4096;

 private:
  struct Pending {
    uint64_t ns;
    std::string bytes;  // the whole record: common header and payload
  };
  struct Cpu {
    std::vector<Pending> pending;  // not yet in pages, any order
    std::string page;              // the page being filled (data after the 16-byte header)
    uint64_t page_ts = 0, last_ts = 0;
    std::FILE* pages = nullptr;  // full pages (an anonymous temporary)
    size_t npages = 0, count = 0;
  };
  void flush(Cpu& c, uint64_t before);
  void append(Cpu& c, uint64_t ns, const std::string& rec);
  void put_event(Cpu& c, uint32_t header, const std::string& body);
  void close_page(Cpu& c);
  std::string headers() const;

  std::string path_;
  std::unique_ptr<StreamFile> f_;
  std::vector<Cpu> cpus_;
  std::map<std::string, std::vector<std::string>> systems_;  // system -> format texts
  std::map<int, std::string> comms_;
  std::map<std::string, int32_t, std::less<>> symbols_;
  std::vector<std::string> symbol_order_;
  int next_id_ = 20;  // ids below are ftrace's own (function, print, ...)
  uint64_t late_ = 0;
  bool io_error_ = false;
};

}  // namespace latsim::platform::timeline
