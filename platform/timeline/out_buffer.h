#pragma once
// The byte buffer of a streamed text output: appends without format strings or
// reallocation (a fixed block written out when full), because a whole-run
// timeline is millions of events and its formatting is the recorder's cost.
#include <fmt/format.h>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include "platform/timeline/stream_file.h"

namespace latsim::platform::timeline {

class OutBuffer {
 public:
  explicit OutBuffer(size_t block = size_t(1) << 20) : buf_(block, '\0') {}

  void put(std::string_view s) {
    std::memcpy(room(s.size()), s.data(), s.size());
    pos_ += s.size();
  }
  void put(char c) {
    *room(1) = c;
    pos_++;
  }
  void put_uint(uint64_t v) {
    const fmt::format_int f(v);
    put(std::string_view(f.data(), f.size()));
  }
  // `s` padded with spaces to `width`, right-aligned ({:>W}) or left-aligned ({:<W}).
  void put_padded(std::string_view s, size_t width, bool right) {
    const size_t pad = s.size() < width ? width - s.size() : 0;
    if (right) put_fill(' ', pad);
    put(s);
    if (!right) put_fill(' ', pad);
  }
  // `v` right-aligned in `width`, padded with `fill` ('0' as {:0W}, ' ' as {:>W}).
  void put_uint_padded(uint64_t v, size_t width, char fill) {
    const fmt::format_int f(v);
    if (f.size() < width) put_fill(fill, width - f.size());
    put(std::string_view(f.data(), f.size()));
  }
  void put_fill(char c, size_t n) {
    std::memset(room(n), c, n);
    pos_ += n;
  }
  // µs with three decimals, from integer ps (exact, no floating-point rounding).
  void put_us(uint64_t ps) {
    const uint64_t ns = ps / 1000;
    put_uint(ns / 1000);
    const auto frac = unsigned(ns % 1000);
    char* p = room(4);
    p[0] = '.';
    p[1] = char('0' + frac / 100);
    p[2] = char('0' + frac / 10 % 10);
    p[3] = char('0' + frac % 10);
    pos_ += 4;
  }
  // `s` with JSON string escapes.
  void put_escaped(std::string_view s);

  // Write what is buffered to `f` once the block is full (or always, with force).
  void drain_to(StreamFile& f, bool force = false) {
    if (!force && pos_ < buf_.size() / 2) return;
    f.write(std::string_view(buf_.data(), pos_));
    pos_ = 0;
  }
  // The buffered bytes, moved out (for StreamFile::finish).
  std::string take() {
    std::string s(buf_.data(), pos_);
    pos_ = 0;
    return s;
  }

 private:
  char* room(size_t n) {
    if (pos_ + n > buf_.size()) buf_.resize(std::max(buf_.size() * 2, pos_ + n));
    return buf_.data() + pos_;
  }
  std::string buf_;
  size_t pos_ = 0;
};

inline void OutBuffer::put_escaped(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t plain = 0;  // start of the run of characters that need no escape
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c != '"' && c != '\\' && c >= 0x20) continue;
    put(s.substr(plain, i - plain));
    plain = i + 1;
    if (c == '"' || c == '\\') {
      put('\\');
      put(char(c));
    } else {
      put("\\u00");
      put(kHex[c >> 4]);
      put(kHex[c & 15]);
    }
  }
  put(s.substr(plain));
}

}  // namespace latsim::platform::timeline
