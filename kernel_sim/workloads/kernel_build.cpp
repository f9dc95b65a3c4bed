#include "kernel_sim/workloads/kernel_build.h"
#include <algorithm>
#include <cmath>
#include <memory>

namespace latsim::kernel {
namespace {
constexpr uint64_t kUserPtrsPerPgd = 768;  // include/asm-i386/pgtable.h: TASK_SIZE / PGDIR_SIZE

// make's address space, 600 mapped pages (assumption: GNU make 3.80 on glibc 2.3, a
// sub-make's dependency data in its brk heap): the VMAs in address order and which
// 4 MiB PTE page each lies in (0x08048000: text, data, heap; 0x40000000: ld.so's text
// and data, libc's text, data and bss; under 0xc0000000: the stack).
struct MakeVma {
  int pte_page;
  uint64_t pages;
};
constexpr MakeVma kMakeVmas[] = {{0, 36},  {0, 2}, {0, 406}, {1, 21}, {1, 1},
                                 {1, 120}, {1, 4}, {1, 2},   {2, 8}};

// A file size drawn from an exponential distribution of mean `kb` (assumption: many
// small files, a few large), in whole pages.
uint64_t draw_pages(Rng& rng, double kb) {
  const double bytes = rng.exponential(kb * 1024.0);
  return std::max<uint64_t>(1, uint64_t(std::ceil(bytes / 4096.0)));
}
}  // namespace

void KernelBuild::start(Kernel& k) {
  layout_tree(k);
  make_ = k.create_task(
      "make", [this, &k] { make(k); }, Policy::Normal, 0);
  k.block().start_pdflush();
  k.block().start_kjournald(uint64_t(p_.commit_interval_s) * uint64_t(k.params().hz));
}

// The tree as untarred in order: include/ first, then the .c files in the order make
// compiles them, each file in whole 4 KiB blocks after the previous one; the objects
// are allocated after the sources as they are written.
void KernelBuild::layout_tree(Kernel& k) {
  Rng rng(k.params().seed, name_ + "/tree");
  uint64_t lba = p_.tree_lba;
  for (int h = 0; h < p_.header_files; ++h) {
    const uint64_t pages = draw_pages(rng, p_.header_kb);
    headers_.push_back(k.block().create_file(pages, lba));
    lba += pages * 8;
  }
  header_touched_.assign(headers_.size(), false);
  for (int u = 0; u < p_.source_files; ++u) {
    const uint64_t pages = draw_pages(rng, p_.c_kb);
    units_.push_back({lba, pages});
    lba += pages * 8;
  }
  sources_.assign(units_.size(), 0);
  obj_lba_ = lba;
  // A build under way: the earlier units' cc1s (the same draws) read these headers.
  for (int u = 0; u < p_.first_unit; ++u) {
    Rng unit_rng(k.params().seed, name_ + "/cc1/" + std::to_string(u));
    for (size_t h : includes_of(unit_rng)) {
      if (header_touched_[h]) continue;
      header_touched_[h] = true;
      k.block().prefill(headers_[h]);
    }
  }
  spawned_ = uint64_t(std::max(p_.first_unit, 0));
}

// The #include closure: the common headers, then ones of this unit's subsystem.
std::vector<size_t> KernelBuild::includes_of(Rng& rng) const {
  std::vector<size_t> includes;
  const size_t nh = headers_.size();
  const size_t common = std::min<size_t>(size_t(std::max(p_.common_headers, 0)), nh);
  for (size_t h = 0; h < common && includes.size() < size_t(p_.headers_per_unit); ++h)
    includes.push_back(h);
  while (nh > common && includes.size() < size_t(p_.headers_per_unit))
    includes.push_back(common + size_t(rng.below(nh - common)));
  return includes;
}

void KernelBuild::make(Kernel& k) {
  for (;;) {
    while (running_ < p_.jobs) fork_child(k);
    // wait4(): sleep until a child exits.
    k.set_current_state(TASK_INTERRUPTIBLE);
    if (running_ >= p_.jobs) k.schedule("sys_wait4");
    k.set_current_state(TASK_RUNNING);
    k.user_exec(200000, 40);  // make reads its dependency state
  }
}

void KernelBuild::fork_child(Kernel& k) {
  k.fn("sys_fork", "syscall_call", 200, 2);
  k.fn("do_fork", "sys_fork", 4000, 20);
  // kernel/fork.c dup_mmap: per VMA, the child's vm_area_struct, then its PTEs copied
  // under the child's page_table_lock (copy_page_range takes make's per PTE page).
  int pte_page = -1;
  for (const MakeVma& v : kMakeVmas) {
    k.fn("kmem_cache_alloc", "dup_mmap", 100, 2);
    k.spin_lock(child_page_table_lock_, "dup_mmap");
    k.fn("copy_page_range", "dup_mmap", 100, 4);
    if (v.pte_page != pte_page) {
      // pte_alloc_map: the child's PTE page is allocated (and zeroed) with its lock
      // dropped (mm/memory.c); the VMAs after it in the same 4 MiB share it.
      pte_page = v.pte_page;
      k.spin_unlock(child_page_table_lock_, {"pte_alloc_map", "unlock"});
      k.fn("pte_alloc_one", "pte_alloc_map", 1100, 2, 128);
      k.spin_lock(child_page_table_lock_, "pte_alloc_map");
    }
    k.spin_lock(page_table_lock_, "copy_page_range");
    for (uint64_t done = 0; done < v.pages; done += 8) {
      const uint64_t n = std::min<uint64_t>(8, v.pages - done);
      k.exec(20 * n, 1);  // a line of make's PTEs (8 to a line), copied and write-protected
      // VP (-P4 on): if (voluntary_need_resched()) drop make's lock, cond_resched_lock
      // the child's, retake, remap: a waiting task ends the section between PTEs.
      if (k.params().voluntary_preemption && k.current().need_resched && done + n < v.pages) {
        k.spin_unlock(page_table_lock_, {"copy_page_range", "unlock"});
        k.cond_resched_lock(child_page_table_lock_, "copy_page_range");
        k.spin_lock(page_table_lock_, "copy_page_range");
      }
    }
    k.spin_unlock(page_table_lock_, {"copy_page_range", "unlock"});
    k.cond_resched_lock(child_page_table_lock_, "copy_page_range");  // after each PTE page
    k.spin_unlock(child_page_table_lock_, {"dup_mmap", "unlock"});
  }
  // dup_mmap: make's PTEs are now copy-on-write; CPUs that still hold its mm flush.
  k.flush_tlb_mm(k.current().mm, "dup_mmap");
  running_++;
  const uint64_t unit = units_.empty() ? 0 : spawned_ % units_.size();
  auto rng = std::make_shared<Rng>(k.params().seed, name_ + "/cc1/" + std::to_string(spawned_++));
  k.create_task(
      "cc1", [this, &k, rng, unit] { cc1(k, *rng, unit); }, Policy::Normal, 0);
}

void KernelBuild::exit_mmap(Kernel& k) {
  // unmap_vmas zaps PTEs ZAP_BLOCK_SIZE at a time, with cond_resched_lock between
  // blocks (mm/memory.c: 8 pages with CONFIG_PREEMPT, else 1024); clear_page_tables
  // frees the page-table pages with the lock held throughout.
  const uint64_t pages = uint64_t(p_.rss_mb) * 256;
  const uint64_t zap = k.params().kernel_preemption ? 8 : 1024;
  // exit_mm: tsk->mm = NULL, the CPU keeps the page tables lazily until the flush.
  const int mm = k.current().mm;
  k.current().mm = 0;
  k.fn("exit_mmap", "mmput", 200, 2);
  // Per page: 25 cycles, and a PTE line per 8 pages plus the struct pages' lines
  // (3 misses per 16 pages, an assumption).
  for (uint64_t done = 0; done < pages; done += zap) {
    const uint64_t n = std::min(zap, pages - done);
    const uint64_t misses = (done + n) * 3 / 16 - done * 3 / 16;
    k.spin_lock(page_table_lock_, "cond_resched_lock");
    k.fn("unmap_vmas", "exit_mmap", n * 25, 8, misses);
    k.spin_unlock(page_table_lock_, {"cond_resched_lock", "lock"});
    k.cond_resched("cond_resched_lock");
  }
  k.spin_lock(page_table_lock_, "exit_mmap");
  const uint64_t pt_pages = pages / 1024 + 4;
  // clear_page_tables(tlb, FIRST_USER_PGD_NR, USER_PTRS_PER_PGD): every one of the 768
  // user pgd entries is read (3 KB, 96 lines); a present one is cleared and its PTE page
  // gathered. The lines of the empty entries were last touched when the pgd was cleared
  // for its previous owner (pgd_cache keeps them zero), so they come from DRAM; the lines
  // of the present entries were read by the page walker while the task ran.
  const uint64_t pgd_lines = kUserPtrsPerPgd * 4 / 32;
  k.fn("clear_page_tables", "exit_mmap", kUserPtrsPerPgd * 4 + 40 * pt_pages, pt_pages,
       pgd_lines - std::min(pgd_lines, pt_pages));
  k.flush_tlb_mm(mm, "exit_mmap");  // tlb_finish_mmu: IPIs to CPUs still holding the mm
  k.fn("free_pages_and_swap_cache", "exit_mmap", 100 * pt_pages, 4, pt_pages);
  k.spin_unlock(page_table_lock_, {"exit_mmap", "unlock"});
}

// open(2) and one read(2) of the whole file (cpplib's read_file_guts reads st_size):
// do_generic_mapping_read page by page, with the file's own read-ahead.
void KernelBuild::read_file(Kernel& k, FileId f, bool& touched) {
  k.fn("sys_open", "syscall_call", 300, 3);
  k.fn("link_path_walk", "open_namei", 600, 6);  // the dentries stay cached
  k.fn("sys_read", "syscall_call", 200, 2);
  k.fn("vfs_read", "sys_read", 120, 1);
  const uint64_t pages = k.block().file_pages(f);
  for (uint64_t p = 0; p < pages; ++p) {
    k.block().read_page(f, p, "do_generic_mapping_read");
    s_.bytes_read += 4096;
    k.cond_resched("do_generic_mapping_read");
  }
  s_.files_read++;
  if (!touched) s_.cold_files++, s_.cold_bytes += pages * 4096;
  touched = true;
}

// as writes the .o through stdio, a 4 KiB buffer (st_blksize) per write(2); ext3
// allocates its blocks after the previous object's.
void KernelBuild::write_object(Kernel& k, Rng& rng) {
  const uint64_t pages = draw_pages(rng, p_.o_kb);
  k.fn("sys_open", "syscall_call", 300, 3);
  k.fn("ext3_create", "vfs_create", 1500, 10);
  const FileId f = k.block().create_file(pages, obj_lba_);
  obj_lba_ += pages * 8;
  for (uint64_t p = 0; p < pages; ++p) {
    k.user_exec(4000, 8);  // as fills the stdio buffer
    k.fn("sys_write", "syscall_call", 300, 2);
    k.block().write_page(f, p, "generic_file_write");
    s_.bytes_written += 4096;
  }
}

void KernelBuild::cc1(Kernel& k, Rng& rng, uint64_t unit) {
  const double mhz = k.this_cpu().mhz();
  k.fn("sys_execve", "syscall_call", 300, 4);
  k.fn("do_execve", "sys_execve", 60000, 40, 300);  // load the binary, set up the mm (~1 ms class)
  const std::vector<size_t> includes = includes_of(rng);
  if (!units_.empty()) {  // the .c file itself
    if (!sources_[unit])
      sources_[unit] = k.block().create_file(units_[unit].pages, units_[unit].lba);
    bool touched = false;
    read_file(k, sources_[unit], touched);
  }
  const int ms = int(rng.uniform(p_.compile_s_min, p_.compile_s_max) * 1000);
  const int parse_ms = std::max(1, int(ms * p_.parse_fraction));
  size_t next = 0;
  for (int i = 0; i < ms; ++i) {
    k.user_exec(uint64_t(mhz * 1000), uint64_t(p_.user_misses_per_ms));
    if (i % 4 == 0) {  // a page fault on fresh heap: clear_page
      k.fn("do_page_fault", "error_code", 300, 3);
      k.fn("do_anonymous_page", "handle_mm_fault", 200, 2);
      k.might_sleep("clear_user_highpage");
      k.fn("clear_page", "do_anonymous_page", 1100, 2, 128);
    }
    // The parser reaches the next #include: the headers spread over its first part.
    while (next < includes.size() &&
           uint64_t(next) * uint64_t(parse_ms) <= uint64_t(i) * uint64_t(includes.size())) {
      const size_t h = includes[next++];
      bool touched = header_touched_[h];
      read_file(k, headers_[h], touched);
      header_touched_[h] = touched;
    }
  }
  write_object(k, rng);
  k.fn("sys_exit_group", "syscall_call", 200, 2);
  k.fn("do_exit", "do_group_exit", 2000, 20);
  exit_mmap(k);
  done_++;
  running_--;
  k.current().on_exit = [this, &k] {
    if (make_->state != TASK_RUNNING) k.try_to_wake_up(make_, "do_notify_parent");
  };
}

}  // namespace latsim::kernel
