#pragma once
// The end of a streamed output: write what is buffered, close, and rename PATH.tmp to
// PATH only if every write succeeded, so a failed run leaves no half-written file.
#include <cstdio>
#include <stdexcept>
#include <string>

namespace latsim::platform::timeline {

inline void close_streamed_file(std::FILE*& f, std::string& buf, const std::string& path,
                                const char* what) {
  std::fwrite(buf.data(), 1, buf.size(), f);
  buf.clear();
  const bool ok = std::fflush(f) == 0 && !std::ferror(f);
  std::fclose(f);
  f = nullptr;
  if (!ok || std::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
    std::remove((path + ".tmp").c_str());
    throw std::runtime_error(std::string("cannot write ") + what + path);
  }
}

}  // namespace latsim::platform::timeline
