#pragma once
// kernel/timer.c (2.6.9): a CPU's tvec_base_t. tv1 holds the next 256 jiffies one
// slot each; tv2..tv5 hold ever coarser ranges (64 slots each) and are cascaded
// down one slot at a time whenever tv1's index wraps, so a far timer is moved
// once per level on its way down: the cost of __run_timers is the timers it
// moves plus the ones it runs.
#include <array>
#include <cstdint>
#include <functional>
#include <list>
#include <unordered_map>

namespace latsim::kernel {

class TimerList {
 public:
  using Id = uint64_t;
  static constexpr int TVR_BITS = 8, TVN_BITS = 6;
  static constexpr uint64_t TVR_SIZE = 1u << TVR_BITS, TVN_SIZE = 1u << TVN_BITS;
  static constexpr uint64_t TVR_MASK = TVR_SIZE - 1, TVN_MASK = TVN_SIZE - 1;

  // init_timers_cpu: base->timer_jiffies starts at the current jiffy.
  explicit TimerList(uint64_t timer_jiffies = 0) : timer_jiffies_(timer_jiffies) {}
  TimerList(const TimerList&) = delete;  // where_ points into its own slots
  TimerList& operator=(const TimerList&) = delete;

  // add_timer: internal_add_timer into the slot its distance selects.
  Id add(uint64_t expires, std::function<void()> fn) {
    const Id id = next_++;
    internal_add_timer(Timer{id, expires, std::move(fn)});
    return id;
  }
  // del_timer: unlink a pending timer; false if it already ran or was deleted.
  bool del(Id id) {
    auto it = where_.find(id);
    if (it == where_.end()) return false;
    it->second.list->erase(it->second.pos);
    where_.erase(it);
    return true;
  }

  // __run_timers: process every jiffy up to `jiffies`; on each, cascade the outer
  // wheels if tv1's index wrapped (`cascaded(n)` is told how many timers moved),
  // then run the slot's timers in insertion order. A timer added while running
  // for an already processed jiffy lands in the next slot, as in the kernel.
  template <class F, class C>
  void run_expired(uint64_t jiffies, F&& each, C&& cascaded) {
    while (jiffies >= timer_jiffies_) {
      const uint64_t index = timer_jiffies_ & TVR_MASK;
      if (index == 0) {
        uint64_t moved = 0;
        for (int level = 0; level < 4; ++level) {
          const uint64_t slot = (timer_jiffies_ >> (TVR_BITS + level * TVN_BITS)) & TVN_MASK;
          moved += cascade(tvn_[size_t(level)][slot]);
          if (slot != 0) break;  // only a wrapped level cascades the next one
        }
        if (moved) cascaded(moved);
      }
      ++timer_jiffies_;
      std::list<Timer> work;
      work.splice(work.end(), tv1_[index]);  // list_splice_init(base->tv1.vec + index)
      for (auto it = work.begin(); it != work.end(); ++it) where_[it->id] = Where{&work, it};
      while (!work.empty()) {
        Timer t = std::move(work.front());
        work.pop_front();
        where_.erase(t.id);
        each(t.fn);
      }
    }
  }
  template <class F>
  void run_expired(uint64_t jiffies, F&& each) {
    run_expired(jiffies, std::forward<F>(each), [](uint64_t) {});
  }

  size_t size() const { return where_.size(); }
  uint64_t timer_jiffies() const { return timer_jiffies_; }
  uint64_t cascaded_total() const { return cascaded_total_; }

 private:
  struct Timer {
    Id id;
    uint64_t expires;
    std::function<void()> fn;
  };
  struct Where {
    std::list<Timer>* list;
    std::list<Timer>::iterator pos;
  };

  std::list<Timer>& slot_for(uint64_t expires) {
    // Already due: the slot processed next (idx < 0 in internal_add_timer).
    if (expires < timer_jiffies_) return tv1_[timer_jiffies_ & TVR_MASK];
    const uint64_t idx = expires - timer_jiffies_;
    if (idx < TVR_SIZE) return tv1_[expires & TVR_MASK];
    for (int level = 0; level < 4; ++level) {
      const int shift = TVR_BITS + level * TVN_BITS;
      if (idx < (uint64_t(1) << (shift + TVN_BITS)) || level == 3) {
        // Beyond the last wheel (> 2^32 jiffies) the kernel caps the distance.
        const uint64_t e = level == 3 && idx >= (uint64_t(1) << 32)
                               ? timer_jiffies_ + ((uint64_t(1) << 32) - 1)
                               : expires;
        return tvn_[size_t(level)][(e >> shift) & TVN_MASK];
      }
    }
    return tv1_[0];  // not reached
  }
  void internal_add_timer(Timer t) {
    std::list<Timer>& l = slot_for(t.expires);
    const Id id = t.id;
    l.push_back(std::move(t));
    where_[id] = Where{&l, std::prev(l.end())};
  }
  // cascade(): re-add every timer of an outer slot at its finer position.
  uint64_t cascade(std::list<Timer>& slot) {
    std::list<Timer> moving;
    moving.splice(moving.end(), slot);
    uint64_t n = 0;
    while (!moving.empty()) {
      Timer t = std::move(moving.front());
      moving.pop_front();
      internal_add_timer(std::move(t));
      ++n;
    }
    cascaded_total_ += n;
    return n;
  }

  uint64_t timer_jiffies_;
  std::array<std::list<Timer>, TVR_SIZE> tv1_;
  std::array<std::array<std::list<Timer>, TVN_SIZE>, 4> tvn_;  // tv2..tv5
  std::unordered_map<Id, Where> where_;
  Id next_ = 1;
  uint64_t cascaded_total_ = 0;
};

}  // namespace latsim::kernel
