#pragma once
// Ensoniq AudioPCI ES1371-class sound controller as a PCI function: the 64-byte
// I/O register block (names from Linux sound/pci/ens1370.c), the sample-rate
// converter's host interface, the AC'97 codec access register, two playback
// channels that fetch their buffers by bus-master reads as they play, and
// INTA#. Not modelled: capture (ADC registers are storage only), the UART, the
// legacy SB/joystick emulation.
#include <tlm_utils/simple_target_socket.h>
#include <array>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/common/time.h"
#include "models/irq/irq_line.h"
#include "models/pci/pci_bus.h"
#include "models/pci/pci_config.h"
#include "models/sound/ac_link.h"
#include "models/sound/es1371_dac.h"
#include "models/sound/es1371_src.h"

namespace latsim::sound {

// The platform.sound.* knobs (es1371_keys) live here and in the parts' params.
struct Es1371Params {
  int irq = 10;            // INTA# steered to this ISA IRQ / IO-APIC pin
  int latency_timer = -1;  // its config header's; -1: the bus-wide value
  AcLinkClock link;
  SrcParams src;
  DacParams dac;
};
params::Table<Es1371Params> es1371_keys();

struct Es1371Stats {
  uint64_t irqs = 0;  // INTA# assertions
  uint64_t codec_accesses = 0;
};

class Es1371 : public sc_core::sc_module {
 public:
  enum Offset : uint8_t {
    ES_REG_CONTROL = 0x00,
    ES_REG_STATUS = 0x04,
    ES_REG_UART_DATA = 0x08,
    ES_REG_UART_STATUS = 0x09,
    ES_REG_UART_RES = 0x0a,
    ES_REG_MEM_PAGE = 0x0c,
    ES_REG_1371_SMPRATE = 0x10,  // sample-rate converter interface
    ES_REG_1371_CODEC = 0x14,
    ES_REG_1371_LEGACY = 0x18,
    ES_REG_CHANNEL_STATUS = 0x1c,
    ES_REG_SERIAL = 0x20,
    ES_REG_DAC1_COUNT = 0x24,
    ES_REG_DAC2_COUNT = 0x28,
    ES_REG_ADC_COUNT = 0x2c,
    ES_REG_DAC1_FRAME = 0x30,  // memory page 0x0c
    ES_REG_DAC1_SIZE = 0x34,
    ES_REG_DAC2_FRAME = 0x38,
    ES_REG_DAC2_SIZE = 0x3c,
  };
  enum Control : uint32_t {
    ES_BREQ = 1u << 7,
    ES_DAC1_EN = 1u << 6,
    ES_DAC2_EN = 1u << 5,
    ES_ADC_EN = 1u << 4,
    ES_UART_EN = 1u << 3,
    ES_JYSTK_EN = 1u << 2,
  };
  enum Status : uint32_t {
    ES_INTR = 1u << 31,
    ES_UART = 1u << 3,
    ES_DAC1 = 1u << 2,
    ES_DAC2 = 1u << 1,
    ES_ADC = 1u << 0,
  };
  enum Serial : uint32_t {
    ES_P1_INT_EN = 1u << 8,
    ES_P2_INT_EN = 1u << 9,
    ES_R1_INT_EN = 1u << 10,
    ES_P1_PAUSE = 1u << 11,
    ES_P2_PAUSE = 1u << 12,
    ES_P1_LOOP_SEL = 1u << 13,  // 1: stop mode (not modelled: channels always loop)
    ES_P2_LOOP_SEL = 1u << 14,
  };
  static constexpr unsigned kP1ModeShift = 0, kP2ModeShift = 2;  // 0 8-bit mono .. 3 16-bit stereo
  enum Codec : uint32_t {
    ES_1371_CODEC_RDY = 1u << 31,
    ES_1371_CODEC_WIP = 1u << 30,
    ES_1371_CODEC_PIRD = 1u << 23,  // 1: read the codec register
  };
  static constexpr uint8_t ES_PAGE_DAC = 0x0c;

  tlm_utils::simple_target_socket<Es1371> socket;
  irq::IrqLine inta;

  Es1371(sc_core::sc_module_name name, const Es1371Params& p, pci::PciBus& pci);

  uint32_t read(uint64_t offset, unsigned len);
  void write(uint64_t offset, unsigned len, uint32_t v);

  SampleRateConverter& src() { return src_; }
  PlaybackChannel& dac1() { return dac1_; }
  PlaybackChannel& dac2() { return dac2_; }
  const AcLinkClock& link() const { return p_.link; }
  int master() const { return master_; }
  pci::PciConfig& pci_config() { return pci_config_; }
  const Es1371Stats& stats() const { return stats_; }
  const Es1371Params& params() const { return p_; }

 private:
  struct Channel {  // how one playback channel is wired into the common registers
    PlaybackChannel* dac;
    uint32_t enable, int_en, pause, status;
    unsigned mode_shift;
    uint8_t src_base;
  };

  using Reg = Register<Es1371>;
  static pci::PciIdentity pci_identity();

  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint32_t read_status(const RegIo&);
  uint32_t read_src(const RegIo&) { return src_.read(sc_core::sc_time_stamp()); }
  void write_src(uint32_t v, const RegIo&) { src_.write(v, sc_core::sc_time_stamp()); }
  uint32_t read_dac_count(const RegIo& io);
  void write_dac_count(uint32_t v, const RegIo& io) { dac(io.index).count = uint16_t(v); }
  uint32_t read_page(const RegIo& io);
  void write_page(uint32_t v, const RegIo& io);
  PlaybackChannel& dac(unsigned i) { return i ? dac2_ : dac1_; }
  void write_control(uint32_t v, const RegIo&);
  void write_serial(uint32_t v, const RegIo&);
  void write_codec(uint32_t v, const RegIo&);
  uint32_t read_codec(const RegIo&);
  void period_elapsed(const Channel& c);
  void update_irq();

  Es1371Params p_;
  pci::PciConfig pci_config_{pci_identity()};
  int master_;
  SampleRateConverter src_;
  PlaybackChannel dac1_, dac2_;
  std::array<Channel, 2> channels_;

  // The dword registers of the I/O block; the UART (0x08-0x0b) is not modelled.
  RegisterBank<Es1371> regs_{this};
  Reg control_ =
      Reg(regs_, "CONTROL", {ES_REG_CONTROL, 4}, RegAccess::RW, 0, nullptr, &Es1371::write_control);
  // Only the ES1373 S/PDIF and rear-channel bits are writable; the rest is interrupt state.
  Reg status_ =
      Reg(regs_, "STATUS", {ES_REG_STATUS, 4}, RegRights{0x0fff0000, 0}, 0, &Es1371::read_status);
  Reg mem_page_ = Reg(regs_, "MEM_PAGE", {ES_REG_MEM_PAGE, 4}, RegRights{0xf, 0});
  Reg smprate_ = Reg(regs_, "1371_SMPRATE", {ES_REG_1371_SMPRATE, 4}, RegAccess::RW, 0,
                     &Es1371::read_src, &Es1371::write_src);
  Reg codec_ = Reg(regs_, "1371_CODEC", {ES_REG_1371_CODEC, 4}, RegAccess::RW, 0,
                   &Es1371::read_codec, &Es1371::write_codec);
  Reg legacy_ = Reg(regs_, "1371_LEGACY", {ES_REG_1371_LEGACY, 4}, RegAccess::RW);
  Reg channel_status_ = Reg(regs_, "CHANNEL_STATUS", {ES_REG_CHANNEL_STATUS, 4}, RegAccess::RW);
  Reg serial_ =
      Reg(regs_, "SERIAL", {ES_REG_SERIAL, 4}, RegAccess::RW, 0, nullptr, &Es1371::write_serial);
  Reg dac_count_ = Reg(regs_, "DAC_COUNT", {ES_REG_DAC1_COUNT, 4, 2}, RegAccess::RW, 0,
                       &Es1371::read_dac_count, &Es1371::write_dac_count);
  Reg adc_count_ = Reg(regs_, "ADC_COUNT", {ES_REG_ADC_COUNT, 4}, RegRights{0xffff, 0});
  // 0x30-0x3f: the page MEM_PAGE selects; page 0x0c holds the DAC frame registers.
  Reg page_ = Reg(regs_, "MEM_PAGE window", {ES_REG_DAC1_FRAME, 4, 4}, RegAccess::RW, 0,
                  &Es1371::read_page, &Es1371::write_page);
  uint32_t pending_ = 0;
  std::array<std::array<uint32_t, 4>, 16> mem_{};  // host-interface memory pages other than DAC

  // AC'97 codec behind the link: a command goes out in the next frame, read data
  // comes back in the frame after.
  std::array<uint16_t, 64> codec_regs_{};
  uint32_t codec_cmd_ = 0;
  sc_time codec_wip_until_, codec_rdy_at_;
  bool codec_read_ = false;

  Es1371Stats stats_;
};

}  // namespace latsim::sound
