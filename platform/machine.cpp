#include "platform/machine.h"
#include "platform/workload_params.h"

namespace latsim::platform {
namespace {

chipset::HostBridgeParams bridge_params(const Scenario& s) {
  chipset::HostBridgeParams p;
  p.dram_latency = sc_time(s.platform.cpu.dram_latency_ns, SC_NS);
  const auto& hb = s.platform.host_bridge;
  p.holdoff = !s.mechanisms.bus_master_holdoff           ? chipset::CpuHoldoff::None
              : hb.cpu_holdoff == HoldoffPolicy::None    ? chipset::CpuHoldoff::None
              : hb.cpu_holdoff == HoldoffPolicy::SgEntry ? chipset::CpuHoldoff::SgEntry
              : hb.cpu_holdoff == HoldoffPolicy::Grants  ? chipset::CpuHoldoff::Grants
                                                         : chipset::CpuHoldoff::Rotate;
  p.holdoff_grants = hb.holdoff_grants;
  return p;
}

ide::IdeDiskParams disk_params(const DiskConfig& d) {
  ide::IdeDiskParams p;
  p.rpm = d.rpm;
  p.avg_seek = sc_time(d.avg_seek_ms, SC_MS);
  p.track_to_track = sc_time(d.track_to_track_ms, SC_MS);
  p.outer_mb_s = d.outer_mb_s;
  p.inner_mb_s = d.inner_mb_s;
  p.command_overhead = sc_time(d.command_overhead_ms, SC_MS);
  p.cache_hit_overhead = sc_time(d.cache_hit_overhead_ms, SC_MS);
  p.cache_sectors = uint32_t(d.cache_kb) * 2;
  p.capacity = uint64_t(d.capacity_sectors);
  return p;
}

ide::IdeControllerParams ide_params(const IdeConfig& c) {
  ide::IdeControllerParams p;
  p.udma_mode = c.udma_mode;
  p.burst_bytes = uint32_t(c.burst_bytes);
  p.prd_fetch = sc_time(c.prd_fetch_ns, SC_NS);
  return p;
}

net::Rtl8139Params nic_params(const Scenario& s) {
  net::Rtl8139Params p;
  p.rx = nic_rx_source(s);  // the far end of the cable: traffic of a net_in load
  return p;
}

sound::Es1371Params sound_params(const Scenario& s) {
  sound::Es1371Params p;
  p.src.busy_frames = uint32_t(s.mechanisms.es1371_src_busy_frames);
  return p;
}

}  // namespace

Machine::Machine(const Scenario& s)
    : dram(512ull << 20),
      pci("pci", s.platform.pci.mhz, s.platform.pci.latency_timer,
          s.platform.pci.arbiter == "fixed" ? pci::ArbitrationPolicy::Fixed
                                            : pci::ArbitrationPolicy::Rotate),
      host_bridge("host_bridge", bridge_params(s), pci, dram),
      isa_bridge("isa_bridge", sc_time(s.platform.isa.io_cycle_ns, SC_NS)),
      pit("pit"),
      pic_master("pic_master"),
      pic_slave("pic_slave"),
      ioapic("ioapic"),
      disk(disk_params(s.platform.disk)),
      ide("ide", ide_params(s.platform.ide), disk, dram, pci),
      nic("nic", nic_params(s), dram, pci),
      sound("sound", sound_params(s), pci) {
  pci.set_latency_timer_enabled(s.mechanisms.pci_latency_timer);

  // PCI targets (order = target_socket index). IDE legacy ports first: they sit
  // inside the ISA bridge's subtractive range.
  pci.target_socket.bind(ide.socket);             // 0
  pci.target_socket.bind(isa_bridge.pci_socket);  // 1
  pci.target_socket.bind(ioapic.socket);          // 2
  pci.target_socket.bind(nic.socket);             // 3
  pci.target_socket.bind(sound.socket);           // 4
  pci.map(io_addr(0x1f0), 8, 0, "ide-taskfile", 2, ide::IdeController::kTaskFile);
  pci.map(io_addr(0x3f6), 1, 0, "ide-control", 2, ide::IdeController::kControl);
  pci.map(io_addr(kBusMasterIdeBase), 8, 0, "ide-busmaster", 2, ide::IdeController::kBusMaster);
  pci.map(io_addr(0), 0x400, 1, "isa", 2);
  pci.map(kIoApicBase, 0x20, 2, "ioapic", 2);
  pci.map(io_addr(kNicIoBase), 0x100, 3, "rtl8139", 2);
  pci.map(io_addr(kSoundIoBase), 0x40, 4, "es1371", 2);

  // ISA devices behind the south bridge.
  isa_bridge.isa_socket.bind(pit.socket);         // 0
  isa_bridge.isa_socket.bind(pic_master.socket);  // 1
  isa_bridge.isa_socket.bind(pic_slave.socket);   // 2
  isa_bridge.map(0x40, 4, 0, "pit");
  isa_bridge.map(0x20, 2, 1, "pic-master");
  isa_bridge.map(0xa0, 2, 2, "pic-slave");

  // Interrupt wiring: ISA IRQ0 to 8259A IR0 and IO-APIC pin 2 (MP override);
  // pin 0 carries the same edge for the NMI watchdog path; IRQ14 to pin 14.
  pit.out0.connect(pic_master, 0);
  pit.out0.connect(ioapic, 2);
  pit.out0.connect(ioapic, 0);
  pic_slave.intr.connect(pic_master, 2);
  pic_master.set_slave(2, pic_slave);
  ide.intrq.connect(pic_slave, 6);
  ide.intrq.connect(ioapic, 14);
  // PCI INTA# of the NIC and the sound card, steered by the 686B to ISA IRQ 11 and
  // 10 (seed 000: "/proc/irq/10/Ensoniq AudioPCI"); IRQ 11 for the NIC is an assumption.
  nic.inta.connect(pic_slave, 3);
  nic.inta.connect(ioapic, 11);
  sound.inta.connect(pic_slave, 2);
  sound.inta.connect(ioapic, 10);
  ioapic.connect(apic_bus);

  const double mhz = s.platform.cpu.mhz;
  for (int i = 0; i < s.platform.cpu.count; ++i) {
    const std::string n = std::to_string(i);
    lapics.push_back(std::make_unique<cpu::LocalApic>(("lapic" + n).c_str(), unsigned(i),
                                                      s.platform.cpu.fsb_mhz));
    lapics.back()->set_eoi_listener(&ioapic);
    apic_bus.attach(unsigned(i), *lapics.back());
    cpus.push_back(
        std::make_unique<cpu::Pentium3>(("cpu" + n).c_str(), i, mhz, host_bridge, *lapics.back()));
    cpus.back()->set_extint_source([this] { return pic_master.inta(); });
    ports.push_back(std::make_unique<CpuPort>(*cpus.back(), mhz, apic_bus));
  }
  pic_master.intr.connect(*lapics[0], 0);  // virtual wire: 8259A INTR to CPU0 LINT0
}

std::vector<kernel::CpuOps*> Machine::cpu_ops() {
  std::vector<kernel::CpuOps*> v;
  for (auto& p : ports) v.push_back(p.get());
  return v;
}

}  // namespace latsim::platform
