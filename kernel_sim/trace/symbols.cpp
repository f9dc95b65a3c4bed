#include "kernel_sim/trace/symbols.h"
#include <fmt/format.h>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace latsim::kernel {
namespace {

struct Point {
  const char* name;
  uint32_t offset;
};
struct Entry {
  uint32_t size;
  std::vector<Point> points;
};

// Sizes and lock/unlock offsets of a 2.6.9-rc1-bk4 i386 SMP build, taken from
// the seeds' traces where they show them (schedule+0x51/0x740, do_IRQ+0x19/0x1a0,
// rtl8139_poll+0x3c/0x160, ...) and otherwise plausible for the code's size.
const std::unordered_map<std::string_view, Entry>& table() {
  static const std::unordered_map<std::string_view, Entry> t = {
      {"schedule", {0x740, {{"lock", 0x51}, {"unlock", 0x337}}}},
      {"do_IRQ", {0x1a0, {{"irq_enter", 0x19}, {"irq_exit", 0x14d}}}},
      {"do_nmi", {0x90, {{"nmi_enter", 0x12}, {"nmi_exit", 0x7c}}}},
      {"smp_apic_timer_interrupt", {0x80, {{"irq_enter", 0x1d}, {"irq_exit", 0x6a}}}},
      {"smp_reschedule_interrupt", {0x20, {{"irq_enter", 0x6}, {"irq_exit", 0x14}}}},
      {"__spin_lock_irqsave", {0x90, {{"lock", 0x39}}}},
      {"spin_lock", {0x40, {{"lock", 0x11}}}},
      {"_spin_unlock", {0x20, {{"unlock", 0x12}}}},
      {"_spin_unlock_irq", {0x20, {{"unlock", 0x15}}}},
      {"_spin_unlock_irqrestore", {0x20, {{"unlock", 0x17}}}},
      {"preempt_schedule", {0x50, {{"lock", 0x1c}, {"unlock", 0x3b}}}},
      {"ksoftirqd", {0xd0, {{"lock", 0x4e}, {"unlock", 0x8a}}}},
      {"do_softirq", {0x60, {{"lock", 0x1f}, {"unlock", 0x4c}}}},
      {"__do_softirq", {0xb0, {{"lock", 0x21}, {"unlock", 0x93}}}},
      {"ide_do_request", {0x3c0, {{"lock", 0x2b}, {"unlock", 0x32e}}}},
      {"ide_intr", {0x1e0, {{"lock", 0x3e}, {"unlock", 0x1a1}}}},
      {"__make_request", {0x470, {{"lock", 0x8c}, {"unlock", 0x2f1}}}},
      {"generic_unplug_device", {0x50, {{"lock", 0x13}, {"unlock", 0x3d}}}},
      {"mark_offset_tsc", {0x2f0, {{"lock", 0x1b}, {"unlock", 0x1d9}}}},
      {"cond_resched_lock", {0x110, {{"lock", 0x6b}}}},
      {"exit_mmap", {0x1f0, {{"lock", 0x2a}, {"unlock", 0x155}}}},
      {"copy_page_range", {0x380, {{"lock", 0x33}, {"unlock", 0x2c1}}}},
      {"try_to_wake_up", {0x2a0, {{"lock", 0x2e}, {"unlock", 0x1f7}}}},
      {"scheduler_tick", {0x3b0, {{"lock", 0x91}, {"unlock", 0x2d4}}}},
      {"run_timer_softirq", {0x1b0, {{"lock", 0x2d}, {"unlock", 0x186}}}},
      {"generic_enable_irq", {0x90, {{"lock", 0x19}, {"unlock", 0x6f}}}},
      {"as_work_handler", {0xa0, {{"unlock", 0x5c}}}},
      {"kmap_atomic", {0xe0, {{"lock", 0x23}}}},
      {"kunmap_atomic", {0xa0, {{"unlock", 0x7b}}}},
      {"load_balance", {0x2f0, {{"lock", 0x47}, {"unlock", 0x281}}}},
      {"schedule_tail", {0x40, {{"unlock", 0x1e}}}},
      {"irq_thread", {0x140, {{"lock", 0x5a}, {"unlock", 0xd9}}}},
      {"do_page_fault", {0x3d0, {{"lock", 0x8e}, {"unlock", 0x241}}}},
      {"do_wp_page", {0x2d0, {{"lock", 0x4b}, {"unlock", 0x1e2}}}},
      {"rtl8139_poll", {0x160, {{"lock", 0x3c}, {"unlock", 0x100}}}},
      {"smp_invalidate_interrupt", {0xa0, {{"irq_enter", 0x6}, {"irq_exit", 0x8e}}}},
      {"flush_tlb_others", {0x100, {{"lock", 0x2a}, {"unlock", 0xe5}}}},
      {"flush_tlb_mm", {0x70, {{"lock", 0x9}, {"unlock", 0x5d}}}},
  };
  return t;
}

}  // namespace

uint32_t symbol_offset(const char* fn, const char* point) {
  auto it = table().find(fn);
  if (it == table().end()) return 0;
  for (const auto& p : it->second.points)
    if (std::strcmp(p.name, point) == 0) return p.offset;
  return 0;
}

uint32_t symbol_size(const char* fn) {
  auto it = table().find(fn);
  return it == table().end() ? 0x100 : it->second.size;
}

std::string format_site(const CodeSite& s) {
  return fmt::format("{}+{:#x}/{:#x}", s.fn, symbol_offset(s.fn, s.point), symbol_size(s.fn));
}

}  // namespace latsim::kernel
