#include "models/sound/es1371_src.h"

namespace latsim::sound {

void SampleRateConverter::settle(sc_time now) {
  if (!pending_ || now < served_at_) return;
  pending_ = false;
  const uint8_t addr = uint8_t(reg_ >> SRC_RAM_ADDR_SHIFT) & 0x7f;
  if (reg_ & SRC_RAM_WE)
    ram_[addr] = data_;
  else
    data_ = ram_[addr];
}

void SampleRateConverter::write(uint32_t v, sc_time now) {
  settle(now);
  if (busy(now)) {  // the sequencer takes the newest request; the old one is lost
    stats_.requests_while_busy++;
    stats_.busy -= served_at_ - now;
  }
  reg_ = v & ~(SRC_RAM_BUSY | (7u << STATE_SHIFT) | SRC_RAM_DATA);
  data_ = uint16_t(v & SRC_RAM_DATA);
  stats_.requests++;
  if (p_.busy_frames == 0) {  // mechanism off: the RAM answers at once
    pending_ = true;
    served_at_ = now;
    settle(now);
    return;
  }
  pending_ = true;
  served_at_ = link_.boundary(link_.next_after(now) + p_.busy_frames - 1);
  stats_.busy += served_at_ - now;
}

bool SampleRateConverter::in_host_window(sc_time now) const {
  return now - link_.boundary(link_.frame_at(now)) < link_.bits(p_.host_window_bits);
}

uint32_t SampleRateConverter::read(sc_time now) {
  settle(now);
  return reg_ | (busy(now) ? SRC_RAM_BUSY : 0u) | (in_host_window(now) ? 1u << STATE_SHIFT : 0u) |
         data_;
}

uint16_t SampleRateConverter::ram(uint8_t addr, sc_time now) {
  settle(now);
  return ram_[addr & 0x7f];
}

uint32_t SampleRateConverter::vfreq(uint8_t base, sc_time now) {
  // INT_REGS bits 15:10 hold freq >> 15, VFREQ_FRAC the low 15 bits.
  return (uint32_t(ram(base + SMPREG_INT_REGS, now) >> 10) << 15) |
         (ram(base + SMPREG_VFREQ_FRAC, now) & 0x7fff);
}

}  // namespace latsim::sound
