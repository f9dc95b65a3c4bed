#pragma once
// Realtek RTL8139C-class 10/100 Ethernet controller as a PCI function: the
// I/O-space registers an 8139too driver uses (RTL8139C datasheet 1.4, section 6),
// the receive ring in host memory filled by bus-master writes, four transmit
// descriptors read by bus-master reads, and INTA#. Each received frame is one
// analytic burst train (plus the 4-byte header write), each transmitted frame one
// train; the frames themselves come from a PacketSource owned by the device.
#include <tlm_utils/simple_target_socket.h>
#include <array>
#include <deque>
#include <optional>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/chipset/dram.h"
#include "models/common/register_bank.h"
#include "models/common/time.h"
#include "models/irq/irq_line.h"
#include "models/net/packet_source.h"
#include "models/pci/pci_bus.h"
#include "models/pci/pci_config.h"

namespace latsim::net {

// The platform.nic.* knobs (rtl8139_keys) and the card's fixed facts.
struct Rtl8139Params {
  int irq = 11;                        // INTA# steered to this ISA IRQ / IO-APIC pin (assumption)
  double wire_mbit_s = 100.0;          // 100BASE-TX, full duplex
  uint32_t tx_fifo_bytes = 2048;       // RTL8139C transmit FIFO
  uint32_t burst_overhead_clocks = 4;  // per PCI burst: arbitration, address, turnaround, idle
  int latency_timer = -1;              // its config header's; -1: the bus-wide value
  sc_time reset_time = SC_ZERO_TIME;   // CR.RST reads 1 this long (datasheet gives no figure)
  std::array<uint8_t, 6> mac = {0x00, 0xe0, 0x4c, 0x39, 0x81, 0x39};  // IDR0-5 from the EEPROM
  PacketSourceParams rx;  // the traffic arriving on the cable
};
params::Table<Rtl8139Params> rtl8139_keys();

struct Rtl8139Stats {
  uint64_t frames_received = 0, bytes_received = 0;  // stored in the ring (length with FCS)
  uint64_t frames_dropped_overflow = 0;              // ring full: RXOVW, MPC
  uint64_t frames_dropped_disabled = 0;              // CR.RE off or not accepted by RCR
  uint64_t frames_sent = 0, bytes_sent = 0;          // TOK, TSD size bytes
  uint32_t ring_high_water = 0;                      // most ring bytes in use at once
  uint64_t irqs = 0;                                 // INTA# assertions
};

class Rtl8139 : public sc_core::sc_module {
 public:
  // Register offsets in the I/O BAR (datasheet names; 8139too's in comments).
  enum Offset : uint16_t {
    IDR0 = 0x00,     // MAC0
    MAR0 = 0x08,     // MAR0, multicast filter
    TSD0 = 0x10,     // TxStatus0..3
    TSAD0 = 0x20,    // TxAddr0..3
    RBSTART = 0x30,  // RxBuf
    ERBCR = 0x34,    // RxEarlyCnt
    ERSR = 0x36,     // RxEarlyStatus
    CR = 0x37,       // ChipCmd
    CAPR = 0x38,     // RxBufPtr
    CBR = 0x3a,      // RxBufAddr
    IMR = 0x3c,      // IntrMask
    ISR = 0x3e,      // IntrStatus
    TCR = 0x40,      // TxConfig
    RCR = 0x44,      // RxConfig
    TCTR = 0x48,     // Timer
    MPC = 0x4c,      // RxMissed
    CR9346 = 0x50,   // Cfg9346
    CONFIG0 = 0x51,
    CONFIG1 = 0x52,
    TIMERINT = 0x54,
    MSR = 0x58,  // MediaStatus
    CONFIG3 = 0x59,
    CONFIG4 = 0x5a,
    MULINT = 0x5c,
    RERID = 0x5e,
    TSAD = 0x60,  // TxSummary: status of all four descriptors
    BMCR = 0x62,  // BasicModeCtrl
    BMSR = 0x64,  // BasicModeStatus
    ANAR = 0x66,
    ANLPAR = 0x68,
    ANER = 0x6a,
    CONFIG5 = 0xd8,
  };
  enum CrBits : uint8_t { BUFE = 0x01, TE = 0x04, RE = 0x08, RST = 0x10 };
  enum IsrBits : uint16_t {
    ROK = 0x0001,
    RER = 0x0002,
    TOK = 0x0004,
    TER = 0x0008,
    RXOVW = 0x0010,  // Rx buffer overflow
    PUN = 0x0020,    // packet underrun / link change
    FOVW = 0x0040,   // Rx FIFO overflow
    LENCHG = 0x2000,
    TIMEOUT = 0x4000,
    SERR = 0x8000,
  };
  enum TsdBits : uint32_t {
    TSD_SIZE = 0x1fff,
    TSD_OWN = 1u << 13,  // DMA of the buffer to the FIFO done
    TSD_TUN = 1u << 14,
    TSD_TOK = 1u << 15,
    TSD_ERTXTH = 0x3fu << 16,  // early Tx threshold, 32-byte units (0 = 8 bytes)
  };
  enum RcrBits : uint32_t {
    AAP = 1u << 0,  // accept all
    APM = 1u << 1,  // physical match
    AM = 1u << 2,
    AB = 1u << 3,
    WRAP = 1u << 7,  // 1: write past the ring end instead of wrapping (8139too's RxNoWrap)
  };
  static constexpr unsigned kMxdmaShift = 8;   // RCR/TCR bits 10:8: 16 << n bytes, 7 = unlimited
  static constexpr unsigned kRblenShift = 11;  // RCR bits 12:11: 8K << n
  static constexpr unsigned kRxfthShift = 13;  // RCR bits 15:13: 16 << n bytes, 7 = whole frame
  enum RxStatus : uint16_t { RX_ROK = 0x0001, RX_PAM = 0x4000 };  // Rx header status word
  static constexpr uint32_t kHwVerId8139C = 0x74000000;           // TCR bits 30:26, 23:22
  static constexpr uint16_t kCaprReset = 0xfff0;                  // read pointer 16 bytes behind

  tlm_utils::simple_target_socket<Rtl8139> socket;
  irq::IrqLine inta;

  Rtl8139(sc_core::sc_module_name name, const Rtl8139Params& p, chipset::Dram& dram,
          pci::PciBus& pci);

  uint32_t read(uint64_t offset, unsigned len);
  void write(uint64_t offset, unsigned len, uint32_t v);

  const Rtl8139Stats& stats() const { return stats_; }
  const Rtl8139Params& params() const { return p_; }
  int master() const { return master_; }
  pci::PciConfig& pci_config() { return pci_config_; }
  uint32_t ring_bytes() const { return 8192u << ((rcr() >> kRblenShift) & 3); }
  uint32_t ring_used() const;  // bytes between the driver's read pointer and CBR

 private:
  struct RxDma {  // the one frame whose DMA is under way
    uint32_t offset, frame_bytes;
    sc_time done;  // header written
  };
  struct TxSlot {
    uint32_t tsd = TSD_OWN;
    sc_time own_at, tok_at;
  };

  using Reg = Register<Rtl8139>;
  static pci::PciIdentity pci_identity();

  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  void reset();
  uint32_t read_tsd(const RegIo& io) { return tsd_value(io.index); }
  void write_tsd(uint32_t v, const RegIo& io) { start_tx(io.index, v); }
  uint32_t read_cr(const RegIo& io);
  void write_cr(uint32_t v, const RegIo& io);
  void write_imr(uint32_t v, const RegIo& io);
  void write_isr(uint32_t v, const RegIo& io);
  uint32_t read_tcr(const RegIo&) { return (tcr_ & ~0x7cc00000u) | kHwVerId8139C; }
  uint32_t read_tctr(const RegIo& io);
  void write_tctr(uint32_t, const RegIo&) { tctr_base_ = sc_core::sc_time_stamp(); }  // restart
  void write_mpc(uint32_t, const RegIo&) { mpc_ = 0; }  // any write clears the counter
  uint32_t read_msr(const RegIo&);
  uint32_t read_tx_summary(const RegIo&);
  std::array<uint8_t, 6> mac() const;  // IDR0-5
  uint32_t rcr() const { return rcr_; }
  uint32_t tcr() const { return tcr_; }
  uint16_t imr() const { return uint16_t(imr_); }
  bool accepts_unicast() const { return rcr() & (AAP | APM); }
  void update_irq();
  sc_time burst_tenure(uint32_t bytes) const;

  // Receive path: one event for the next decision (a frame's first bit, the frame
  // ready for DMA, or the in-flight frame's header written).
  void rx_step();
  void pull_frame();
  void receive(const Arrival& a);
  void complete_rx();
  void ring_write(uint32_t offset, const uint8_t* data, uint32_t len);
  uint32_t rx_threshold(uint32_t frame) const;
  uint32_t rx_burst(uint32_t frame) const;

  // Transmit path: descriptors go out in the order written; one event per TOK.
  void start_tx(unsigned n, uint32_t v);
  void tx_step();
  uint32_t tsd_value(unsigned n) const;

  Rtl8139Params p_;
  chipset::Dram& dram_;
  pci::PciBus& pci_;
  pci::PciConfig pci_config_{pci_identity()};
  int master_;
  PacketSource source_;

  // I/O registers (RTL8139C datasheet section 6); those without side effects are storage.
  RegisterBank<Rtl8139> regs_{this};
  Reg idr0_ = Reg(regs_, "IDR0-3", {IDR0, 4}, RegAccess::RW);  // reset: the MAC from the EEPROM
  Reg idr4_ = Reg(regs_, "IDR4-5", {IDR0 + 4, 2}, RegAccess::RW);
  Reg mar0_ = Reg(regs_, "MAR0-3", {MAR0, 4}, RegAccess::RW);
  Reg mar4_ = Reg(regs_, "MAR4-7", {MAR0 + 4, 4}, RegAccess::RW);
  Reg tsd_ =
      Reg(regs_, "TSD", {TSD0, 4, 4}, RegAccess::RW, 0, &Rtl8139::read_tsd, &Rtl8139::write_tsd);
  Reg tsad0_ = Reg(regs_, "TSAD0", {TSAD0 + 0, 4}, RegAccess::RW);
  Reg tsad1_ = Reg(regs_, "TSAD1", {TSAD0 + 4, 4}, RegAccess::RW);
  Reg tsad2_ = Reg(regs_, "TSAD2", {TSAD0 + 8, 4}, RegAccess::RW);
  Reg tsad3_ = Reg(regs_, "TSAD3", {TSAD0 + 12, 4}, RegAccess::RW);
  Reg rbstart_ = Reg(regs_, "RBSTART", {RBSTART, 4}, RegAccess::RW);
  Reg erbcr_ = Reg(regs_, "ERBCR", {ERBCR, 2}, RegAccess::RW);
  Reg ersr_ = Reg(regs_, "ERSR", {ERSR, 1}, RegAccess::RW);
  Reg cr_ = Reg(regs_, "CR", {CR, 1}, RegAccess::RW, 0, &Rtl8139::read_cr, &Rtl8139::write_cr);
  Reg capr_ = Reg(regs_, "CAPR", {CAPR, 2}, RegAccess::RW, kCaprReset);
  Reg cbr_ = Reg(regs_, "CBR", {CBR, 2}, RegAccess::RO);
  Reg imr_ = Reg(regs_, "IMR", {IMR, 2}, RegAccess::RW, 0, nullptr, &Rtl8139::write_imr);
  Reg isr_ = Reg(regs_, "ISR", {ISR, 2}, RegAccess::W1C, 0, nullptr, &Rtl8139::write_isr);
  Reg tcr_ = Reg(regs_, "TCR", {TCR, 4}, RegAccess::RW, 0, &Rtl8139::read_tcr);
  Reg rcr_ = Reg(regs_, "RCR", {RCR, 4}, RegAccess::RW);
  Reg tctr_ =
      Reg(regs_, "TCTR", {TCTR, 4}, RegAccess::RW, 0, &Rtl8139::read_tctr, &Rtl8139::write_tctr);
  Reg mpc_ = Reg(regs_, "MPC", {MPC, 4}, RegAccess::RW, 0, nullptr, &Rtl8139::write_mpc);
  Reg cr9346_ = Reg(regs_, "9346CR", {CR9346, 1}, RegAccess::RW);
  Reg config0_ = Reg(regs_, "CONFIG0", {CONFIG0, 1}, RegAccess::RW);
  Reg config1_ = Reg(regs_, "CONFIG1", {CONFIG1, 1}, RegAccess::RW);
  Reg timerint_ = Reg(regs_, "TimerInt", {TIMERINT, 4}, RegAccess::RW);
  Reg msr_ = Reg(regs_, "MSR", {MSR, 1}, RegAccess::RO, 0, &Rtl8139::read_msr);
  Reg config3_ = Reg(regs_, "CONFIG3", {CONFIG3, 1}, RegAccess::RW);
  Reg config4_ = Reg(regs_, "CONFIG4", {CONFIG4, 1}, RegAccess::RW);
  Reg mulint_ = Reg(regs_, "MULINT", {MULINT, 2}, RegAccess::RW);
  Reg rerid_ = Reg(regs_, "RERID", {RERID, 1}, RegAccess::RW);
  Reg tx_summary_ =
      Reg(regs_, "TSAD (summary)", {TSAD, 2}, RegAccess::RO, 0, &Rtl8139::read_tx_summary);
  Reg bmcr_ = Reg(regs_, "BMCR", {BMCR, 2}, RegAccess::RW, 0x3100);  // 100 Mbit/s, auto, full
  Reg bmsr_ = Reg(regs_, "BMSR", {BMSR, 2}, RegAccess::RO, 0x782d);  // 10/100, autoneg done, link
  Reg anar_ = Reg(regs_, "ANAR", {ANAR, 2}, RegAccess::RW, 0x01e1);  // advertise 10/100 half/full
  Reg anlpar_ = Reg(regs_, "ANLPAR", {ANLPAR, 2}, RegAccess::RW, 0x45e1);  // partner: the same
  Reg aner_ = Reg(regs_, "ANER", {ANER, 2}, RegAccess::RW, 0x0001);
  Reg config5_ = Reg(regs_, "CONFIG5", {CONFIG5, 1}, RegAccess::RW);
  sc_time rst_until_, tctr_base_;

  std::optional<Arrival> next_;
  sc_time next_ready_;  // its first bit, then (armed) when it can start its DMA
  bool next_armed_ = false;
  std::optional<RxDma> rx_dma_;
  sc_time rx_dma_free_;
  bool started_ = false;
  sc_core::sc_event rx_ev_;

  std::array<TxSlot, 4> tx_{};
  std::deque<std::pair<sc_time, uint32_t>> tx_pending_;  // (TOK time, bytes), in wire order
  sc_time tx_dma_free_, tx_wire_free_;
  sc_time prev_wire_start_;
  uint32_t prev_tx_bytes_ = 0;
  sc_core::sc_event tx_ev_;

  Rtl8139Stats stats_;
};

}  // namespace latsim::net
