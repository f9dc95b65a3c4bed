// kernel/sched.c (2.6.9): O(1) priority arrays, schedule(), wakeups, the tick.
#include <algorithm>
#include <stdexcept>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
const CodeSite kSchedLock{"schedule", "lock"};
const CodeSite kSchedUnlock{"schedule", "unlock"};
const CodeSite kWakeUnlock{"try_to_wake_up", "unlock"};
const CodeSite kTickUnlock{"scheduler_tick", "unlock"};
}  // namespace

int Kernel::task_timeslice(const Task* p) const {
  // MIN_TIMESLICE 5 ms .. MAX_TIMESLICE 200 ms, 100 ms at nice 0 (HZ-scaled).
  const int min_ts = std::max(5 * p_.hz / 1000, 1), max_ts = 200 * p_.hz / 1000;
  const int sp = std::min(std::max(p->static_prio, MAX_RT_PRIO), MAX_PRIO - 1);
  return min_ts + (max_ts - min_ts) * (MAX_PRIO - 1 - sp) / 39;
}

// MAX_SLEEP_AVG = DEF_TIMESLICE * MAX_BONUS: a second of sleep buys the full bonus.
// A function, not a static sc_time: those would fix the time resolution at load time.
static sc_core::sc_time max_sleep_avg() { return sc_core::sc_time(1, sc_core::SC_SEC); }
constexpr int MAX_BONUS = 10;

int Kernel::effective_prio(const Task* p) const {
  // A priority lent through an rt_mutex (p->pi_prio) wins while it is higher.
  // rt_mutex_getprio with RCU boosting (2.6.24-rt): min(normal_prio, rcu_prio, waiters').
  const int lent = std::min(p->pi_prio, p->rcu_prio);
  if (p->policy != Policy::Normal) return std::min(MAX_RT_PRIO - 1 - p->rt_priority, lent);
  // CURRENT_BONUS - MAX_BONUS/2: sleepers gain up to 5 levels, hogs lose up to 5.
  const int bonus = int(p->sleep_avg / max_sleep_avg() * MAX_BONUS) - MAX_BONUS / 2;
  return std::min(std::clamp(p->static_prio - bonus, MAX_RT_PRIO, MAX_PRIO - 1), lent);
}

// TASK_INTERACTIVE: prio <= static_prio - DELTA(p), DELTA = nice*MAX_BONUS/40 + 2.
static bool task_interactive(const Task* p) {
  return p->prio <= p->static_prio - (p->nice * MAX_BONUS / 40 + 2);
}

Task* Kernel::create_task(const std::string& comm, std::function<void()> body, Policy policy,
                          int prio_or_nice, int cpu_hint, uint32_t cpus_allowed) {
  auto t = std::make_unique<Task>();
  Task* p = t.get();
  p->pid = next_pid_++;
  p->comm = comm;
  p->policy = policy;
  if (policy == Policy::Normal)
    p->nice = prio_or_nice, p->static_prio = nice_to_prio(prio_or_nice);
  else
    p->rt_priority = prio_or_nice, p->static_prio = nice_to_prio(0);
  // sched_fork: the child inherits CHILD_PENALTY (95 %) of its parent's sleep
  // credit; the idle task that starts boot-time threads counts as a sleeper.
  const Task& parent = current();
  p->sleep_avg = (parent.is_idle ? max_sleep_avg() : parent.sleep_avg) * 0.95;
  p->prio = effective_prio(p);
  p->time_slice = task_timeslice(p);
  p->cpu = cpu_hint >= 0 ? cpu_hint : 0;
  p->cpus_allowed = cpus_allowed;
  if (!(cpus_allowed & (1u << p->cpu)))  // sched_fork: start on a CPU it may run on
    for (int c = 0; c < ncpus(); ++c)
      if (cpus_allowed & (1u << c)) {
        p->cpu = c;
        break;
      }
  p->state = TASK_UNINTERRUPTIBLE;
  p->preempt_count = 1;  // sched_fork: no preemption until schedule_tail
  p->body = std::move(body);
  p->mm = mm_alloc();  // a user process; kernel threads drop theirs (mm = 0)
  tasks_.push_back(std::move(t));
  local_time::sync();  // the new thread starts at the spawner's time
  sc_core::sc_spawn_options o;
  sc_core::sc_spawn([this, p] { thread_start(p); }, sc_core::sc_gen_unique_name("task"), &o);
  wake_up_new_task(p, "do_fork");
  return p;
}

void Kernel::thread_start(Task* p) {
  by_thread_[sc_core::sc_get_current_process_b()] = p;
  current_cache_.fill({});  // a new thread may reuse a dead one's process object
  while (!p->started) sc_core::wait(p->resume);
  try {
    // schedule_tail(): finish the switch that brought us here; that drops the
    // preempt_count of 1 that sched_fork gave us.
    finish_task_switch(nullptr);
    p->body();
    do_exit("do_exit");
  } catch (const TaskExit&) {
    by_thread_.erase(sc_core::sc_get_current_process_b());
    current_cache_.fill({});
    if (p->reaped) release_task(p);
  }
}

void Kernel::release_task(Task* p) {
  if (p->array) throw std::logic_error("releasing a queued task: " + p->comm);
  if (p->siglock.registered) unregister_lock(p->siglock);
  if (p->pi_lock.registered) unregister_lock(p->pi_lock);
  forget(p, sizeof(Task));
  const auto it = std::find_if(tasks_.begin(), tasks_.end(),
                               [p](const std::unique_ptr<Task>& t) { return t.get() == p; });
  free_after_delta(std::shared_ptr<Task>(std::move(*it)));
  tasks_.erase(it);  // the order of the others stays: for_each_task walks them in it
  drop_unused_mms();
}

void Kernel::wake_up_new_task(Task* p, const char* parent) {
  p->state = TASK_UNINTERRUPTIBLE;
  new_task_wake_ = true;
  try_to_wake_up(p, parent);
  new_task_wake_ = false;
}

void Kernel::activate_task(Task* p, Runqueue& rq, const char* parent) {
  fn("activate_task", parent, 40);
  fn("sched_clock", "activate_task", 30);
  fn("recalc_task_prio", "activate_task", 40);
  if (p->slept) {  // recalc_task_prio: credit the time slept
    p->sleep_avg = std::min(p->sleep_avg + (now() - p->sleep_start), max_sleep_avg());
    p->slept = false;
  }
  fn("effective_prio", "recalc_task_prio", 20);
  p->prio = effective_prio(p);
  fn("enqueue_task", "activate_task", 30, 1);
  rq.active->enqueue(p);
  rq.nr_running++;
}

void Kernel::deactivate_task(Task* p, Runqueue& rq) {
  fn("deactivate_task", "schedule", 30);
  fn("dequeue_task", "deactivate_task", 30, 1);
  if (p->array) p->array->dequeue(p);
  p->sleep_start = now();
  p->slept = true;
  rq.nr_running--;
}

void Kernel::resched_task(Task* p) {
  if (p->need_resched) return;
  p->need_resched = true;
  const int target = p->cpu;
  if (target != smp_processor_id())
    this_cpu().send_ipi(target, RESCHEDULE_VECTOR);  // smp_send_reschedule
}

bool Kernel::try_to_wake_up(Task* p, const char* parent) {
  fn("try_to_wake_up", parent, 40);
  if (p->state == TASK_DEAD) return false;  // not in the state mask a wake-up matches
  int cpu = p->cpu;
  fn("task_rq_lock", "try_to_wake_up", 20);
  bool flags = spin_lock_irqsave(rq_[size_t(cpu)].lock, "task_rq_lock");
  bool woke = false;
  if (p->state != TASK_RUNNING && flavour_.select_task_rq_rt && p->rt() && !p->array &&
      rq_[size_t(cpu)].curr != p) {
    // -rt select_task_rq_rt: leave a CPU whose current RT task would make p wait.
    const int target = select_task_rq_rt(p, cpu);
    if (target != cpu) {
      spin_unlock_irqrestore(rq_[size_t(cpu)].lock, flags, kWakeUnlock);
      fn("set_task_cpu", "try_to_wake_up", 40);
      cpu = target;
      set_task_cpu(p, cpu);
      flags = spin_lock_irqsave(rq_[size_t(cpu)].lock, "task_rq_lock");
    }
  }
  if (p->state != TASK_RUNNING) {
    // Wake balancing (sched/wake_balance.cpp); a running task stays (out_activate), a
    // new one starts where sched_fork put it (the earlier rule also moved new tasks).
    const int this_cpu_id = smp_processor_id();
    const bool fork_placed =
        new_task_wake_ && p_.wake_balance != "nr_running" && flavour_.o1_scheduler;
    const int target =
        p->array || flavour_.select_task_rq_rt || rq_[size_t(cpu)].curr == p || fork_placed
            ? cpu
            : wake_cpu(p, cpu, this_cpu_id);
    if (target != cpu) {
      spin_unlock_irqrestore(rq_[size_t(cpu)].lock, flags, kWakeUnlock);
      cpu = target;
      set_task_cpu(p, cpu);
      flags = spin_lock_irqsave(rq_[size_t(cpu)].lock, "task_rq_lock");
    }
    Runqueue& rq = rq_[size_t(cpu)];
    shared(&p->state, 2, true);  // state, array, prio, sleep_avg, timestamp, run_list
    if (!p->array) {
      shared(&rq, 2, true);  // enqueue: nr_running, the array's bitmap and list head
      activate_task(p, rq, "try_to_wake_up");
    }
    if (p->prio < rq.curr->prio) resched_task(rq.curr);  // TASK_PREEMPTS_CURR
    p->state = TASK_RUNNING;
    woke = true;
    if (obs_) obs_->sched_wakeup(smp_processor_id(), now(), *p, cpu);
    LATSIM_DEBUG(sched, log_who(), "wake up {}-{} (prio {}) on cpu{}", p->comm, p->pid, p->prio,
                 cpu);
  }
  spin_unlock_irqrestore(rq_[size_t(cpu)].lock, flags, kWakeUnlock);
  return woke;
}

// schedule()'s own code lines (kernel.schedule_code_lines) in the four runs the traced
// steps split it into: to sched_clock, the pick, switch_tasks to __switch_to (with the
// inline context_switch, switch_mm and switch_to), and after the switch. The shares are
// estimates from 2.6.9's source (about 1/6, 1/3, 1/3, 1/6 of the span).
namespace {
struct ScheduleCode {
  uint64_t top, pick, sw, tail;
  explicit ScheduleCode(int n) {
    const auto total = uint64_t(std::max(n, 0));
    top = (total + 3) / 6;
    pick = (total + 1) / 3;
    sw = (total + 1) / 3;
    tail = total - std::min(total, top + pick + sw);
  }
};
// Keys for the L2 model, one per run of code: members of one object, so their addresses
// stay distinct whatever the linker merges.
const struct { char top, pick, sw, tail; } kScheduleKeys{};
}  // namespace

void Kernel::schedule_code(const void* run, uint64_t lines) {
  if (lines) exec(0, this_cpu().cache_misses(run, lines));
}

void Kernel::schedule(const char* parent) {
  const ScheduleCode code(p_.schedule_code_lines);
  // 2.6.24-rt schedule(): rcu_preempt_boost() lists a reader leaving its CPU in its section.
  if (rcu_ && rcu_->p.boost && current().rcu_read_lock_nesting > 0) rcu_preempt_boost();
  for (;;) {
    Task* prev = &current();
    const int c = prev->cpu;
    Runqueue& rq = rq_[size_t(c)];
    if (critical(c))
      mcount("schedule", parent);
    else
      enter("schedule", parent);  // the section opens here: first entry "schedule (parent)"
    preempt_disable(kSchedLock);
    schedule_code(&kScheduleKeys.top, code.top);
    // The BKL is not held across a sleep; 2.4 and 2.6.9 both drop it after raising the
    // count, so a holder's sleep leaves preemption off on this CPU until the switch.
    release_kernel_lock(prev);
    fn("sched_clock", "schedule", 40);
    spin_lock_irq(rq.lock, "schedule");
    shared(&rq, 2, true);  // nr_running, curr, nr_switches; the active array's bitmap
    if (prev->state != TASK_RUNNING && !(prev->preempt_count & PREEMPT_ACTIVE))
      deactivate_task(prev, rq);
    schedule_code(&kScheduleKeys.pick, code.pick);
    if (!flavour_.o1_scheduler) goodness_walk(rq, rq.nr_running > 0 && rq.active->nr_active == 0);
    if (rq.nr_running == 0) {
      fn("dummy_go_idle", "schedule", 10);
      idle_balance(c, rq);
    }
    Task* next = rq.idle;
    if (rq.nr_running > 0) {
      if (rq.active->nr_active == 0) {  // switch arrays
        std::swap(rq.active, rq.expired);
        rq.expired_timestamp = 0;
      }
      const int idx = rq.active->first();
      next = rq.active->queue[idx].front();
      // list_entry(queue->next), rt_task(next), next->activated, then next->timestamp = now:
      // next's prio, run_list/timestamp and activated lines (2.6.9 task_struct offsets
      // 24..72), which its waker on the other CPU may have written (try_to_wake_up).
      if (next != prev && flavour_.o1_scheduler)
        exec(0, line_fills(&next->state, uint64_t(p_.switch_pick_lines), true));
    }
    prev->need_resched = false;
    // schedule(): the time prev ran comes off its sleep credit.
    const sc_time ran = now() - prev->last_ran;
    prev->sleep_avg = prev->sleep_avg > ran ? prev->sleep_avg - ran : sc_core::SC_ZERO_TIME;
    prev->last_ran = now();
    if (prev != next) {
      next->last_ran = now();
      if (prev->state == TASK_RUNNING)
        prev->nivcsw++;
      else
        prev->nvcsw++;
      context_switch(rq, prev, next, code.sw);  // returns when prev runs again
    } else {
      spin_unlock_irq(rq.lock, kSchedUnlock);
      // spin_unlock_irq dropped one level; schedule's own preempt_disable remains.
    }
    schedule_code(&kScheduleKeys.tail, code.tail);
    if (!sleeping_lock(kernel_flag_)) reacquire_kernel_lock(&current());
    preempt_enable_no_resched(kSchedUnlock);
    if (sleeping_lock(kernel_flag_)) reacquire_kernel_lock(&current());
    if (!current().need_resched) return;
  }
}

// 2.4 schedule(): list_for_each over the one run queue computing goodness() of
// every runnable task under runqueue_lock (interrupts off); when every counter is
// spent ("recalculate", the O(1) array switch here) it walks every task.
void Kernel::goodness_walk(Runqueue& rq, bool recalculate) {
  uint64_t misses = 0, n = 0;
  for (const PrioArray* a : {rq.active, rq.expired})
    for (int prio = 0; prio < MAX_PRIO; ++prio) {
      if (!a->bitmap.test(size_t(prio))) continue;
      for (Task* p : a->queue[prio]) misses += this_cpu().cache_misses(p, 1), ++n;
    }
  exec(20 * n, misses);  // goodness(): counter, nice, mm of one task_struct line
  if (!recalculate) return;
  fn("recalculate", "schedule", 40);
  misses = 0;
  uint64_t live = 0;  // for_each_task: the task list holds no dead tasks
  for (const auto& t : tasks_)
    if (t->state != TASK_DEAD) misses += this_cpu().cache_misses(t.get(), 1), ++live;
  exec(12 * live, misses);  // p->counter = (p->counter >> 1) + NICE_TO_TICKS
}

void Kernel::context_switch(Runqueue& rq, Task* prev, Task* next, uint64_t code_lines) {
  rq.nr_switches++;
  if (obs_) obs_->sched_switch(rq.cpu, now(), *prev, *next);
  LATSIM_DEBUG(sched, log_who(), "switch to {}-{} (prio {}), prev {}", next->comm, next->pid,
               next->prio, prev->state == TASK_RUNNING ? "preempted" : "sleeps");
  fn("dummy_switch_tasks", "schedule", 10);
  schedule_code(&kScheduleKeys.sw, code_lines);  // switch_tasks on, context_switch inline
  // switch_mm + switch_to: from here on the CPU runs on next's stack, so the
  // trace shows next's preempt_count (the "04000002" lines of seed 000).
  rq.curr = next;
  next->cpu = rq.cpu;
  // The lines of next's own data context_switch and switch_to touch before __switch_to
  // (2.6.9 sched.c, asm-i386/system.h): next->mm/active_mm, thread.esp/eip, and the line
  // of next's stack that `pushl %6` writes. Keyed by the task, they miss when it has been
  // away long enough for others to evict them, or come from the other CPU's cache after a
  // migration (it wrote them wherever it last ran).
  exec(0, line_fills(&next->cpu, uint64_t(p_.switch_next_lines), true));
  shared(&next->state, 2, true);  // what a waker on the other CPU wrote: timestamp, activated
  switch_mm(rq.cpu, *next);
  unlazy_fpu(*prev);  // __switch_to's first act: prev's FPU registers saved, CR0.TS set
  // Its code and this CPU's TSS/GDT lines; next's own lines follow in switch_resume_lines.
  fn("__switch_to", "schedule", 300, 6);
  next->started = true;
  local_time::sync();
  next->resume.notify(sc_core::SC_ZERO_TIME);
  if (prev->state == TASK_DEAD) throw TaskExit{};
  prev->started = false;
  while (!prev->started) sc_core::wait(prev->resume);
  // Running on this task's stack again: __switch_to's load_esp0/load_TLS, its debugreg[7]
  // and io_bitmap_ptr tests (three thread_struct lines), switch_to's popl and schedule()'s
  // frame above it, and thread_info (preempt_count, flags), before finish_task_switch.
  exec(0, line_fills(&prev->preempt_count, uint64_t(p_.switch_resume_lines), true));
  finish_task_switch(prev);
  // The incoming task's working set, evicted while it was away, refills from DRAM.
  if (prev->cache_footprint) exec(0, this_cpu().cache_misses(prev, prev->cache_footprint));
}

void Kernel::finish_task_switch(Task*) {
  const int c = smp_processor_id();
  fn("finish_task_switch", "schedule", 60, 2);
  spin_unlock_irq(rq_[size_t(c)].lock, {"schedule", "unlock"});
}

void Kernel::scheduler_tick(bool) {
  const int c = smp_processor_id();
  Runqueue& rq = rq_[size_t(c)];
  Task* p = rq.curr;
  fn("scheduler_tick", "update_process_times", 60, 1);
  fn("sched_clock", "scheduler_tick", 30);
  rq.timestamp_last_tick = now();          // rq->timestamp_last_tick = sched_clock()
  shared(&time_lines_.jiffies, 1, false);  // EXPIRED_STARVING: jiffies - expired_timestamp
  rebalance_tick(c, rq, p->is_idle);
  if (p->is_idle) return;
  if (p->array != rq.active) {  // already expired
    p->need_resched = true;
    return;
  }
  spin_lock(rq.lock, "scheduler_tick");
  if (p->policy == Policy::Rr) {
    if (--p->time_slice <= 0) {
      p->time_slice = task_timeslice(p);
      rq.active->dequeue(p);
      rq.active->enqueue(p);
      p->need_resched = true;
    }
  } else if (p->policy == Policy::Normal) {
    if (--p->time_slice <= 0) {
      rq.active->dequeue(p);
      p->need_resched = true;
      p->prio = effective_prio(p);
      p->time_slice = task_timeslice(p);
      p->first_time_slice = false;
      // Interactive tasks go back to the active array unless the expired ones starve.
      const bool starving =
          rq.expired_timestamp &&
          jiffies_ - rq.expired_timestamp >= uint64_t(p_.hz) * uint64_t(rq.nr_running) + 1;
      if (task_interactive(p) && !starving) {
        rq.active->enqueue(p);
      } else {
        if (!rq.expired_timestamp) rq.expired_timestamp = jiffies_;
        rq.expired->enqueue(p);
      }
    }
  }
  spin_unlock(rq.lock, kTickUnlock);
}

void Kernel::sleep_until_tick(int cpu, uint64_t tick, const char* parent) {
  if (tick <= pcpu_[size_t(cpu)].local_ticks) return;
  Task* t = &current();
  timers_[size_t(cpu)].add(tick, [this, t] { try_to_wake_up(t, "process_timeout"); });
  set_current_state(TASK_INTERRUPTIBLE);
  schedule(parent);
}

int Kernel::select_task_rq_rt(Task* p, int cpu) {
  const Task* curr = rq_[size_t(cpu)].curr;
  const uint32_t online = (1u << ncpus()) - 1;
  const bool curr_pinned = __builtin_popcount(curr->cpus_allowed & online) < 2;
  if (!curr->rt() || (!curr_pinned && curr->prio > p->prio)) return cpu;
  // find_lowest_rq: the allowed CPU running the lowest priority, idle first.
  fn("find_lowest_rq", "select_task_rq_rt", 60, 1);
  int best = cpu, best_prio = curr->prio;
  for (int c = 0; c < ncpus(); ++c) {
    if (!(p->cpus_allowed & (1u << c))) continue;
    const Task* t = rq_[size_t(c)].curr;
    const int prio = t->is_idle ? MAX_PRIO : t->prio;
    if (prio > best_prio && prio > p->prio) best = c, best_prio = prio;
  }
  return best;
}

// entry.S syscall_exit / resume_userspace: _TIF_NEED_RESCHED -> work_resched.
void Kernel::resume_userspace(const char* parent) {
  Task& t = current();
  while (t.need_resched) {
    fn("work_resched", parent, 20);
    schedule("work_resched");
  }
}

void Kernel::conditional_schedule(const char* parent) {
  if (flavour_.preemption == Preemption::LowLatency) {
    // conditional_schedule_needed() -> unconditional_schedule(): a 2.4 schedule() may
    // be entered holding the BKL (it drops and retakes it), not another spinlock.
    Task& t = current();
    const uint32_t held = t.preempt_count & ~PREEMPT_ACTIVE;
    if (!t.need_resched || held > (t.lock_depth >= 0 ? 1u : 0u)) return;
    fn("conditional_schedule", parent, 10);
    set_current_state(TASK_RUNNING);
    schedule(parent);
    return;
  }
  if (flavour_.cond_resched) cond_resched(parent);  // the 2.4 preempt patch alone adds none
}

void Kernel::do_exit(const char* parent) {
  Task& t = current();
  if (t.on_exit) t.on_exit();
  preempt_disable({"do_exit"});
  t.state = TASK_DEAD;
  schedule(parent);
  throw TaskExit{};  // not reached: the switch away ends this thread
}

}  // namespace latsim::kernel
