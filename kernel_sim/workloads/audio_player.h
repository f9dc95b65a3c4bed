#pragma once
// An MP3 player (seed 001: KDE's noatun through artsd): decode a fragment in user
// mode, write it to the sound device, sleep until the card frees a fragment.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

struct AudioPlayerParams {
  unsigned rate_hz = 44100;
  uint32_t fragment_bytes = 4096;  // OSS fragment: 1024 stereo 16-bit frames, 23.2 ms
  uint32_t fragments = 4;
  double decode_percent = 3.0;  // CPU share of MPEG-1 layer 3 decoding on a 1 GHz CPU
  int nice = 0;
};

class AudioPlayer : public Workload {
 public:
  AudioPlayer(std::string name, const AudioPlayerParams& p) : name_(std::move(name)), p_(p) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override;
  uint64_t fragments_written() const { return written_; }

 private:
  void run(Kernel& k);
  std::string name_;
  AudioPlayerParams p_;
  uint64_t written_ = 0;
};

}  // namespace latsim::kernel
