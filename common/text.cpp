#include "common/text.h"

#include <fmt/format.h>

namespace latsim::text {
namespace {

// The length of the well-formed UTF-8 sequence at s[i], or 0 (overlong forms,
// surrogates and code points above U+10FFFF are not well-formed).
size_t sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
  if (b >= 0xc2 && b <= 0xdf) {
    n = 2;
  } else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  return n;
}

// C0 controls, DEL, and the C1 controls U+0080..U+009F (C2 80..C2 9F).
bool is_control(std::string_view s, size_t i, size_t n) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (n == 1) return b < 0x20 || b == 0x7f;
  return n == 2 && b == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0;
}

std::string escape_bytes(std::string_view s, size_t i, size_t n) {
  std::string out;
  for (size_t k = i; k < i + n; ++k) {
    const auto b = static_cast<unsigned char>(s[k]);
    if (b == '\n')
      out += "\\n";
    else if (b == '\t')
      out += "\\t";
    else if (b == '\r')
      out += "\\r";
    else
      out += fmt::format("\\x{:02x}", b);
  }
  return out;
}

}  // namespace

std::optional<std::string> unprintable(std::string_view s, bool multiline) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n == 0) return fmt::format("is not valid UTF-8 (byte {})", escape_bytes(s, i, 1));
    if (is_control(s, i, n) && !(multiline && s[i] == '\n'))
      return fmt::format("contains the control character {}", escape_bytes(s, i, n));
    i += n;
  }
  return std::nullopt;
}

std::string escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n == 0 || is_control(s, i, n)) {
      out += escape_bytes(s, i, n == 0 ? 1 : n);
      i += n == 0 ? 1 : n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace latsim::text
