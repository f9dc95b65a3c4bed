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
#include "models/common/time.h"
#include "models/irq/irq_line.h"
#include "models/net/packet_source.h"
#include "models/pci/pci_bus.h"

namespace latsim::net {

// The platform.nic.* knobs (rtl8139_keys) and the card's fixed facts.
struct Rtl8139Params {
  int irq = 11;                        // INTA# steered to this ISA IRQ / IO-APIC pin (assumption)
  double wire_mbit_s = 100.0;          // 100BASE-TX, full duplex
  uint32_t tx_fifo_bytes = 2048;       // RTL8139C transmit FIFO
  uint32_t burst_overhead_clocks = 4;  // per PCI burst: arbitration, address, turnaround, idle
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
  enum Reg : uint16_t {
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

  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  void reset();
  uint32_t get(unsigned off, unsigned len) const;
  void put(unsigned off, unsigned len, uint32_t v);
  uint32_t rcr() const { return get(RCR, 4); }
  uint32_t tcr() const { return get(TCR, 4); }
  uint16_t imr() const { return uint16_t(get(IMR, 2)); }
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
  int master_;
  PacketSource source_;

  std::array<uint8_t, 256> regs_{};  // plain storage for registers without side effects
  uint8_t cr_ = 0;
  uint16_t isr_ = 0, capr_ = kCaprReset, cbr_ = 0;
  uint32_t mpc_ = 0;
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
