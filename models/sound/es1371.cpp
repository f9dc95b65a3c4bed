#include "models/sound/es1371.h"
#include <cstring>
#include "models/common/knobs.h"
#include "models/common/register_transport.h"

namespace latsim::sound {

params::Table<Es1371Params> es1371_keys() {
  using namespace params;
  using P = Es1371Params;
  return {
      bind(with_source(knobs::intx_irq("irq",
                                       "ISA IRQ / IO-APIC pin the ES1371's INTA# is "
                                       "steered to"),
                       "seed 000: /proc/irq/10/Ensoniq AudioPCI"),
           &P::irq),
      knobs::bind_as<P, int64_t>(
          with_source(integer("bit_clk_hz", 1000000, 50000000, "Hz",
                              "AC'97 BIT_CLK (256 bit clocks per frame)"),
                      "AC'97 2.x: BIT_CLK 12.288 MHz"),
          [](P & p) -> auto& { return p.link.bit_clk_hz; }),
      bind<P>(
          with_source(integer("src_busy_frames", 0, 1000, "frames",
                              "frame starts a sample-rate-converter RAM request stays busy "
                              "(0: never)"),
                      "CALIBRATION.md O8, the author's prepare traces: 5 of 6 SRC waits "
                      "1-16 us"),
          [](P & p) -> auto& { return p.src.busy_frames; }),
      bind<P>(
          with_source(integer("dac_fetch_longwords", 1, 16, "dwords",
                              "dwords one playback FIFO refill reads per PCI burst"),
                      "assumption: one 8-dword memory-read burst refills half the 16-dword "
                      "DAC FIFO share"),
          [](P & p) -> auto& { return p.dac.fetch_longwords; }),
      bind<P>(
          with_source(integer("burst_overhead_clocks", 0, 64, "clocks",
                              "per PCI burst: arbitration, address, turnaround, idle"),
                      "assumption: arbitration, address, turnaround and one idle clock per "
                      "burst"),
          [](P & p) -> auto& { return p.dac.burst_overhead_clocks; }),
  };
}

Es1371::Es1371(sc_core::sc_module_name name, const Es1371Params& p, pci::PciBus& pci)
    : sc_module(name),
      socket("socket"),
      p_(p),
      master_(pci.add_master(std::string(basename()))),
      src_(p_.link, p_.src),
      dac1_("dac1", p_.link, p_.dac, pci, master_, [this] { period_elapsed(channels_[0]); }),
      dac2_("dac2", p_.link, p_.dac, pci, master_, [this] { period_elapsed(channels_[1]); }),
      channels_{{{&dac1_, ES_DAC1_EN, ES_P1_INT_EN, ES_P1_PAUSE, ES_DAC1, kP1ModeShift,
                  SampleRateConverter::SMPREG_DAC1},
                 {&dac2_, ES_DAC2_EN, ES_P2_INT_EN, ES_P2_PAUSE, ES_DAC2, kP2ModeShift,
                  SampleRateConverter::SMPREG_DAC2}}} {
  socket.register_b_transport(this, &Es1371::b_transport);
  codec_regs_[0x26 / 2] = 0x000f;  // Powerdown Ctrl/Stat: ADC, DAC, analog, Vref ready
  codec_regs_[0x7c / 2] = 0x8384;  // vendor ID "SigmaTel", as on many AudioPCI 97 boards
  codec_regs_[0x7e / 2] = 0x7609;
}

void Es1371::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  register_transport(*this, p);
}

uint32_t Es1371::read(uint64_t offset, unsigned len) {
  const auto off = unsigned(offset & 0x3f);
  const unsigned shift = 8 * (off & 3);
  const uint32_t v = read32(off & ~3u) >> shift;
  return len >= 4 ? v : v & ((1u << (8 * len)) - 1);
}

void Es1371::write(uint64_t offset, unsigned len, uint32_t v) {
  const auto off = unsigned(offset & 0x3f);
  if (off >= ES_REG_UART_DATA && off < ES_REG_MEM_PAGE) return;  // UART: not modelled
  if (len >= 4) return write32(off & ~3u, v);
  const unsigned shift = 8 * (off & 3);
  const uint32_t mask = ((1u << (8 * len)) - 1) << shift;
  write32(off & ~3u, (read32(off & ~3u) & ~mask) | ((v << shift) & mask));
}

uint32_t Es1371::read32(unsigned off) {
  const sc_time now = sc_core::sc_time_stamp();
  switch (off) {
    case ES_REG_CONTROL:
      return control_;
    case ES_REG_STATUS:
      return status_bits_ | pending_ | (pending_ ? uint32_t(ES_INTR) : 0u);
    case ES_REG_MEM_PAGE:
      return mem_page_;
    case ES_REG_1371_SMPRATE:
      return src_.read(now);
    case ES_REG_1371_CODEC:
      return read_codec();
    case ES_REG_1371_LEGACY:
      return legacy_;
    case ES_REG_CHANNEL_STATUS:
      return channel_status_;
    case ES_REG_SERIAL:
      return serial_;
    case ES_REG_DAC1_COUNT:
      return dac1_.read_count(now);
    case ES_REG_DAC2_COUNT:
      return dac2_.read_count(now);
    case ES_REG_ADC_COUNT:
      return adc_count_;
    default:
      break;
  }
  if (off >= ES_REG_DAC1_FRAME) {
    if ((mem_page_ & 0xf) != ES_PAGE_DAC)
      return mem_[mem_page_ & 0xf][(off - ES_REG_DAC1_FRAME) / 4];
    switch (off) {
      case ES_REG_DAC1_FRAME:
        return dac1_.frame_addr;
      case ES_REG_DAC1_SIZE:
        return dac1_.read_size(now);
      case ES_REG_DAC2_FRAME:
        return dac2_.frame_addr;
      case ES_REG_DAC2_SIZE:
        return dac2_.read_size(now);
    }
  }
  return 0;  // UART and reserved
}

void Es1371::write32(unsigned off, uint32_t v) {
  const sc_time now = sc_core::sc_time_stamp();
  switch (off) {
    case ES_REG_CONTROL:
      return write_control(v);
    case ES_REG_STATUS:  // only the ES1373 S/PDIF and rear-channel bits are writable
      status_bits_ = v & 0x0fff0000;
      return;
    case ES_REG_MEM_PAGE:
      mem_page_ = v & 0xf;
      return;
    case ES_REG_1371_SMPRATE:
      return src_.write(v, now);
    case ES_REG_1371_CODEC:
      return write_codec(v);
    case ES_REG_1371_LEGACY:
      legacy_ = v;
      return;
    case ES_REG_CHANNEL_STATUS:
      channel_status_ = v;
      return;
    case ES_REG_SERIAL:
      return write_serial(v);
    case ES_REG_DAC1_COUNT:
      dac1_.count = uint16_t(v);
      return;
    case ES_REG_DAC2_COUNT:
      dac2_.count = uint16_t(v);
      return;
    case ES_REG_ADC_COUNT:
      adc_count_ = v & 0xffff;
      return;
    default:
      break;
  }
  if (off < ES_REG_DAC1_FRAME) return;
  if ((mem_page_ & 0xf) != ES_PAGE_DAC) {
    mem_[mem_page_ & 0xf][(off - ES_REG_DAC1_FRAME) / 4] = v;
    return;
  }
  switch (off) {
    case ES_REG_DAC1_FRAME:
      dac1_.frame_addr = v;
      break;
    case ES_REG_DAC1_SIZE:  // bits 31:16 are the channel's own position
      dac1_.size = uint16_t(v);
      break;
    case ES_REG_DAC2_FRAME:
      dac2_.frame_addr = v;
      break;
    case ES_REG_DAC2_SIZE:
      dac2_.size = uint16_t(v);
      break;
  }
}

void Es1371::write_control(uint32_t v) {
  const sc_time now = sc_core::sc_time_stamp();
  const uint32_t old = control_;
  control_ = v;
  for (const Channel& c : channels_) {
    if ((v & c.enable) && !(old & c.enable)) {
      // The rate is taken from the SRC RAM when the channel starts.
      c.dac->start(now, src_.vfreq(c.src_base, now), (serial_ >> c.mode_shift) & 3);
      if (serial_ & c.pause) c.dac->pause(now);
    } else if (!(v & c.enable) && (old & c.enable)) {
      c.dac->stop(now);
    }
  }
}

void Es1371::write_serial(uint32_t v) {
  const sc_time now = sc_core::sc_time_stamp();
  const uint32_t old = serial_;
  serial_ = v;
  for (const Channel& c : channels_) {
    if (!(v & c.int_en)) pending_ &= ~c.status;  // clearing INT_EN acknowledges the interrupt
    if ((v & c.pause) && !(old & c.pause)) c.dac->pause(now);
    if (!(v & c.pause) && (old & c.pause)) c.dac->resume(now);
  }
  if (!(v & ES_R1_INT_EN)) pending_ &= ~ES_ADC;
  update_irq();
}

void Es1371::period_elapsed(const Channel& c) {
  if (!(serial_ & c.int_en)) return;
  pending_ |= c.status;
  update_irq();
}

void Es1371::update_irq() {
  const bool level = pending_ != 0;
  if (level && !inta.level()) stats_.irqs++;
  inta.set(level);  // INTA#: level, up while any channel interrupt is pending
}

void Es1371::write_codec(uint32_t v) {
  const sc_time now = sc_core::sc_time_stamp();
  // The command goes out in the next AC-link frame (slots 1 and 2); a read's data
  // comes back in slot 2 of the frame after.
  const uint64_t k = p_.link.next_after(now);
  codec_cmd_ = v;
  codec_read_ = v & ES_1371_CODEC_PIRD;
  codec_wip_until_ = p_.link.boundary(k + 1);
  codec_rdy_at_ = p_.link.boundary(k + 2);
  const unsigned reg = (v >> 16) & 0x7f;
  if (!codec_read_) codec_regs_[reg / 2] = uint16_t(v);
  stats_.codec_accesses++;
}

uint32_t Es1371::read_codec() {
  const sc_time now = sc_core::sc_time_stamp();
  const unsigned reg = (codec_cmd_ >> 16) & 0x7f;
  uint32_t v = codec_cmd_ & 0x00ff0000;  // address and read flag as written
  if (now < codec_wip_until_) return v | ES_1371_CODEC_WIP;
  if (codec_read_) {
    v |= codec_regs_[reg / 2];
    if (now >= codec_rdy_at_) v |= ES_1371_CODEC_RDY;
  } else {
    v |= codec_cmd_ & 0xffff;
  }
  return v;
}

}  // namespace latsim::sound
