#include "platform/scenario_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernel_sim/kernel_params.h"
#include "platform/presets/registry.h"

namespace latsim::platform {
namespace {

using namespace params;

// The key `path` of a component's `table`, mounted under `prefix` at `ref`: for a section
// whose keys come from the platform and a component in turn (mechanisms.*).
template <class Inner, class Ref>
Key<Scenario> mount_one(const Table<Inner>& table, const std::string& path,
                        const std::string& prefix, Ref ref) {
  for (const auto& k : table)
    if (k.spec.path == path) return mount<Scenario>(k, prefix, ref);
  throw std::logic_error("no key " + prefix + path);
}

void append(std::vector<Key<Scenario>>& into, const std::vector<Key<Scenario>>& keys) {
  into.insert(into.end(), keys.begin(), keys.end());
}

// Member access for the table rows below.
// clang-format off
#define LATSIM_AT(member) [](Scenario& s) -> auto& { return s.member; }
// clang-format on

// The board's sections (platform.cpu. ... platform.video.), each the table its device
// model declares, in canonical order.
std::vector<Key<Scenario>> platform_device_keys() {
  std::vector<Key<Scenario>> k;
  mount_all(k, cpu::cpu_keys(), "platform.cpu.", LATSIM_AT(platform.cpu));
  mount_all(k, irq::ioapic_fitted_keys(), "platform.", LATSIM_AT(platform.ioapic));
  mount_all(k, irq::mpc52xx_pic_keys(), "platform.", LATSIM_AT(platform.mpc52xx_pic));
  mount_all(k, timer::i8254_keys(), "platform.", LATSIM_AT(platform.pit));
  mount_all(k, irq::apic_bus_keys(), "platform.apic_bus.", LATSIM_AT(platform.apic_bus));
  mount_all(k, irq::ioapic_keys(), "platform.ioapic.", LATSIM_AT(platform.ioapic));
  mount_all(k, pci::pci_bus_keys(), "platform.pci.", LATSIM_AT(platform.pci));
  mount_all(k, chipset::host_bridge_keys(), "platform.host_bridge.",
            LATSIM_AT(platform.host_bridge));
  mount_all(k, isa::pci_isa_bridge_keys(), "platform.isa.", LATSIM_AT(platform.isa));
  mount_all(k, chipset::smi_keys(), "platform.smi.", LATSIM_AT(platform.smi));
  mount_all(k, ide::ide_controller_keys(), "platform.ide.", LATSIM_AT(platform.ide));
  mount_all(k, disk::disk_drive_keys(), "platform.disk.", LATSIM_AT(platform.disk));
  mount_all(k, net::rtl8139_keys(), "platform.nic.", LATSIM_AT(platform.nic));
  mount_all(k, net::mpc52xx_fec_keys(), "platform.fec.", LATSIM_AT(platform.fec));
  mount_all(k, dma::bestcomm_keys(), "platform.bestcomm.", LATSIM_AT(platform.bestcomm));
  mount_all(k, sound::es1371_keys(), "platform.sound.", LATSIM_AT(platform.sound));
  mount_all(k, usb::uhci_keys(), "platform.usb.", LATSIM_AT(platform.usb));
  mount_all(k, video::permedia2_keys(), "platform.video.", LATSIM_AT(platform.video));
  mount_all(k, scsi::aic7880_keys(), "platform.scsi.", LATSIM_AT(platform.scsi));
  return k;
}

std::vector<Key<Scenario>> make_scenario_keys() {
  using T = ValueType;
  using S = Scenario;
  std::vector<Key<Scenario>> keys = {
      bind<S>(required(int_choice("schema_version", {"1"}, "scenario schema version")),
              LATSIM_AT(schema_version)),
      bind<S>(required(of_type(T::Name, "name", "scenario name; names the output directory")),
              LATSIM_AT(name)),
      bind<S>(multiline(
                  of_type(T::String, "description", "what the scenario reproduces and its source")),
              LATSIM_AT(description)),
      bind<S>(of_type(T::UInt64, "seed", "root of every component's random stream"),
              LATSIM_AT(seed)),
      bind<S>(duration("duration", 0.001, 3600, "simulated time to run"), LATSIM_AT(duration_s)),

      // platform
      bind<S>(choice("platform.preset", preset_names(),
                     "machine the platform.* keys start from (applied before them)"),
              LATSIM_AT(platform.preset)),
  };
  append(keys, platform_device_keys());
  // The kernel's keys, declared in kernel_sim (kernel_params.h).
  mount_all(keys, kernel::kernel_keys(), "kernel.", LATSIM_AT(kernel));
  const auto kernel_mechanism = [](const std::string& name) {
    return mount_one(kernel::mechanism_keys(), name, "mechanisms.", LATSIM_AT(kernel));
  };
  const std::vector<Key<Scenario>> mechanisms = {
      bind<S>(of_type(T::Bool, "mechanisms.bus_master_holdoff",
                      "host bridge keeps the CPU off while a bus master transfers"),
              LATSIM_AT(mechanisms.bus_master_holdoff)),
      bind<S>(of_type(T::Bool, "mechanisms.pci_latency_timer",
                      "masters release the bus when their latency timer expires"),
              LATSIM_AT(mechanisms.pci_latency_timer)),
      kernel_mechanism("isa_io_delay"),
      kernel_mechanism("mcount_overhead"),
      bind<S>(of_type(T::Bool, "mechanisms.cache_coherence",
                      "MESI snooping: kernel data (jiffies, xtime, irq_desc, runqueues, woken "
                      "tasks) last written by the other CPU costs an FSB transaction per line"),
              LATSIM_AT(mechanisms.cache_coherence)),
      kernel_mechanism("cache_locking"),
      kernel_mechanism("mcount_cycles"),
  };
  append(keys, mechanisms);
  mount_all(keys, kernel::tracer_keys(), "tracing.", LATSIM_AT(kernel.trace));
  return keys;
}

// The component tables, mounted after the rows above in canonical order.
std::vector<Key<Scenario>> make_all_keys() {
  std::vector<Key<Scenario>> keys = make_scenario_keys();
  mount_all(
      keys, output_keys(), "outputs.", [](Scenario & s) -> auto& { return s.outputs; });
  return keys;
}

#undef LATSIM_AT

}  // namespace

// ---- public ---------------------------------------------------------------------

const std::vector<Key<Scenario>>& scenario_keys() {
  static const std::vector<Key<Scenario>> kKeys = make_all_keys();
  return kKeys;
}

const std::vector<WorkloadKind>& workload_kinds() { return workloads::kinds(); }

const WorkloadKind* find_workload_kind(const std::string& kind) {
  return workloads::find_kind(kind);
}

const SchemaNode* SchemaNode::find(const std::string& child) const {
  for (const auto& c : children) {
    if (c.name == child) return &c;
  }
  return nullptr;
}

std::vector<std::string> SchemaNode::child_names() const {
  std::vector<std::string> names;
  for (const auto& c : children) names.push_back(c.name);
  return names;
}

const SchemaNode& schema_tree() {
  static const SchemaNode kTree = [] {
    SchemaNode root;
    for (const auto& key : scenario_keys()) {
      SchemaNode* node = &root;
      for (const auto& segment : split_key_path(key.spec.path)) {
        SchemaNode* next = nullptr;
        for (auto& c : node->children) {
          if (c.name == segment) next = &c;
        }
        if (!next) {
          SchemaNode child;
          child.name = segment;
          child.path = node->path.empty() ? segment : node->path + "." + segment;
          node->children.push_back(std::move(child));
          next = &node->children.back();
        }
        node = next;
      }
      node->leaf = &key;
    }
    SchemaNode workload;
    workload.name = workload.path = "workload";
    workload.is_workload = true;
    auto tracing = std::find_if(root.children.begin(), root.children.end(),
                                [](const SchemaNode& c) { return c.name == "tracing"; });
    root.children.insert(tracing, std::move(workload));
    SchemaNode sweep;
    sweep.name = sweep.path = "sweep";
    sweep.is_sweep = true;
    root.children.push_back(std::move(sweep));
    return root;
  }();
  return kTree;
}

std::vector<std::string> split_key_path(const std::string& path) {
  std::vector<std::string> segments;
  size_t start = 0;
  while (start <= path.size()) {
    if (start < path.size() && path[start] == '/') {  // a kernel path: the rest is one segment
      segments.push_back(path.substr(start));
      break;
    }
    const size_t dot = path.find('.', start);
    if (dot == std::string::npos) {
      segments.push_back(path.substr(start));
      break;
    }
    segments.push_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  return segments;
}

std::string schema_reference() {
  Scenario defaults;
  apply_preset(defaults.platform.preset, defaults.platform);

  std::string out =
      "Scenario keys (schema_version 1). A scenario file is YAML; `--set KEY=VALUE` overrides\n"
      "one key (a dotted path, a kernel path such as /sys/block/hda/queue/max_sectors_kb,\n"
      "workload.N.PARAM or workload.NAME.PARAM). The platform preset is applied first; the\n"
      "scenario's own platform.* keys override it.\n\n";
  auto row = [&out](const std::string& path, const KeySpec& spec, const std::string& def) {
    std::string accepted = accepted_text(spec);
    if (!spec.implemented.empty()) {
      accepted += fmt::format("; implemented: {}", fmt::join(spec.implemented, ", "));
    }
    out += fmt::format("{}  [{}{}]  {}{}\n", path, type_name(spec.type),
                       spec.unit.empty() ? "" : ", " + spec.unit,
                       accepted.empty() ? "" : "accepted: " + accepted + "  ",
                       spec.required ? "required" : "default: " + (def.empty() ? "\"\"" : def));
    out += fmt::format("    {}\n", spec.doc);
    if (!spec.source.empty()) out += fmt::format("    source: {}\n", spec.source);
  };
  for (const auto& key : scenario_keys()) {
    row(key.spec.path, key.spec, format_value(key.spec, key.get(defaults)));
  }
  out += "\nworkload: a list; each item is a one-key map `KIND: {PARAMS}`.\n";
  for (const auto& kind : workload_kinds()) {
    out += fmt::format("  {}: {}\n", kind.name, kind.doc);
  }
  out += "\n";
  for (const auto& kind : workload_kinds()) {
    const WorkloadConfig w = workloads::make_config(kind);
    for (const auto& param : kind.keys) {
      row(fmt::format("workload[].{}.{}", kind.name, param.spec.path), param.spec,
          format_value(param.spec, param.get(w)));
    }
  }
  out += "\nplatform presets:\n";
  for (const auto& preset : platform_presets()) {
    out += fmt::format("  {}: {}\n", preset.name, preset.description);
  }
  return out;
}

std::vector<ParamRow> param_rows() {
  Scenario defaults;
  apply_preset(defaults.platform.preset, defaults.platform);
  std::vector<ParamRow> rows;
  auto row = [&rows](const std::string& key, const KeySpec& spec, const std::string& def) {
    std::string doc = spec.doc;
    const std::string accepted = accepted_text(spec);
    if (spec.type == ValueType::Enum || spec.type == ValueType::IntEnum)
      doc += fmt::format(" (one of: {})", accepted);
    rows.push_back({key,
                    spec.required ? "(required)"
                    : def.empty() ? "\"\""
                                  : def,
                    spec.unit, doc});
  };
  for (const auto& key : scenario_keys())
    row(key.spec.path, key.spec, format_value(key.spec, key.get(defaults)));
  for (const auto& kind : workload_kinds()) {
    const WorkloadConfig w = workloads::make_config(kind);
    for (const auto& param : kind.keys)
      row(fmt::format("workload[].{}.{}", kind.name, param.spec.path), param.spec,
          format_value(param.spec, param.get(w)));
  }
  return rows;
}

std::string params_table() {
  const auto rows = param_rows();
  size_t wk = 3, wd = 7, wu = 4;
  for (const auto& r : rows) {
    wk = std::max(wk, r.key.size());
    wd = std::max(wd, r.default_value.size());
    wu = std::max(wu, r.unit.size());
  }
  std::string out =
      fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "KEY", wk, "DEFAULT", wd, "UNIT", wu, "DOC");
  for (const auto& r : rows)
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", r.key, wk, r.default_value, wd,
                       r.unit.empty() ? "-" : r.unit, wu, r.doc);
  return out;
}

}  // namespace latsim::platform
