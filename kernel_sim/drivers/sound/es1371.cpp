#include "kernel_sim/drivers/sound/es1371.h"
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
// ens1370.c register offsets and bits.
constexpr uint16_t CONTROL = 0x00, STATUS = 0x04, MEM_PAGE = 0x0c, SMPRATE = 0x10, SERIAL = 0x20;
constexpr uint32_t ES_INTR = 1u << 31;
constexpr uint32_t ES_PAGE_DAC = 0x0c;
constexpr uint32_t SRC_RAM_BUSY = 1u << 23, SRC_DISABLE = 1u << 22, DIS_P1 = 1u << 21,
                   DIS_P2 = 1u << 20, DIS_R1 = 1u << 19;
constexpr uint32_t SRC_KEEP = SRC_DISABLE | DIS_P1 | DIS_P2 | DIS_R1;
constexpr uint32_t SRC_RAM_WE = 1u << 24;
constexpr uint32_t src_addr(uint16_t reg) { return uint32_t(reg & 0x7f) << 25; }
constexpr uint16_t SMPREG_INT_REGS = 0x01, SMPREG_VFREQ_FRAC = 0x03;
constexpr int POLL_COUNT = 0xa000;  // ens1370.c
}  // namespace

// ens1370.c on a CHIP1371 gives the first PCM (/dev/dsp under OSS emulation) DAC1, the
// playback1 ops (snd_ensoniq_pcm); 2.4's OSS es1371.c plays /dev/dsp on DAC2.
const Es1371Driver::Dac Es1371Driver::kDac1 = {
    "snd_ensoniq_playback1_prepare",
    "snd_ensoniq_playback1_pointer",
    "snd_es1371_dac1_rate",
    0x24,      // DAC1_COUNT
    0x30,      // DAC1_FRAME
    0x34,      // DAC1_SIZE
    1u << 6,   // ES_DAC1_EN
    1u << 8,   // ES_P1_INT_EN
    1u << 11,  // ES_P1_PAUSE
    1u << 13,  // ES_P1_LOOP_SEL
    1u << 2,   // ES_DAC1 (status)
    0,         // ES_P1_MODEO's shift
    DIS_P1,    // ES_1371_DIS_P1
    0x70,      // ES_SMPREG_DAC1
};
const Es1371Driver::Dac Es1371Driver::kDac2 = {
    "snd_ensoniq_playback2_prepare",
    "snd_ensoniq_playback2_pointer",
    "snd_es1371_dac2_rate",
    0x28,      // DAC2_COUNT
    0x38,      // DAC2_FRAME
    0x3c,      // DAC2_SIZE
    1u << 5,   // ES_DAC2_EN
    1u << 9,   // ES_P2_INT_EN
    1u << 12,  // ES_P2_PAUSE
    1u << 14,  // ES_P2_LOOP_SEL
    1u << 1,   // ES_DAC2 (status)
    2,         // ES_P2_MODEO's shift
    DIS_P2,    // ES_1371_DIS_P2
    0x74,      // ES_SMPREG_DAC2
};

Es1371Driver::Es1371Driver(Kernel& k) : k_(k) {}

void Es1371Driver::probe() {
  // ALSA's ens1370.c asks for SA_INTERRUPT; 2.4's OSS es1371.c does not.
  if (k_.flavour().snd_ens1371)
    k_.request_irq(kIrq, "Ensoniq AudioPCI", IRQF_DISABLED | IRQF_SHARED, [this] { interrupt(); });
  else
    k_.request_irq(kIrq, "es1371", IRQF_SHARED, [this] { interrupt(); });
}

// snd_es1371_wait_src_ready: poll the SMPRATE register until the SRC RAM is not busy.
uint32_t Es1371Driver::wait_src_ready() {
  k_.fn("snd_es1371_wait_src_ready", "snd_es1371_src_read", 30);
  uint32_t r = 0;
  for (int t = 0; t < POLL_COUNT; ++t) {
    r = k_.this_cpu().inl(kIoBase + SMPRATE);
    s_.src_polls++;
    if (!(r & SRC_RAM_BUSY)) return r;
    k_.exec(20);  // loop test and branch
  }
  return 0;  // "wait source ready timeout"
}

uint16_t Es1371Driver::src_read(uint16_t reg) {
  const sc_core::sc_time t0 = k_.now();
  k_.fn("snd_es1371_src_read", dac_->rate_fn, 40);
  CpuOps& cpu = k_.this_cpu();
  const uint32_t orig = wait_src_ready();
  // Expose the SRC state bits, request the read, wait for it and the safe state.
  cpu.outl((orig & SRC_KEEP) | src_addr(reg) | 0x10000u, kIoBase + SMPRATE);
  uint32_t temp = wait_src_ready();
  if ((temp & 0x00870000u) != 0x00010000u) {
    for (int i = 0; i < POLL_COUNT; ++i) {
      temp = cpu.inl(kIoBase + SMPRATE);
      s_.src_polls++;
      if ((temp & 0x00870000u) == 0x00010000u) break;
      k_.exec(20);
    }
  }
  cpu.outl((orig & SRC_KEEP) | src_addr(reg), kIoBase + SMPRATE);  // hide the state bits
  s_.src_accesses++;
  s_.src_last = k_.now() - t0;
  s_.src_max = std::max(s_.src_max, s_.src_last);
  return uint16_t(temp & 0xffff);
}

void Es1371Driver::src_write(uint16_t reg, uint16_t data) {
  const sc_core::sc_time t0 = k_.now();
  k_.fn("snd_es1371_src_write", dac_->rate_fn, 40);
  const uint32_t r = wait_src_ready() & SRC_KEEP;
  k_.this_cpu().outl(r | src_addr(reg) | SRC_RAM_WE | data, kIoBase + SMPRATE);
  s_.src_accesses++;
  s_.src_last = k_.now() - t0;
  s_.src_max = std::max(s_.src_max, s_.src_last);
}

// snd_es1371_dac1_rate / _dac2_rate: freq = rate * 2^15 / 3000, integer part in
// INT_REGS bits 15:10, fraction in VFREQ_FRAC, the channel held off the converter.
void Es1371Driver::dac_rate(unsigned rate) {
  k_.fn(dac_->rate_fn, dac_->prepare_fn, 60);
  CpuOps& cpu = k_.this_cpu();
  const uint32_t freq = ((rate << 15) + 1500) / 3000;
  const uint32_t keep = SRC_KEEP & ~dac_->src_dis;  // the other channels' disable bits
  uint32_t r = (wait_src_ready() & keep) | dac_->src_dis;
  cpu.outl(r, kIoBase + SMPRATE);
  const uint16_t ints = src_read(dac_->smpreg + SMPREG_INT_REGS);
  src_write(dac_->smpreg + SMPREG_INT_REGS, uint16_t((ints & 0x00ff) | ((freq >> 5) & 0xfc00)));
  src_write(dac_->smpreg + SMPREG_VFREQ_FRAC, uint16_t(freq & 0x7fff));
  r = wait_src_ready() & keep;
  cpu.outl(r, kIoBase + SMPRATE);
}

void Es1371Driver::playback_open(unsigned rate, uint32_t period_bytes, uint32_t periods) {
  frame_bytes_ = 4;  // 16-bit stereo
  period_frames_ = period_bytes / frame_bytes_;
  buffer_frames_ = period_frames_ * periods;
  rate_ = rate;
  dac_ = k_.flavour().snd_ens1371 ? &kDac1 : &kDac2;
  k_.fn("snd_pcm_oss_open", "chrdev_open", 2000, 20);
  prepare();
}

void Es1371Driver::prepare() {
  CpuOps& cpu = k_.this_cpu();
  s_.prepares++;
  appl_ptr_ = hw_ptr_ = silence_filled_ = 0;  // the channel restarts from the buffer start
  running_ = xrun_ = false;
  k_.fn(dac_->prepare_fn, "snd_pcm_prepare", 80, 2);
  k_.spin_lock_irq(reg_lock_, dac_->prepare_fn);
  ctrl_ &= ~dac_->enable;
  cpu.outl(ctrl_, kIoBase + CONTROL);
  cpu.outl(ES_PAGE_DAC, kIoBase + MEM_PAGE);
  cpu.outl(uint32_t(kDmaBuffer), kIoBase + dac_->frame);
  cpu.outl(buffer_frames_ * frame_bytes_ / 4 - 1, kIoBase + dac_->size);
  sctrl_ &= ~(dac_->loop_sel | dac_->pause);
  sctrl_ |= dac_->int_en | (3u << dac_->mode_shift);  // 16-bit stereo
  cpu.outl(sctrl_, kIoBase + SERIAL);
  cpu.outl(period_frames_ - 1, kIoBase + dac_->count);
  k_.spin_unlock_irq(reg_lock_, {dac_->prepare_fn, "unlock"});
  dac_rate(rate_);
}

void Es1371Driver::trigger_start() {
  k_.fn("snd_ensoniq_trigger", "snd_pcm_do_start", 40);
  k_.spin_lock(reg_lock_, "snd_ensoniq_trigger");
  ctrl_ |= dac_->enable;
  k_.this_cpu().outl(ctrl_, kIoBase + CONTROL);
  k_.spin_unlock(reg_lock_, {"snd_ensoniq_trigger", "unlock"});
  running_ = true;
}

// snd_pcm_stop(substream, SNDRV_PCM_STATE_XRUN): the trigger stops the DAC, and the writer
// is woken to find the stream stopped.
void Es1371Driver::trigger_stop() {
  k_.fn("snd_pcm_stop", "xrun", 40, 1);
  k_.fn("snd_ensoniq_trigger", "snd_pcm_do_stop", 40);
  k_.spin_lock(reg_lock_, "snd_ensoniq_trigger");
  ctrl_ &= ~dac_->enable;
  k_.this_cpu().outl(ctrl_, kIoBase + CONTROL);
  k_.spin_unlock(reg_lock_, {"snd_ensoniq_trigger", "unlock"});
  running_ = false;
  xrun_ = true;
  if (Task* t = sleeper_) {
    sleeper_ = nullptr;
    k_.fn("__wake_up", "snd_pcm_stop", 40, 1);
    k_.try_to_wake_up(t, "__wake_up_common");
  }
}

// Called without the stream lock. 2.6 (ALSA's OSS emulation, pcm_oss.c
// snd_pcm_oss_write3): a stopped stream is prepared again, and playback1_prepare
// reprograms the SRC rate. 2.4's OSS es1371.c only restarts DAC2 (start_dac2), after the
// pointers start over.
void Es1371Driver::recover_xrun() {
  LATSIM_DEBUG(sound, k_.log_who(), "underrun: restarting playback");
  if (!k_.flavour().snd_ens1371) {  // a 2.4 kernel: the OSS driver
    appl_ptr_ = hw_ptr_ = 0;
    xrun_ = false;
    return;
  }
  k_.fn("snd_pcm_oss_prepare", "snd_pcm_oss_write3", 60, 1);
  k_.fn("snd_pcm_prepare", "snd_pcm_oss_prepare", 80, 1);
  prepare();
}

uint32_t Es1371Driver::avail() const {
  return uint32_t(int64_t(buffer_frames_) - int64_t(appl_ptr_ - hw_ptr_));
}

// snd_pcm_lib_write -> snd_pcm_lib_write1: copy what fits, sleep for the rest.
void Es1371Driver::write(uint32_t bytes) {
  k_.fn("sys_write", "syscall_call", 200, 2);
  k_.fn("snd_pcm_oss_write", "vfs_write", 150, 2);
  k_.fn("snd_pcm_lib_write", "snd_pcm_oss_write1", 100, 2);
  uint32_t frames = bytes / frame_bytes_;
  s_.writes++;
  while (frames) {
    if (xrun_) recover_xrun();
    k_.spin_lock_irq(stream_lock_, "snd_pcm_lib_write1");
    while (avail() == 0 && !xrun_) {  // wait for a period to be played
      s_.write_sleeps++;
      sleeper_ = &k_.current();
      k_.set_current_state(TASK_INTERRUPTIBLE);
      k_.spin_unlock_irq(stream_lock_, {"snd_pcm_lib_write1", "unlock"});
      if (k_.params().pcm_write_timeout)
        k_.schedule_timeout(10 * k_.params().hz, "snd_pcm_lib_write1");  // pcm_lib.c: 10 s
      else
        k_.schedule("schedule_timeout");
      k_.spin_lock_irq(stream_lock_, "snd_pcm_lib_write1");
    }
    if (xrun_) {  // stopped while this write slept: -EPIPE, and the OSS layer recovers
      k_.spin_unlock_irq(stream_lock_, {"snd_pcm_lib_write1", "unlock"});
      continue;
    }
    const uint32_t n = std::min(frames, avail());
    k_.spin_unlock_irq(stream_lock_, {"snd_pcm_lib_write1", "unlock"});
    // snd_pcm_lib_write_transfer: copy_from_user into the DMA area.
    k_.fn("__copy_from_user_ll", "snd_pcm_lib_write_transfer", 40 + n, 1,
          (n * frame_bytes_ + 31) / 32);
    k_.spin_lock_irq(stream_lock_, "snd_pcm_lib_write1");
    appl_ptr_ += n;
    frames -= n;
    silence_filled_ -= std::min<uint64_t>(silence_filled_, n);  // written over
    // OSS emulation's start_threshold is 1 frame (snd_pcm_oss_change_params, trigger on);
    // a stream stopped by an underrun meanwhile starts only once prepared again.
    if (!running_ && !xrun_ && appl_ptr_ > hw_ptr_) trigger_start();
    k_.spin_unlock_irq(stream_lock_, {"snd_pcm_lib_write1", "unlock"});
  }
}

// snd_audiopci_interrupt: acknowledge by toggling the channel's INT_EN bit.
void Es1371Driver::interrupt() {
  CpuOps& cpu = k_.this_cpu();
  k_.fn("snd_audiopci_interrupt", "generic_handle_IRQ_event", 60, 1);
  const uint32_t status = cpu.inl(kIoBase + STATUS);
  if (!(status & ES_INTR)) return;
  s_.irqs++;
  k_.spin_lock(reg_lock_, "snd_audiopci_interrupt");
  uint32_t sctrl = sctrl_;
  if (status & dac_->status) sctrl &= ~dac_->int_en;
  cpu.outl(sctrl, kIoBase + SERIAL);
  cpu.outl(sctrl_, kIoBase + SERIAL);
  k_.spin_unlock(reg_lock_, {"snd_audiopci_interrupt", "unlock"});
  if (status & dac_->status) period_elapsed();
}

// snd_pcm_playback_silence: OSS emulation keeps silence_threshold = silence_size = a period
// + 16 frames (pcm_oss.c): when what is queued ahead of the card, with the silence already
// there, falls under that, the gap is filled with silence (snd_pcm_format_set_silence).
void Es1371Driver::playback_silence() {
  k_.fn("snd_pcm_playback_silence", "snd_pcm_period_elapsed", 40, 1);
  const uint64_t threshold = period_frames_ + 16;
  const uint64_t queued = appl_ptr_ > hw_ptr_ ? appl_ptr_ - hw_ptr_ : 0;
  const uint64_t noise = queued + silence_filled_;
  if (noise >= threshold || silence_filled_ >= buffer_frames_) return;
  const uint64_t frames = std::min(threshold - noise, uint64_t(buffer_frames_) - silence_filled_);
  k_.fn("snd_pcm_format_set_silence", "snd_pcm_playback_silence", 20 + frames, 0,
        (frames * frame_bytes_ + 31) / 32);
  silence_filled_ += frames;
}

// snd_pcm_period_elapsed: update hw_ptr from the card's position, wake the writer.
void Es1371Driver::period_elapsed() {
  CpuOps& cpu = k_.this_cpu();
  k_.fn("snd_pcm_period_elapsed", "snd_audiopci_interrupt", 60, 1);
  const bool flags = k_.spin_lock_irqsave(stream_lock_, "snd_pcm_period_elapsed");
  // A period the card ended before a stop reached it: snd_pcm_running() is false and
  // ALSA leaves hw_ptr alone (2.4's es1371_update_ptr tests CTRL_DAC2_EN the same way).
  if (!running_) {
    k_.spin_unlock_irqrestore(stream_lock_, flags, {"snd_pcm_period_elapsed", "unlock"});
    return;
  }
  // snd_ensoniq_playback1_pointer: the current position (read for its bus cost; the
  // period count is what advances hw_ptr here).
  k_.spin_lock(reg_lock_, dac_->pointer_fn);
  (void)cpu.inl(kIoBase + CONTROL);
  cpu.outl(ES_PAGE_DAC, kIoBase + MEM_PAGE);
  (void)cpu.inl(kIoBase + dac_->size);
  k_.spin_unlock(reg_lock_, {dac_->pointer_fn, "unlock"});
  k_.exec(120, 0);  // snd_pcm_update_hw_ptr_interrupt, inline: no trace entry of its own
  s_.periods++;
  hw_ptr_ += period_frames_;
  if (k_.flavour().snd_ens1371) playback_silence();  // ALSA's; 2.4's OSS es1371.c has none
  // snd_pcm_update_hw_ptr_post: avail >= stop_threshold, the buffer size under OSS
  // emulation (pcm_oss.c), is an underrun: everything written has been played.
  if (running_ && hw_ptr_ >= appl_ptr_) {
    s_.xruns++;
    hw_ptr_ = appl_ptr_;
    k_.fn("xrun", "snd_pcm_period_elapsed", 20);
    trigger_stop();
  }
  if (sleeper_ && avail() >= period_frames_) {
    Task* t = sleeper_;
    sleeper_ = nullptr;
    k_.fn("__wake_up", "snd_pcm_period_elapsed", 40, 1);
    k_.try_to_wake_up(t, "__wake_up_common");
  }
  k_.spin_unlock_irqrestore(stream_lock_, flags, {"snd_pcm_period_elapsed", "unlock"});
}

}  // namespace latsim::kernel
