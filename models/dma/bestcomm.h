#pragma once
// MPC5200B BestComm SDMA engine (the user's manual's SmartComm DMA): tasks that move
// peripheral FIFO data to and from memory over the XLB as a bus master, each walking a
// ring of buffer descriptors in the on-chip SRAM, and the SDMA interrupt (IntPend bit per
// task, masked by IntMask) into the interrupt controller's peripheral group. Two tasks are
// modelled, as Linux's bestcomm/fec.c loads them: the FEC receive task (FEC Rx FIFO to the
// buffer of the next ready descriptor) and the FEC transmit task (buffer to the Tx FIFO).
// Each move is one analytic burst train on the bus machinery that stands for the XLB.
#include <tlm_utils/simple_target_socket.h>
#include <array>
#include <deque>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/chipset/dram.h"
#include "models/common/time.h"
#include "models/irq/irq_line.h"
#include "models/pci/pci_bus.h"

namespace latsim::dma {

// platform.bestcomm.* and the XLB's fixed facts.
struct BestcommParams {
  double xlb_mhz = 132.0;              // XLB clock (the preset's bus clock, platform.cpu.fsb_mhz)
  uint32_t xlb_bytes_per_clock = 8;    // assumption: 64-bit XLB data bus (not checked)
  uint32_t burst_bytes = 32;           // assumption: one 32-byte cache line per XLB burst
  uint32_t burst_overhead_clocks = 3;  // assumption: address tenure and arbitration per burst
};
params::Table<BestcommParams> bestcomm_keys();

struct BestcommStats {
  uint64_t rx_frames = 0, rx_bytes = 0, rx_dropped_no_bd = 0;
  uint64_t tx_frames = 0, tx_bytes = 0;
  uint64_t irqs = 0;  // SDMA interrupt assertions
};

// One frame the FEC's Rx FIFO offers the receive task: bytes enter as the wire brings them.
struct FifoFrame {
  sc_time first_bit;  // first bit of preamble at the PHY
  uint32_t frame_bytes = 0;
  double wire_mbit_s = 100.0;
};

class Bestcomm : public sc_core::sc_module {
 public:
  // SDMA registers (MBAR + 0x1200) and the SRAM (MBAR + 0x8000) are two windows onto this
  // target: offsets below kSram are registers (Linux bestcomm names), kSram.. the SRAM.
  enum Offset : uint32_t {
    INT_PEND = 0x14,  // IntPend: one bit per task, write 1 to clear
    INT_MASK = 0x18,  // IntMask: 1 masks the task's interrupt
    TCR0 = 0x1c,      // TCRn, 16 bits each: TASK_ENABLE starts task n
  };
  static constexpr uint32_t kSram = 0x1000;         // the SRAM window in this target's space
  static constexpr uint32_t kSramBytes = 16384;     // Linux mpc52xx.h: MPC52xx_SRAM_SIZE
  static constexpr uint16_t TASK_ENABLE = 0x8000;   // TCR bit 0 (big-endian numbering)
  static constexpr uint32_t BD_READY = 0x40000000;  // bestcomm.h BCOM_BD_READY
  static constexpr uint32_t RX_BD_L = 0x08000000;   // bestcomm/fec.h: last buffer of frame
  static constexpr uint32_t BD_LEN_MASK = 0x7ff;
  static constexpr uint32_t kBdBytes = 8;  // struct bcom_fec_bd: status, buffer address
  enum Task : unsigned { kFecRx = 0, kFecTx = 1, kTasks = 2 };
  // Per task, a variable-table stand-in in the SRAM: ring base (SRAM offset) and length.
  static constexpr uint32_t kVarTable = 0;  // task n: kVarTable + 8 n: {bd_base, num_bd}

  tlm_utils::simple_target_socket<Bestcomm> socket;
  irq::IrqLine irq;  // the SDMA's peripheral interrupt

  Bestcomm(sc_core::sc_module_name name, const BestcommParams& p, chipset::Dram& dram,
           pci::PciBus& xlb);

  uint32_t read(uint64_t offset, unsigned len);
  void write(uint64_t offset, unsigned len, uint32_t v);

  // The FEC: a frame is entering the Rx FIFO. Returns false when the receive task has no
  // ready descriptor (the FIFO overruns: the frame is lost).
  bool rx_frame(const FifoFrame& f);
  // The FEC: when the Tx FIFO has emptied the frame onto the wire (set by the FEC).
  void set_tx_wire(double wire_mbit_s) { tx_wire_mbit_s_ = wire_mbit_s; }

  const BestcommStats& stats() const { return stats_; }
  int master() const { return master_; }
  uint32_t burst_bytes() const { return p_.burst_bytes; }
  sc_time burst_tenure(uint32_t bytes) const;

 private:
  struct Ring {
    uint32_t base = 0, count = 0, next = 0;  // the engine's own descriptor pointer
  };
  struct Done {
    sc_time at;
    unsigned task;
    uint32_t bd, status;
  };

  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint32_t sram32(uint32_t off) const;
  void set_sram32(uint32_t off, uint32_t v);
  Ring ring(unsigned task) const;
  void advance(unsigned task);
  void start_tx();
  void complete();
  void update_irq();

  BestcommParams p_;
  chipset::Dram& dram_;
  pci::PciBus& xlb_;
  int master_;
  std::array<uint8_t, kSramBytes> sram_{};
  std::array<uint32_t, kTasks> next_bd_{};
  std::array<uint16_t, 16> tcr_{};
  uint32_t int_pend_ = 0, int_mask_ = 0xffffffff;
  sc_time rx_free_, tx_free_, tx_wire_free_;
  double tx_wire_mbit_s_ = 100.0;
  std::deque<Done> done_;  // in completion order
  sc_core::sc_event done_ev_;
  BestcommStats stats_;
};

}  // namespace latsim::dma
