// kernel.flavour resolved once (kernel_sim/flavour.h): every field of every flavour,
// pinned as one line each, and the names the schema accepts.
#include "kernel_sim/flavour.h"
#include "kernel_sim/kernel_params.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace latsim::kernel {
namespace {

const char* preemption_name(Preemption p) {
  switch (p) {
    case Preemption::LowLatency:
      return "lowlatency";
    case Preemption::Preempt:
      return "preempt";
    case Preemption::Voluntary:
      return "voluntary";
    case Preemption::Rt:
      return "rt";
  }
  return "?";
}

std::string switch_text(int v) { return v == PreemptSwitches::kSettable ? "-" : std::to_string(v); }

// The flavour's fields as one line; a field that changes shows in the diff.
std::string fields(const std::string& name) {
  const Flavour& f = resolve_flavour(name);
  const PreemptSwitches& s = f.switches;
  return fmt::format(
      "{} {} vanilla={:d} switches={}{}{}{} o1={:d} cond_resched={:d} rq_rt={:d} "
      "tvec_bases={:d} hres={:d} ktimersoftd={:d} timer_ack={:d} hardirqs={:d} irq_prio={} "
      "per_chain={:d} rt_full={:d} kmap={:d} cache_reap={:d} {}/{} alsa={:d} uhci_hcd={:d} "
      "preempt_times={:d} realtime={:d} sirq_prio={} preempt_rcu={:d} rcu_boost={:d} "
      "rcu_markers={:d}",
      f.release, preemption_name(f.preemption), f.vanilla, switch_text(s.voluntary),
      switch_text(s.kernel), switch_text(s.softirq), switch_text(s.hardirq), f.o1_scheduler,
      f.cond_resched, f.select_task_rq_rt, f.per_cpu_tvec_bases, f.high_res_timers, f.ktimersoftd,
      f.timer_ack, f.preempt_hardirqs, f.irq_thread_prio, f.irq_flags_per_chain, f.preempt_rt_full,
      f.kmap_atomic_inc_preempt, f.cache_reap, f.elevator, f.plugging, f.snd_ens1371, f.uhci_hcd,
      f.preempt_times, f.sys_kernel_realtime, f.softirq_thread_prio, f.preempt_rcu, f.rcu_boost,
      f.rcu_trace_markers);
}

TEST(Flavour, NamesInTheOrderTheSchemaListsThem) {
  EXPECT_EQ(flavour_names(),
            (std::vector<std::string>{"2.6.9-vp", "2.6.9", "2.4.20-lowlatency", "2.4.10-preempt",
                                      "rt", "2.6.24-rt", "2.6.25-rt"}));
  for (const Flavour& f : flavours()) EXPECT_EQ(resolve_flavour(f.name).name, f.name);
}

TEST(Flavour, VoluntaryPreempt269) {
  EXPECT_EQ(fields("2.6.9-vp"),
            "2.6.9-rc1-VP-R1 voluntary vanilla=0 switches=---- o1=1 cond_resched=1 rq_rt=0 "
            "tvec_bases=1 hres=0 ktimersoftd=0 timer_ack=1 hardirqs=1 irq_prio=49 per_chain=1 "
            "rt_full=0 kmap=1 cache_reap=1 anticipatory/timer alsa=1 uhci_hcd=1 "
            "preempt_times=0 realtime=0 sirq_prio=0 preempt_rcu=0 rcu_boost=0 rcu_markers=0");
}

TEST(Flavour, Vanilla269) {
  EXPECT_EQ(fields("2.6.9"),
            "2.6.9 preempt vanilla=1 switches=0-00 o1=1 cond_resched=1 rq_rt=0 "
            "tvec_bases=1 hres=0 ktimersoftd=0 timer_ack=1 hardirqs=0 irq_prio=49 per_chain=1 "
            "rt_full=0 kmap=1 cache_reap=1 anticipatory/timer alsa=1 uhci_hcd=1 "
            "preempt_times=0 realtime=0 sirq_prio=0 preempt_rcu=0 rcu_boost=0 rcu_markers=0");
}

TEST(Flavour, LowLatency2420) {
  EXPECT_EQ(fields("2.4.20-lowlatency"),
            "2.4.20-lowlatency lowlatency vanilla=0 switches=0000 o1=0 cond_resched=0 rq_rt=0 "
            "tvec_bases=0 hres=0 ktimersoftd=0 timer_ack=1 hardirqs=0 irq_prio=49 per_chain=0 "
            "rt_full=0 kmap=0 cache_reap=0 noop/inline alsa=0 uhci_hcd=0 "
            "preempt_times=0 realtime=0 sirq_prio=0 preempt_rcu=0 rcu_boost=0 rcu_markers=0");
}

TEST(Flavour, PreemptPatch2410) {
  EXPECT_EQ(fields("2.4.10-preempt"),
            "2.4.10-preempt preempt vanilla=0 switches=0100 o1=0 cond_resched=0 rq_rt=0 "
            "tvec_bases=0 hres=0 ktimersoftd=0 timer_ack=1 hardirqs=0 irq_prio=49 per_chain=0 "
            "rt_full=0 kmap=0 cache_reap=0 noop/inline alsa=0 uhci_hcd=0 "
            "preempt_times=1 realtime=0 sirq_prio=0 preempt_rcu=0 rcu_boost=0 rcu_markers=0");
}

TEST(Flavour, PreemptRt) {
  EXPECT_EQ(fields("rt"),
            "4.1.30-rt34 rt vanilla=0 switches=0111 o1=1 cond_resched=1 rq_rt=1 "
            "tvec_bases=1 hres=1 ktimersoftd=1 timer_ack=0 hardirqs=1 irq_prio=50 per_chain=1 "
            "rt_full=1 kmap=1 cache_reap=1 noop/inline alsa=1 uhci_hcd=1 "
            "preempt_times=0 realtime=1 sirq_prio=0 preempt_rcu=0 rcu_boost=0 rcu_markers=0");
}

TEST(Flavour, PreemptRt2624WithPreemptibleRcuBoost) {
  EXPECT_EQ(fields("2.6.24-rt"),
            "2.6.24.4-rt4 rt vanilla=0 switches=0111 o1=1 cond_resched=1 rq_rt=1 "
            "tvec_bases=1 hres=1 ktimersoftd=1 timer_ack=0 hardirqs=1 irq_prio=50 per_chain=1 "
            "rt_full=1 kmap=1 cache_reap=1 noop/inline alsa=1 uhci_hcd=1 "
            "preempt_times=0 realtime=1 sirq_prio=50 preempt_rcu=1 rcu_boost=1 rcu_markers=1");
}

TEST(Flavour, PreemptRt2625CountsBoostEventsDirectly) {
  EXPECT_EQ(fields("2.6.25-rt"),
            "2.6.25.8-rt7 rt vanilla=0 switches=0111 o1=1 cond_resched=1 rq_rt=1 "
            "tvec_bases=1 hres=1 ktimersoftd=1 timer_ack=0 hardirqs=1 irq_prio=50 per_chain=1 "
            "rt_full=1 kmap=1 cache_reap=1 noop/inline alsa=1 uhci_hcd=1 "
            "preempt_times=0 realtime=1 sirq_prio=50 preempt_rcu=1 rcu_boost=1 rcu_markers=0");
}

// The knobs a flavour decides: `auto` and the mechanisms its kernel lacks.
TEST(Flavour, ResolvesAutoAndSwitchesOffWhatTheKernelLacks) {
  const KernelParams vp = with_flavour(KernelParams{}, resolve_flavour("2.6.9-vp"));
  EXPECT_EQ(vp.block.elevator + "/" + vp.block.plugging, "anticipatory/timer");
  EXPECT_TRUE(vp.pcm_write_timeout && vp.slab_reap && vp.timer_ack);
  const KernelParams ll = with_flavour(KernelParams{}, resolve_flavour("2.4.20-lowlatency"));
  EXPECT_EQ(ll.block.elevator + "/" + ll.block.plugging, "noop/inline");
  EXPECT_FALSE(ll.pcm_write_timeout || ll.slab_reap);
  EXPECT_TRUE(ll.timer_ack);
  KernelParams chosen;
  chosen.block.elevator = "anticipatory";
  chosen.block.plugging = "timer";
  const KernelParams rt = with_flavour(chosen, resolve_flavour("rt"));
  EXPECT_EQ(rt.block.elevator + "/" + rt.block.plugging, "anticipatory/timer");
  EXPECT_FALSE(rt.timer_ack);
}

TEST(Flavour, AnUnknownNameIsRejected) {
  EXPECT_EQ(find_flavour("2.6.10"), nullptr);
  EXPECT_THROW(resolve_flavour("2.6.10"), std::invalid_argument);
  EXPECT_THROW(resolve_flavour(""), std::invalid_argument);
}

}  // namespace
}  // namespace latsim::kernel
