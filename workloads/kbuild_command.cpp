// kbuild's command for one object (2.6.9 scripts/Makefile.build, rule_cc_o_c) and the
// lives of its processes: make vforks `sh -c`, the shell forks gcc (which vforks cc1 and
// as), fixdep, rm and mv, and waits for each; every process execs and exits
// (kernel/fork.c, fs/exec.c, kernel/exit.c, mm/mmap.c's exit_mmap).
#include <algorithm>
#include <iterator>
#include "kernel_sim/fs/ext3.h"
#include "workloads/kernel_build.h"

namespace latsim::workloads {
namespace {
constexpr uint64_t kUserPtrsPerPgd = 768;  // include/asm-i386/pgtable.h: TASK_SIZE / PGDIR_SIZE

// The shell's address space, the one a command copies: make and gcc start their children
// with vfork() (GNU make's job.c, libiberty's pexecute), bash with fork(). Its VMAs in
// address order and the 4 MiB PTE page each lies in (assumption: bash 2.05b on glibc 2.3;
// 0x08048000: text, data, heap; 0x40000000: ld.so's text and data, libc's text, data and
// bss; under 0xc0000000: the stack).
struct Vma {
  int pte_page;
  uint64_t pages;
};
constexpr Vma kShVmas[] = {{0, 150}, {0, 5}, {0, 60}, {1, 21}, {1, 1},
                           {1, 120}, {1, 4}, {1, 2},  {2, 8}};
constexpr uint64_t sh_pages() {
  uint64_t n = 0;
  for (const Vma& v : kShVmas) n += v.pages;
  return n;
}

// The command's programs (assumptions, i386 glibc 2.3 dynamic executables: pages mapped,
// user time after exec). as's own time is a share of cc1's (kAsShare), page by page.
constexpr BuildProgram kSh{"sh", sh_pages(), 3, 1.0};
constexpr BuildProgram kGcc{"gcc", 150, 3, 2.0};
constexpr BuildProgram kAs{"as", 512, 3, 1.0};
constexpr BuildProgram kFixdep{"fixdep", 80, 3, 0.5};
constexpr BuildProgram kRm{"rm", 60, 3, 0.3};
constexpr BuildProgram kMv{"mv", 60, 3, 0.3};
constexpr BuildProgram kLd{"ld", 400, 3, 2.0};
constexpr double kLdMsPerMb = 20;  // assumption: ld -r relocates and copies ~50 MB/s
constexpr double kAsShare = 0.05;  // assumption: as assembles cc1's output in 5 % of its time
static_assert(kShVmas[std::size(kShVmas) - 1].pte_page + 1 == int(kSh.pte_pages));
}  // namespace

// make starts each command with vfork(): the child borrows make's mm and make sleeps
// until it has exec'd /bin/sh, then goes on; it reaps the shell in wait4 (make()).
void KernelBuild::start_job(Kernel& k) {
  running_++;
  const uint64_t unit = units_.empty() ? 0 : spawned_ % units_.size();
  auto job = std::make_shared<Job>(
      Job{unit, Rng(k.params().seed, name_ + "/cc1/" + std::to_string(spawned_++)), {}, {}});
  job->includes = includes_of(job->rng);
  LATSIM_DEBUG(workloads, k.log_who(), "{}: job {} compiles unit {}, {} running", name_,
               spawned_ - 1, unit, running_);
  spawn(k, nullptr, [this, &k, job](Spinlock*) {
    if (p_.kbuild_command)
      shell(k, job, exec(k, kSh, nullptr));
    else
      cc1(k, *job);
    done_++;
    running_--;
    object_done(job->unit);
  });
}

// The directory's last object is written: its built-in.o can be linked.
void KernelBuild::object_done(uint64_t unit) {
  const uint64_t dir = dir_of(unit);
  const uint64_t first = std::max<uint64_t>(dir * kUnitsPerDir, uint64_t(p_.first_unit));
  const uint64_t last = std::min<uint64_t>((dir + 1) * kUnitsPerDir, units_.size());
  if (++dirs_[dir].done == last - first) links_due_.push_back(dir);
}

// scripts/Makefile.build's built-in.o rule: make vforks ld -r, which reads the directory's
// objects (page-cache hits: just written) and writes their sections as one object
// (assumption: the sum of their sizes; the parent directories' own links of these
// built-in.o files are not modelled).
void KernelBuild::start_link(Kernel& k) {
  running_++;
  const uint64_t dir = links_due_.front();
  links_due_.pop_front();
  LATSIM_DEBUG(workloads, k.log_who(), "{}: links directory {}", name_, dir);
  spawn(k, nullptr, [this, &k, dir](Spinlock*) {
    Spinlock& lock = exec(k, kLd, nullptr);
    Dir& d = dirs_[dir];
    uint64_t pages = 0;
    for (const auto& [f, ino] : d.objects) {
      bool touched = true;
      read_file(k, f, ino, touched);
      pages += k.block().file_pages(f);
    }
    user_ms(k, double(pages) * 4096 / 1e6 * kLdMsPerMb);
    write_new_file(k, dir * kUnitsPerDir, new_ino(), pages);
    s_.links++;
    exit_group(k, kLd, lock);
    running_--;
  });
}

// gcc ...; fixdep ... > .o.tmp; rm -f .d; mv -f .o.tmp .o.cmd: each forked and waited for.
void KernelBuild::shell(Kernel& k, const std::shared_ptr<Job>& job, Spinlock& lock) {
  fork_and_wait(k, &lock, [this, &k, job](Spinlock* copy) { gcc(k, job, *copy); });
  fork_and_wait(k, &lock, [this, &k, job](Spinlock* copy) { fixdep(k, *job, *copy); });
  fork_and_wait(k, &lock, [this, &k, job](Spinlock* copy) {
    Spinlock& own = exec(k, kRm, copy);
    k.fn("sys_unlink", "syscall_call", 1500, 10);  // the .d
    k.ext3().unlink(dir_of(job->unit), job->d_ino, "vfs_unlink");
    exit_group(k, kRm, own);
  });
  fork_and_wait(k, &lock, [this, &k, job](Spinlock* copy) {
    Spinlock& own = exec(k, kMv, copy);
    k.fn("sys_rename", "syscall_call", 2000, 12);  // .o.tmp -> .o.cmd
    k.ext3().rename(dir_of(job->unit), "vfs_rename");
    exit_group(k, kMv, own);
  });
  exit_group(k, kSh, lock);
}

// The driver vforks cc1 and as (-pipe, the kernel's i386 CFLAGS: cc1's output goes to as
// through a pipe), then waits for both.
void KernelBuild::gcc(Kernel& k, const std::shared_ptr<Job>& job, Spinlock& copy) {
  Spinlock& lock = exec(k, kGcc, &copy);
  const auto cc1_done = spawn(k, nullptr, [this, &k, job](Spinlock*) { cc1(k, *job); });
  const auto as_done = spawn(k, nullptr, [this, &k, job](Spinlock*) { as(k, *job); });
  wait_until(
      k, [cc1_done, as_done] { return *cc1_done && *as_done; }, "sys_wait4");
  k.forget(&job->pipe, sizeof(Pipe));  // free_pipe_info: both ends are closed
  exit_group(k, kGcc, lock);
}

// as assembles each page of cc1's output as it comes (kAsShare of the cc1 time that made
// it), then writes the .o.
void KernelBuild::as(Kernel& k, Job& job) {
  Spinlock& lock = exec(k, kAs, nullptr);
  job.pipe.reader = &k.current();
  while (pipe_read(k, job.pipe)) user_ms(k, kAsmPageMs * kAsShare);
  write_object(k, job);
  exit_group(k, kAs, lock);
}

// Without as (command: cc1): cc1 assembles its own output and writes the .o.
void KernelBuild::finish_object(Kernel& k, Job& job, int cc1_ms) {
  user_ms(k, cc1_ms * kAsShare);
  write_object(k, job);
}

// pipe_writev (fs/pipe.c): wait while the page is full, copy, wake the reader
// (wake_up_interruptible_sync).
void KernelBuild::pipe_write(Kernel& k, Pipe& pipe) {
  k.fn("sys_write", "syscall_call", 200, 2);
  pipe.writer = &k.current();
  wait_until(
      k, [&pipe] { return pipe.written == pipe.read; }, "pipe_writev");
  k.fn("pipe_writev", "vfs_write", 300, 3);
  // cc1's page (just written, cached) into the pipe's page: its lines are written here, so
  // a reader on the other CPU fetches them from this one's cache.
  k.fn("__copy_from_user_ll", "pipe_writev", 40 + 4096 / 4, 2,
       k.line_fills(&pipe, 4096 / 32, true));
  pipe.written++;
  if (pipe.reader) wake(k, pipe.reader, "pipe_writev");
}

bool KernelBuild::pipe_read(Kernel& k, Pipe& pipe) {
  k.fn("sys_read", "syscall_call", 200, 2);
  wait_until(
      k, [&pipe] { return pipe.read < pipe.written || pipe.closed; }, "pipe_readv");
  k.fn("pipe_readv", "vfs_read", 300, 3);
  if (pipe.read == pipe.written) return false;  // EOF: the writer is gone
  // The page was written on the writer's CPU: its lines come over from that cache (MESI).
  k.fn("__copy_to_user_ll", "pipe_readv", 40 + 4096 / 4, 2, k.line_fills(&pipe, 4096 / 32, false));
  pipe.read++;
  s_.pipe_pages++;
  if (pipe.writer) wake(k, pipe.writer, "pipe_readv");
  return true;
}

// scripts/basic/fixdep: maps every header the .d lists and greps it for CONFIG_ (a byte
// at a time, so every line of it is read); they are page-cache hits by now, and each
// mmap updates the header's atime. Its output goes to the .o.tmp.
void KernelBuild::fixdep(Kernel& k, Job& job, Spinlock& copy) {
  Spinlock& lock = exec(k, kFixdep, &copy);
  for (size_t h : job.includes) {
    k.fn("sys_open", "syscall_call", 300, 3);
    k.fn("do_mmap_pgoff", "sys_mmap2", 800, 6);
    update_atime(k, header_ino(h));  // generic_file_mmap: file_accessed
    const uint64_t pages = k.block().file_pages(headers_[h]);
    for (uint64_t p = 0; p < pages; ++p) {
      k.fn("do_page_fault", "error_code", 300, 3);
      k.block().fault_page(headers_[h], p);
      k.user_exec(4096, 4096 / 32);
    }
    k.fn("sys_munmap", "syscall_call", 600, 6);
  }
  write_cmd_file(k, job);
  exit_group(k, kFixdep, lock);
}

std::shared_ptr<bool> KernelBuild::spawn(Kernel& k, Spinlock* fork_from,
                                         const std::function<void(Spinlock* copy)>& child) {
  const char* call = fork_from ? "sys_fork" : "sys_vfork";
  k.fn(call, "syscall_call", 200, 2);
  k.fn("do_fork", call, 4000, 20);
  (fork_from ? s_.forks : s_.vforks)++;
  Spinlock* copy = nullptr;
  if (fork_from) {
    copy = &new_mm(k);  // copy_mm -> mm_init
    dup_mmap(k, *fork_from, *copy);
  }
  auto exited = std::make_shared<bool>(false);
  auto execd = fork_from ? nullptr : std::make_shared<bool>(false);
  Task* parent = &k.current();
  const int mm = parent->mm;
  k.create_task(
      parent->comm,
      [this, &k, child, copy, exited, execd, parent, mm] {
        k.current().reaped = true;  // its parent waits for it
        if (execd) {                // CLONE_VM | CLONE_VFORK
          k.current().mm = mm;
          vfork_done_[&k.current()] = {execd, parent};
        }
        child(copy);
        k.current().on_exit = [this, &k, exited, parent] {
          *exited = true;
          wake(k, parent, "do_notify_parent");
        };
      },
      Policy::Normal, 0);
  if (execd)
    wait_until(
        k, [execd] { return *execd; }, "wait_for_completion");
  return exited;
}

void KernelBuild::fork_and_wait(Kernel& k, Spinlock* fork_from,
                                const std::function<void(Spinlock* copy)>& child) {
  const auto exited = spawn(k, fork_from, child);
  wait_until(
      k, [exited] { return *exited; }, "sys_wait4");
}

// kernel/fork.c dup_mmap: per VMA, the child's vm_area_struct, then its PTEs copied under
// the child's page_table_lock (copy_page_range takes the parent's per PTE page).
void KernelBuild::dup_mmap(Kernel& k, Spinlock& parent, Spinlock& child) {
  int pte_page = -1;
  for (const Vma& v : kShVmas) {
    k.fn("kmem_cache_alloc", "dup_mmap", 100, 2);
    k.spin_lock(child, "dup_mmap");
    k.fn("copy_page_range", "dup_mmap", 100, 4);
    if (v.pte_page != pte_page) {
      // pte_alloc_map: the child's PTE page is allocated (and zeroed) with its lock
      // dropped (mm/memory.c); the VMAs after it in the same 4 MiB share it.
      pte_page = v.pte_page;
      k.spin_unlock(child, {"pte_alloc_map", "unlock"});
      k.fn("pte_alloc_one", "pte_alloc_map", 100, 2);
      k.kmap_atomic("clear_highpage");  // the new PTE page is zeroed under kmap_atomic
      if (!k.mmx_clear_page("clear_highpage")) k.fn("clear_page", "clear_highpage", 1000, 0, 128);
      k.kunmap_atomic("clear_highpage");
      k.spin_lock(child, "pte_alloc_map");
    }
    k.spin_lock(parent, "copy_page_range");
    for (uint64_t done = 0; done < v.pages; done += 8) {
      const uint64_t n = std::min<uint64_t>(8, v.pages - done);
      k.exec(20 * n, 1);  // a line of the parent's PTEs (8 to a line), copied and write-protected
      // VP (-P4 on): if (voluntary_need_resched()) drop the parent's lock, cond_resched_lock
      // the child's, retake, remap: a waiting task ends the section between PTEs.
      if (k.params().voluntary_preemption && k.current().need_resched && done + n < v.pages) {
        k.spin_unlock(parent, {"copy_page_range", "unlock"});
        k.cond_resched_lock(child, "copy_page_range");
        k.spin_lock(parent, "copy_page_range");
      }
    }
    k.spin_unlock(parent, {"copy_page_range", "unlock"});
    k.cond_resched_lock(child, "copy_page_range");  // after each PTE page
    k.spin_unlock(child, {"dup_mmap", "unlock"});
  }
  // The parent's PTEs are now copy-on-write; CPUs that still hold its mm flush.
  k.flush_tlb_mm(k.current().mm, "dup_mmap");
}

Spinlock& KernelBuild::exec(Kernel& k, const BuildProgram& prog, Spinlock* copy) {
  k.fn("sys_execve", "syscall_call", 300, 4);
  k.fn("do_execve", "sys_execve", 60000, 40, 300);  // load the binary, set up the mm (~1 ms class)
  s_.execs++;
  // flush_old_exec -> exec_mmap: the new mm goes in, then the old one is let go: a fork's
  // copy is torn down (mmput -> exit_mmap: its PTEs zapped, its pgd walked), a vfork's
  // borrowed mm stays its parent's.
  Spinlock& lock = new_mm(k);  // bprm->mm, made by do_execve before the swap
  const int old = k.current().mm;
  k.activate_mm(k.mm_alloc());
  k.current().comm = prog.comm;
  if (auto v = vfork_done_.find(&k.current()); v != vfork_done_.end()) {
    *v->second.first = true;  // mm_release: complete(vfork_done), the parent goes on
    wake(k, v->second.second, "complete");
    vfork_done_.erase(v);
  }
  if (copy) exit_mmap(k, old, *copy, kSh.pages, kSh.pte_pages);
  user_ms(k, prog.user_ms);
  return lock;
}

void KernelBuild::exit_group(Kernel& k, const BuildProgram& prog, Spinlock& lock) {
  k.fn("sys_exit_group", "syscall_call", 200, 2);
  k.fn("do_exit", "do_group_exit", 2000, 20);
  s_.exits++;
  // exit_mm: tsk->mm = NULL, the CPU keeps the page tables lazily until the flush.
  const int mm = k.current().mm;
  k.current().mm = 0;
  exit_mmap(k, mm, lock, prog.pages, prog.pte_pages);
}

void KernelBuild::user_ms(Kernel& k, double ms) {
  if (ms <= 0) return;
  k.user_exec(uint64_t(k.this_cpu().mhz() * 1000 * ms), uint64_t(p_.user_misses_per_ms * ms));
}

void KernelBuild::exit_mmap(Kernel& k, int mm, Spinlock& lock, uint64_t pages, uint64_t pt_pages) {
  // unmap_vmas zaps PTEs ZAP_BLOCK_SIZE at a time, with cond_resched_lock between
  // blocks (mm/memory.c: 8 pages with CONFIG_PREEMPT, else 1024); clear_page_tables
  // frees the page-table pages with the lock held throughout.
  const uint64_t zap = k.params().kernel_preemption ? 8 : 1024;
  k.fn("exit_mmap", "mmput", 200, 2);
  // Per page: 25 cycles, and a PTE line per 8 pages plus the struct pages' lines
  // (3 misses per 16 pages, an assumption).
  for (uint64_t done = 0; done < pages; done += zap) {
    const uint64_t n = std::min(zap, pages - done);
    const uint64_t misses = (done + n) * 3 / 16 - done * 3 / 16;
    k.spin_lock(lock, "cond_resched_lock");
    k.fn("unmap_vmas", "exit_mmap", n * 25, 8, misses);
    k.spin_unlock(lock, {"cond_resched_lock", "lock"});
    k.cond_resched("cond_resched_lock");
  }
  k.spin_lock(lock, "exit_mmap");
  // clear_page_tables(tlb, FIRST_USER_PGD_NR, USER_PTRS_PER_PGD): every one of the 768
  // user pgd entries is read (3 KB, 96 lines); a present one is cleared and its PTE page
  // gathered. The lines of the present entries were read by the page walker while the
  // task ran; the empty ones' were last read by this pgd's previous walk (pgd_cache keeps
  // them zero), so they are in this CPU's L2 only if that was here and recent enough.
  const uint64_t pgd_lines = kUserPtrsPerPgd * 4 / 32;
  const void* pgd = mms_.at(&lock)->pgd;
  k.fn("clear_page_tables", "exit_mmap", kUserPtrsPerPgd * 4 + 40 * pt_pages, pt_pages,
       k.line_fills(pgd, pgd_lines - std::min(pgd_lines, pt_pages), false));
  k.flush_tlb_mm(mm, "exit_mmap");  // tlb_finish_mmu: IPIs to CPUs still holding the mm
  k.fn("free_pages_and_swap_cache", "exit_mmap", 100 * pt_pages, 4, pt_pages);
  k.spin_unlock(lock, {"exit_mmap", "unlock"});
  free_mm(k, lock);
}

Spinlock& KernelBuild::new_mm(Kernel& k) {
  auto mm = std::make_unique<Mm>();
  if (free_pgds_.empty()) free_pgds_.resize(size_t(k.ncpus()));
  auto& free = free_pgds_[size_t(k.smp_processor_id())];
  if (free.empty()) {
    mm->pgd = &pgds_.emplace_back();  // a new slab object
    s_.pgds++;
  } else {
    mm->pgd = free.back();
    free.pop_back();
  }
  Spinlock& lock = mm->page_table_lock;
  mms_.emplace(&lock, std::move(mm));
  return lock;
}

// mmdrop -> pgd_free: the pgd back to this CPU's slab array; the mm (its lock) is freed.
void KernelBuild::free_mm(Kernel& k, Spinlock& lock) {
  const auto it = mms_.find(&lock);
  free_pgds_[size_t(k.smp_processor_id())].push_back(it->second->pgd);
  k.destroy_lock(lock);
  k.free_after_delta(std::shared_ptr<Mm>(std::move(it->second)));
  mms_.erase(it);
}

void KernelBuild::wait_until(Kernel& k, const std::function<bool()>& ready, const char* where) {
  while (!ready()) {
    k.set_current_state(TASK_INTERRUPTIBLE);
    if (!ready()) k.schedule(where);
    k.set_current_state(TASK_RUNNING);
  }
}

// Wakes `t` if it sleeps (a wait queue holds only sleepers; a task that has run on, or
// exited, is not on it).
void KernelBuild::wake(Kernel& k, Task* t, const char* where) {
  if (t->state == TASK_INTERRUPTIBLE || t->state == TASK_UNINTERRUPTIBLE)
    k.try_to_wake_up(t, where);
}

}  // namespace latsim::workloads
