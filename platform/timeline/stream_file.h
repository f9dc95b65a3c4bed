#pragma once
// A streamed output file (timeline, ftrace text, VCD) through the one checked writer. The
// recorders write from inside the simulation, where an exception must not unwind, so the
// first failure is kept, later writes are dropped, and finish() throws it. Destroyed
// unfinished, the file is removed.
#include <exception>
#include <string>
#include <string_view>
#include "platform/output_file.h"

namespace latsim::platform::timeline {

class StreamFile {
 public:
  explicit StreamFile(const std::string& path) : f_(path) {}  // throws OutputError

  void write(std::string_view bytes) {
    if (error_) return;
    try {
      f_.write(bytes);
    } catch (const OutputError&) {
      error_ = std::current_exception();
    }
  }
  // Patch bytes written before (see OutputFile::write_at); a failure is kept as write's.
  void write_at(uint64_t offset, std::string_view bytes) {
    if (error_) return;
    try {
      f_.write_at(offset, bytes);
    } catch (const OutputError&) {
      error_ = std::current_exception();
    }
  }
  bool failed() const { return bool(error_); }
  // The last bytes, then fsync and close; throws the first failure.
  void finish(std::string_view rest) {
    write(rest);
    if (error_) std::rethrow_exception(error_);
    f_.close();
  }

 private:
  OutputFile f_;
  std::exception_ptr error_;
};

}  // namespace latsim::platform::timeline
