#pragma once
// Parameter declarations: every knob of a device model, a kernel subsystem or a workload
// is declared once, beside the code that uses it, as a Key over that component's params
// struct: its name, type, range or accepted values, unit, one-line doc and source. The
// default is the struct member's initialiser (one default per knob). The scenario schema,
// `latsim keys`, `latsim list params`, the loader, --set and scenario.resolved.yaml are all
// built from these declarations (platform/scenario_schema.cpp mounts them).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace latsim::params {

enum class ValueType {
  Int,       // integer in [min, max]
  UInt64,    // any non-negative 64-bit integer (seed)
  Double,    // number in [min, max]
  Bool,      // true/false, on/off, yes/no, 1/0; written true/false
  OnOff,     // as Bool; written on/off (hdparm style)
  Switch,    // 0 or 1 (kernel /proc switches); also accepts the Bool spellings
  Enum,      // one of `accepted`
  IntEnum,   // an integer that is one of `accepted` (HZ)
  String,    // free text: printable UTF-8, one line unless KeySpec::multiline
  Name,      // [a-z0-9._-]+
  Duration,  // "30s", "500ms", "250us", "2.5s" or plain seconds; range in seconds
};

// A parsed value: int64_t (Int, Switch, IntEnum), uint64_t (UInt64), double (Double,
// Duration in seconds), bool (Bool, OnOff), std::string (Enum, String, Name).
using Value = std::variant<int64_t, uint64_t, double, bool, std::string>;

// Everything about a key except where its value goes.
struct KeySpec {
  std::string path;  // dotted YAML path; a segment starting with '/' runs to the end
  ValueType type = ValueType::Int;
  double min = 0;  // Int, Double, Duration
  double max = 0;
  std::vector<std::string> accepted;     // Enum, IntEnum
  std::vector<std::string> implemented;  // Enum: subset that runs today (empty: all)
  int multiple_of = 0;                   // Int: value must be a multiple (0: any)
  bool required = false;
  bool multiline = false;  // String: may hold line breaks (prose, not names or paths)
  std::string unit;        // shown in the reference ("ns", "MHz", ...)
  std::string doc;
  // Where the default comes from: a datasheet, a kernel source file, a measurement,
  // "fitted" (to which observation) or "assumption"; "" where the doc says it.
  std::string source;
};

// A parameter: the spec plus the way into the Target that holds its value (a component's
// params struct, or the Scenario once mounted).
template <class Target>
struct Key {
  KeySpec spec;
  std::function<void(Target&, const Value&)> set;
  std::function<Value(const Target&)> get;
};

// A component's declarations.
template <class Target>
using Table = std::vector<Key<Target>>;

// ---- declaring --------------------------------------------------------------------

template <class X>
Value to_value(const X& x) {
  if constexpr (std::is_same_v<X, bool>) {
    return x;
  } else if constexpr (std::is_same_v<X, std::string>) {
    return x;
  } else if constexpr (std::is_floating_point_v<X>) {
    return static_cast<double>(x);
  } else if constexpr (std::is_same_v<X, uint64_t>) {
    return x;
  } else {
    return static_cast<int64_t>(x);
  }
}

template <class X>
void assign(X& dst, const Value& v) {
  if constexpr (std::is_same_v<X, bool>) {
    dst = std::get<bool>(v);
  } else if constexpr (std::is_same_v<X, std::string>) {
    dst = std::get<std::string>(v);
  } else if constexpr (std::is_floating_point_v<X>) {
    dst = std::get<double>(v);
  } else if constexpr (std::is_same_v<X, uint64_t>) {
    dst = std::get<uint64_t>(v);
  } else {
    dst = static_cast<X>(std::get<int64_t>(v));
  }
}

// A key whose value lives in one member, reached by `ref` (Target& -> member&).
template <class Target, class Ref>
Key<Target> bind(KeySpec spec, Ref ref) {
  Key<Target> key;
  key.spec = std::move(spec);
  key.set = [ref](Target& t, const Value& v) { assign(ref(t), v); };
  key.get = [ref](const Target& t) { return to_value(ref(const_cast<Target&>(t))); };
  return key;
}

// A key whose value lives in the data member `m` of Target.
template <class Target, class M>
Key<Target> bind(KeySpec spec, M Target::*m) {
  return bind<Target>(std::move(spec), [m](Target& t) -> M& { return t.*m; });
}

// A key over a member held as another type than the key's value: `As` is what the
// Value carries (a uint64_t or bool member of an integer or 0/1 key travels as int64_t).
template <class Target, class As, class Ref>
Key<Target> bind_as(KeySpec spec, Ref ref) {
  Key<Target> key;
  key.spec = std::move(spec);
  key.set = [ref](Target& t, const Value& v) {
    As a{};
    assign(a, v);
    auto& m = ref(t);
    m = static_cast<std::decay_t<decltype(m)>>(a);
  };
  key.get = [ref](const Target& t) {
    return to_value(static_cast<As>(ref(const_cast<Target&>(t))));
  };
  return key;
}

// A member (an enum, or a bool with two names) spelled as the words in `names`, in the
// order they are accepted.
template <class Target, class E>
Key<Target> bind_enum(KeySpec spec, E Target::*m, std::vector<std::pair<E, std::string>> names) {
  spec.type = ValueType::Enum;
  spec.accepted.clear();
  for (const auto& n : names) spec.accepted.push_back(n.second);
  Key<Target> key;
  key.spec = std::move(spec);
  key.set = [m, names](Target& t, const Value& v) {
    for (const auto& [e, word] : names)
      if (word == std::get<std::string>(v)) t.*m = e;
  };
  key.get = [m, names](const Target& t) -> Value {
    for (const auto& [e, word] : names)
      if (e == t.*m) return word;
    return std::string("?");
  };
  return key;
}

// A component's key as a key of an Outer that holds the component's params at `ref`
// (Outer& -> Inner&), its path under `prefix` ("platform.ide." + "udma_mode").
template <class Outer, class Inner, class Ref>
Key<Outer> mount(const Key<Inner>& k, const std::string& prefix, Ref ref) {
  Key<Outer> out;
  out.spec = k.spec;
  out.spec.path = prefix + k.spec.path;
  out.set = [set = k.set, ref](Outer& o, const Value& v) { set(ref(o), v); };
  out.get = [get = k.get, ref](const Outer& o) { return get(ref(const_cast<Outer&>(o))); };
  return out;
}
template <class Outer, class Inner, class Ref>
void mount_all(Table<Outer>& into, const Table<Inner>& keys, const std::string& prefix, Ref ref) {
  for (const auto& k : keys) into.push_back(mount<Outer>(k, prefix, ref));
}

KeySpec integer(std::string path, double min, double max, std::string unit, std::string doc);
KeySpec number(std::string path, double min, double max, std::string unit, std::string doc);
KeySpec of_type(ValueType type, std::string path, std::string doc);
KeySpec choice(std::string path, std::vector<std::string> accepted, std::string doc);
KeySpec int_choice(std::string path, std::vector<std::string> accepted, std::string doc);
KeySpec duration(std::string path, double min_s, double max_s, std::string doc);
KeySpec required(KeySpec s);
KeySpec implemented(KeySpec s, std::vector<std::string> subset);
KeySpec multiple_of(KeySpec s, int n);
KeySpec with_unit(KeySpec s, std::string unit);
KeySpec multiline(KeySpec s);
// The key's source (see KeySpec::source).
KeySpec with_source(KeySpec s, std::string source);

// ---- checking and printing values --------------------------------------------------

// The longest String value, in bytes: a line of text or a path, never a data set.
inline constexpr size_t kMaxTextBytes = 4096;

// Result of checking one scalar against a spec. On failure `message` is the text after
// "KEY: " in a diagnostic, e.g. "300 is out of range (accepted: 0..255)".
struct ParsedValue {
  std::optional<Value> value;
  std::string message;
};
// `text` is the scalar's text; is_null marks an empty YAML value (`key:`).
ParsedValue parse_value(const KeySpec& spec, const std::string& text, bool is_null = false);

// The failure for a mapping or list where `spec` wants a scalar; `got` is "a mapping"...
ParsedValue not_a_scalar(const KeySpec& spec, const std::string& got);

// Canonical text of a value ("64", "33.33", "on", "30s", "rotate").
std::string format_value(const KeySpec& spec, const Value& value);
// "0..255", "rotate, fixed", "1ms..3600s", "[a-z0-9._-]+", "" for free strings.
std::string accepted_text(const KeySpec& spec);
// "integer", "number", "duration", ...
std::string type_name(ValueType type);
// Seconds from "30s", "500ms", "250us", "2.5s", "1min" or a plain number; nullopt if not.
std::optional<double> parse_duration(const std::string& text);

// The closest candidate to `word` if it is a plausible typo, else "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace latsim::params
