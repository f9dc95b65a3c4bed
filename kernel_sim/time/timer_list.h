#pragma once
// kernel/timer.c: timers keyed by the jiffy they expire at.
#include <cstdint>
#include <functional>
#include <map>

namespace latsim::kernel {

class TimerList {
 public:
  using Id = uint64_t;
  Id add(uint64_t expires, std::function<void()> fn) {
    const Id id = next_++;
    timers_.emplace(Key{expires, id}, std::move(fn));
    return id;
  }
  // Pop every timer due at or before `jiffies`, in expiry then insertion order.
  template <class F>
  void run_expired(uint64_t jiffies, F&& each) {
    while (!timers_.empty() && timers_.begin()->first.expires <= jiffies) {
      auto fn = std::move(timers_.begin()->second);
      timers_.erase(timers_.begin());
      each(fn);
    }
  }
  bool pending_by(uint64_t jiffies) const {
    return !timers_.empty() && timers_.begin()->first.expires <= jiffies;
  }
  size_t size() const { return timers_.size(); }

 private:
  struct Key {
    uint64_t expires;
    Id id;
    bool operator<(const Key& o) const {
      return expires != o.expires ? expires < o.expires : id < o.id;
    }
  };
  std::map<Key, std::function<void()>> timers_;
  Id next_ = 1;
};

}  // namespace latsim::kernel
