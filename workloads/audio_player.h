#pragma once
// An MP3 player (seed 001: KDE's noatun through artsd): decode a fragment in user
// mode, write it to the sound device, sleep until the card frees a fragment.
#include "workloads/program.h"

namespace latsim::workloads {

struct AudioPlayerParams {
  unsigned rate_hz = 44100;
  int fragment_bytes = 256;     // OSS fragment size
  int fragments = 3;            // fragments in the buffer
  double decode_percent = 3.0;  // CPU share of MPEG-1 layer 3 decoding on a 1 GHz CPU
  int nice = 0;
  // The decoder's synthesis filterbank and IMDCT run on the FPU (mpg123-style float
  // decoding): each granule of 576 samples is FPU work whose registers must survive
  // preemption (the lazy-FPU checker, kernel_sim/arch/i387.cpp). false: integer only.
  bool fpu = false;
};

class AudioPlayer : public Program {
 public:
  AudioPlayer(std::string name, const AudioPlayerParams& p) : name_(std::move(name)), p_(p) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override;
  uint64_t fragments_written() const { return written_; }
  nlohmann::json metrics(Kernel& k, double sim_s) const override;

 private:
  void run(Kernel& k);
  void decode(Kernel& k, uint64_t cycles);
  std::string name_;
  AudioPlayerParams p_;
  uint64_t written_ = 0;
};

}  // namespace latsim::workloads
