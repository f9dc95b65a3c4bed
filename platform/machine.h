#pragma once
// The board: every device of the dual-PIII box and how it is wired. Reads like
// the block diagram:
//
//   CPU0 CPU1 --FSB-- host bridge (VT82C694X) --DRAM
//                         |
//   ========================== PCI 33 MHz ==========================
//        |                 |                  |         |          |
//   IDE (686B fn1)    PCI-ISA (686B fn0)   IO-APIC   RTL8139    ES1371   UHCI x2
//     |  disk hda        |  8254 PIT, 8259A x2,       IRQ11      IRQ10   (686B fn2, fn3)
//     (or the disk on an AIC-7880 SCSI adapter, INTA# -> IRQ9: platform.disk.adapter)
//     INTRQ -> IRQ14     |  port 0x80; OUT0 -> IRQ0                      IRQ10, no device
//                        |  PM (686B fn4): SMI# -> every CPU (platform.smi)
//
// The MPC5200 board (platform.mpc52xx_pic, cpu.local_apic false, pit false): its
// interrupt controller at MBAR + 0x500 on the same bus; the BestComm's SDMA interrupt is
// its peripheral 0, its int# goes to the e300's external interrupt input, which with the
// decrementer makes the core's one interrupt pin; no 8254 drives IRQ 0.
//
//   BestComm SDMA -> PIC peripheral 0 (HI) -> critical HI_int -> CEb -> int# -+-> e300 core
//   e300 decrementer (time base = XLB / 4) -----------------------------------/
//
// Boards with a graphics card (platform.video.card) add a Permedia 2-class target
// at kVideoControlBase on the same bus (the PII-333 video-FIFO machine).
//
#include <memory>
#include <vector>
#include "models/chipset/dram.h"
#include "models/chipset/host_bridge.h"
#include "models/chipset/smi_source.h"
#include "models/cpu/e300_decrementer.h"
#include "models/cpu/local_apic.h"
#include "models/cpu/pentium3.h"
#include "models/disk/disk_drive.h"
#include "models/dma/bestcomm.h"
#include "models/ide/ide_controller.h"
#include "models/irq/apic_bus.h"
#include "models/irq/i8259a.h"
#include "models/irq/ioapic.h"
#include "models/irq/mpc52xx_pic.h"
#include "models/isa/pci_isa_bridge.h"
#include "models/net/mpc52xx_fec.h"
#include "models/net/rtl8139.h"
#include "models/pci/pci_bus.h"
#include "models/scsi/aic7880.h"
#include "models/scsi/ddys.h"
#include "models/sound/es1371.h"
#include "models/timer/i8254.h"
#include "models/usb/uhci.h"
#include "models/video/permedia2.h"
#include "platform/cpu_port.h"
#include "platform/scenario.h"

namespace latsim::platform {

class Machine {
 public:
  explicit Machine(const Scenario& s);
  std::vector<kernel::CpuOps*> cpu_ops();

  chipset::Dram dram;
  pci::PciBus pci;
  chipset::HostBridge host_bridge;
  isa::PciIsaBridge isa_bridge;
  timer::I8254 pit;
  irq::I8259A pic_master, pic_slave;
  irq::IoApic ioapic;
  irq::ApicBusHub apic_bus;
  chipset::SmiSource smi;   // the 686B's power management: SMI# to every CPU
  cpu::MesiDirectory mesi;  // the CPUs' caches snoop each other on the FSB
  disk::DiskDrive disk;
  ide::IdeController ide;
  net::Rtl8139 nic;                             // idle until a network workload drives it
  sound::Es1371 sound;                          // idle until an audio workload programs it
  std::vector<std::unique_ptr<usb::Uhci>> usb;  // platform.usb.uhci controllers (686B fn2, fn3)
  std::vector<std::unique_ptr<cpu::LocalApic>> lapics;
  std::vector<std::unique_ptr<cpu::Pentium3>> cpus;
  std::vector<std::unique_ptr<CpuPort>> ports;
  std::unique_ptr<video::Permedia2> video;  // only on boards with platform.video.card
  // platform.disk.adapter aic7xxx: the disk is a SCSI target behind an AIC-7880 instead
  // of hda on the IDE channel (which stays, with nothing the kernel drives behind it).
  std::unique_ptr<scsi::Ddys> scsi_disk;
  std::unique_ptr<scsi::Aic7880> scsi;
  // The MPC5200's FEC and its BestComm engine, on boards with platform.fec.fitted: the
  // BestComm masters the bus machinery that stands for the XLB, its registers and SRAM
  // and the FEC's answer as targets on it (MBAR blocks; assumption: PCI-speed cycles).
  std::unique_ptr<dma::Bestcomm> bestcomm;
  std::unique_ptr<net::Mpc52xxFec> fec;
  std::unique_ptr<irq::Mpc52xxPic> mpc52xx_pic;                     // platform.mpc52xx_pic
  std::vector<std::unique_ptr<cpu::E300Decrementer>> decrementers;  // cpu.local_apic false

 private:
  void add_fec(const Scenario& s, int& next_target);
  void add_cpus(const Scenario& s);
  void wire_core_pin(const Scenario& s, size_t i);
};

// Port and address map of the board (what the BIOS set up).
constexpr uint64_t kIoApicBase = 0xfec00000;
constexpr uint16_t kBusMasterIdeBase = 0xd000;
constexpr uint16_t kNicIoBase = 0xe000;               // RTL8139 I/O BAR (256 bytes)
constexpr uint16_t kSoundIoBase = 0xe400;             // ES1371 I/O BAR (64 bytes)
constexpr uint16_t kUhciIoBase[] = {0xd400, 0xd800};  // UHCI I/O BARs (32 bytes; assumption)
constexpr uint64_t kVideoControlBase = 0xe0000000;    // Permedia 2 control aperture (64 KiB)
constexpr uint16_t kScsiIoBase = 0xe800;              // AIC-7880 I/O BAR (256 bytes; assumption)
constexpr uint64_t kMbar = 0xf0000000;                // MPC5200 MBAR as the boot loader set it
constexpr uint64_t kMbarSdma = kMbar + 0x1200;        // BestComm SDMA registers (Linux mpc52xx.h)
constexpr uint64_t kMbarFec = kMbar + 0x3000;         // FEC registers (Linux's device tree)
constexpr uint64_t kMbarSram = kMbar + 0x8000;        // BestComm SRAM, 16 KiB (Linux mpc52xx.h)
constexpr uint64_t kMbarIntr = kMbar + 0x500;  // interrupt controller (Linux lite5200.dts pic@500)
constexpr unsigned kBestcommIrqPin = 9;        // the SDMA interrupt on an IO-APIC (no MPC52xx PIC)

}  // namespace latsim::platform
