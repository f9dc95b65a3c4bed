#include "kernel_sim/workloads/kernel_build.h"
#include <algorithm>
#include <memory>

namespace latsim::kernel {

void KernelBuild::start(Kernel& k) {
  make_ = k.create_task(
      "make", [this, &k] { make(k); }, Policy::Normal, 0);
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
  // do_fork -> copy_process -> dup_mmap -> copy_page_range under page_table_lock.
  k.fn("sys_fork", "syscall_call", 200, 2);
  k.fn("do_fork", "sys_fork", 4000, 20);
  k.spin_lock(page_table_lock_, "copy_page_range");
  const uint64_t ptes = 600;  // make's mapped pages
  k.fn("copy_page_range", "dup_mmap", 20 * ptes, 8, ptes / 8);
  k.spin_unlock(page_table_lock_, {"copy_page_range", "unlock"});
  // dup_mmap: make's PTEs are now copy-on-write; CPUs that still hold its mm flush.
  k.flush_tlb_mm(k.current().mm, "dup_mmap");
  running_++;
  auto rng = std::make_shared<Rng>(k.params().seed, name_ + "/cc1/" + std::to_string(spawned_++));
  k.create_task(
      "cc1", [this, &k, rng] { cc1(k, *rng); }, Policy::Normal, 0);
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
  k.fn("clear_page_tables", "exit_mmap", 400 * pt_pages, 4, 4 * pt_pages);
  k.flush_tlb_mm(mm, "exit_mmap");  // tlb_finish_mmu: IPIs to CPUs still holding the mm
  k.fn("free_pages_and_swap_cache", "exit_mmap", 100 * pt_pages, 4, pt_pages);
  k.spin_unlock(page_table_lock_, {"exit_mmap", "unlock"});
}

void KernelBuild::cc1(Kernel& k, Rng& rng) {
  const double mhz = k.this_cpu().mhz();
  k.fn("sys_execve", "syscall_call", 300, 4);
  k.fn("do_execve", "sys_execve", 60000, 40, 300);  // load the binary, set up the mm (~1 ms class)
  const int ms = int(rng.uniform(p_.compile_s_min, p_.compile_s_max) * 1000);
  for (int i = 0; i < ms; ++i) {
    k.user_exec(uint64_t(mhz * 1000), uint64_t(p_.user_misses_per_ms));
    if (i % 4 == 0) {  // a page fault on fresh heap: clear_page
      k.fn("do_page_fault", "error_code", 300, 3);
      k.fn("do_anonymous_page", "handle_mm_fault", 200, 2);
      k.might_sleep("clear_user_highpage");
      k.fn("clear_page", "do_anonymous_page", 1100, 2, 128);
    }
    if (i % 16 == 0) {  // read a header from the page cache
      k.fn("sys_read", "syscall_call", 200, 2);
      k.fn("__copy_to_user_ll", "file_read_actor", 4400, 4, 64);
    }
  }
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
