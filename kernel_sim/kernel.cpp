#include "kernel_sim/kernel.h"
#include <algorithm>
#include <stdexcept>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/drivers/net/fec_mpc52xx.h"
#include "kernel_sim/drivers/net/rtl8139.h"
#include "kernel_sim/drivers/sound/es1371.h"
#include "kernel_sim/drivers/usb/uhci_hcd.h"
#include "kernel_sim/fs/ext3.h"
#include "kernel_sim/fs/reiserfs.h"
#include "kernel_sim/mm/slab.h"
#include "kernel_sim/net/dev.h"
#include "kernel_sim/sched/workqueue.h"
#include "kernel_sim/trace/kernel_blame.h"

namespace latsim::kernel {

namespace {
LatencyTracerParams tracer_params(const KernelParams& p) {
  LatencyTracerParams t = p.trace;
  t.kernel_version = p.version;
  return t;
}

// smp_boot_cpus with maxcpus=N: only the first N CPUs get a Startup IPI; the others
// stay halted in hardware (no idle task, no APIC timer, no interrupts routed to them).
std::vector<CpuOps*> boot_cpus(std::vector<CpuOps*> cpus, int maxcpus) {
  if (maxcpus > 0 && cpus.size() > size_t(maxcpus)) cpus.resize(size_t(maxcpus));
  return cpus;
}
}  // namespace

Kernel::Kernel(const KernelParams& p, std::vector<CpuOps*> cpus)
    : flavour_(resolve_flavour(p.flavour)),
      p_(with_flavour(p, flavour_)),
      cpus_(boot_cpus(std::move(cpus), p.maxcpus)),
      pcpu_(cpus_.size()),
      rq_(cpus_.size()),
      timers_(cpus_.size()),
      tracer_(int(cpus_.size()), tracer_params(p)),
      rng_(p.seed, "kernel") {
  for (size_t i = 0; i < rq_.size(); ++i) rq_[i].cpu = int(i);
  hrtimer_q_.resize(cpus_.size());
  hrtimer_lock_.reset(new Spinlock[cpus_.size()]);
  // 2.6: each CPU's tvec_base has its own lock; 2.4: one timerlist_lock for the one wheel.
  for (size_t i = 0; i < (flavour_.per_cpu_tvec_bases ? cpus_.size() : 1); ++i)
    timer_lock_.emplace_back(flavour_.per_cpu_tvec_bases ? "base->lock" : "timerlist_lock");
  for (size_t i = 0; i < cpus_.size(); ++i) {
    acct_.push_back(std::make_unique<AccountedCpu>(
        *cpus_[i], [this, i] { return cpu_class(int(i)); },
        [this, i] { return pcpu_[i].last_fn; }));
    cpus_[i] = acct_.back().get();
  }
  if (p_.trace.enabled && p_.trace.blame) {
    blame_ = std::make_unique<KernelBlame>(*this, p_.trace.blame_journal);
    for (size_t i = 0; i < acct_.size(); ++i) acct_[i]->set_journal(&blame_->journal(int(i)));
    tracer_.set_blame(blame_.get());
  }
  block_ = std::make_unique<BlockLayer>(*this);
  if (p_.mpc52xx_pic) mpc52xx_pic_ = std::make_unique<Mpc52xxPic>(*this);
  if (flavour_.preempt_rcu) rcu_ = std::make_unique<RcuState>(p_.rcu, ncpus());
  if (flavour_.preempt_times)
    pstats_ = std::make_unique<PreemptStats>(
        ncpus(), sc_core::sc_time(p_.latencytimes_read_s, sc_core::SC_SEC));
}

Kernel::~Kernel() = default;

BlockLayer& Kernel::block() { return *block_; }

NetStack& Kernel::net() {
  if (!net_) net_ = std::make_unique<NetStack>(*this);
  return *net_;
}

NetDriver& Kernel::nic() {
  if (!nic_) {
    if (p_.fec)
      nic_ = std::make_unique<Mpc52xxFecDriver>(*this, net());
    else
      nic_ = std::make_unique<Rtl8139Driver>(*this, net());
    nic_->open();
  }
  return *nic_;
}

ReiserFs& Kernel::reiserfs() {
  if (!fs_) {
    fs_ = std::make_unique<ReiserFs>(*this, p_.reiserfs);
    fs_->mount();
  }
  return *fs_;
}

Ext3& Kernel::ext3() {
  if (!ext3_) ext3_ = std::make_unique<Ext3>(*this);
  return *ext3_;
}

Es1371Driver& Kernel::snd() {
  if (!snd_) {
    snd_ = std::make_unique<Es1371Driver>(*this);
    snd_->probe();
  }
  return *snd_;
}

// account_system_time(): hardirq, then softirq, then the idle task, else system.
CpuClass Kernel::cpu_class(int c) const {
  const Task* t = rq_[size_t(c)].curr;
  if (!t) return CpuClass::Idle;
  if (t->preempt_count & 0x00ff0000u) return CpuClass::Irq;
  if (t->preempt_count & 0x0000ff00u) return CpuClass::Softirq;
  if (t->in_user) return CpuClass::User;
  return t->is_idle ? CpuClass::Idle : CpuClass::System;
}

void Kernel::free_after_delta(std::shared_ptr<void> obj) {
  const uint64_t delta = sc_core::sc_delta_count();
  to_free_.erase(std::remove_if(to_free_.begin(), to_free_.end(),
                                [delta](const auto& f) { return f.first < delta; }),
                 to_free_.end());
  to_free_.emplace_back(delta, std::move(obj));
}

std::vector<const Spinlock*> Kernel::spinlocks() const {
  std::vector<const Spinlock*> v{&monotonic_lock_, &i8253_lock_, &ioapic_lock_, &xtime_lock_};
  for (const auto& l : timer_lock_) v.push_back(&l);
  for (const auto& rq : rq_) v.push_back(&rq.lock);
  for (const auto& d : irq_desc_) v.push_back(&d.lock);
  v.push_back(&block_->ide_lock());
  for (const auto& w : workloads_)
    for (const Spinlock* l : w->spinlocks()) v.push_back(l);
  return v;
}

void Kernel::printk(std::string line) {
  LATSIM_LOG(printk, info, log_who(), "{}", line);
  dmesg_.push_back(std::move(line));
}

std::string Kernel::log_who() {
  const Task& t = current();
  return fmt::format("cpu{} {}-{}", t.cpu, t.comm, t.pid);
}

Task& Kernel::current_slow(const sc_core::sc_object* obj) {
  auto& cached = current_cache_[(reinterpret_cast<uintptr_t>(obj) >> 6) % current_cache_.size()];
  auto it = by_thread_.find(obj);
  if (it == by_thread_.end()) throw std::logic_error("kernel code called outside a task thread");
  cached = {obj, it->second};
  return *it->second;
}

TaskInfo Kernel::task_info(const Task& t) const {
  TaskInfo i;
  i.comm = t.comm;
  i.pid = t.pid;
  i.nice = t.nice;
  i.policy = int(t.policy);
  i.rt_prio = t.rt_priority;
  return i;
}

void Kernel::boot() {
  // One idle task (swapper, pid 0) per CPU; CPU0's boots the machine.
  for (int c = 0; c < ncpus(); ++c) {
    auto t = std::make_unique<Task>();
    t->pid = 0;
    t->comm = "swapper";
    t->cpu = c;
    t->is_idle = true;
    t->prio = t->static_prio = MAX_PRIO;
    t->started = true;
    rq_[size_t(c)].idle = rq_[size_t(c)].curr = t.get();
    Task* raw = t.get();
    tasks_.push_back(std::move(t));
    sc_core::sc_spawn_options o;
    sc_core::sc_spawn(
        [this, raw, c] {
          by_thread_[sc_core::sc_get_current_process_b()] = raw;
          current_cache_.fill({});
          cpu_idle(c);
        },
        sc_core::sc_gen_unique_name(c == 0 ? "swapper_0" : "swapper_n"), &o);
  }
}

void Kernel::start_kernel() {
  // init_IRQ / time_init / setup_IO_APIC / setup_APIC_clocks, as on CPU0.
  if (p_.pit) setup_pit();
  if (pic_mode()) {
    init_8259A();
    init_8259A_irqs();
  } else if (mpc52xx_pic_) {
    mpc52xx_pic_->init_irq();  // ppc_md.init_IRQ
  } else {
    setup_io_apic();
  }
  setup_apic_timer();
  last_tsc_ = this_cpu().rdtsc();
  for (int c = 0; c < ncpus(); ++c) {
    next_pid_ = 2 + 2 * c;  // 2.6.9 SMP: migration/N and ksoftirqd/N are pids 2..5
    Task* m = create_task(
        "migration/" + std::to_string(c), [this, c] { migration_thread(c); }, Policy::Fifo,
        MAX_RT_PRIO - 1, c, 1u << c);
    m->mm = 0;  // a kernel thread
    rq_[size_t(c)].migration_thread = m;
    const std::string name = "ksoftirqd/" + std::to_string(c);
    // 2.6.24-rt's ksoftirqd/N is SCHED_FIFO (Flavour::softirq_thread_prio); else nice -10.
    const int sirq = flavour_.softirq_thread_prio;
    Task* t = create_task(
        name, [this, c] { ksoftirqd(c); }, sirq ? Policy::Fifo : Policy::Normal, sirq ? sirq : -10,
        c, 1u << c);
    t->mm = 0;  // a kernel thread
    pcpu_[size_t(c)].ksoftirqd = t;
  }
  next_pid_ = 2 + 2 * ncpus();
  if (flavour_.ktimersoftd) {
    // -rt: ktimersoftd/N runs TIMER_SOFTIRQ and HRTIMER_SOFTIRQ at SCHED_FIFO.
    for (int c = 0; c < ncpus(); ++c)
      pcpu_[size_t(c)].ktimersoftd = create_task(
          "ktimersoftd/" + std::to_string(c), [this, c] { ktimersoftd(c); }, Policy::Fifo,
          p_.timer_softirq_prio, c, 1u << c);
  }
  if (flavour_.high_res_timers) {
    open_softirq(HRTIMER_SOFTIRQ, [this] { run_hrtimer_softirq(); });
    tick_setup_sched_timer(0);
  }
  open_softirq(TIMER_SOFTIRQ, [this] { run_timer_softirq(); });
  if (rcu_) rcu_init();  // rcu_init_rt, rcu_preempt_boost_init: RCU_SOFTIRQ, krcupreemptd
  // arch/i386/mach-default/setup.c irq0: SA_INTERRUPT.
  if (p_.pit)
    request_irq(0, "timer", IRQF_DISABLED, [this] { timer_interrupt("generic_handle_IRQ_event"); });
  if (p_.slab_reap) {
    // init_workqueues: create_workqueue("events") before the initcalls (kblockd's among
    // them); cpucache_init then arms each CPU's cache_reap. Its only work here: no reap, none.
    events_ = std::make_unique<Workqueue>(*this, "events");
    slab_ = std::make_unique<Slab>(*this, *events_);
  }
  if (params().scsi_disk)
    block_->init_scsi();  // aic7xxx attach: sda on an AIC-7880
  else
    block_->init_ide();                   // ide-probe: hda on the primary channel, IRQ 14
  for (const uint16_t io : p_.uhci_io) {  // uhci_hcd_init: one HCD per controller found
    uhci_.push_back(std::make_unique<UhciHcd>(*this, io, p_.usb_irq));
    uhci_.back()->probe();
  }
  if (p_.rootfs == "reiserfs") reiserfs();
  next_pid_ = 300;
  for (auto& w : workloads_) w->start(*this);
  booted_ = true;
  local_time::sync();
  boot_done_.notify(sc_core::SC_ZERO_TIME);
}

void Kernel::start_secondary() {
  setup_apic_timer();
  if (flavour_.high_res_timers) tick_setup_sched_timer(smp_processor_id());
}

void Kernel::cpu_idle(int c) {
  if (c == 0) {
    start_kernel();
  } else {
    if (!booted_) sc_core::wait(boot_done_);
    start_secondary();
  }
  local_irq_enable({"cpu_idle"});
  for (;;) {
    // default_idle: halt with interrupts enabled until there is work.
    while (!current().need_resched) {
      per_cpu(smp_processor_id()).last_fn = "default_idle";
      this_cpu().hlt();
      if (this_cpu().interrupt_deliverable()) handle_interrupt();
    }
    schedule("cpu_idle");
  }
}

void Kernel::sys_pause() {
  for (;;) {
    set_current_state(TASK_INTERRUPTIBLE);
    schedule("sys_pause");
  }
}

}  // namespace latsim::kernel
