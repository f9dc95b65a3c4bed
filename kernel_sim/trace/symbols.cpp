#include "kernel_sim/trace/symbols.h"
#include <fmt/format.h>
#include <algorithm>
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
      {"dup_mmap", {0x3b0, {{"lock", 0x1a4}, {"unlock", 0x23c}}}},
      {"pte_alloc_map", {0xc0, {{"lock", 0x8d}, {"unlock", 0x2f}}}},
      {"try_to_wake_up", {0x2a0, {{"lock", 0x2e}, {"unlock", 0x1f7}}}},
      {"scheduler_tick", {0x3b0, {{"lock", 0x91}, {"unlock", 0x2d4}}}},
      {"run_timer_softirq", {0x1b0, {{"lock", 0x2d}, {"unlock", 0x186}}}},
      {"generic_enable_irq", {0x90, {{"lock", 0x19}, {"unlock", 0x6f}}}},
      {"as_work_handler", {0xa0, {{"unlock", 0x5c}}}},
      {"kmap_atomic", {0xe0, {{"lock", 0x23}}}},
      {"generic_handle_IRQ_event", {0x90, {{"sti", 0x1d}, {"cli", 0x6b}}}},
      {"handle_IRQ_event", {0x80, {{"sti", 0x18}, {"cli", 0x5a}}}},
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

namespace latsim::kernel {
namespace {

struct SiteKey {
  std::string_view fn, point;
  bool operator==(const SiteKey& o) const { return fn == o.fn && point == o.point; }
};
struct SiteKeyHash {
  size_t operator()(const SiteKey& k) const {
    return std::hash<std::string_view>()(k.fn) * 31 + std::hash<std::string_view>()(k.point);
  }
};

// 2.4.10-pre12 + preempt-kernel + preempt-stats, i386 UP (seed 001). Lines and
// addresses the seed's tables show are used as shown (preempt_schedule 1375/1376,
// schedule 547/697, reiserfs_delete_inode 30/52, do_IRQ 585/647, buffer.c 2763);
// the others are assumptions, placed in the functions they name.
const std::unordered_map<SiteKey, SourceLine, SiteKeyHash>& source_table() {
  static const std::unordered_map<SiteKey, SourceLine, SiteKeyHash> t = {
      {{"preempt_schedule", "lock"}, {"sched.c", 1375, 0xc0114d94}},
      {{"preempt_schedule", "unlock"}, {"sched.c", 1381, 0xc0114dc9}},
      {{"schedule", "lock"}, {"sched.c", 547, 0xc0112fe4}},
      {{"schedule", "unlock"}, {"sched.c", 697, 0xc0113219}},
      {{"schedule", "reacquire_kernel_lock"}, {"sched.c", 694, 0xc0113204}},
      {{"task_rq_lock", "lock"}, {"sched.c", 366, 0xc0112a31}},
      {{"try_to_wake_up", "unlock"}, {"sched.c", 373, 0xc0112a7c}},
      {{"scheduler_tick", "lock"}, {"timer.c", 583, 0xc011d2b1}},
      {{"scheduler_tick", "unlock"}, {"timer.c", 606, 0xc011d33e}},
      {{"do_IRQ", "irq_enter"}, {"irq.c", 585, 0xc01084ef}},
      {{"do_IRQ", "irq_exit"}, {"irq.c", 647, 0xc01085e2}},
      {{"do_IRQ", "lock"}, {"irq.c", 590, 0xc0108507}},
      {{"do_IRQ", "unlock"}, {"irq.c", 625, 0xc010858a}},
      {{"smp_apic_timer_interrupt", "irq_enter"}, {"apic.c", 1063, 0xc0114521}},
      {{"smp_apic_timer_interrupt", "irq_exit"}, {"apic.c", 1070, 0xc011456e}},
      {{"do_softirq", "lock"}, {"softirq.c", 76, 0xc011a0a5}},
      {{"__do_softirq", "lock"}, {"softirq.c", 76, 0xc011a0a5}},
      {{"__do_softirq", "unlock"}, {"softirq.c", 117, 0xc011a16d}},
      {{"do_softirq", "unlock"}, {"softirq.c", 117, 0xc011a16d}},
      {{"run_timer_softirq", "lock"}, {"timer.c", 310, 0xc011cb2d}},
      {{"run_timer_softirq", "unlock"}, {"timer.c", 342, 0xc011cc06}},
      {{"mark_offset_tsc", "lock"}, {"time.c", 412, 0xc010c41b}},
      {{"mark_offset_tsc", "unlock"}, {"time.c", 440, 0xc010c5d9}},
      {{"reiserfs_delete_inode", "lock_kernel"}, {"inode.c", 30, 0xc016cdf1}},
      {{"reiserfs_delete_inode", "unlock_kernel"}, {"inode.c", 52, 0xc016ce8a}},
      {{"vfs_create", "lock_kernel"}, {"namei.c", 906, 0xc0145c7e}},
      {{"vfs_create", "unlock_kernel"}, {"namei.c", 910, 0xc0145cb5}},
      {{"vfs_unlink", "lock_kernel"}, {"namei.c", 1391, 0xc01467a3}},
      {{"vfs_unlink", "unlock_kernel"}, {"namei.c", 1401, 0xc01467f2}},
      {{"reiserfs_get_block", "lock_kernel"}, {"inode.c", 513, 0xc016d8c5}},
      {{"reiserfs_get_block", "unlock_kernel"}, {"inode.c", 701, 0xc016dd3c}},
      {{"sync_old_buffers", "lock_kernel"}, {"buffer.c", 2763, 0xc01410aa}},
      {{"sync_old_buffers", "unlock_kernel"}, {"buffer.c", 2767, 0xc01410d4}},
      {{"__make_request", "lock"}, {"ll_rw_blk.c", 845, 0xc01a01c4}},
      {{"__make_request", "unlock"}, {"ll_rw_blk.c", 977, 0xc01a04b2}},
      {{"ide_do_request", "lock"}, {"ide.c", 1455, 0xc01b2d2b}},
      {{"ide_do_request", "unlock"}, {"ide.c", 1530, 0xc01b2f2e}},
      {{"generic_unplug_device", "lock"}, {"ll_rw_blk.c", 378, 0xc019fa13}},
      {{"generic_unplug_device", "unlock"}, {"ll_rw_blk.c", 381, 0xc019fa3d}},
      {{"ide_intr", "lock"}, {"ide.c", 1716, 0xc01b343e}},
      {{"ide_intr", "unlock"}, {"ide.c", 1790, 0xc01b35a1}},
      // drivers/scsi (sda on an AIC-7880): lines and addresses are assumptions.
      {{"scsi_request_fn", "lock"}, {"scsi_lib.c", 1040, 0xc01c5a7e}},
      {{"scsi_request_fn", "unlock"}, {"scsi_lib.c", 1010, 0xc01c59f2}},
      {{"scsi_dispatch_cmd", "lock"}, {"scsi.c", 775, 0xc01c1c4d}},
      {{"scsi_dispatch_cmd", "unlock"}, {"scsi.c", 777, 0xc01c1c6b}},
      {{"ahc_linux_queue", "lock"}, {"aic7xxx_linux.c", 1425, 0xc01d3e31}},
      {{"ahc_linux_queue", "unlock"}, {"aic7xxx_linux.c", 1470, 0xc01d3f0a}},
      {{"ahc_linux_isr", "lock"}, {"aic7xxx_linux.c", 2172, 0xc01d5a19}},
      {{"ahc_linux_isr", "unlock"}, {"aic7xxx_linux.c", 2180, 0xc01d5a6c}},
      {{"ahc_linux_run_complete_queue", "lock"}, {"aic7xxx_linux.c", 2205, 0xc01d5ae3}},
      {{"ahc_linux_run_complete_queue", "unlock"}, {"aic7xxx_linux.c", 2230, 0xc01d5b6e}},
      {{"scsi_done", "lock"}, {"scsi.c", 1042, 0xc01c22b9}},
      {{"scsi_done", "unlock"}, {"scsi.c", 1049, 0xc01c22e4}},
      {{"scsi_bottom_half_handler", "lock"}, {"scsi.c", 1083, 0xc01c2333}},
      {{"scsi_bottom_half_handler", "unlock"}, {"scsi.c", 1088, 0xc01c235a}},
      {{"__scsi_end_request", "lock"}, {"scsi_lib.c", 420, 0xc01c4c1f}},
      {{"__scsi_end_request", "unlock"}, {"scsi_lib.c", 423, 0xc01c4c4a}},
      {{"scsi_queue_next_request", "lock"}, {"scsi_lib.c", 325, 0xc01c48b4}},
      {{"scsi_queue_next_request", "unlock"}, {"scsi_lib.c", 376, 0xc01c4a1c}},
  };
  return t;
}

}  // namespace

SourceLine source_line(const CodeSite& s) {
  auto it = source_table().find({s.fn, s.point});
  if (it != source_table().end()) return it->second;
  // Not in the table: the function's name for a file, line 0, and a text address
  // from an FNV-1a hash of the name (stable from run to run) plus the point's offset.
  uint32_t h = 2166136261u;
  for (const char* c = s.fn; *c; ++c) h = (h ^ uint8_t(*c)) * 16777619u;
  return {s.fn, 0, 0xc0100000u + (h & 0xffff0u) + symbol_offset(s.fn, s.point)};
}

std::vector<std::string> source_files() {
  std::vector<std::string> v;
  for (const auto& [site, where] : source_table()) v.emplace_back(where.file);
  std::sort(v.begin(), v.end());  // the map's order is not stable
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace latsim::kernel
