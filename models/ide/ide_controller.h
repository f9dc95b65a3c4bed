#pragma once
// Primary channel of a PCI IDE controller (VT82C686B function 1 class): the ATA
// task-file registers of the drive behind it, the bus-master DMA engine with
// its PRD table walk, and INTRQ (IRQ 14). The engine fetches one PRD entry at
// a time (an event per entry) and describes its transfer analytically as one
// burst train, so what happens on the bus meanwhile can shape the next entry.
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>
#include <vector>
#include "common/params.h"
#include "models/chipset/dram.h"
#include "models/common/register_bank.h"
#include "models/common/time.h"
#include "models/disk/disk_drive.h"
#include "models/ide/prd_table.h"
#include "models/irq/irq_line.h"
#include "models/pci/pci_bus.h"
#include "models/pci/pci_config.h"

namespace latsim::ide {

// The platform.ide.* knobs (ide_controller_keys) and the controller's fixed facts.
struct IdeControllerParams {
  int udma_mode = 2;          // udma2 = 33 MB/s
  uint32_t burst_bytes = 16;  // PIIX4-class line buffer: 4-dword memory writes
  double prd_fetch_ns = 120;  // fitted (O1): the master's gap between entries, PRD prefetched
  bool memory_write_invalidate = false;  // memory writes as MWI (PCI command register bit 4)
  int pio_mode = 4;                      // ATA PIO mode of the drive's data port cycles
  uint32_t cache_line_bytes = 32;        // PIII cache line: the MWI unit
  int latency_timer = -1;                // its config header's; -1: the bus-wide value

  sc_time prd_fetch() const { return sc_time(prd_fetch_ns, SC_NS); }
};
params::Table<IdeControllerParams> ide_controller_keys();

double udma_mb_s(int mode);  // ATA/ATAPI-5 table: 16.7, 25, 33.3, 44.4, 66.7, 100
// ATA/ATAPI-5 PIO cycle time t0 of one 16-bit data transfer: 600, 383, 240, 180, 120 ns.
sc_time pio_cycle(int mode);

struct IdeStats {
  uint64_t commands = 0, bytes = 0, prd_entries = 0, prd_64k_violations = 0;
  uint64_t pio_sectors = 0, pio_accesses = 0;  // data-port reads/writes of PIO commands
  uint64_t write_commands = 0, bytes_written = 0;
  sc_time busy;           // drive command start to INTRQ
  sc_time longest_entry;  // longest single PRD entry transfer
};

class IdeController : public sc_core::sc_module {
 public:
  // Register windows as offsets within the three I/O ranges the platform maps.
  static constexpr uint64_t kTaskFile = 0x000;   // 0x1f0-0x1f7
  static constexpr uint64_t kControl = 0x100;    // 0x3f6
  static constexpr uint64_t kBusMaster = 0x200;  // BAR4, 8 bytes
  enum AtaStatus : uint8_t { ERR = 0x01, DRQ = 0x08, DRDY = 0x40, BSY = 0x80 };
  enum BmCommand : uint8_t { START = 0x01, WRITE_TO_MEMORY = 0x08 };
  enum BmStatus : uint8_t { ACTIVE = 0x01, ERROR = 0x02, INTERRUPT = 0x04, DRV0_DMA = 0x20 };
  static constexpr uint8_t kReadDma = 0xC8;
  static constexpr uint8_t kWriteDma = 0xCA;
  static constexpr uint8_t kReadSectors = 0x20;  // PIO data-in, one sector per DRQ block

  tlm_utils::simple_target_socket<IdeController> socket;
  irq::IrqLine intrq;

  IdeController(sc_core::sc_module_name name, const IdeControllerParams& p, disk::DiskDrive& disk,
                chipset::Dram& dram, pci::PciBus& pci);

  uint8_t read(uint64_t offset);
  void write(uint64_t offset, uint8_t v);
  uint32_t read32(uint64_t offset);
  void write32(uint64_t offset, uint32_t v);

  const IdeStats& stats() const { return stats_; }
  double udma_rate() const { return udma_mb_s(p_.udma_mode); }
  const IdeControllerParams& params() const { return p_; }
  pci::PciConfig& pci_config() { return pci_config_; }  // PCI function 1 of the south bridge

 private:
  using Reg = Register<IdeController>;
  static pci::PciIdentity pci_identity();
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint32_t read_data(const RegIo& io);
  void write_data(uint32_t v, const RegIo& io);
  uint32_t read_status(const RegIo& io);
  uint32_t read_alt_status(const RegIo& io);
  void write_command(uint32_t v, const RegIo& io);
  void write_devctl(uint32_t v, const RegIo& io);
  void write_bm_command(uint32_t v, const RegIo& io);
  void start_dma();
  void dma_step();  // fetch the next PRD entry and announce its transfer
  void complete();
  void raise_irq();
  sc_time sector_ready(uint32_t i) const;  // the drive has (read) or takes (write) sector i
  // End of the back-to-back run an entry ending at `end` belongs to; `next`/`off`: the
  // PRD index and command byte offset of the entry after it.
  sc_time run_end(int next, uint64_t off, sc_time end) const;
  // The last run_end walk: the end after each entry it took in (ends[0] its input). A
  // later call for an entry that ended where the walk said continues the same walk.
  struct RunWalk {
    int from = -1;  // `next` of the walk; -1: none this command
    std::vector<sc_time> ends;
    sc_time result;
  };
  sc_time done_at(sc_time dma_end) const;  // INTRQ of a DMA command whose data moved by then
  uint32_t cmd_sectors() const { return writing_ ? wplan_.sectors : plan_.sectors; }
  void pio_ready();  // the next sector is in the drive's buffer
  void data_port(unsigned len, bool write, sc_time done);  // a data-register access ending at done
  sc_time pio_access_time(unsigned len) const;

  IdeControllerParams p_;
  disk::DiskDrive& disk_;
  chipset::Dram& dram_;
  pci::PciBus& pci_;
  pci::PciConfig pci_config_{pci_identity()};
  int master_;
  RegisterBank<IdeController> regs_{this, 0xff};  // ports nobody drives read 0xff
  // ATA task file (ATA/ATAPI-5 7.x); Status/Command and Alternate Status/Device Control
  // share their ports, one read-only and one write-only.
  Reg data_ = Reg(regs_, "Data", {kTaskFile + 0, 2}, RegAccess::RW, 0, &IdeController::read_data,
                  &IdeController::write_data);
  Reg features_ = Reg(regs_, "Features", {kTaskFile + 1, 1}, RegAccess::WO);
  Reg count_ = Reg(regs_, "Sector Count", {kTaskFile + 2, 1}, RegAccess::RW);
  Reg lba_low_ = Reg(regs_, "LBA Low", {kTaskFile + 3, 1}, RegAccess::RW);
  Reg lba_mid_ = Reg(regs_, "LBA Mid", {kTaskFile + 4, 1}, RegAccess::RW);
  Reg lba_high_ = Reg(regs_, "LBA High", {kTaskFile + 5, 1}, RegAccess::RW);
  Reg device_ = Reg(regs_, "Device", {kTaskFile + 6, 1}, RegAccess::RW);
  Reg status_ =
      Reg(regs_, "Status", {kTaskFile + 7, 1}, RegAccess::RO, DRDY, &IdeController::read_status);
  Reg command_ = Reg(regs_, "Command", {kTaskFile + 7, 1}, RegAccess::WO, 0, nullptr,
                     &IdeController::write_command);
  Reg alt_status_ = Reg(regs_, "Alternate Status", {kControl, 1}, RegAccess::RO, 0,
                        &IdeController::read_alt_status);
  Reg devctl_ = Reg(regs_, "Device Control", {kControl, 1}, RegAccess::WO, 0, nullptr,
                    &IdeController::write_devctl);
  bool command_pending_ = false, irq_pending_ = false;
  mutable RunWalk walk_;
  disk::ReadPlan plan_;
  disk::WritePlan wplan_;
  bool writing_ = false;     // the DMA command is a write: the bus master reads memory
  bool pio_ = false;         // a PIO data-in command is in progress
  uint32_t pio_sector_ = 0;  // sector being (or next to be) moved
  uint32_t pio_bytes_ = 0;   // bytes of it moved through the data port
  sc_core::sc_event pio_ev_;
  sc_time command_time_;
  // Bus master IDE registers (SFF-8038i): Error and Interrupt are write-1-to-clear,
  // the drive DMA-capable bits read/write, Active and Simplex read-only.
  Reg bm_cmd_ = Reg(regs_, "Bus Master IDE Command", {kBusMaster + 0, 1}, RegAccess::RW, 0, nullptr,
                    &IdeController::write_bm_command);
  Reg bm_status_ = Reg(regs_, "Bus Master IDE Status", {kBusMaster + 2, 1},
                       RegRights{0x60, ERROR | INTERRUPT}, DRV0_DMA);
  Reg prd_ptr_ = Reg(regs_, "Descriptor Table Pointer", {kBusMaster + 4, 4}, RegRights{~3u, 0});
  sc_core::sc_event step_ev_, done_ev_;
  int dma_index_ = 0;     // next PRD entry
  uint64_t dma_off_ = 0;  // bytes of the command moved so far
  IdeStats stats_;
};

}  // namespace latsim::ide
