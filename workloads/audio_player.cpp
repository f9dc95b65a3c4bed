#include "workloads/audio_player.h"
#include <algorithm>
#include "kernel_sim/drivers/sound/es1371.h"
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {

using params::integer;
using P = AudioPlayerParams;
const Registration kAudioPlayer{
    {"audio_player",
     "MP3 player: decode a fragment, write it to the sound card, sleep for the next",
     {name_key(), fragments_key<P>(), fragment_bytes_key<P>(),
      param(params::bind(params::number("decode_percent", 0, 100, "%", "CPU share of decoding"),
                         &P::decode_percent)),
      param(params::bind(integer("nice", -20, 19, "", "nice value"), &P::nice)),
      param(params::bind(
          params::with_source(params::of_type(params::ValueType::Bool, "fpu",
                                              "decode on the FPU, granule by granule (its "
                                              "registers checked after every granule)"),
                              "ISO 11172-3: 576-sample granules; float decoders (mpg123)"),
          &P::fpu))},
     [] { return P{}; },
     [](const Config& c, const Board&) {
       return std::make_unique<AudioPlayer>(c.name, c.as<P>());
     }}};

}  // namespace

nlohmann::json AudioPlayer::metrics(Kernel& k, double) const {
  return {{"fragments", fragments_written()},
          {"xruns", k.snd_if_up() ? k.snd_if_up()->stats().xruns : 0}};
}

void AudioPlayer::start(Kernel& k) {
  k.create_task(
      "noatun", [this, &k] { run(k); }, Policy::Normal, p_.nice);
}

// One fragment's decoding; with `fpu`, its first FPU instruction (a #NM if TS is set)
// and the end of each granule are where the checker compares the registers.
void AudioPlayer::decode(Kernel& k, uint64_t cycles) {
  if (!p_.fpu) return k.user_exec(cycles, cycles / 2000);  // the tables and the bitstream
  const uint64_t frames = uint64_t(p_.fragment_bytes) / 4;
  const uint64_t granules = std::max<uint64_t>(1, (frames + 575) / 576);
  k.fpu_use(name_.c_str());
  for (uint64_t g = 0; g < granules; ++g) {
    k.user_exec(cycles / granules, cycles / granules / 2000);
    k.fpu_use(name_.c_str());
  }
}

void AudioPlayer::run(Kernel& k) {
  Es1371Driver& snd = k.snd();
  snd.playback_open(p_.rate_hz, p_.fragment_bytes, p_.fragments);
  // Decoding one fragment: its play time times the decoder's CPU share.
  const double fragment_s = double(p_.fragment_bytes) / 4.0 / double(p_.rate_hz);
  const uint64_t cycles =
      uint64_t(fragment_s * p_.decode_percent / 100.0 * k.this_cpu().mhz() * 1e6);
  for (;;) {
    decode(k, cycles);
    snd.write(p_.fragment_bytes);
    written_++;
  }
}

}  // namespace latsim::workloads
