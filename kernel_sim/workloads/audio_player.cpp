#include "kernel_sim/workloads/audio_player.h"
#include "kernel_sim/drivers/sound/es1371.h"

namespace latsim::kernel {

void AudioPlayer::start(Kernel& k) {
  k.create_task(
      "noatun", [this, &k] { run(k); }, Policy::Normal, p_.nice);
}

void AudioPlayer::run(Kernel& k) {
  Es1371Driver& snd = k.snd();
  snd.playback_open(p_.rate_hz, p_.fragment_bytes, p_.fragments);
  // Decoding one fragment: its play time times the decoder's CPU share.
  const double fragment_s = double(p_.fragment_bytes) / 4.0 / double(p_.rate_hz);
  const uint64_t cycles =
      uint64_t(fragment_s * p_.decode_percent / 100.0 * k.this_cpu().mhz() * 1e6);
  for (;;) {
    k.user_exec(cycles, cycles / 2000);  // the decoder's tables and the bitstream
    snd.write(p_.fragment_bytes);
    written_++;
  }
}

}  // namespace latsim::kernel
