#include "platform/machine.h"
#include "common/random.h"
#include "platform/nic_far_end.h"

namespace latsim::platform {
namespace {

chipset::HostBridgeParams bridge_params(const Scenario& s) {
  chipset::HostBridgeParams p = s.platform.host_bridge;
  if (!s.mechanisms.bus_master_holdoff) p.holdoff = chipset::CpuHoldoff::None;
  return p;
}

chipset::SmiParams smi_params(const Scenario& s) {
  chipset::SmiParams p = s.platform.smi;
  // The PM timer runs from its own crystal: the first SMI's phase is the seed's.
  p.first = p.period() * Rng(s.seed, "smi/phase").uniform();
  return p;
}

disk::DiskDriveParams disk_params(const Scenario& s) {
  disk::DiskDriveParams p = s.platform.disk;
  p.spindle_phase = Rng(s.seed, "hda/spindle").uniform();
  return p;
}

net::Rtl8139Params nic_params(const Scenario& s) {
  net::Rtl8139Params p = s.platform.nic;
  if (!s.platform.fec.fitted) p.rx = nic_rx_source(s);  // the cable's traffic: eth0's
  return p;
}

dma::BestcommParams bestcomm_params(const Scenario& s) {
  dma::BestcommParams p = s.platform.bestcomm;
  p.xlb_mhz = s.platform.cpu.fsb_mhz;  // the XLB is the bus the CPU's clock counts
  return p;
}

net::Mpc52xxFecParams fec_params(const Scenario& s) {
  net::Mpc52xxFecParams p = s.platform.fec;
  p.rx = nic_rx_source(s);  // the far end of the cable: the NFS server's replies
  return p;
}

// A PCI INTA# steered by the south bridge to ISA IRQ `irq`: the 8259A input it
// lands on (slave for 8-15) and the IO-APIC pin of the same number.
void steer_pci_irq(irq::IrqLine& inta, int irq, irq::I8259A& master, irq::I8259A& slave,
                   irq::IoApic& ioapic) {
  if (irq < 8)
    inta.connect(master, unsigned(irq));
  else
    inta.connect(slave, unsigned(irq - 8));
  inta.connect(ioapic, unsigned(irq));
}

}  // namespace

Machine::Machine(const Scenario& s)
    : dram(512ull << 20),
      pci("pci", s.platform.pci),
      host_bridge("host_bridge", bridge_params(s), pci, dram),
      isa_bridge("isa_bridge", s.platform.isa),
      pit("pit"),
      pic_master("pic_master"),
      pic_slave("pic_slave"),
      ioapic("ioapic"),
      apic_bus(s.platform.apic_bus),
      smi("smi", smi_params(s)),
      disk(disk_params(s)),
      ide("ide", s.platform.ide, disk, dram, pci),
      nic("nic", nic_params(s), dram, pci),
      sound("sound", s.platform.sound, pci) {
  pci.set_latency_timer_enabled(s.mechanisms.pci_latency_timer);

  // PCI targets (order = target_socket index). IDE legacy ports first: they sit
  // inside the ISA bridge's subtractive range.
  pci.target_socket.bind(ide.socket);             // 0
  pci.target_socket.bind(isa_bridge.pci_socket);  // 1
  pci.target_socket.bind(ioapic.socket);          // 2
  pci.target_socket.bind(nic.socket);             // 3
  pci.target_socket.bind(sound.socket);           // 4
  int next_target = 5;
  pci.map(io_addr(0x1f0), 8, 0, "ide-taskfile", 2, ide::IdeController::kTaskFile);
  pci.map(io_addr(0x3f6), 1, 0, "ide-control", 2, ide::IdeController::kControl);
  pci.map(io_addr(kBusMasterIdeBase), 8, 0, "ide-busmaster", 2, ide::IdeController::kBusMaster);
  pci.map(io_addr(0), 0x400, 1, "isa", 2);
  pci.map(kIoApicBase, 0x20, 2, "ioapic", 2);
  if (s.platform.ioapic.bus == "xbus") ioapic.xbus_cycle = isa_bridge.io_cycle();
  pci.map(io_addr(kNicIoBase), 0x100, 3, "rtl8139", 2);
  pci.map(io_addr(kSoundIoBase), 0x40, 4, "es1371", 2);
  for (int i = 0; i < s.platform.usb.uhci; ++i) {
    const std::string n = "uhci" + std::to_string(i);
    usb.push_back(std::make_unique<usb::Uhci>(n.c_str()));
    pci.target_socket.bind(usb.back()->socket);
    pci.map(io_addr(kUhciIoBase[i]), usb::Uhci::kIoSize, next_target++, n, 2);
  }
  // BIOS "PCI Delay Transaction": the 686B answers slow ISA cycles with Retry.
  pci.set_delayed_transactions("isa", s.platform.isa.delayed_transactions);

  // ISA devices behind the south bridge.
  isa_bridge.isa_socket.bind(pit.socket);         // 0
  isa_bridge.isa_socket.bind(pic_master.socket);  // 1
  isa_bridge.isa_socket.bind(pic_slave.socket);   // 2
  if (s.platform.pit.fitted) isa_bridge.map(0x40, 4, 0, "pit");
  isa_bridge.map(0x20, 2, 1, "pic-master");
  isa_bridge.map(0xa0, 2, 2, "pic-slave");

  // Interrupt wiring: ISA IRQ0 to 8259A IR0 and IO-APIC pin 2 (MP override);
  // pin 0 carries the same edge for the NMI watchdog path; IRQ14 to pin 14.
  if (s.platform.pit.fitted) {
    pit.out0.connect(pic_master, 0);
    pit.out0.connect(ioapic, 2);
    pit.out0.connect(ioapic, 0);
  }
  pic_slave.intr.connect(pic_master, 2);
  pic_master.set_slave(2, pic_slave);
  ide.intrq.connect(pic_slave, 6);
  ide.intrq.connect(ioapic, 14);
  // PCI INTA# of the NIC and the sound card, steered by the 686B to ISA IRQ 11 and
  // 10 (seed 000: "/proc/irq/10/Ensoniq AudioPCI"); IRQ 11 for the NIC is an assumption.
  steer_pci_irq(nic.inta, s.platform.nic.irq, pic_master, pic_slave, ioapic);
  steer_pci_irq(sound.inta, s.platform.sound.irq, pic_master, pic_slave, ioapic);
  ioapic.connect(apic_bus);

  if (s.platform.mpc52xx_pic.fitted) {
    mpc52xx_pic = std::make_unique<irq::Mpc52xxPic>("mpc52xx_pic");
    pci.target_socket.bind(mpc52xx_pic->socket);
    pci.map(kMbarIntr, irq::Mpc52xxPic::kWindow, next_target++, "mpc52xx-pic", 2);
  }
  add_cpus(s);
  if (!mpc52xx_pic) pic_master.intr.connect(*lapics[0], 0);  // virtual wire: INTR to CPU0 LINT0

  if (s.platform.fec.fitted) add_fec(s, next_target);

  // The graphics card, where the board has one: a PCI memory target (its AGP slot is
  // PCI-compatible for these cycles), no interrupt used by the X server.
  if (s.platform.disk.adapter == "aic7xxx") {
    scsi_disk = std::make_unique<scsi::Ddys>(disk, s.platform.scsi.bus_mb_s);
    scsi = std::make_unique<scsi::Aic7880>("scsi", s.platform.scsi, *scsi_disk, dram, pci);
    pci.target_socket.bind(scsi->socket);
    pci.map(io_addr(kScsiIoBase), 0x100, next_target++, "aic7880", 2);
    steer_pci_irq(scsi->inta, s.platform.scsi.irq, pic_master, pic_slave, ioapic);
  }
  if (s.platform.video.card == "permedia2") {
    video = std::make_unique<video::Permedia2>("video", s.platform.video);
    pci.target_socket.bind(video->socket);
    pci.map(kVideoControlBase, 0x10000, next_target++, "permedia2", 2);
  }
}

void Machine::add_cpus(const Scenario& s) {
  const cpu::CpuParams& cpu_params = s.platform.cpu;
  for (int i = 0; i < cpu_params.count; ++i) {
    const std::string n = std::to_string(i);
    lapics.push_back(
        std::make_unique<cpu::LocalApic>(("lapic" + n).c_str(), unsigned(i), cpu_params.fsb_mhz));
    lapics.back()->set_eoi_listener(&ioapic);
    lapics.back()->set_ipi_bus(&apic_bus);
    apic_bus.attach(unsigned(i), *lapics.back());
    cpus.push_back(std::make_unique<cpu::Pentium3>(("cpu" + n).c_str(), i, cpu_params, host_bridge,
                                                   *lapics.back()));
    if (cpu_params.l2_survival == "sampled") cpus.back()->sample_l2(s.seed);
    wire_core_pin(s, size_t(i));
    if (s.mechanisms.cache_coherence) cpus.back()->set_mesi(&mesi);
    smi.connect([c = cpus.back().get()](sc_time handler) { c->smi(handler); });
    ports.push_back(
        std::make_unique<CpuPort>(*cpus.back(), cpu_params.mhz, apic_bus,
                                  decrementers.empty() ? nullptr : decrementers.back().get()));
  }
}

// The core's interrupt pin (LINT0 in ExtINT mode): the 8259A's INTR and INTA cycle on a PC;
// on an e300, int# and the decrementer, vectored by the core itself. Without a local APIC
// the pin is the core's INTR input as such (a P6 with its APIC disabled: LINT0 is INTR).
void Machine::wire_core_pin(const Scenario& s, size_t i) {
  if (s.platform.cpu.local_apic) {
    cpus[i]->set_extint_source([this] { return pic_master.inta(); });
    return;
  }
  const double tb_mhz = s.platform.cpu.fsb_mhz / s.platform.cpu.timebase_divider;
  const std::string n = "decrementer" + std::to_string(i);
  decrementers.push_back(std::make_unique<cpu::E300Decrementer>(n.c_str(), tb_mhz));
  cpu::E300Decrementer& dec = *decrementers.back();
  lapics[i]->write(cpu::LocalApic::APIC_SPIV, cpu::LocalApic::kSpivEnabled);
  lapics[i]->write(cpu::LocalApic::APIC_LVT0, 0x700);  // ExtINT, unmasked
  dec.core_irq.connect(*lapics[i], 0);
  cpus[i]->set_extint_source([&dec] { return dec.acknowledge(); });
  if (i == 0 && mpc52xx_pic) mpc52xx_pic->core_int.connect(dec, 0);
}

// The MPC5200's FEC and BestComm: the SDMA registers and the SRAM are one target at two
// MBAR windows, the FEC's registers another; the SDMA interrupt to the MPC5200's PIC.
void Machine::add_fec(const Scenario& s, int& next_target) {
  bestcomm = std::make_unique<dma::Bestcomm>("bestcomm", bestcomm_params(s), dram, pci);
  fec = std::make_unique<net::Mpc52xxFec>("fec", fec_params(s), *bestcomm);
  pci.target_socket.bind(bestcomm->socket);
  pci.map(kMbarSdma, 0x100, next_target, "bestcomm-sdma", 2);
  pci.map(kMbarSram, dma::Bestcomm::kSramBytes, next_target++, "bestcomm-sram", 2,
          dma::Bestcomm::kSram);
  pci.target_socket.bind(fec->socket);
  pci.map(kMbarFec, net::Mpc52xxFec::kWindow, next_target++, "fec", 2);
  if (mpc52xx_pic)
    bestcomm->irq.connect(*mpc52xx_pic, irq::Mpc52xxPic::per_pin(irq::Mpc52xxPic::kPerBestcomm));
  else
    bestcomm->irq.connect(ioapic, kBestcommIrqPin);
}

std::vector<kernel::CpuOps*> Machine::cpu_ops() {
  std::vector<kernel::CpuOps*> v;
  for (auto& p : ports) v.push_back(p.get());
  return v;
}

}  // namespace latsim::platform
