#pragma once
// Value Change Dump (IEEE 1364 §18) streamed to disk: variables are declared
// first, then value changes are written in time order. Changes before the
// window only update the current values, which $dumpvars shows at its start.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "platform/timeline/stream_file.h"
#include "platform/timeline/time_window.h"

namespace latsim::platform::timeline {

constexpr uint64_t kVcdZ = UINT64_MAX;  // high impedance (no bus owner)

class VcdWriter {
 public:
  // Writes to `path`, closed (fsync'd) by finish(); throws OutputError if it cannot open it.
  VcdWriter(std::string path, TimeWindow window);
  ~VcdWriter();
  VcdWriter(const VcdWriter&) = delete;
  VcdWriter& operator=(const VcdWriter&) = delete;

  // Declare a variable in `scope` (before the first change); returns its handle.
  int add(const std::string& scope, const std::string& name, int width, uint64_t initial);
  // Set a value at `ps` (non-decreasing across calls).
  void change(int var, uint64_t ps, uint64_t value);
  void finish(uint64_t end_ps);  // throws the first write failure
  bool failed() const;

 private:
  struct Var {
    std::string scope, name, id;
    int width;
    uint64_t value;
  };
  void header();
  void write_value(const Var& v);
  void flush_if_full();

  std::string path_;
  TimeWindow w_;
  std::unique_ptr<StreamFile> f_;
  std::string buf_;
  std::vector<Var> vars_;
  bool declared_ = false, dumped_ = false;
  uint64_t last_ns_ = UINT64_MAX;
};

}  // namespace latsim::platform::timeline
