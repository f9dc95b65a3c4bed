#pragma once
// sound/pci/ens1370.c (CHIP1371, ALSA in 2.6.9) CPU side and the snd_pcm core it
// calls: playback prepare with the sample-rate converter programmed through
// snd_es1371_src_read/_write (polling loops on the SRC busy bit), the period
// interrupt (snd_audiopci_interrupt -> snd_pcm_period_elapsed), and
// snd_pcm_lib_write, which sleeps until a period of the buffer is free. An underrun
// stops the stream; the next write recovers it (OSS emulation: prepare, with the SRC).
#include <cstdint>
#include <systemc>
#include "kernel_sim/locks/spinlock.h"

namespace latsim::kernel {

class Kernel;
struct Task;

struct Es1371DriverStats {
  uint64_t irqs = 0, periods = 0, writes = 0, write_sleeps = 0;
  uint64_t src_accesses = 0, src_polls = 0;  // SRC RAM accesses, inl()s in their wait loops
  sc_core::sc_time src_max;                  // longest snd_es1371_src_read/_write
  sc_core::sc_time src_last;
  uint64_t xruns = 0;     // the DMA caught up with the application (buffer ran empty)
  uint64_t prepares = 0;  // playback prepares: the open's and one per underrun recovered
};

class Es1371Driver {
 public:
  static constexpr uint16_t kIoBase = 0xe400;  // I/O BAR as the BIOS assigned it (board map)
  static constexpr unsigned kIrq = 10;
  static constexpr uint64_t kDmaBuffer = 0x00220000;  // snd_dma_alloc_pages

  explicit Es1371Driver(Kernel& k);
  void probe();  // snd_audiopci_probe: request_irq(10, "Ensoniq AudioPCI")
  // OSS open + SNDCTL_DSP_SETFRAGMENT/SPEED: hw_params and prepare (programs the SRC).
  void playback_open(unsigned rate, uint32_t period_bytes, uint32_t periods);
  // snd_pcm_lib_write of `bytes`: sleeps while no period is free.
  void write(uint32_t bytes);
  // snd_es1371_src_read/_write: one SRC RAM access with its busy-wait loops.
  uint16_t src_read(uint16_t reg);
  void src_write(uint16_t reg, uint16_t data);
  const Es1371DriverStats& stats() const { return s_; }

 private:
  // A playback channel's registers and bits (ens1370.c) and its functions' names.
  struct Dac {
    const char *prepare_fn, *pointer_fn, *rate_fn;
    uint16_t count, frame, size;                       // DACn_COUNT, DACn_FRAME, DACn_SIZE
    uint32_t enable, int_en, pause, loop_sel, status;  // CONTROL, SERIAL and STATUS bits
    unsigned mode_shift;                               // SERIAL's PnMODE field
    uint32_t src_dis;                                  // the SRC's DIS_Pn bit
    uint16_t smpreg;                                   // its SRC RAM registers
  };
  static const Dac kDac1, kDac2;

  uint32_t wait_src_ready();
  void dac_rate(unsigned rate);
  void interrupt();
  void period_elapsed();
  void playback_silence();  // fill a short queue ahead of the card with silence
  void prepare();           // snd_ensoniq_playbackN_prepare: registers, then the SRC rate
  void trigger_start();
  void trigger_stop();
  void recover_xrun();     // the write path's way out of an underrun
  uint32_t avail() const;  // frames the application may write

  Kernel& k_;
  const Dac* dac_ = &kDac1;  // the channel /dev/dsp plays on (playback_open)
  Spinlock reg_lock_{"ensoniq->reg_lock"};
  Spinlock stream_lock_{"substream->lock"};
  uint32_t ctrl_ = 0, sctrl_ = 0;
  uint32_t period_frames_ = 64, buffer_frames_ = 192, frame_bytes_ = 4;
  unsigned rate_ = 44100;
  uint64_t appl_ptr_ = 0, hw_ptr_ = 0;  // frames written by the app / played by the card
  uint64_t silence_filled_ = 0;         // frames of silence ahead of appl_ptr_
  bool running_ = false;
  bool xrun_ = false;        // SNDRV_PCM_STATE_XRUN: stopped by an underrun until prepared again
  Task* sleeper_ = nullptr;  // runtime->sleep
  Es1371DriverStats s_;
};

}  // namespace latsim::kernel
