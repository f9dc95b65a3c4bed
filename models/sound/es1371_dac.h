#pragma once
// One ES1371 playback channel (DAC1 or DAC2): a looping buffer in host memory
// (FRAME address, SIZE in longwords - 1), a per-channel host-interface FIFO the
// card refills by bus-master reads as the converter drains it, and a sample
// counter (COUNT = frames per interrupt - 1) that raises the channel's interrupt
// each time it runs out. The converter takes input samples at the rate
// programmed into the SRC RAM, in whole AC-link frames: after m frames it has
// consumed floor(m * vfreq / 2^19) samples. One event per period; the FIFO
// refills of each period are announced to the PCI bus as one burst train.
#include <cstdint>
#include <functional>
#include <systemc>
#include "models/common/time.h"
#include "models/pci/pci_bus.h"
#include "models/sound/ac_link.h"

namespace latsim::sound {

struct DacParams {
  uint32_t fifo_longwords = 16;        // per-channel share of the host-interface FIFO
  uint32_t fetch_longwords = 8;        // refilled half at a time: one 8-dword memory read burst
  uint32_t burst_overhead_clocks = 4;  // per PCI burst: arbitration, address, turnaround, idle
};

struct DacStats {
  uint64_t periods = 0;  // sample counter ran out (interrupt condition)
  uint64_t fetches = 0;  // FIFO refills announced
  uint64_t bytes_fetched = 0;
};

class PlaybackChannel : public sc_core::sc_module {
 public:
  PlaybackChannel(sc_core::sc_module_name name, const AcLinkClock& link, const DacParams& p,
                  pci::PciBus& pci, int master, std::function<void()> on_period);

  // Registers as the driver wrote them.
  uint32_t frame_addr = 0;  // DACx_FRAME (memory page 0x0c)
  uint16_t size = 0;        // DACx_SIZE bits 15:0: buffer longwords - 1
  uint16_t count = 0;       // DACx_COUNT bits 15:0: sample frames per interrupt - 1

  // DACx_SIZE read: bits 31:16 the longword the fetches have reached in the buffer.
  uint32_t read_size(sc_time now) const;
  // DACx_COUNT read: bits 31:16 the frames left before the next interrupt.
  uint32_t read_count(sc_time now) const;

  // `mode` is the serial control's 2-bit format (0 8-bit mono .. 3 16-bit stereo);
  // `vfreq` the SRC rate word (input samples per AC-link frame, in 2^-19).
  void start(sc_time now, uint32_t vfreq, unsigned mode);
  void stop(sc_time now);
  void pause(sc_time now);
  void resume(sc_time now);
  bool running() const { return running_; }
  bool paused() const { return paused_; }

  uint64_t samples_at(sc_time t) const;      // sample frames consumed since start
  sc_time time_of_sample(uint64_t s) const;  // AC-link frame start at which `s` are consumed
  uint32_t bytes_per_frame() const { return bpf_; }
  const DacStats& stats() const { return stats_; }

 private:
  void period_step();
  uint32_t fetch_bytes() const { return p_.fetch_longwords * 4; }
  uint32_t prefill() const { return p_.fifo_longwords / p_.fetch_longwords; }
  uint64_t fetch_trigger(uint64_t j) const;  // samples consumed when refill j is issued
  uint64_t fetches_done(sc_time t) const;
  void announce_fetches(uint64_t before_sample);
  sc_time burst_tenure() const;

  const AcLinkClock& link_;
  DacParams p_;
  pci::PciBus& pci_;
  int master_;
  std::function<void()> on_period_;

  bool running_ = false, paused_ = false;
  uint32_t freq_ = 0, bpf_ = 4;
  uint64_t period_ = 1;      // frames per interrupt, reloaded from `count` at each interrupt
  sc_time anchor_t_;         // playing since (start or resume)
  uint64_t anchor_k_ = 0;    // first AC-link frame start after anchor_t_
  uint64_t acc_ = 0;         // samples consumed before anchor_t_, in 2^-19 (fraction kept)
  uint64_t next_irq_ = 0;    // sample count at which the counter runs out next
  uint64_t next_fetch_ = 0;  // first refill not yet announced
  sc_core::sc_event period_ev_;
  DacStats stats_;
};

}  // namespace latsim::sound
