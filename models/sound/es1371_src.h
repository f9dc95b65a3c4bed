#pragma once
// The ES1371 sample-rate converter's host interface (ES_REG_1371_SMPRATE, 0x10):
// a 128 x 16-bit SRC RAM holding each channel's rate and accumulator state, read
// and written one word at a time through one register whose BUSY bit says the
// request is not done yet.
//
// Mechanism (an assumption: no timing for this was found in the ES1371 datasheet
// or drivers): the SRC RAM is single-ported and belongs to the converter's
// sequencer, which steps every AC-link frame. A host request written to the
// register is queued and carried out at the start of a frame, in the host window
// (the tag slot, while no sample moves to the codec), once `busy_frames` frame
// starts have passed. BUSY reads 1 from the write until then, so a request waits
// (busy_frames - 1, busy_frames] frames depending on the phase it was written at.
// Bits 18:16 read the sequencer phase: 1 inside the host window, 0 elsewhere;
// Linux's snd_es1371_src_read and codec access wait for that "safe" state.
// The default busy_frames is set from the author's traces of snd_es1371_dac1_rate (O8):
// five of its six SRC waits take 1-16 us, a request served at the next frame start. The
// sixth, ~0.55 ms once per prepare, is not this mechanism (not modelled); 0 turns BUSY off.
#include <array>
#include <cstdint>
#include "models/common/time.h"
#include "models/sound/ac_link.h"

namespace latsim::sound {

struct SrcParams {
  uint32_t busy_frames = 1;        // frame starts a host RAM request waits for
  uint32_t host_window_bits = 16;  // BIT_CLKs at the start of each frame open to the host
};

struct SrcStats {
  uint64_t requests = 0;             // register writes (each is one RAM read or write)
  uint64_t requests_while_busy = 0;  // the previous one was replaced before it was served
  sc_time busy;                      // sum of BUSY time over all requests
};

class SampleRateConverter {
 public:
  // ES_REG_1371_SMPRATE fields (Linux sound/pci/ens1370.c names).
  static constexpr uint32_t SRC_RAM_ADDR_SHIFT = 25;  // bits 31:25
  static constexpr uint32_t SRC_RAM_WE = 1u << 24;
  static constexpr uint32_t SRC_RAM_BUSY = 1u << 23;
  static constexpr uint32_t SRC_DISABLE = 1u << 22;
  static constexpr uint32_t DIS_P1 = 1u << 21;
  static constexpr uint32_t DIS_P2 = 1u << 20;
  static constexpr uint32_t DIS_R1 = 1u << 19;
  static constexpr uint32_t STATE_SHIFT = 16;  // bits 18:16, read-only sequencer phase
  static constexpr uint32_t SRC_RAM_DATA = 0xffff;
  // SRC RAM addresses (ES_SMPREG_*)
  static constexpr uint8_t SMPREG_DAC1 = 0x70, SMPREG_DAC2 = 0x74, SMPREG_ADC = 0x78;
  static constexpr uint8_t SMPREG_INT_REGS = 0x01, SMPREG_VFREQ_FRAC = 0x03;

  SampleRateConverter(const AcLinkClock& link, const SrcParams& p) : link_(link), p_(p) {}

  void write(uint32_t v, sc_time now);
  uint32_t read(sc_time now);
  bool busy(sc_time now) const { return pending_ && now < served_at_; }
  sc_time served_at() const { return served_at_; }  // when the last request was (or will be) done
  bool in_host_window(sc_time now) const;
  // A playback channel's rate increment per AC-link frame, in 2^-19 input samples
  // (the "freq" that snd_es1371_dac*_rate writes: rate * 2^15 / 3000).
  uint32_t vfreq(uint8_t channel_base, sc_time now);
  uint16_t ram(uint8_t addr, sc_time now);
  bool disabled() const { return reg_ & SRC_DISABLE; }
  const SrcStats& stats() const { return stats_; }

 private:
  void settle(sc_time now);  // carry out a request whose time has come

  const AcLinkClock& link_;
  SrcParams p_;
  std::array<uint16_t, 128> ram_{};
  uint32_t reg_ = 0;   // address, WE, control bits as last written
  uint16_t data_ = 0;  // data field: written word, or the word read
  bool pending_ = false;
  sc_time served_at_;
  SrcStats stats_;
};

}  // namespace latsim::sound
