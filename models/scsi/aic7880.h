#pragma once
// Adaptec AIC-7880 PCI Ultra Wide SCSI host adapter (the AHA-2940UW's chip) as a PCI
// function: the registers the aic7xxx driver touches, its sequencer working the
// queue-in FIFO of SCB numbers in host memory, one target (disk) on a 16-bit Fast-20
// bus with tagged queueing and disconnect/reselect, the data moved between the SCSI bus
// and memory as PCI burst trains through its data FIFO, and INTA# on command complete
// (the SCB number posted in the queue-out FIFO in host memory).
#include <tlm_utils/simple_target_socket.h>
#include <deque>
#include <systemc>
#include <tlm>
#include <vector>
#include "common/params.h"
#include "models/chipset/dram.h"
#include "models/common/register_bank.h"
#include "models/common/time.h"
#include "models/irq/irq_line.h"
#include "models/pci/pci_bus.h"
#include "models/pci/pci_config.h"
#include "models/scsi/ddys.h"

namespace latsim::scsi {

// The platform.scsi.* knobs (aic7880_keys) and the chip's fixed facts.
struct Aic7880Params {
  int irq = 9;                         // INTA# steered to this ISA IRQ (assumption: a free one)
  double bus_mb_s = 40.0;              // Ultra Wide: 20 MHz synchronous, 16 bits (AIC-7880)
  double sequencer_mips = 10.0;        // aic7xxx driver's chip table: aic7880 10 MIPS
  int command_instructions = 150;      // assumption: QINFIFO to CDB sent
  int reselect_instructions = 60;      // assumption: reselection to data phase (SCB by tag)
  int complete_instructions = 40;      // assumption: status, QOUTFIFO post, CMDCMPLT
  double selection_us = 6.0;           // assumption: arbitration, selection, messages, CDB
  double reselection_us = 4.0;         // assumption: arbitration, reselection, IDENTIFY + tag
  double status_us = 2.0;              // assumption: status and COMMAND COMPLETE message
  uint32_t burst_bytes = 128;          // assumption: half the 256-byte data FIFO per burst
  uint32_t burst_overhead_clocks = 4;  // per PCI burst: arbitration, address, turnaround
  bool disconnect = true;              // SCSI-Select "enable disconnection"
  int latency_timer = -1;              // its config header's; -1: the bus-wide value

  sc_time instructions(int n) const { return sc_time(double(n) / sequencer_mips, SC_US); }
};
params::Table<Aic7880Params> aic7880_keys();

struct Aic7880Stats {
  uint64_t commands = 0, bytes = 0, bytes_written = 0;
  uint64_t disconnects = 0;         // commands whose target freed the bus before data
  uint64_t selections_delayed = 0;  // selections that waited for a data phase on the bus
  uint64_t max_outstanding = 0;     // most commands queued at the target at once
  uint64_t irqs = 0;                // INTA# assertions
  sc_time busy;                     // command queued to complete, summed
  sc_time bus_busy;                 // the SCSI bus held: selections, data, status
  sc_time longest_data_phase;
};

class Aic7880 : public sc_core::sc_module {
 public:
  // I/O BAR offsets (aic7xxx.reg names); the scratch-RAM words are the driver's.
  enum Offset : uint16_t {
    HSCB_ADDR = 0x3c,         // scratch RAM: host address of the SCB array (64 bytes each)
    SHARED_DATA_ADDR = 0x40,  // scratch RAM: QOUTFIFO (256 bytes), then QINFIFO (256)
    KERNEL_QINPOS = 0x4a,     // scratch RAM: the driver's next QINFIFO slot
    HCNTRL = 0x87,
    INTSTAT = 0x91,
    CLRINT = 0x92,
  };
  enum HcntrlBits : uint8_t { INTEN = 0x02, PAUSE = 0x04 };
  enum IntstatBits : uint8_t { CMDCMPLT = 0x02 };
  enum ScbControl : uint8_t { TAG_ENB = 0x20, DISCENB = 0x40 };
  // struct hardware_scb: cdb[12], dataptr, datacnt, sgptr, control, scsiid, lun, tag.
  enum ScbField : uint32_t { SCB_CDB = 0, SCB_SGPTR = 20, SCB_CONTROL = 24, SCB_TAG = 27 };
  static constexpr uint32_t kScbBytes = 64;
  static constexpr uint32_t kSgLast = 0x80000000u;  // AHC_DMA_LAST_SEG in a segment's length
  static constexpr uint8_t kScbListNull = 0xff;
  static constexpr uint8_t kRead10 = 0x28, kWrite10 = 0x2a;

  tlm_utils::simple_target_socket<Aic7880> socket;
  irq::IrqLine inta;

  Aic7880(sc_core::sc_module_name name, const Aic7880Params& p, Ddys& target, chipset::Dram& dram,
          pci::PciBus& pci);

  uint32_t read(uint64_t offset, unsigned len);
  void write(uint64_t offset, unsigned len, uint32_t v);

  const Aic7880Stats& stats() const { return stats_; }
  const Aic7880Params& params() const { return p_; }
  size_t outstanding() const { return scbs_.size(); }  // tagged commands at the target
  int master() const { return master_; }
  pci::PciConfig& pci_config() { return pci_config_; }

 private:
  // One command from its SCB, as the sequencer and the target have planned it.
  struct Scb {
    uint8_t tag = 0;
    bool write = false;
    uint64_t bytes = 0;
    sc_time queued, data_start, data_end, status;
    sc_time hold_from, hold_to;  // it has the SCSI bus (data phase and status, or all along)
  };
  using Reg = Register<Aic7880>;
  static pci::PciIdentity pci_identity();
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  void write_qinpos(uint32_t v, const RegIo& io);
  void write_clrint(uint32_t v, const RegIo& io);
  void write_hcntrl(uint32_t v, const RegIo& io);
  uint32_t read_intstat(const RegIo& io);
  void start_scb(uint8_t tag, sc_time now);  // fetch, select, send the CDB, plan
  void plan_bus(Scb& s, const TargetPlan& t, sc_time sel, sc_time cdb_sent, bool disc);
  uint64_t sg_bytes(uint32_t sgptr) const;
  // When a selection of `length` wanting the bus at t gets it; later phases move.
  sc_time selection_at(sc_time t, sc_time length);
  void data_phase();  // the head command's target reconnects
  void complete();    // its status: post to the QOUTFIFO, interrupt
  void update_irq();
  sc_time burst_tenure(uint32_t bytes) const;

  Aic7880Params p_;
  Ddys& target_;
  chipset::Dram& dram_;
  pci::PciBus& pci_;
  pci::PciConfig pci_config_{pci_identity()};
  int master_;
  RegisterBank<Aic7880> regs_{this, 0xff};
  Reg hscb_addr_ = Reg(regs_, "HSCB_ADDR", {HSCB_ADDR, 4}, RegAccess::RW);
  Reg shared_addr_ = Reg(regs_, "SHARED_DATA_ADDR", {SHARED_DATA_ADDR, 4}, RegAccess::RW);
  Reg qinpos_ = Reg(regs_, "KERNEL_QINPOS", {KERNEL_QINPOS, 1}, RegAccess::RW, 0, nullptr,
                    &Aic7880::write_qinpos);
  Reg hcntrl_ =
      Reg(regs_, "HCNTRL", {HCNTRL, 1}, RegAccess::RW, 0, nullptr, &Aic7880::write_hcntrl);
  Reg intstat_ =
      Reg(regs_, "INTSTAT", {INTSTAT, 1}, RegAccess::RO, 0, &Aic7880::read_intstat, nullptr);
  Reg clrint_ =
      Reg(regs_, "CLRINT", {CLRINT, 1}, RegAccess::WO, 0, nullptr, &Aic7880::write_clrint);
  uint8_t qin_seen_ = 0;       // next QINFIFO slot the sequencer reads
  uint8_t qout_next_ = 0;      // next QOUTFIFO slot it writes
  sc_time seq_free_;           // the sequencer is busy until then
  std::deque<Scb> scbs_;       // at the target, in its service order
  bool head_in_data_ = false;  // scbs_[0]'s data phase has started
  sc_time last_data_end_;      // the bus carries one data phase at a time
  sc_time done_at_;            // the head command's status
  sc_core::sc_event data_ev_, done_ev_;
  Aic7880Stats stats_;
};

}  // namespace latsim::scsi
