#include "models/sound/es1371_dac.h"
#include <algorithm>

namespace latsim::sound {

namespace {
constexpr unsigned kFracBits = 19;  // vfreq is in 2^-19 input samples per AC-link frame
constexpr uint32_t kBytesPerFrame[4] = {1, 2, 2, 4};  // 8-bit mono, 8 stereo, 16 mono, 16 stereo
}  // namespace

PlaybackChannel::PlaybackChannel(sc_core::sc_module_name name, const AcLinkClock& link,
                                 const DacParams& p, pci::PciBus& pci, int master,
                                 std::function<void()> on_period)
    : sc_module(name),
      link_(link),
      p_(p),
      pci_(pci),
      master_(master),
      on_period_(std::move(on_period)) {
  SC_HAS_PROCESS(PlaybackChannel);
  SC_METHOD(period_step);
  sensitive << period_ev_;
  dont_initialize();
}

uint64_t PlaybackChannel::samples_at(sc_time t) const {
  if (!running_ || paused_ || t < anchor_t_) return acc_ >> kFracBits;
  const uint64_t m = link_.next_after(t) - anchor_k_;  // frame starts in (anchor_t_, t]
  return (acc_ + m * freq_) >> kFracBits;
}

sc_time PlaybackChannel::time_of_sample(uint64_t s) const {
  const uint64_t target = s << kFracBits;
  if (target <= acc_) return anchor_t_;
  if (freq_ == 0) return sc_core::sc_max_time();
  const uint64_t m = (target - acc_ + freq_ - 1) / freq_;  // frames needed, rounded up
  return link_.boundary(anchor_k_ + m - 1);
}

uint64_t PlaybackChannel::fetch_trigger(uint64_t j) const {
  if (j < prefill()) return 0;  // the FIFO is filled when the channel starts
  // Refill j goes out once (j - prefill + 1) fetch chunks' worth has been played.
  const uint64_t bytes = (j - prefill() + 1) * fetch_bytes();
  return (bytes + bpf_ - 1) / bpf_;
}

uint64_t PlaybackChannel::fetches_done(sc_time t) const {
  if (!running_) return 0;  // the channel restarts from the buffer start when enabled
  return prefill() + samples_at(t) * bpf_ / fetch_bytes();
}

uint32_t PlaybackChannel::read_size(sc_time now) const {
  const uint64_t lw = fetches_done(now) * p_.fetch_longwords % (uint64_t(size) + 1);
  return uint32_t(lw << 16) | size;
}

uint32_t PlaybackChannel::read_count(sc_time now) const {
  if (!running_) return (uint32_t(count) << 16) | count;
  const uint64_t done = samples_at(now);
  const uint64_t left = next_irq_ > done ? next_irq_ - done - 1 : 0;
  return (uint32_t(left & 0xffff) << 16) | count;
}

sc_time PlaybackChannel::burst_tenure() const {
  const uint32_t clocks = (p_.fetch_longwords * 4 + uint32_t(pci_.bytes_per_clock()) - 1) /
                          uint32_t(pci_.bytes_per_clock());  // data phases on this bus width
  return pci_.clock() * double(p_.burst_overhead_clocks + clocks);
}

void PlaybackChannel::start(sc_time now, uint32_t vfreq, unsigned mode) {
  running_ = true;
  paused_ = false;
  freq_ = vfreq;
  bpf_ = kBytesPerFrame[mode & 3];
  period_ = uint64_t(count) + 1;
  anchor_t_ = now;
  anchor_k_ = link_.next_after(now);
  acc_ = 0;
  next_irq_ = period_;
  // Fill the FIFO at once, bursts back to back.
  const uint32_t n = prefill();
  pci::BurstTrain t;
  t.master = master_;
  t.start = now;
  t.period = t.tenure = burst_tenure();
  t.end = now + t.period * double(n);
  t.bytes = uint64_t(n) * fetch_bytes();
  t.to_memory = false;
  pci_.announce(t);
  stats_.fetches += n;
  stats_.bytes_fetched += t.bytes;
  next_fetch_ = n;
  announce_fetches(next_irq_);
  period_ev_.cancel();
  if (freq_) period_ev_.notify(time_of_sample(next_irq_) - now);
}

void PlaybackChannel::stop(sc_time now) {
  if (!running_) return;
  if (!paused_) acc_ += (link_.next_after(now) - anchor_k_) * freq_;
  running_ = paused_ = false;
  period_ev_.cancel();
}

void PlaybackChannel::pause(sc_time now) {
  if (!running_ || paused_) return;
  acc_ += (link_.next_after(now) - anchor_k_) * freq_;
  paused_ = true;
  period_ev_.cancel();
  // Refills announced for after now will not happen now; they are announced again
  // on resume (the bus cannot take back a train already announced).
  next_fetch_ = std::min(next_fetch_, fetches_done(now));
}

void PlaybackChannel::resume(sc_time now) {
  if (!running_ || !paused_) return;
  paused_ = false;
  anchor_t_ = now;
  anchor_k_ = link_.next_after(now);
  announce_fetches(next_irq_);
  if (freq_) period_ev_.notify(time_of_sample(next_irq_) - now);
}

void PlaybackChannel::announce_fetches(uint64_t before_sample) {
  if (freq_ == 0) return;
  uint64_t n = 0;
  sc_time first, last;
  for (; fetch_trigger(next_fetch_) < before_sample; ++next_fetch_, ++n) {
    last = time_of_sample(fetch_trigger(next_fetch_));
    if (n == 0) first = last;
  }
  if (n == 0) return;
  // Refills follow the AC-link frames, so their spacing jitters by a frame; the
  // train spaces them evenly between the first and the last.
  pci::BurstTrain t;
  t.master = master_;
  t.start = first;
  t.tenure = burst_tenure();
  t.period = n == 1 ? t.tenure : ps(to_ps(last - first) / (n - 1));
  t.tenure = std::min(t.tenure, t.period);
  t.end = first + t.period * double(n);
  t.bytes = n * fetch_bytes();
  t.to_memory = false;
  pci_.announce(t);
  stats_.fetches += n;
  stats_.bytes_fetched += t.bytes;
}

void PlaybackChannel::period_step() {
  if (!running_ || paused_) return;
  const sc_time now = sc_core::sc_time_stamp();
  stats_.periods++;
  period_ = uint64_t(count) + 1;  // the counter reloads from the register
  next_irq_ += period_;
  on_period_();
  announce_fetches(next_irq_);
  period_ev_.notify(time_of_sample(next_irq_) - now);
}

}  // namespace latsim::sound
