#include "models/sound/es1371.h"
#include <cstring>
#include "common/log.h"
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
      bind(knobs::latency_timer("the ES1371's Latency Timer (setpci); -1: "
                                "platform.pci.latency_timer"),
           &P::latency_timer),
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
      master_(pci.add_master(std::string(basename()), {}, &pci_config_)),
      src_(p_.link, p_.src),
      dac1_("dac1", p_.link, p_.dac, pci, master_, [this] { period_elapsed(channels_[0]); }),
      dac2_("dac2", p_.link, p_.dac, pci, master_, [this] { period_elapsed(channels_[1]); }),
      channels_{{{&dac1_, ES_DAC1_EN, ES_P1_INT_EN, ES_P1_PAUSE, ES_DAC1, kP1ModeShift,
                  SampleRateConverter::SMPREG_DAC1},
                 {&dac2_, ES_DAC2_EN, ES_P2_INT_EN, ES_P2_PAUSE, ES_DAC2, kP2ModeShift,
                  SampleRateConverter::SMPREG_DAC2}}} {
  if (p_.latency_timer >= 0) pci_config_.set_latency_timer(uint8_t(p_.latency_timer));
  socket.register_b_transport(this, &Es1371::b_transport);
  codec_regs_[0x26 / 2] = 0x000f;  // Powerdown Ctrl/Stat: ADC, DAC, analog, Vref ready
  codec_regs_[0x7c / 2] = 0x8384;  // vendor ID "SigmaTel", as on many AudioPCI 97 boards
  codec_regs_[0x7e / 2] = 0x7609;
}

pci::PciIdentity Es1371::pci_identity() {
  pci::PciIdentity id;  // AudioPCI 97 (ES1371/ES1373); MIN_GNT 3 us, MAX_LAT 32 us
  id.vendor_id = 0x1274;
  id.device_id = 0x1371;
  id.revision_id = 0x06;
  id.class_code = 0x040100;  // multimedia audio
  id.command_bits = pci::PciConfig::IO_SPACE | pci::PciConfig::BUS_MASTER;
  id.interrupt_pin = 1;
  id.min_gnt = 0x0c;
  id.max_lat = 0x80;
  id.bars[0] = {64, true};
  return id;
}

void Es1371::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  register_transport(*this, p);
}

uint32_t Es1371::read(uint64_t offset, unsigned len) {
  return regs_.read(unsigned(offset & 0x3f), len);
}

void Es1371::write(uint64_t offset, unsigned len, uint32_t v) {
  const auto off = unsigned(offset & 0x3f);
  if (len >= 4) return regs_.write(off & ~3u, 4, v);
  // A byte or word write goes into the dword as it reads now.
  const unsigned shift = 8 * (off & 3);
  const uint32_t mask = ((1u << (8 * len)) - 1) << shift;
  regs_.write(off & ~3u, 4, (regs_.read(off & ~3u, 4) & ~mask) | ((v << shift) & mask));
}

uint32_t Es1371::read_status(const RegIo&) {
  return status_ | pending_ | (pending_ ? uint32_t(ES_INTR) : 0u);
}

uint32_t Es1371::read_dac_count(const RegIo& io) {
  return dac(io.index).read_count(sc_core::sc_time_stamp());
}

uint32_t Es1371::read_page(const RegIo& io) {
  if ((mem_page_ & 0xf) != ES_PAGE_DAC) return mem_[mem_page_ & 0xf][io.index];
  PlaybackChannel& d = dac(io.index / 2);  // FRAME, SIZE of DAC1 then DAC2
  return io.index & 1 ? d.read_size(sc_core::sc_time_stamp()) : d.frame_addr;
}

void Es1371::write_page(uint32_t v, const RegIo& io) {
  if ((mem_page_ & 0xf) != ES_PAGE_DAC) {
    mem_[mem_page_ & 0xf][io.index] = v;
    return;
  }
  PlaybackChannel& d = dac(io.index / 2);
  if (io.index & 1)
    d.size = uint16_t(v);  // bits 31:16 are the channel's own position
  else
    d.frame_addr = v;
}

void Es1371::write_control(uint32_t v, const RegIo&) {
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

void Es1371::write_serial(uint32_t v, const RegIo&) {
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
  LATSIM_DEBUG(sound, name(), "period elapsed: interrupt status {:#x}", pending_);
  update_irq();
}

void Es1371::update_irq() {
  const bool level = pending_ != 0;
  if (level && !inta.level()) stats_.irqs++;
  inta.set(level);  // INTA#: level, up while any channel interrupt is pending
}

void Es1371::write_codec(uint32_t v, const RegIo&) {
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

uint32_t Es1371::read_codec(const RegIo&) {
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
