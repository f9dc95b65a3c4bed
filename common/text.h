#pragma once
// User text on its way to outputs and to the terminal: what is printable, and how to
// show what is not.
#include <optional>
#include <string>
#include <string_view>

namespace latsim::text {

// What is wrong with `s` as printable UTF-8 ("contains the control character \x1b",
// "is not valid UTF-8 (byte \xff)"), or nullopt if nothing. Line breaks are accepted
// only with `multiline`.
std::optional<std::string> unprintable(std::string_view s, bool multiline = false);

// `s` with control characters and bytes that are not UTF-8 written as escapes (\n, \t,
// \x1b): safe to print on a terminal.
std::string escaped(std::string_view s);

}  // namespace latsim::text
