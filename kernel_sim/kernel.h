#pragma once
// The simulated Linux 2.6.9-VP kernel. Like the real one, its subsystems are
// functions over shared state; they live in the files named after the kernel's
// own (sched/sched.c -> sched/sched.cpp, kernel/softirq.c -> irq/softirq.cpp,
// arch/i386/kernel/timers/timer_tsc.c -> time/timer_tsc.cpp, ...). The kernel
// reaches hardware only through CpuOps.
#include <array>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>
#include "common/local_time.h"
#include "common/log.h"
#include "common/random.h"
#include "kernel_sim/arch/cpu_ops.h"
#include "kernel_sim/arch/powerpc/sysdev/mpc52xx_pic.h"
#include "kernel_sim/flavour.h"
#include "kernel_sim/irq/irq_desc.h"
#include "kernel_sim/kernel_params.h"
#include "kernel_sim/locks/rwlock.h"
#include "kernel_sim/locks/semaphore.h"
#include "kernel_sim/locks/spinlock.h"
#include "kernel_sim/rcu/rcupreempt.h"
#include "kernel_sim/sched/cputime.h"
#include "kernel_sim/sched/runqueue.h"
#include "kernel_sim/sched/task.h"
#include "kernel_sim/time/hrtimer.h"
#include "kernel_sim/time/timer_list.h"
#include "kernel_sim/trace/latency_tracer.h"
#include "kernel_sim/trace/observer.h"
#include "kernel_sim/trace/preempt_stats.h"

namespace latsim::kernel {

class Kernel;
class BlockLayer;
class Workqueue;
class Slab;
class NetStack;
class NetDriver;
class Es1371Driver;
class UhciHcd;
class ReiserFs;
class Ext3;

// A load or measurement program (kernel build, cat, cyclictest).
class Workload {
 public:
  virtual ~Workload() = default;
  virtual const std::string& name() const = 0;
  virtual void start(Kernel& k) = 0;  // create its tasks at boot
  virtual bool measures() const { return false; }
  virtual std::vector<const Spinlock*> spinlocks() const { return {}; }  // its own locks
};

// Where softirq handlers ran: inline on the way out of an interrupt or a bh-off
// section, or in ksoftirqd/N (softirq_preemption, or after MAX_SOFTIRQ_RESTART).
struct SoftirqStats {
  uint64_t inline_runs = 0;
  uint64_t ksoftirqd_runs = 0;
};

struct TimeStats {
  uint64_t ticks = 0;       // timer interrupts handled on CPU0
  uint64_t lost_ticks = 0;  // detected by mark_offset_tsc from the TSC delta
  uint64_t lost_warnings = 0;
};

// Per-CPU kernel data (DEFINE_PER_CPU and friends).
struct PerCpu {
  uint32_t softirq_pending = 0;
  Task* ksoftirqd = nullptr;
  const char* last_fn = "cpu_idle";  // the function running: parent of interrupt entries
  const char* last_parent = "rest_init";
  bool irq_from_user = false;  // the interrupt being handled came from user mode
  uint64_t local_ticks = 0;    // per-CPU timer base jiffies
  sc_core::sc_time tick_epoch, tick_period;
  int active_mm = 0;            // cpu_tlbstate.active_mm: the page tables loaded (lazily kept)
  Task* ktimersoftd = nullptr;  // -rt: the timer softirq thread
  std::deque<Hrtimer*> hrtimer_soft;  // expired soft hrtimers for HRTIMER_SOFTIRQ
  Hrtimer tick_timer;                 // high_res_timers: tick_sched_timer
  uint64_t hres_tick = 0;             // its next local tick index
  sc_core::sc_time timer_irq_entry;   // entry of the local timer interrupt being handled
  uint64_t migrations = 0;            // tasks moved onto this CPU
  // Entries of the local timer handler (tick handled, time entered), newest last:
  // the IRQ half of a timer's latency, as rtla timerlat splits it.
  std::array<std::pair<uint64_t, sc_core::sc_time>, 64> tick_irq_log{};
  uint64_t tick_irq_n = 0;
  // Time in outermost interrupts by source (a nested one counts in the outer's): one
  // slot per IRQ line, then the local timer, NMIs and other IPIs (intr_source()).
  std::array<sc_core::sc_time, NR_IRQS + 4> intr_time{};
  int intr_depth = 0;
  int intr_now = -1;  // the outermost interrupt's source while one is handled (intr_source)
  // The lock a spin_until on this CPU waits for, and its holder when the spin began
  // (blame ledger: whose section the spin is).
  BlameKey spin_on;
  const char* taking_lock = "";  // the spinlock being acquired here (the section it opens)
  // /proc/interrupts' counters: kstat_cpu(cpu).irqs[], irq_stat[cpu].apic_timer_irqs,
  // nmi_count(cpu).
  std::array<uint64_t, NR_IRQS> kstat_irqs{};
  uint64_t apic_timer_irqs = 0, nmi_count = 0;
  bool cr0_ts = true;  // CR0.TS: the next FPU/MMX instruction traps (#NM); cpu_init sets it
  FpuImage fpu_regs;   // what the live FPU/MMX registers hold (arch/i387.cpp)
};
// PerCpu::intr_time slots after the IRQ lines.
constexpr unsigned INTR_LOC = NR_IRQS, INTR_NMI = NR_IRQS + 1, INTR_IPI = NR_IRQS + 2;
// A PowerPC external interrupt until ppc_md.get_irq has named its line (do_IRQ_ppc).
constexpr unsigned INTR_EXT = NR_IRQS + 3;

// TLB shootdowns (arch/i386/kernel/smp.c): flush_tlb_others and its waits.
struct TlbStats {
  uint64_t flushes = 0;                   // flush_tlb_others calls
  uint64_t ipis = 0;                      // INVALIDATE_TLB_VECTOR IPIs sent
  sc_core::sc_time wait_total, wait_max;  // sender spinning until every target acked
  sc_core::sc_time last_wait;
};

// i386 vectors (include/asm-i386/mach-default/irq_vectors.h).
constexpr unsigned LOCAL_TIMER_VECTOR = 0xef;
constexpr unsigned RESCHEDULE_VECTOR = 0xfc;
constexpr unsigned INVALIDATE_TLB_VECTOR = 0xfd;
constexpr unsigned SPURIOUS_APIC_VECTOR = 0xff;
constexpr unsigned FIRST_DEVICE_VECTOR = 0x31;
constexpr unsigned irq_vector(unsigned irq) { return FIRST_DEVICE_VECTOR + 8 * irq; }
// PowerPC exception vectors the e300 takes asynchronously (the Trap's vector there).
constexpr unsigned PPC_EXTERNAL_VECTOR = 0x500, PPC_DECREMENTER_VECTOR = 0x900;

enum Softirq {
  HI_SOFTIRQ = 0,
  TIMER_SOFTIRQ,
  NET_TX_SOFTIRQ,
  NET_RX_SOFTIRQ,
  SCSI_SOFTIRQ,
  TASKLET_SOFTIRQ,
  HRTIMER_SOFTIRQ = 7,  // -rt/hrtimer: soft hrtimers (its own number in later kernels)
  RCU_SOFTIRQ = 8,      // 2.6.24 include/linux/interrupt.h
  NR_SOFTIRQS = 9
};

class KernelBlame;

class Kernel {
 public:
  Kernel(const KernelParams& p, std::vector<CpuOps*> cpus);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // Elaboration: spawn each CPU's idle thread (which boots the machine on CPU0).
  void boot();
  void add_workload(std::unique_ptr<Workload> w) { workloads_.push_back(std::move(w)); }
  const std::vector<std::unique_ptr<Workload>>& workloads() const { return workloads_; }

  const KernelParams& params() const { return p_; }
  const Flavour& flavour() const { return flavour_; }  // kernel.flavour, resolved
  int ncpus() const { return int(cpus_.size()); }
  // The task whose thread is running (inline: the hottest path asks for it).
  Task& current() {
    const sc_core::sc_object* obj = sc_core::sc_get_current_process_b();
    const auto& cached =
        current_cache_[(reinterpret_cast<uintptr_t>(obj) >> 6) % current_cache_.size()];
    return cached.first == obj ? *cached.second : current_slow(obj);
  }
  int smp_processor_id() { return current().cpu; }
  CpuOps& this_cpu() { return *cpus_[size_t(smp_processor_id())]; }
  CpuOps& cpu(int i) { return *cpus_[size_t(i)]; }
  PerCpu& per_cpu(int i) { return pcpu_[size_t(i)]; }
  Runqueue& cpu_rq(int i) { return rq_[size_t(i)]; }
  sc_time now() const { return local_time::now(); }
  Rng& rng() { return rng_; }

  // --- arch: running code (arch/entry.cpp) ---
  // A traced kernel function: its mcount entry, then its body: `cycles` of work
  // touching `footprint` cache lines of its own code and data (they miss only if
  // evicted since it last ran on this CPU) plus `stream` lines that always miss
  // (data just written by DMA, pages being cleared or copied).
  void fn(const char* name, const char* parent, uint64_t cycles, uint64_t footprint = 0,
          uint64_t stream = 0);
  void mcount(const char* name, const char* parent);
  void mcount_on(int cpu, const char* name, const char* parent);  // mcount, CPU known
  void enter_on(int cpu, const char* name, const char* parent);   // enter, CPU known
  // Read or write `lines` lines of kernel data shared between CPUs (MESI): an FSB
  // transaction per line when another CPU wrote them, or holds them, since this one did.
  void shared(const void* key, uint64_t lines, bool write);
  // FSB transactions to touch `lines` lines of `key` that this CPU last touched some time
  // ago: the L2 misses (evicted since) or the MESI transactions (another CPU wrote them
  // since), whichever is more: a line that is both is still one transaction.
  uint64_t line_fills(const void* key, uint64_t lines, bool write);
  // An object of `bytes` at `obj` is freed: every CPU's caches forget its lines
  // (CpuOps::forget), so an object later allocated there starts cold.
  void forget(const void* obj, size_t bytes);
  // Free `obj` once this delta cycle is over: an sc_event in it may have a notification
  // pending, and cancelling one reorders the others pending with it (SystemC swaps the
  // last into its place), which would change the order the woken threads run in.
  void free_after_delta(std::shared_ptr<void> obj);
  // A lock acquisition's locked read-modify-write of the lock word (locks/spinlock.cpp).
  void lock_line(const void* lock);
  // Note the running function without an mcount entry (inline code, section starts).
  void enter(const char* name, const char* parent);
  void exec(uint64_t cycles, uint64_t misses = 0);   // interrupts are taken inside
  void user_exec(uint64_t cycles, uint64_t misses);  // the same, in user mode
  uint8_t inb(uint16_t port);
  uint8_t inb_p(uint16_t port);
  void outb(uint8_t v, uint16_t port);
  void outb_p(uint8_t v, uint16_t port);
  void outl(uint32_t v, uint16_t port);
  void rep_ins(uint16_t port, unsigned width, uint32_t count);  // insw/insl, interruptible
  uint32_t readl(uint64_t addr);
  void writel(uint32_t v, uint64_t addr);

  // --- preemption and interrupt flag (sched/preempt.cpp) ---
  void add_preempt_count(uint32_t v, const CodeSite& site);
  void sub_preempt_count(uint32_t v, const CodeSite& site);
  void preempt_disable(const CodeSite& site) { add_preempt_count(PREEMPT_OFFSET, site); }
  void preempt_enable_no_resched(const CodeSite& site) { sub_preempt_count(PREEMPT_OFFSET, site); }
  void preempt_enable(const CodeSite& site);
  void local_irq_disable(const CodeSite& site);
  void local_irq_enable(const CodeSite& site);
  bool irqs_disabled() { return !this_cpu().irqs_enabled(); }
  bool in_interrupt() { return (current().preempt_count & 0x00ffff00u) != 0; }
  // Called whenever preempt_count or IF changed on `cpu`: opens/closes a section.
  void critical_check(int cpu, bool was_critical, const CodeSite& site);
  bool critical(int cpu);

  // --- locks (locks/spinlock.cpp) ---
  // Spin until `w` is released or an interrupt is deliverable (false). `lock` and the
  // CPU holding it (-1: readers, or several) name the spin in the blame ledger.
  bool spin_until(SpinWait& w, const char* lock, int holder);
  // Lock sections start inside the lock function (spin_lock+0x11, __spin_lock_irqsave+0x39);
  // they end where the caller unlocks (inline unlock: the caller's site).
  void spin_lock(Spinlock& l, const char* parent);
  void spin_unlock(Spinlock& l, const CodeSite& site);
  void spin_lock_irq(Spinlock& l, const char* parent);
  void spin_unlock_irq(Spinlock& l, const CodeSite& site);
  bool spin_lock_irqsave(Spinlock& l, const char* parent);
  void spin_unlock_irqrestore(Spinlock& l, bool flags, const CodeSite& site);
  // The lock's structure is about to be freed (an mm's page_table_lock at mmdrop): it
  // leaves the registry and the caches. It must be free, with no waiter and no spinner.
  void destroy_lock(Spinlock& l);

  // --- scheduler (sched/sched.cpp, sched/balance.cpp, sched/kthread.cpp) ---
  Task* create_task(const std::string& comm, std::function<void()> body, Policy policy,
                    int prio_or_nice, int cpu_hint = -1, uint32_t cpus_allowed = ~0u);
  void wake_up_new_task(Task* p, const char* parent);
  bool try_to_wake_up(Task* p, const char* parent);
  void set_current_state(int state) { current().state = state; }
  void schedule(const char* parent);
  // pause(2): sleep until a signal, which never comes here.
  [[noreturn]] void sys_pause();
  void preempt_schedule(const char* parent);
  void preempt_schedule_irq();
  void cond_resched(const char* parent);
  // The VP patch turns might_sleep() into a preemption point when
  // voluntary_preemption is on (might_resched).
  void might_sleep(const char* parent) {
    if (p_.voluntary_preemption) cond_resched(parent);
  }
  void scheduler_tick(bool user);
  void resched_task(Task* p);
  // --- arch/i387.cpp: the FPU's lazy switching; arch/mmx.cpp: the MMX routines ---
  // A user task's FPU instructions (a decoder's): #NM if CR0.TS is set, then the checker
  // compares the registers with what the task last left there, and its work changes them.
  void fpu_use(const char* parent);
  void kernel_fpu_begin(const char* parent);
  void kernel_fpu_end(const char* parent);
  // kernel.fpu.mmx_routines: clear_page, copy_page and memcpy through mmx.c; false when
  // the generic routine runs instead (not built for the Athlon, in an interrupt, short).
  bool mmx_clear_page(const char* parent);
  bool mmx_copy_page(const char* parent);
  bool mmx_memcpy(uint64_t bytes, const char* parent);
  const FpuStats& fpu_stats() const { return fpu_stats_; }
  // --- mm/highmem.cpp: kmap_atomic()/kunmap_atomic() around a page's copy or clear ---
  void kmap_atomic(const char* parent);
  void kunmap_atomic(const char* parent);
  // Sleep on `cpu`'s timer base until its local tick `tick` (nanosleep), then run.
  void sleep_until_tick(int cpu, uint64_t tick, const char* parent);
  // kernel/timer.c schedule_timeout: sleep with a process_timeout timer `timeout` ticks out.
  void schedule_timeout(uint64_t timeout, const char* parent);
  [[noreturn]] void do_exit(const char* parent);

  // --- interrupts (irq/irq.cpp, irq/softirq.cpp) ---
  // false: the line is taken and one of the two did not pass SA_SHIRQ (-EBUSY).
  bool request_irq(unsigned irq, const char* name, unsigned long flags, IrqHandler h);
  void disable_irq_nosync(unsigned irq, const char* parent);
  void enable_irq(unsigned irq, const char* parent);
  void raise_softirq(int nr, const char* parent);
  // include/linux/interrupt.h: only sets the pending bit; whoever runs next on the way
  // out of the interrupt (irq_exit, or the VP IRQ thread) must see it.
  void __raise_softirq_irqoff(int nr);
  void open_softirq(int nr, std::function<void()> action) {
    softirq_vec_[size_t(nr)] = std::move(action);
  }
  void do_softirq(const char* parent);
  IrqDesc& irq_desc(unsigned irq) { return irq_desc_[irq]; }
  // The MPC5200's controller (kernel.mpc52xx_pic boards), for its drivers' virqs.
  Mpc52xxPic& mpc52xx_pic() { return *mpc52xx_pic_; }
  // /proc/interrupts as 2.6.9's show_interrupts prints it (irq/proc_interrupts.cpp).
  std::string show_interrupts() const;

  // --- time (time/time.cpp, time/timer_tsc.cpp, time/timer.cpp) ---
  uint64_t jiffies() const { return jiffies_; }
  TimerList& timers(int cpu) { return timers_[size_t(cpu)]; }
  const TimeStats& time_stats() const { return tstats_; }
  const SoftirqStats& softirq_stats() const { return sstats_; }
  // Local APIC tick grid of a CPU (aligned to the PIT by wait_8254_wraparound).
  uint64_t local_ticks(int cpu) const { return pcpu_[size_t(cpu)].local_ticks; }
  sc_time tick_time(int cpu, uint64_t n) const {
    return pcpu_[size_t(cpu)].tick_epoch + pcpu_[size_t(cpu)].tick_period * double(n);
  }
  sc_time tick_period() const { return sc_time(1.0 / p_.hz, sc_core::SC_SEC); }
  // When `cpu`'s local timer handler was entered for tick `n` (or the first later
  // tick it handled, ticks merge when it is late); SC_ZERO_TIME if not logged.
  sc_time tick_irq_entry(int cpu, uint64_t n) const;

  // --- TLB shootdown (arch/smp.cpp) ---
  int mm_alloc() { return next_mm_++; }
  // exec_mmap: the current task takes address space `mm` and this CPU loads it (activate_mm).
  void activate_mm(int mm) {
    current().mm = mm;
    switch_mm(smp_processor_id(), current());
  }
  // flush_tlb_mm for an mm the current task has let go of (exit_mm: tsk->mm = NULL).
  void flush_tlb_mm(int mm, const char* parent);
  // Send INVALIDATE_TLB_VECTOR to `cpumask` and spin until each target acknowledged.
  void flush_tlb_others(uint32_t cpumask, int mm, const char* parent);
  uint32_t mm_cpumask(int mm) const;
  const TlbStats& tlb_stats() const { return tlb_stats_; }

  BlockLayer& block();
  // Network stack with eth0's driver opened (8139too, or fec_mpc52xx with kernel fec), and the
  // probed ES1371; both are brought up by their first user (from a task), so an idle board stays
  // idle.
  NetStack& net();
  NetDriver& nic();
  Es1371Driver& snd();
  // The ReiserFS root of seed 001's machine, mounted (with kupdated) at boot when
  // kernel.rootfs names it, else by its first user.
  ReiserFs& reiserfs();
  const ReiserFs* reiserfs_if_mounted() const { return fs_.get(); }
  // The ext3 file system (data=ordered) the kernel build's tree is on; its kjournald
  // starts with its first user.
  Ext3& ext3();
  const Ext3* ext3_if_mounted() const { return ext3_.get(); }
  NetDriver* nic_if_up() { return nic_.get(); }
  Es1371Driver* snd_if_up() { return snd_.get(); }
  const std::vector<std::unique_ptr<UhciHcd>>& uhci() const { return uhci_; }
  bool has_drivers() const { return nic_ || snd_ || net_ || !uhci_.empty(); }
  LatencyTracer& tracer() { return tracer_; }
  // The blame ledger's kernel side while tracing (trace/kernel_blame.h), else nullptr.
  KernelBlame* blame() { return blame_.get(); }
  const KernelBlame* blame() const { return blame_.get(); }
  // The live task with `pid` (nullptr: none, or it has exited).
  const Task* task_by_pid(int pid) const;
  // A blame window from `start`, a measured interval's (trace/kernel_blame.h): -1 when not
  // tracing or when `start` has passed (its start could no longer be itemized).
  int open_blame_window(sc_time start);
  // Close it as the current task sees the time: `label`'s longest is kept, as a `measure`
  // ("wake-up", "cpu loop", "write"); an empty label drops it.
  void close_blame_window(int id, const std::string& label, const char* measure);
  // The 2001 preempt-stats table (kernel.flavour 2.4.10-preempt only; else null).
  const PreemptStats* preempt_stats() const { return pstats_.get(); }
  const std::vector<std::string>& dmesg() const { return dmesg_; }
  // printk: a line for dmesg.txt, also written to the debug log's printk channel.
  void printk(std::string line);
  // The running code as the debug log names it: "cpu0 cc1-312" (common/log.h).
  std::string log_who();
  void set_observer(KernelObserver* o) { obs_ = o; }  // timeline events; null: none
  const std::vector<std::unique_ptr<Task>>& tasks() const { return tasks_; }
  Slab* slab() { return slab_.get(); }  // mm/slab.cpp: null without kernel.slab_reap
  // Time per class on CPU `c` (user/system/irq/softirq/idle), measured exactly.
  const CpuTimes& cpu_times(int c) const { return acct_[size_t(c)]->times(); }
  const IrqsOffStats& irqs_off(int c) const { return acct_[size_t(c)]->irqs_off(); }
  // Every spinlock the kernel owns, for per-lock statistics (lockstat-like).
  std::vector<const Spinlock*> spinlocks() const;

  // --- flavour mechanisms ---
  // Return to user mode (syscall exit / resume_userspace): the point where every
  // flavour reschedules, and the only one without kernel or voluntary preemption.
  void resume_userspace(const char* parent);
  // The 2.4 low-latency patch's conditional_schedule() in long kernel loops; a
  // cond_resched() point on the flavours that have one (not 2.4.10-preempt).
  void conditional_schedule(const char* parent);
  void cond_resched_lock(Spinlock& l, const char* parent);
  // locks/bkl.cpp
  void lock_kernel(const char* parent);
  void unlock_kernel(const CodeSite& site);
  Spinlock& kernel_flag() { return kernel_flag_; }
  // locks/rwlock.cpp
  void read_lock(RwLock& l, const char* parent);
  void read_unlock(RwLock& l, const CodeSite& site);
  void write_lock(RwLock& l, const char* parent);
  void write_unlock(RwLock& l, const CodeSite& site);
  // locks/semaphore.cpp
  void wait_event(WaitQueue& q, const std::function<bool()>& cond, const char* parent);
  void wake_up(WaitQueue& q, const char* parent);
  void down(Semaphore& s, const char* parent);
  void up(Semaphore& s, const char* parent);
  // Per-lock hold/spin statistics of every live spinlock taken so far (first-use order).
  std::vector<LockStats> lock_stats() const;
  // rcu/rcupreempt.cpp (Flavour::preempt_rcu; elsewhere they cost nothing here)
  void rcu_read_lock(const char* parent);
  void rcu_read_unlock(const char* parent);
  // call_rcu: `func` runs in RCU_SOFTIRQ after two counter flips (GP_STAGES).
  void call_rcu(std::function<void()> func, const char* parent);
  // synchronize_rcu with boosting: boost the preempted readers, wait a grace period.
  void synchronize_rcu(const char* parent);
  const RcuState* rcu() const { return rcu_.get(); }
  // time/hrtimer.cpp (POSIX timers: time/posix_timers.h)
  void hrtimer_start(Hrtimer& t, sc_time expires, const char* parent);
  void hrtimer_cancel(Hrtimer& t);
  // cyclictest -n: sleep until absolute time `abs` (CLOCK_MONOTONIC, TIMER_ABSTIME);
  // returns when the timer interrupt that woke it was entered (hrtimers), else zero.
  sc_time clock_nanosleep(sc_time abs, const char* parent);
  // The first local tick of `cpu` at or after `t` (timespec_to_jiffies on its grid).
  uint64_t tick_at_or_after(int cpu, sc_time t) const;
  void set_cpus_allowed(Task* p, uint32_t mask);

 private:
  bool kmap_atomic_is_function() const;  // 2.6 with CONFIG_HIGHMEM (mm/highmem.cpp)
  // arch/i387.cpp
  void unlazy_fpu(Task& prev);  // __switch_to: save prev's registers if it owns them, stts
  void save_init_fpu(Task& t);  // fxsave into t's thread.i387; PF_USEDFPU cleared
  void math_state_restore();    // the #NM trap: clts, restore or init current's image
  bool kernel_fpu_preempt_off() const;
  // arch/mmx.cpp: an MMX loop of `bytes` in 512-byte steps; `loads` if each iteration
  // loads its registers afresh (copies), not once before the loop (clears).
  void mmx_loop(const char* name, const char* parent, uint64_t bytes, uint32_t cycles_per_64,
                bool loads);
  void mmx_check(Task& t, bool loads);
  FpuStats fpu_stats_;
  // arch/i386/kernel: boot and interrupt entry
  void cpu_idle(int cpu);
  void start_kernel();
  void start_secondary();
  void setup_io_apic();
  void setup_pit();
  void setup_apic_timer();
  void wait_8254_wraparound();
  void handle_interrupt();
  void dispatch(const Trap& t);
  unsigned intr_source(const Trap& t);  // its PerCpu::intr_time slot
  void do_IRQ(unsigned irq);
  void do_IRQ_8259A(unsigned irq, IrqDesc& d, sc_time t_in);
  // arch/powerpc/kernel/irq.c do_IRQ (ppc_md.get_irq) and kernel/irq/chip.c handle_level_irq.
  void do_IRQ_ppc();
  void handle_level_irq(unsigned irq, IrqDesc& d, sc_time t_in);
  std::unique_ptr<Mpc52xxPic> mpc52xx_pic_;
  void run_irq_handler(IrqDesc& d);
  void do_nmi();
  void smp_apic_timer_interrupt();
  void smp_reschedule_interrupt();
  void smp_invalidate_interrupt();
  void switch_mm(int cpu, const Task& next);
  void leave_mm(int cpu);
  // mmdrop: the address spaces no task runs in and no CPU keeps loaded are freed.
  void drop_unused_mms();
  void irq_enter(const CodeSite& site);
  void irq_exit(const CodeSite& site);
  void io_apic_modify(unsigned irq, bool mask, const char* parent);
  // irq/io_apic_level.cpp: ioapic_level_type's ack and end (kernel.pci_irq_trigger: level).
  bool level_ack_masks() const;
  void mask_and_ack_level_ioapic_irq(unsigned irq, IrqDesc& d);
  void end_level_ioapic_irq(unsigned irq, IrqDesc& d, const char* parent);
  bool irq_level_triggered(unsigned irq) const;  // the IO-APIC pin's trigger: level or edge
  void io_apic_entry(unsigned irq);              // write one redirection entry, masked
  void io_apic_route(unsigned irq);              // program a PCI IRQ's redirection entry once
  uint32_t io_apic_read(unsigned reg);
  void io_apic_write(unsigned reg, uint32_t v);
  void init_8259A();
  void irq_thread(unsigned irq);
  // time
  void timer_interrupt(const char* parent);
  // time/time_powerpc.cpp, arch/powerpc/kernel/time.c: the decrementer clock event
  // (timer_interrupt there; ppc_ here, apart from i386's IRQ 0 handler above).
  void ppc_timer_interrupt();
  void decrementer_set_next_event(sc_time expires);
  void init_decrementer_clockevent();
  void mark_offset_tsc();
  void do_timer(const char* parent);
  void update_process_times(bool user, const char* parent);
  void run_timer_softirq();
  // softirq
  void wakeup_softirqd(int cpu, const char* parent);
  void irq_thread_softirqs();
  void ksoftirqd(int cpu);
  // softirq_count: add SOFTIRQ_OFFSET (in_softirq); VP ksoftirqd runs without it.
  void __do_softirq(const char* parent, uint32_t mask = ~0u, bool softirq_count = true);
  // sched internals
  void thread_start(Task* p);
  // release_task: a reaped task's struct is freed once its thread has switched away.
  void release_task(Task* p);
  void context_switch(Runqueue& rq, Task* prev, Task* next, uint64_t code_lines);
  void schedule_code(const void* run, uint64_t lines);  // schedule()'s own code lines
  void finish_task_switch(Task* prev);
  void activate_task(Task* p, Runqueue& rq, const char* parent);
  void deactivate_task(Task* p, Runqueue& rq);
  int effective_prio(const Task* p) const;
  int task_timeslice(const Task* p) const;
  bool idle_balance(int cpu, Runqueue& rq);
  void double_lock_balance(Runqueue& a, Runqueue& b);
  // sched/balance.cpp: periodic balancing; sched/migration.cpp: migration/N.
  void rebalance_tick(int cpu, Runqueue& rq, bool idle);
  bool load_balance(int cpu, Runqueue& rq, bool idle);
  int move_tasks(Runqueue& to, Runqueue& from, int max_nr, bool hot_ok, const char* parent);
  void pull_task(Task* p, PrioArray* from_array, Runqueue& from, Runqueue& to, const char* parent);
  void set_task_cpu(Task* p, int cpu);
  // sched/wake_balance.cpp: the CPU try_to_wake_up queues a sleeping task on.
  int wake_cpu(const Task* p, int cpu, int this_cpu) const;
  bool task_hot(const Task* p, sc_time now) const;
  bool new_task_wake_ = false;  // wake_up_new_task: no wake balancing (sched_fork placed it)
  void migration_thread(int cpu);
  void migrate_task_now(Task* p, int src, int dest);  // __migrate_task
  void active_load_balance(Runqueue& busiest, int push_cpu);
  TaskInfo task_info(const Task& t) const;

  Flavour flavour_;  // before p_, which it resolves
  KernelParams p_;
  std::vector<CpuOps*> cpus_;
  std::vector<PerCpu> pcpu_;
  std::vector<Runqueue> rq_;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::vector<std::pair<uint64_t, std::shared_ptr<void>>> to_free_;  // delta cycle, object
  std::unordered_map<const sc_core::sc_object*, Task*> by_thread_;
  // current()'s cache of by_thread_, by process address: the CPUs' threads alternate, and
  // each kernel function asks several times. Only a lookup: no result depends on it.
  std::array<std::pair<const sc_core::sc_object*, Task*>, 16> current_cache_{};
  Task& current_slow(const sc_core::sc_object* obj);  // a miss in current_cache_
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::unique_ptr<BlockLayer> block_;
  std::unique_ptr<Workqueue> events_;  // keventd: events/N (slab_reap only here)
  std::unique_ptr<Slab> slab_;
  std::unique_ptr<NetStack> net_;
  std::unique_ptr<NetDriver> nic_;
  std::unique_ptr<Es1371Driver> snd_;
  std::vector<std::unique_ptr<UhciHcd>> uhci_;
  std::unique_ptr<ReiserFs> fs_;
  std::unique_ptr<Ext3> ext3_;
  uint32_t io_apic_routed_ = (1u << 0) | (1u << 14);  // set up by setup_io_apic
  IrqDesc irq_desc_[NR_IRQS];
  std::function<void()> softirq_vec_[NR_SOFTIRQS];
  std::vector<TimerList> timers_;    // per-CPU timer bases (tvec_bases)
  std::deque<Spinlock> timer_lock_;  // each base's own lock (DEFINE_PER_CPU tvec_bases)
  // The lock of `cpu`'s timer base: its own on 2.6, 2.4's global timerlist_lock.
  Spinlock& timer_base_lock(int cpu) {
    return timer_lock_[flavour_.per_cpu_tvec_bases ? size_t(cpu) : 0];
  }
  LatencyTracer tracer_;
  Rng rng_;
  int next_pid_ = 300;
  uint64_t jiffies_ = 0;
  // Globals the timer interrupt writes and every CPU reads (MESI keys; 2.6.9's
  // jiffies_64; xtime, wall_jiffies and the NTP state; timer_tsc.c's last_tsc_low,
  // delay_at_last_interrupt and monotonic_base).
  struct {
    char jiffies, xtime, timer_tsc;
  } time_lines_;
  uint64_t last_tsc_ = 0;  // mark_offset_tsc: TSC at the last tick
  uint64_t lost_in_a_row_ = 0;
  double last_delay_us_ = 0;  // delay_at_last_interrupt
  Spinlock monotonic_lock_{"monotonic_lock"};
  TimeStats tstats_;
  SoftirqStats sstats_;
  Spinlock i8253_lock_{"i8253_lock"};
  Spinlock ioapic_lock_{"ioapic_lock"};
  Spinlock xtime_lock_{"xtime_lock"};
  std::vector<std::string> dmesg_;
  bool booted_ = false;
  std::vector<std::unique_ptr<AccountedCpu>> acct_;  // wrap cpus_: CPU time per class
  std::unique_ptr<KernelBlame> blame_;               // while tracing: the blame ledger
  CpuClass cpu_class(int c) const;
  sc_core::sc_event boot_done_;
  // TLB shootdown state (smp.c: flush_cpumask, flush_mm, tlbstate_lock)
  int next_mm_ = 1;
  std::unordered_map<int, uint32_t> mm_cpumask_;  // mm->cpu_vm_mask
  // Keys standing for an mm_struct's lines in the L2 and MESI models: its pgd line and
  // the line holding cpu_vm_mask and context (2.6.9 mm_struct: after saved_auxv).
  struct MmLines {
    char pgd = 0, cpu_vm_mask = 0;
  };
  std::unordered_map<int, MmLines> mm_lines_;
  uint32_t flush_cpumask_ = 0;
  int flush_mm_ = 0;
  Spinlock tlbstate_lock_{"tlbstate_lock"};
  SpinWait tlb_ack_;
  TlbStats tlb_stats_;
  KernelObserver* obs_ = nullptr;
  // flavours, locks, hrtimers
  void lock_acquired(Spinlock& l);
  void lock_released(Spinlock& l);
  void unregister_lock(Spinlock& l);
  bool sleeping_lock(const Spinlock& l) const;
  void rt_spin_lock(Spinlock& l, const char* parent);
  void rt_spin_unlock(Spinlock& l, const CodeSite& site);
  void set_task_prio(Task* p, int prio);
  void release_kernel_lock(Task* prev);
  void reacquire_kernel_lock(Task* t);
  void hrtimer_program(int cpu);
  void hrtimer_interrupt(const char* parent);
  void run_hrtimer_softirq();
  void tick_sched_timer(int cpu);
  void tick_setup_sched_timer(int cpu);
  void ktimersoftd(int cpu);
  int select_task_rq_rt(Task* p, int cpu);
  // rcu/rcupreempt.cpp, rcu/rcupreempt_boost.cpp
  std::unique_ptr<RcuState> rcu_;
  void rcu_init();
  void rcu_check_callbacks(int cpu);
  void rcu_try_flip();
  void rcu_advance_callbacks(RcuCpu& rdp);
  void rcu_process_callbacks();
  void rcu_trace(RcuCpu& rdp, const char* parent);  // an RCU_TRACE_*() counter increment
  void rcu_preempt_boost();                         // schedule(): a reader scheduled out
  void rcu_preempt_unboost();                       // the outermost rcu_read_unlock
  void rcu_boost_task(Task* t);
  void rcu_boost_readers();
  void rcu_unboost_readers();
  void rcu_trace_boost(RcuCpu& rdp, const char* marker, const char* parent);
  void krcupreemptd();
  std::vector<Spinlock*> locks_;
  Spinlock kernel_flag_{"kernel_flag", true};
  const char* bkl_cause_ = "BKL";
  // preempt-stats: the cause and call site of the next preempt-count raise (the
  // lock macro's __FILE__/__LINE__); consumed by add_preempt_count.
  std::unique_ptr<PreemptStats> pstats_;
  int pstats_cause_ = CAUSE_SPIN_LOCK;
  CodeSite pstats_site_;
  bool pstats_pending_ = false;
  const char* irq_lock_caller_ = nullptr;  // spin_lock_irq's caller, for __spin_lock_irqsave
  const char* bkl_caller_ = "lock_kernel";
  void latency_site(int cause, const CodeSite& site) {
    pstats_cause_ = cause;
    pstats_site_ = site;
    pstats_pending_ = true;
  }
  // A board without an IO-APIC (kernel_params io_apic = false): irq/i8259.cpp.
  bool pic_mode() const { return !p_.io_apic && !p_.mpc52xx_pic; }
  void init_8259A_irqs();
  void set_8259A_mask(unsigned irq, bool mask, const char* parent);
  void mask_and_ack_8259A(unsigned irq, const char* parent);
  uint16_t cached_irq_mask_ = 0xffff;
  Spinlock i8259A_lock_{"i8259A_lock"};
  void goodness_walk(Runqueue& rq, bool recalculate);
  std::vector<HrtimerQueue> hrtimer_q_;
  std::unique_ptr<Spinlock[]> hrtimer_lock_;
  uint64_t hrtimer_seq_ = 0;
};

}  // namespace latsim::kernel
