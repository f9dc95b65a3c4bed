#include "platform/scenario_loader.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "common/text.h"
#include "kernel_sim/flavour.h"
#include "kernel_sim/trace/span_probe.h"
#include "platform/presets/registry.h"
#include "platform/scenario_schema.h"
#include "platform/timeline/time_window.h"

namespace latsim::platform {

namespace {

// Items of the workload list: each is a program with its own tasks.
constexpr size_t kMaxWorkloadItems = 64;

std::string join_path(const std::string& parent, const std::string& child) {
  return parent.empty() ? child : parent + "." + child;
}

std::string node_kind(const YAML::Node& node) {
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "an empty value";
  return fmt::format("`{}`", node.Scalar());
}

// map[key] without yaml-cpp's invalid-node exceptions: Undefined when absent or not a map.
YAML::Node lookup(const YAML::Node& map, const std::string& key) {
  if (map.IsMap()) {
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The key a name written in the wrong section means: the leaf whose last segment (or, for
// a kernel path, whose last path component) is `name`, else the nearest by edit distance. A
// kernel path is given as --set takes it (/sys/block/hda/queue/read_ahead_kb).
std::string leaf_elsewhere(const std::string& name) {
  std::vector<std::string> names, paths;
  for (const auto& key : scenario_keys()) {
    const std::string last = split_key_path(key.spec.path).back();
    const bool kernel_path = last.front() == '/';
    names.push_back(kernel_path ? last.substr(last.rfind('/') + 1) : last);
    paths.push_back(kernel_path ? last : key.spec.path);
    if (names.back() == name) return paths.back();
  }
  const std::string guess = closest_match(name, names);
  for (size_t i = 0; i < names.size(); ++i)
    if (!guess.empty() && names[i] == guess) return paths[i];
  return {};
}

// One scenario load: YAML tree -> overrides -> preset -> walk -> cross-field checks.
class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) { s_.source_file = file_; }

  Scenario run(const std::string& text, const std::vector<std::string>& sets) {
    YAML::Node root;
    try {
      root = parse_yaml_document(text, file_);
    } catch (const InputError& e) {
      throw ScenarioError(e.diagnostics());
    }
    if (!root.IsDefined() || root.IsNull()) {
      root = YAML::Node(YAML::NodeType::Map);
    } else if (!root.IsMap()) {
      error(at(root.Mark()), "",
            fmt::format("a scenario is a mapping of keys, got {}", node_kind(root)));
      throw ScenarioError(std::move(diags_));
    }

    for (const auto& set : sets) apply_set(root, set);
    apply_platform_preset(root);
    walk_section(schema_tree(), root);
    check_required();
    check_cross_fields();
    if (!diags_.empty()) throw ScenarioError(std::move(diags_));
    return std::move(s_);
  }

 private:
  // ---- locations and errors ----

  std::string at(const YAML::Mark& mark) const { return location(file_, mark); }

  // Where the value of `path` came from: its --set, else the node, else `fallback`.
  std::string where(const std::string& path, const YAML::Node& node, const YAML::Mark& fallback) {
    if (auto it = set_origin_.find(path); it != set_origin_.end()) return it->second;
    const YAML::Mark mark = node.IsDefined() ? node.Mark() : YAML::Mark::null_mark();
    return at(mark.is_null() ? fallback : mark);
  }

  void error(std::string location, std::string key, std::string message) {
    diags_.push_back(Diagnostic{std::move(location), std::move(key), std::move(message)});
  }

  std::string unknown_key_message(const SchemaNode& section, const std::string& name,
                                  bool full_path) {
    const std::vector<std::string> names = section.child_names();
    std::string guess = closest_match(name, names);
    // A kernel path is set by itself (/sys/...), not under its section.
    if (!guess.empty() && full_path && guess.front() != '/') guess = join_path(section.path, guess);
    if (guess.empty()) guess = leaf_elsewhere(name);
    const std::string hint = guess.empty() ? "" : fmt::format("; did you mean `{}`?", guess);
    const bool tunable = section.path == "kernel.tunables";
    return fmt::format("unknown {}{} (accepted: {})", tunable ? "tunable path" : "key", hint,
                       fmt::join(names, ", "));
  }

  // ---- --set overrides: edit the YAML tree before it is walked ----

  // A --set VALUE as a YAML node; free strings may hold anything.
  std::optional<YAML::Node> override_value(const std::string& origin, const std::string& key,
                                           const KeySpec& spec, const std::string& text) {
    const bool free_text = spec.type == ValueType::String;
    try {
      YAML::Node node = parse_yaml_document(text, origin);
      if (!node.IsDefined() || node.IsNull() || node.IsScalar()) return node;
      if (free_text) return YAML::Node(text);
      error(origin, key, not_a_scalar(spec, node_kind(node)).message);
    } catch (const InputError& e) {
      if (free_text) return YAML::Node(text);
      error(origin, key,
            fmt::format("cannot parse `{}` as a YAML scalar: {}", text,
                        e.diagnostics().front().message));
    }
    return std::nullopt;
  }

  void apply_set(YAML::Node& root, const std::string& set) {
    const std::string origin = "--set " + set;
    const size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      error(origin, "", "expected KEY=VALUE");
      return;
    }
    std::string key = set.substr(0, eq);
    const std::string text = set.substr(eq + 1);
    if (key.front() == '/') key = "kernel.tunables." + key;
    const std::vector<std::string> segments = split_key_path(key);
    if (segments.front() == "workload") {
      apply_workload_set(root, origin, key, segments, text);
      return;
    }

    const SchemaNode* node = &schema_tree();
    for (const auto& segment : segments) {
      const SchemaNode* child = node->find(segment);
      if (!child) {
        error(origin, key, unknown_key_message(*node, segment, true));
        return;
      }
      node = child;
      if (node->is_sweep) break;
    }
    if (node->is_workload) {
      error(origin, key, "set one parameter: workload.N.PARAM or workload.NAME.PARAM");
      return;
    }
    if (node->is_sweep) {
      error(origin, key, "is swept, not set: give `latsim sweep` its --param instead");
      return;
    }
    if (!node->leaf) {
      error(origin, key,
            fmt::format("is a section, not a value; set one of its keys (accepted: {})",
                        fmt::join(node->child_names(), ", ")));
      return;
    }
    const std::optional<YAML::Node> value =
        override_value(origin, node->path, node->leaf->spec, text);
    if (!value) return;

    YAML::Node cursor = root;
    std::string prefix;
    for (size_t i = 0; i + 1 < segments.size(); ++i) {
      prefix = join_path(prefix, segments[i]);
      const YAML::Node existing = lookup(cursor, segments[i]);
      if (existing.IsDefined() && !existing.IsMap() && !existing.IsNull()) {
        error(origin, node->path,
              fmt::format("cannot apply: `{}` in {} is {}, not a mapping", prefix, file_,
                          node_kind(existing)));
        return;
      }
      YAML::Node next = cursor[segments[i]];
      cursor.reset(next);
    }
    cursor[segments.back()] = *value;
    set_origin_[node->path] = origin;
  }

  void apply_workload_set(YAML::Node& root, const std::string& origin, const std::string& key,
                          const std::vector<std::string>& segments, const std::string& text) {
    if (segments.size() != 3) {
      error(origin, key, "expected workload.N.PARAM or workload.NAME.PARAM");
      return;
    }
    const YAML::Node list = lookup(root, "workload");
    if (!list.IsSequence()) {
      error(origin, key, "the scenario has no workload list");
      return;
    }
    // Each item's kind and name (name defaults to the kind).
    std::vector<std::pair<std::string, std::string>> items;
    for (const auto& item : list) {
      std::string kind, name;
      if (item.IsMap() && item.size() == 1 && item.begin()->first.IsScalar()) {
        kind = item.begin()->first.Scalar();
        const YAML::Node params = item.begin()->second;
        const YAML::Node n = lookup(params, "name");
        name = n.IsDefined() && n.IsScalar() ? n.Scalar() : kind;
      }
      items.emplace_back(kind, name);
    }
    size_t index = items.size();
    const std::string& selector = segments[1];
    if (all_digits(selector)) {
      // More digits than any list can have items: no such item (stoul would overflow).
      index = selector.size() > 9 ? items.size() : std::stoul(selector);
      if (index >= items.size()) {
        error(origin, key,
              fmt::format("no workload item {} (the list has {} items, 0..{})", selector,
                          items.size(), items.size() - 1));
        return;
      }
    } else {
      std::vector<std::string> names;
      for (size_t i = 0; i < items.size(); ++i) {
        names.push_back(items[i].second);
        if (items[i].second == selector && index == items.size()) index = i;
      }
      if (index == items.size()) {
        error(origin, key,
              fmt::format("no workload item named `{}` (accepted: {})", selector,
                          fmt::join(names, ", ")));
        return;
      }
    }
    const WorkloadKind* kind = find_workload_kind(items[index].first);
    if (!kind) {
      error(origin, key, fmt::format("workload.{} has no known kind", index));
      return;
    }
    const std::string param_path = fmt::format("workload.{}.{}", index, segments[2]);
    const Key<WorkloadConfig>* param = nullptr;
    std::vector<std::string> param_names;
    for (const auto& p : kind->keys) {
      param_names.push_back(p.spec.path);
      if (p.spec.path == segments[2]) param = &p;
    }
    if (!param) {
      const std::string guess = closest_match(segments[2], param_names);
      error(origin, param_path,
            fmt::format("unknown {} parameter{} (accepted: {})", kind->name,
                        guess.empty() ? "" : fmt::format("; did you mean `{}`?", guess),
                        fmt::join(param_names, ", ")));
      return;
    }
    const std::optional<YAML::Node> value = override_value(origin, param_path, param->spec, text);
    if (!value) return;
    YAML::Node item = root["workload"][index];
    item[kind->name][segments[2]] = *value;
    set_origin_[param_path] = origin;
  }

  // The preset comes first; the scenario's platform.* keys then override its fields.
  void apply_platform_preset(const YAML::Node& root) {
    const YAML::Node preset = lookup(lookup(root, "platform"), "preset");
    if (preset.IsDefined() && preset.IsScalar()) {
      const ParsedValue v =
          parse_value(schema_tree().find("platform")->find("preset")->leaf->spec, preset.Scalar());
      if (v.value) s_.platform.preset = std::get<std::string>(*v.value);
    }
    apply_preset(s_.platform.preset, s_.platform);
  }

  // ---- walking the tree ----

  void walk_section(const SchemaNode& section, const YAML::Node& map) {
    std::map<std::string, int> seen;  // key -> line, for duplicates
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;
      const YAML::Node value = it->second;
      const std::string name = key.IsScalar() ? key.Scalar() : "";
      const std::string path = join_path(section.path, name);
      const SchemaNode* child = key.IsScalar() ? section.find(name) : nullptr;
      if (!child) {
        error(at(key.Mark()), path, unknown_key_message(section, name, false));
        continue;
      }
      if (auto [dup, inserted] = seen.emplace(name, key.Mark().line + 1); !inserted) {
        error(at(key.Mark()), path, fmt::format("duplicate key (first at line {})", dup->second));
        continue;
      }
      present_.insert(child->path);
      if (child->leaf) {
        walk_leaf(*child->leaf, s_, child->path, value, key.Mark());
      } else if (child->is_workload) {
        walk_workload(value, key.Mark());
      } else if (child->is_sweep) {
        walk_sweep(value, key.Mark());
      } else if (value.IsMap()) {
        walk_section(*child, value);
      } else if (!value.IsNull()) {
        error(where(child->path, value, key.Mark()), child->path,
              fmt::format("expected a mapping of keys, got {} (accepted: {})", node_kind(value),
                          fmt::join(child->child_names(), ", ")));
      }
    }
  }

  // sweep: {params: {KEY: VALUES | [V, ...]}, seeds: K, metrics: "a.b,c.d"}
  void walk_sweep(const YAML::Node& value, const YAML::Mark& key_mark) {
    if (!value.IsMap()) {
      error(where("sweep", value, key_mark), "sweep",
            fmt::format("expected a mapping, got {} (accepted: params, seeds, metrics)",
                        node_kind(value)));
      return;
    }
    for (auto it = value.begin(); it != value.end(); ++it) {
      const std::string name = it->first.IsScalar() ? it->first.Scalar() : "";
      const YAML::Node v = it->second;
      const std::string path = "sweep." + name;
      if (name == "params" && v.IsMap()) {
        for (auto p = v.begin(); p != v.end(); ++p) walk_sweep_values(path, p->first, p->second);
      } else if (name == "seeds" && v.IsScalar()) {
        try {
          s_.sweep.seeds = std::stoi(v.Scalar());
        } catch (const std::exception&) {
          s_.sweep.seeds = -1;
        }
        if (s_.sweep.seeds < 1 || s_.sweep.seeds > 1000)
          error(at(v.Mark()), path,
                fmt::format("expected an integer, got `{}` (accepted: 1..1000)", v.Scalar()));
      } else if (name == "metrics" && v.IsScalar()) {
        if (const auto problem = text::unprintable(v.Scalar())) error(at(v.Mark()), path, *problem);
        s_.sweep.metrics = v.Scalar();
      } else {
        error(at(it->first.Mark()), path,
              name == "params" || name == "seeds" || name == "metrics"
                  ? "has the wrong shape (params: a mapping, seeds: an integer, metrics: a string)"
                  : "unknown key (accepted: params, seeds, metrics)");
      }
    }
  }

  // sweep.params.KEY: "V1,V2,..." | [V1, V2, ...]: printable scalars (commas join them).
  void walk_sweep_values(const std::string& path, const YAML::Node& key, const YAML::Node& list) {
    const std::string key_path = path + "." + (key.IsScalar() ? key.Scalar() : "?");
    std::string values;
    const auto add = [&](const YAML::Node& e, bool in_list) {
      const std::string text = e.IsScalar() ? e.Scalar() : "";
      std::optional<std::string> problem = text::unprintable(text);
      if (in_list && (!e.IsScalar() || text.empty() || text.find(',') != std::string::npos))
        problem = fmt::format("expected a value without commas, got {}", node_kind(e));
      if (problem) error(at(e.Mark()), key_path, *problem);
      values += (values.empty() ? "" : ",") + text;
    };
    if (list.IsSequence()) {
      for (const auto& e : list) add(e, true);
    } else if (list.IsScalar()) {
      add(list, false);
    }
    if (values.empty()) {
      error(at(key.Mark()), key_path, "expected values: a list or a range such as 8..128*2");
      return;
    }
    s_.sweep.params.push_back((key.IsScalar() ? key.Scalar() : "?") + "=" + values);
    s_.sweep.param_locations.push_back(at(list.Mark()));
  }

  template <class Target>
  void walk_leaf(const Key<Target>& key, Target& target, const std::string& path,
                 const YAML::Node& value, const YAML::Mark& key_mark) {
    // An empty value has no position of its own: point at its key.
    const std::string location =
        where(path, value.IsNull() ? YAML::Node(YAML::NodeType::Undefined) : value, key_mark);
    location_[path] = location;
    const ParsedValue parsed =
        value.IsMap() || value.IsSequence()
            ? not_a_scalar(key.spec, node_kind(value))
            : parse_value(key.spec, value.IsNull() ? "" : value.Scalar(), value.IsNull());
    if (!parsed.value) {
      error(location, path, parsed.message);
      return;
    }
    key.set(target, *parsed.value);
  }

  void walk_workload(const YAML::Node& list, const YAML::Mark& key_mark) {
    std::vector<std::string> kinds;
    for (const auto& k : workload_kinds()) kinds.push_back(k.name);
    const std::string accepted_kinds = fmt::format("{}", fmt::join(kinds, ", "));
    if (list.IsNull()) return;
    if (!list.IsSequence()) {
      error(where("workload", list, key_mark), "workload",
            fmt::format("expected a list of one-key maps `KIND: {{PARAMS}}`, got {} (accepted: {})",
                        node_kind(list), accepted_kinds));
      return;
    }
    if (list.size() > kMaxWorkloadItems) {
      error(at(list[kMaxWorkloadItems].Mark()), "workload",
            fmt::format("{} items; the limit is {}", list.size(), kMaxWorkloadItems));
      return;
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node item = list[i];
      const std::string item_path = fmt::format("workload.{}", i);
      if (!item.IsMap() || item.size() != 1 || !item.begin()->first.IsScalar()) {
        error(where(item_path, item, key_mark), item_path,
              fmt::format("expected a one-key map `KIND: {{PARAMS}}`, got {} (accepted: {})",
                          node_kind(item), accepted_kinds));
        continue;
      }
      const YAML::Node kind_node = item.begin()->first;
      const YAML::Node params = item.begin()->second;
      const WorkloadKind* kind = find_workload_kind(kind_node.Scalar());
      if (!kind) {
        const std::string guess = closest_match(kind_node.Scalar(), kinds);
        error(at(kind_node.Mark()), item_path,
              fmt::format("unknown workload kind `{}`{} (accepted: {})", kind_node.Scalar(),
                          guess.empty() ? "" : fmt::format("; did you mean `{}`?", guess),
                          accepted_kinds));
        continue;
      }
      WorkloadConfig w = workloads::make_config(*kind);
      std::string name_location = at(kind_node.Mark());
      std::vector<std::string> param_names;
      for (const auto& p : kind->keys) param_names.push_back(p.spec.path);
      if (params.IsMap()) {
        std::set<std::string> seen;
        for (auto it = params.begin(); it != params.end(); ++it) {
          const std::string pname = it->first.IsScalar() ? it->first.Scalar() : "";
          const std::string ppath = fmt::format("{}.{}", item_path, pname);
          auto param = std::find_if(kind->keys.begin(), kind->keys.end(),
                                    [&](const auto& p) { return p.spec.path == pname; });
          if (param == kind->keys.end()) {
            const std::string guess = closest_match(pname, param_names);
            error(at(it->first.Mark()), ppath,
                  fmt::format("unknown {} parameter{} (accepted: {})", kind->name,
                              guess.empty() ? "" : fmt::format("; did you mean `{}`?", guess),
                              fmt::join(param_names, ", ")));
            continue;
          }
          if (!seen.insert(pname).second) {
            error(at(it->first.Mark()), ppath, "duplicate key");
            continue;
          }
          walk_leaf(*param, w, ppath, it->second, it->first.Mark());
          if (pname == "name") name_location = location_[ppath];
        }
      } else if (!params.IsNull()) {
        error(where(item_path, params, kind_node.Mark()), item_path,
              fmt::format("expected a mapping of {} parameters, got {} (accepted: {})", kind->name,
                          node_kind(params), fmt::join(param_names, ", ")));
      }
      workload_name_locations_.push_back(name_location);
      workload_index_.push_back(i);
      s_.workload.push_back(std::move(w));
    }
  }

  // ---- checks across keys ----

  void check_required() {
    for (const auto& key : scenario_keys()) {
      if (key.spec.required && !present_.count(key.spec.path)) {
        error(at(root_mark_), key.spec.path, "missing required key");
      }
    }
  }

  // Flavours other than 2.6.9-vp fix the VP switches by their mechanism (flavour.h):
  // vanilla 2.6.9 has none of them (kernel_preemption stands for CONFIG_PREEMPT), the
  // 2.4 and rt flavours set what their patches imply. kernel.version follows too.
  void check_flavour_switches() {
    auto& k = s_.kernel;
    const kernel::Flavour* f = kernel::find_flavour(k.flavour);
    if (!f) return;  // already reported
    const kernel::PreemptSwitches& fixed = f->switches;
    const std::tuple<const char*, bool*, int> keys[] = {
        {"kernel.voluntary_preemption", &k.voluntary_preemption, fixed.voluntary},
        {"kernel.kernel_preemption", &k.kernel_preemption, fixed.kernel},
        {"kernel.softirq_preemption", &k.softirq_preemption, fixed.softirq},
        {"kernel.hardirq_preemption", &k.hardirq_preemption, fixed.hardirq}};
    for (const auto& [key, value, want] : keys) {
      if (want == kernel::PreemptSwitches::kSettable) continue;
      if (present_.count(key) && int{*value} != want)
        error(location_of(key), key,
              f->vanilla ? fmt::format("is a voluntary-preempt switch; kernel.flavour {} (vanilla) "
                                       "has none (use 2.6.9-vp, or kernel_preemption for "
                                       "CONFIG_PREEMPT)",
                                       f->name)
                         : fmt::format("is fixed to {} by kernel.flavour {} (accepted: {})", want,
                                       f->name, want));
      *value = want != 0;
    }
    if (!present_.count("kernel.version")) k.version = f->release;
  }

  // Each workload item against the board, by its kind's own check.
  void check_workloads() {
    workloads::Board board;
    board.ncpus = s_.platform.cpu.count;
    board.has_video = s_.platform.video.card != "none";
    for (size_t i = 0; i < s_.workload.size(); ++i) {
      const WorkloadKind* kind = find_workload_kind(s_.workload[i].kind);
      if (!kind || !kind->check) continue;
      const std::string item = fmt::format("workload.{}", workload_index_[i]);
      for (const auto& problem : kind->check(s_.workload[i], board)) {
        if (problem.param.empty())
          error(workload_name_locations_[i], item, problem.message);
        else
          error(location_of(item + "." + problem.param), item + "." + problem.param,
                problem.message);
      }
    }
  }

  std::string location_of(const std::string& path) {
    auto it = location_.find(path);
    return it != location_.end() ? it->second : at(root_mark_);
  }

  // The controller, the tick and the core's interrupt input must make one board: the
  // MPC5200's PIC feeds an e300 without local APICs, whose decrementer ticks without a PIT.
  void check_interrupt_hookup() {
    const auto& p = s_.platform;
    // Reported at whichever of the two keys the scenario or a --set gave (a preset's
    // values have no line): the first if both.
    const auto fail = [&](const char* a, const char* b, const std::string& message) {
      const char* key = location_.count(a) || !location_.count(b) ? a : b;
      error(location_of(key), key, message);
    };
    const bool pic = p.mpc52xx_pic.fitted, lapic = p.cpu.local_apic;
    if (pic && p.ioapic.fitted)
      fail("platform.mpc52xx_pic", "platform.io_apic",
           "the board has one interrupt controller: platform.mpc52xx_pic and platform.io_apic "
           "are both true");
    if (pic != !lapic)
      fail("platform.mpc52xx_pic", "platform.cpu.local_apic",
           "the MPC5200's PIC feeds an e300 core (no local APIC) and only it: "
           "platform.mpc52xx_pic must be the opposite of platform.cpu.local_apic");
    if (p.fec.fitted && !pic)
      fail("platform.fec.fitted", "platform.mpc52xx_pic",
           "the BestComm's interrupt needs platform.mpc52xx_pic true");
    if (!lapic && p.cpu.count != 1)
      fail("platform.cpu.local_apic", "platform.cpu.count",
           "platform.cpu.local_apic false leaves no IPIs: platform.cpu.count must be 1");
    if (p.pit.fitted == !lapic)
      fail("platform.pit", "platform.cpu.local_apic",
           "the tick is the PIT's and local APIC's on a PC, the decrementer's on an e300: "
           "platform.pit must equal platform.cpu.local_apic");
  }

  void check_cross_fields() {
    try {
      kernel::check_span_spec(s_.kernel.trace.spans);
    } catch (const std::invalid_argument& e) {
      error(location_of("tracing.spans"), "tracing.spans", e.what());
    }
    try {
      timeline::parse_window_spec(s_.outputs.timeline_window);
    } catch (const std::invalid_argument& e) {
      error(location_of("outputs.timeline_window"), "outputs.timeline_window", e.what());
    }
    check_interrupt_hookup();
    const auto& disk = s_.platform.disk;
    if (disk.inner_mb_s > disk.outer_mb_s) {
      error(location_of("platform.disk.inner_mb_s"), "platform.disk.inner_mb_s",
            fmt::format("{} exceeds outer_mb_s {}: the inner zone is the slower one",
                        disk.inner_mb_s, disk.outer_mb_s));
    }
    if (disk.track_to_track_ms > disk.avg_seek_ms) {
      error(location_of("platform.disk.track_to_track_ms"), "platform.disk.track_to_track_ms",
            fmt::format("{} exceeds avg_seek_ms {}", disk.track_to_track_ms, disk.avg_seek_ms));
    }
    const auto& smi = s_.platform.smi;
    if (smi.period_us > 0 && smi.duration_us >= smi.period_us) {
      error(location_of("platform.smi.duration_us"), "platform.smi.duration_us",
            fmt::format("{} is not under period_us {}: the CPUs would never leave SMM",
                        smi.duration_us, smi.period_us));
    }
    check_flavour_switches();
    check_workloads();
    std::map<std::string, size_t> first_use;
    for (size_t i = 0; i < s_.workload.size(); ++i) {
      const std::string& name = s_.workload[i].name;
      auto [it, inserted] = first_use.emplace(name, workload_index_[i]);
      if (!inserted) {
        error(workload_name_locations_[i], fmt::format("workload.{}.name", workload_index_[i]),
              fmt::format("duplicate workload name `{}` (also workload.{}); give each item its "
                          "own `name`",
                          name, it->second));
      }
    }
  }

  std::string file_;
  Scenario s_;
  YAML::Mark root_mark_;  // 1:1: where missing required keys are reported
  std::vector<Diagnostic> diags_;
  std::map<std::string, std::string> set_origin_;  // key path -> "--set KEY=VALUE"
  std::map<std::string, std::string> location_;    // key path -> where its value was written
  std::set<std::string> present_;
  std::vector<std::string> workload_name_locations_;
  std::vector<size_t> workload_index_;
};

}  // namespace

Scenario load_scenario_text(const std::string& yaml_text, const std::string& display_name,
                            const std::vector<std::string>& sets) {
  return Loader(display_name).run(yaml_text, sets);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets) {
  std::string text;
  try {
    text = read_input_file(path, "scenario file");
  } catch (const InputError& e) {
    throw ScenarioError(e.diagnostics());
  }
  return load_scenario_text(text, path, sets);
}

}  // namespace latsim::platform
