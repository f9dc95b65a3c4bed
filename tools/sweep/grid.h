#pragma once
// The grid of a parameter sweep: swept keys with their values, times seeds.
//
// A --param is KEY=ITEM,ITEM,... where KEY is a --set key (dotted path or real /sys, /proc
// path) and each ITEM is a value (a YAML scalar, as --set takes it) or an integer range:
//   A..B      A, A+1, ..., B
//   A..B+S    A, A+S, A+2S, ... up to B          (0..248+8  -> 0, 8, ..., 248)
//   A..B*F    A, A*F, A*F*F, ... up to B         (8..128*2  -> 8, 16, 32, 64, 128)
//
// Grid order: the first --param varies slowest, the seeds fastest. Point i of a grid
// belongs to shard K/N when i % N == K.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace latsim::sweep {

// A mistake in a --param, --shard or --seeds argument (the message says which).
class GridError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Param {
  std::string key;
  std::vector<std::string> values;  // in the order given, ranges expanded
};

// "8,16,32..128*2" -> {"8", "16", "32", "64", "128"}. Throws GridError on an empty item,
// a malformed range, a range of more than 100000 values, or a value given twice.
std::vector<std::string> parse_values(const std::string& text);

// "KEY=ITEMS" -> Param. Throws GridError.
Param parse_param(const std::string& text);

// A swept value as JSON holds it: a number or a boolean when it reads back as the same text
// (8, -4, 2.5, true), else the text ("08", "1e3", "on", "vanilla"); so the text, which a
// point's id is made of, survives the round trip through sweep.json.
nlohmann::json typed_value(const std::string& text);
// The text of a value written by typed_value.
std::string value_text(const nlohmann::json& value);

// 64-bit FNV-1a of `text`, as 16 lower-case hex digits.
std::string fnv1a_hex(const std::string& text);

struct Point {
  size_t index = 0;                                         // position in grid order
  std::vector<std::pair<std::string, std::string>> values;  // one per param, in param order
  uint64_t seed = 0;
  std::string canonical;  // the sorted "key=value;...;seed=S" text the id is hashed from
  std::string id;         // fnv1a_hex(canonical)
};

struct Grid {
  std::vector<std::string> sets;  // fixed KEY=VALUE overrides of every point (not seed)
  std::vector<Param> params;
  std::vector<uint64_t> seeds;  // at least one

  size_t size() const;
  Point point(size_t index) const;
  // The --set overrides of a point, in this order: the fixed sets, then one per param.
  std::vector<std::string> overrides(const Point& p) const;
  // Throws GridError when a key is swept twice, or is swept and also fixed by --set, or
  // is `seed` (use --seeds).
  void check() const;
};

struct Shard {
  size_t index = 0, count = 1;  // K/N, 0 <= K < N
  bool whole() const { return count == 1; }
  bool holds(size_t point_index) const { return point_index % count == index; }
};

// "K/N" -> Shard. Throws GridError.
Shard parse_shard(const std::string& text);

}  // namespace latsim::sweep
