#include "kernel_sim/drivers/sound/es1371.h"
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
// ens1370.c register offsets and bits.
constexpr uint16_t CONTROL = 0x00, STATUS = 0x04, MEM_PAGE = 0x0c, SMPRATE = 0x10, SERIAL = 0x20,
                   DAC2_COUNT = 0x28, DAC2_FRAME = 0x38, DAC2_SIZE = 0x3c;
constexpr uint32_t ES_DAC2_EN = 1u << 5, ES_INTR = 1u << 31, ES_DAC2 = 1u << 1;
constexpr uint32_t ES_P2_INT_EN = 1u << 9, ES_P2_PAUSE = 1u << 12, ES_P2_LOOP_SEL = 1u << 14;
constexpr uint32_t ES_PAGE_DAC = 0x0c;
constexpr uint32_t SRC_RAM_BUSY = 1u << 23, SRC_DISABLE = 1u << 22, DIS_P1 = 1u << 21,
                   DIS_P2 = 1u << 20, DIS_R1 = 1u << 19;
constexpr uint32_t SRC_KEEP = SRC_DISABLE | DIS_P1 | DIS_P2 | DIS_R1;
constexpr uint32_t SRC_RAM_WE = 1u << 24;
constexpr uint32_t src_addr(uint16_t reg) { return uint32_t(reg & 0x7f) << 25; }
constexpr uint16_t SMPREG_DAC2 = 0x74, SMPREG_INT_REGS = 0x01, SMPREG_VFREQ_FRAC = 0x03;
constexpr int POLL_COUNT = 0xa000;  // ens1370.c
}  // namespace

Es1371Driver::Es1371Driver(Kernel& k) : k_(k) {}

void Es1371Driver::probe() {
  k_.request_irq(kIrq, "Ensoniq AudioPCI", [this] { interrupt(); });
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
  k_.fn("snd_es1371_src_read", "snd_es1371_dac2_rate", 40);
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
  k_.fn("snd_es1371_src_write", "snd_es1371_dac2_rate", 40);
  const uint32_t r = wait_src_ready() & SRC_KEEP;
  k_.this_cpu().outl(r | src_addr(reg) | SRC_RAM_WE | data, kIoBase + SMPRATE);
  s_.src_accesses++;
  s_.src_last = k_.now() - t0;
  s_.src_max = std::max(s_.src_max, s_.src_last);
}

// snd_es1371_dac2_rate: freq = rate * 2^15 / 3000, integer part in INT_REGS bits
// 15:10, fraction in VFREQ_FRAC, with DAC2 held off the converter meanwhile.
void Es1371Driver::dac2_rate(unsigned rate) {
  k_.fn("snd_es1371_dac2_rate", "snd_ensoniq_playback2_prepare", 60);
  CpuOps& cpu = k_.this_cpu();
  const uint32_t freq = ((rate << 15) + 1500) / 3000;
  uint32_t r = (wait_src_ready() & (SRC_DISABLE | DIS_P1 | DIS_R1)) | DIS_P2;
  cpu.outl(r, kIoBase + SMPRATE);
  const uint16_t ints = src_read(SMPREG_DAC2 + SMPREG_INT_REGS);
  src_write(SMPREG_DAC2 + SMPREG_INT_REGS, uint16_t((ints & 0x00ff) | ((freq >> 5) & 0xfc00)));
  src_write(SMPREG_DAC2 + SMPREG_VFREQ_FRAC, uint16_t(freq & 0x7fff));
  r = wait_src_ready() & (SRC_DISABLE | DIS_P1 | DIS_R1);
  cpu.outl(r, kIoBase + SMPRATE);
}

void Es1371Driver::playback_open(unsigned rate, uint32_t period_bytes, uint32_t periods) {
  frame_bytes_ = 4;  // 16-bit stereo
  period_frames_ = period_bytes / frame_bytes_;
  buffer_frames_ = period_frames_ * periods;
  rate_ = rate;
  k_.fn("snd_pcm_oss_open", "chrdev_open", 2000, 20);
  prepare();
}

void Es1371Driver::prepare() {
  CpuOps& cpu = k_.this_cpu();
  s_.prepares++;
  appl_ptr_ = hw_ptr_ = 0;  // DAC2 restarts from the buffer start
  running_ = xrun_ = false;
  k_.fn("snd_ensoniq_playback2_prepare", "snd_pcm_prepare", 80, 2);
  k_.spin_lock_irq(reg_lock_, "snd_ensoniq_playback2_prepare");
  ctrl_ &= ~ES_DAC2_EN;
  cpu.outl(ctrl_, kIoBase + CONTROL);
  cpu.outl(ES_PAGE_DAC, kIoBase + MEM_PAGE);
  cpu.outl(uint32_t(kDmaBuffer), kIoBase + DAC2_FRAME);
  cpu.outl(buffer_frames_ * frame_bytes_ / 4 - 1, kIoBase + DAC2_SIZE);
  sctrl_ &= ~(ES_P2_LOOP_SEL | ES_P2_PAUSE);
  sctrl_ |= ES_P2_INT_EN | (3u << 2);  // 16-bit stereo on DAC2
  cpu.outl(sctrl_, kIoBase + SERIAL);
  cpu.outl(period_frames_ - 1, kIoBase + DAC2_COUNT);
  k_.spin_unlock_irq(reg_lock_, {"snd_ensoniq_playback2_prepare", "unlock"});
  dac2_rate(rate_);
}

void Es1371Driver::trigger_start() {
  k_.fn("snd_ensoniq_trigger", "snd_pcm_do_start", 40);
  k_.spin_lock(reg_lock_, "snd_ensoniq_trigger");
  ctrl_ |= ES_DAC2_EN;
  k_.this_cpu().outl(ctrl_, kIoBase + CONTROL);
  k_.spin_unlock(reg_lock_, {"snd_ensoniq_trigger", "unlock"});
  running_ = true;
}

// snd_pcm_stop(substream, SNDRV_PCM_STATE_XRUN): the trigger stops DAC2, and the writer
// is woken to find the stream stopped.
void Es1371Driver::trigger_stop() {
  k_.fn("snd_pcm_stop", "snd_pcm_update_hw_ptr_post", 40, 1);
  k_.fn("snd_ensoniq_trigger", "snd_pcm_do_stop", 40);
  k_.spin_lock(reg_lock_, "snd_ensoniq_trigger");
  ctrl_ &= ~ES_DAC2_EN;
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
// snd_pcm_oss_write3): a stopped stream is prepared again, and playback2_prepare
// reprograms the SRC rate. 2.4's OSS es1371.c only restarts DAC2 (start_dac2), after the
// pointers start over.
void Es1371Driver::recover_xrun() {
  if (k_.sched_24()) {  // a 2.4 kernel: the OSS driver
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
  if (status & ES_DAC2) sctrl &= ~ES_P2_INT_EN;
  cpu.outl(sctrl, kIoBase + SERIAL);
  cpu.outl(sctrl_, kIoBase + SERIAL);
  k_.spin_unlock(reg_lock_, {"snd_audiopci_interrupt", "unlock"});
  if (status & ES_DAC2) period_elapsed();
}

// snd_pcm_period_elapsed: update hw_ptr from the card's position, wake the writer.
void Es1371Driver::period_elapsed() {
  CpuOps& cpu = k_.this_cpu();
  k_.fn("snd_pcm_period_elapsed", "snd_audiopci_interrupt", 60, 1);
  const bool flags = k_.spin_lock_irqsave(stream_lock_, "snd_pcm_period_elapsed");
  // snd_ensoniq_playback2_pointer: the current position (read for its bus cost; the
  // period count is what advances hw_ptr here).
  k_.spin_lock(reg_lock_, "snd_ensoniq_playback2_pointer");
  (void)cpu.inl(kIoBase + CONTROL);
  cpu.outl(ES_PAGE_DAC, kIoBase + MEM_PAGE);
  (void)cpu.inl(kIoBase + DAC2_SIZE);
  k_.spin_unlock(reg_lock_, {"snd_ensoniq_playback2_pointer", "unlock"});
  k_.fn("snd_pcm_update_hw_ptr_interrupt", "snd_pcm_period_elapsed", 120, 2);
  s_.periods++;
  hw_ptr_ += period_frames_;
  // snd_pcm_update_hw_ptr_post: avail >= stop_threshold, the buffer size under OSS
  // emulation (pcm_oss.c), is an underrun: everything written has been played.
  if (running_ && hw_ptr_ >= appl_ptr_) {
    s_.xruns++;
    hw_ptr_ = appl_ptr_;
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
