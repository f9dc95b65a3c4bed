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

// ISA IRQs the south bridge can steer a PCI INTx# to (not 0-2, 6, 8, 13, 14).
const std::vector<std::string> kPciIrqs = {"3", "4", "5", "7", "9", "10", "11", "12", "15"};

// HoldoffPolicy <-> its YAML spelling.
const std::vector<std::pair<HoldoffPolicy, std::string>> kHoldoffNames = {
    {HoldoffPolicy::None, "none"},
    {HoldoffPolicy::SgEntry, "sg_entry"},
    {HoldoffPolicy::Grants, "grants"},
    {HoldoffPolicy::Rotate, "rotate"},
    {HoldoffPolicy::ReqAsserted, "req_asserted"},
};

Key<Scenario> holdoff_key(KeySpec spec) {
  Key<Scenario> key;
  for (const auto& [policy, name] : kHoldoffNames) spec.accepted.push_back(name);
  key.spec = std::move(spec);
  key.set = [](Scenario& s, const Value& v) {
    for (const auto& [policy, name] : kHoldoffNames) {
      if (name == std::get<std::string>(v)) s.platform.host_bridge.cpu_holdoff = policy;
    }
  };
  key.get = [](const Scenario& s) -> Value {
    for (const auto& [policy, name] : kHoldoffNames) {
      if (policy == s.platform.host_bridge.cpu_holdoff) return name;
    }
    return std::string("?");
  };
  return key;
}

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

std::vector<Key<Scenario>> make_scenario_keys() {
  using T = ValueType;
  using S = Scenario;
  std::vector<Key<Scenario>> keys = {
      bind<S>(required(int_choice("schema_version", {"1"}, "scenario schema version")),
              LATSIM_AT(schema_version)),
      bind<S>(required(of_type(T::Name, "name", "scenario name; names the output directory")),
              LATSIM_AT(name)),
      bind<S>(of_type(T::String, "description", "what the scenario reproduces and its source"),
              LATSIM_AT(description)),
      bind<S>(of_type(T::UInt64, "seed", "root of every component's random stream"),
              LATSIM_AT(seed)),
      bind<S>(duration("duration", 0.001, 3600, "simulated time to run"), LATSIM_AT(duration_s)),

      // platform
      bind<S>(choice("platform.preset", preset_names(),
                     "machine the platform.* keys start from (applied before them)"),
              LATSIM_AT(platform.preset)),
      bind<S>(integer("platform.cpu.count", 1, 8, "CPUs",
                      "number of CPUs (8: the APIC flat logical model's limit)"),
              LATSIM_AT(platform.cpu.count)),
      bind<S>(number("platform.cpu.mhz", 100, 4000, "MHz", "core clock"),
              LATSIM_AT(platform.cpu.mhz)),
      bind<S>(number("platform.cpu.dram_latency_ns", 10, 1000, "ns",
                     "load latency of a cache miss to main memory"),
              LATSIM_AT(platform.cpu.dram_latency_ns)),
      bind<S>(number("platform.cpu.fsb_mhz", 33, 400, "MHz", "front-side bus clock"),
              LATSIM_AT(platform.cpu.fsb_mhz)),
      bind<S>(integer("platform.cpu.l2_kb", 64, 4096, "KiB",
                      "unified L2 per CPU (random replacement; decides refill misses)"),
              LATSIM_AT(platform.cpu.l2_kb)),
      bind<S>(choice("platform.cpu.l2_survival", {"mean", "sampled"},
                     "L2 lines evicted since an object's last use: mean (the expected number, "
                     "fractions carried over) or sampled (each line drawn, as random "
                     "replacement evicts: rare fully cold touches)"),
              LATSIM_AT(platform.cpu.l2_survival)),
      bind<S>(of_type(T::Bool, "platform.io_apic",
                      "the board has an IO-APIC; false: IRQs through the 8259A pair "
                      "(mask_and_ack_8259A) and the tick from the PIT's IRQ0"),
              LATSIM_AT(platform.io_apic)),
      bind<S>(choice("platform.apic_bus.lowest_priority", {"rotate", "lowest_id"},
                     "lowest-priority arbitration among equal TPRs: rotate (P6 arbitration "
                     "IDs rotate after each message) or lowest_id (always the lowest APIC ID)"),
              LATSIM_AT(platform.apic_lowest_priority)),
      bind<S>(choice("platform.ioapic.bus", {"pci", "xbus"},
                     "how the IO-APIC window is reached: pci (answers at PCI speed) or xbus "
                     "(82093AA on the bridge's 8-bit X-bus: 4 ISA I/O cycles per dword)"),
              LATSIM_AT(platform.ioapic_bus)),
      bind<S>(number("platform.pci.mhz", 20, 66.67, "MHz", "PCI bus clock"),
              LATSIM_AT(platform.pci.mhz)),
      bind<S>(integer("platform.pci.latency_timer", 0, 255, "clocks",
                      "master latency timer (setpci latency_timer): tenure after GNT# is removed"),
              LATSIM_AT(platform.pci.latency_timer)),
      bind<S>(choice("platform.pci.arbiter", {"rotate", "fixed"},
                     "arbitration: rotate priority on every grant, or fixed priority"),
              LATSIM_AT(platform.pci.arbiter)),
      bind<S>(with_unit(int_choice("platform.pci.width_bits", {"32", "64"},
                                   "AD bus width: bytes a burst moves per clock (64: REQ64#)"),
                        "bits"),
              LATSIM_AT(platform.pci.width_bits)),
      holdoff_key(of_type(T::Enum, "platform.host_bridge.cpu_holdoff",
                          "how long a bus master keeps the CPU off the host bridge")),
      bind<S>(integer("platform.host_bridge.holdoff_grants", 1, 64, "grants",
                      "bus-master requests served before the CPU gets the bridge (grants policy)"),
              LATSIM_AT(platform.host_bridge.holdoff_grants)),
      bind<S>(of_type(T::Bool, "platform.host_bridge.io_holdoff",
                      "the holdoff applies to CPU cycles to PCI (PIT, IO-APIC, device registers) "
                      "as to memory requests; false: only memory requests wait, a PCI cycle "
                      "waits for GNT# (the master's burst, bounded by its latency timer)"),
              LATSIM_AT(platform.host_bridge.io_holdoff)),
      bind<S>(of_type(T::Bool, "platform.host_bridge.io_waits_req",
                      "req_asserted policy: a CPU cycle to PCI (PIT, IO-APIC) waits until the "
                      "master drops REQ# like a memory miss; false: to the end of the entry"),
              LATSIM_AT(platform.host_bridge.io_waits_req)),
      bind<S>(integer("platform.host_bridge.posted_write_entries", 0, 64, "dwords",
                      "CPU-to-PCI posted-write buffer; a CPU store stalls only when it is full"),
              LATSIM_AT(platform.host_bridge.posted_write_entries)),
      bind<S>(number("platform.isa.io_cycle_ns", 100, 10000, "ns",
                     "one 8-bit ISA I/O cycle through the PCI-ISA bridge (inb/outb)"),
              LATSIM_AT(platform.isa.io_cycle_ns)),
      bind<S>(of_type(T::Bool, "platform.isa.delayed_transactions",
                      "BIOS \"PCI Delay Transaction\": slow ISA cycles are answered with Retry and "
                      "completed in the background (PCI 2.1 delayed transactions)"),
              LATSIM_AT(platform.isa.delayed_transactions)),
      bind<S>(number("platform.smi.period_us", 0, 10000000, "us",
                     "SMI# from the south bridge's power management every this long (0: never); "
                     "every CPU waits in SMM while the BIOS handler runs, unseen by the OS"),
              LATSIM_AT(platform.smi.period_us)),
      bind<S>(number("platform.smi.duration_us", 0, 100000, "us",
                     "the BIOS's SMI handler: time every CPU spends in SMM per SMI"),
              LATSIM_AT(platform.smi.duration_us)),
      bind<S>(integer("platform.ide.udma_mode", 0, 5, "UDMA mode", "Ultra DMA mode (2 = 33 MB/s)"),
              LATSIM_AT(platform.ide.udma_mode)),
      bind<S>(multiple_of(integer("platform.ide.burst_bytes", 4, 65536, "bytes",
                                  "bytes the IDE bus master moves per PCI memory burst"),
                          4),
              LATSIM_AT(platform.ide.burst_bytes)),
      bind<S>(number("platform.ide.prd_fetch_ns", 0, 100000, "ns",
                     "the master's gap between scatter-gather entries, the next PRD's fetch "
                     "(under one DRAM access: a CPU gets one FSB transaction per entry)"),
              LATSIM_AT(platform.ide.prd_fetch_ns)),
      bind<S>(of_type(T::Bool, "platform.ide.memory_write_invalidate",
                      "the IDE bus master writes memory with MWI: it leaves the bus only at a "
                      "cache-line boundary after its latency timer expires"),
              LATSIM_AT(platform.ide.memory_write_invalidate)),
      bind<S>(integer("platform.ide.pio_mode", 0, 4, "PIO mode",
                      "ATA PIO mode of the drive (4 = 120 ns cycle)"),
              LATSIM_AT(platform.ide.pio_mode)),
      bind<S>(of_type(T::Bool, "platform.disk.write_cache",
                      "hdparm -W: writes complete into the drive cache, flushed to media later"),
              LATSIM_AT(platform.disk.write_cache)),
      bind<S>(integer("platform.disk.write_cache_kb", 0, 65536, "KiB",
                      "drive buffer share holding written data not yet on the media"),
              LATSIM_AT(platform.disk.write_cache_kb)),
      bind<S>(number("platform.disk.write_overhead_ms", 0, 10, "ms",
                     "drive command overhead of a write"),
              LATSIM_AT(platform.disk.write_overhead_ms)),
      bind<S>(integer("platform.disk.rpm", 3600, 15000, "rpm", "spindle speed"),
              LATSIM_AT(platform.disk.rpm)),
      bind<S>(number("platform.disk.avg_seek_ms", 0.5, 30, "ms", "average read seek"),
              LATSIM_AT(platform.disk.avg_seek_ms)),
      bind<S>(number("platform.disk.track_to_track_ms", 0.1, 10, "ms", "track-to-track seek"),
              LATSIM_AT(platform.disk.track_to_track_ms)),
      bind<S>(number("platform.disk.outer_mb_s", 1, 200, "MB/s", "media rate, outer zone"),
              LATSIM_AT(platform.disk.outer_mb_s)),
      bind<S>(number("platform.disk.inner_mb_s", 1, 200, "MB/s",
                     "media rate, inner zone (<= outer_mb_s)"),
              LATSIM_AT(platform.disk.inner_mb_s)),
      bind<S>(number("platform.disk.command_overhead_ms", 0, 10, "ms",
                     "drive command overhead on a cache miss"),
              LATSIM_AT(platform.disk.command_overhead_ms)),
      bind<S>(number("platform.disk.cache_hit_overhead_ms", 0, 10, "ms",
                     "drive command overhead on a cache hit"),
              LATSIM_AT(platform.disk.cache_hit_overhead_ms)),
      bind<S>(integer("platform.disk.cache_kb", 0, 65536, "KiB", "drive read (look-ahead) cache"),
              LATSIM_AT(platform.disk.cache_kb)),
      bind<S>(integer("platform.disk.capacity_sectors", 1, 281474976710656.0, "sectors",
                      "capacity in 512-byte sectors (up to the LBA48 limit)"),
              LATSIM_AT(platform.disk.capacity_sectors)),
      bind<S>(with_unit(int_choice("platform.nic.irq", kPciIrqs,
                                   "ISA IRQ / IO-APIC pin the RTL8139's INTA# is steered to"),
                        "IRQ"),
              LATSIM_AT(platform.nic.irq)),
      bind<S>(number("platform.nic.wire_mbit_s", 1, 1000, "Mbit/s", "line rate of the cable"),
              LATSIM_AT(platform.nic.wire_mbit_s)),
      bind<S>(integer("platform.nic.tx_fifo_bytes", 256, 65536, "bytes",
                      "transmit FIFO the NIC fills by bus-master reads"),
              LATSIM_AT(platform.nic.tx_fifo_bytes)),
      bind<S>(integer("platform.nic.burst_overhead_clocks", 0, 64, "clocks",
                      "per PCI burst: arbitration, address, turnaround, idle"),
              LATSIM_AT(platform.nic.burst_overhead_clocks)),
      bind<S>(with_unit(int_choice("platform.sound.irq", kPciIrqs,
                                   "ISA IRQ / IO-APIC pin the ES1371's INTA# is steered to"),
                        "IRQ"),
              LATSIM_AT(platform.sound.irq)),
      bind<S>(integer("platform.sound.bit_clk_hz", 1000000, 50000000, "Hz",
                      "AC'97 BIT_CLK (256 bit clocks per frame)"),
              LATSIM_AT(platform.sound.bit_clk_hz)),
      bind<S>(integer("platform.sound.src_busy_frames", 0, 1000, "frames",
                      "frame starts a sample-rate-converter RAM request stays busy (0: never)"),
              LATSIM_AT(platform.sound.src_busy_frames)),
      bind<S>(integer("platform.sound.dac_fetch_longwords", 1, 16, "dwords",
                      "dwords one playback FIFO refill reads per PCI burst"),
              LATSIM_AT(platform.sound.dac_fetch_longwords)),
      bind<S>(integer("platform.sound.burst_overhead_clocks", 0, 64, "clocks",
                      "per PCI burst: arbitration, address, turnaround, idle"),
              LATSIM_AT(platform.sound.burst_overhead_clocks)),

      bind<S>(integer("platform.usb.uhci", 0, 2, "controllers",
                      "UHCI USB controllers on the board, nothing plugged in (uhci_hcd)"),
              LATSIM_AT(platform.usb.uhci)),
      bind<S>(
          with_unit(int_choice("platform.usb.irq", kPciIrqs,
                               "ISA IRQ / IO-APIC pin the UHCI controllers' INTx# is steered to"),
                    "IRQ"),
          LATSIM_AT(platform.usb.irq)),

      bind<S>(choice("platform.video.card", {"none", "permedia2"},
                     "graphics card with a command FIFO on PCI (none: not fitted)"),
              LATSIM_AT(platform.video.card)),
      bind<S>(integer("platform.video.fifo_entries", 1, 65536, "entries",
                      "input FIFO depth (InFIFOSpace when empty)"),
              LATSIM_AT(platform.video.fifo_entries)),
      bind<S>(choice("platform.video.pci", {"2.0", "2.1"},
                     "a store into the full FIFO: 2.0 holds the bus with wait states until an "
                     "entry drains, 2.1 ends it with Retry at 16 clocks (FIFODiscon)"),
              LATSIM_AT(platform.video.pci)),
      bind<S>(number("platform.video.register_load_ns", 0, 100000, "ns",
                     "core time to take one register load from the FIFO"),
              LATSIM_AT(platform.video.register_load_ns)),
      bind<S>(number("platform.video.render_setup_ns", 0, 100000, "ns",
                     "core time to start one Render"),
              LATSIM_AT(platform.video.render_setup_ns)),
      bind<S>(number("platform.video.fill_ns_per_pixel", 0, 10000, "ns",
                     "core time per filled pixel of a Render"),
              LATSIM_AT(platform.video.fill_ns_per_pixel)),
      bind<S>(number("platform.video.copy_ns_per_pixel", 0, 10000, "ns",
                     "core time per pixel of a screen-to-screen copy (source read + write)"),
              LATSIM_AT(platform.video.copy_ns_per_pixel)),
  };
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
