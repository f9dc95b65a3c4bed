#pragma once
// `make -jN` of a kernel tree: per object, kbuild's command under /bin/sh -c (gcc, which
// runs cc1 and as; fixdep, rm, mv). cc1 reads its .c file and the headers it includes
// (cold on first touch, page-cache hits after), computes in user mode and faults pages
// in; as writes the .o. Every process execs and exits (kbuild_command.cpp).
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include "kernel_sim/block/block_layer.h"
#include "workloads/program.h"

namespace latsim::workloads {

// The tree's sizes, as remembered for linux-2.6.9 (~6.2 M lines in ~16,500 files:
// ~7,700 .c and ~7,100 .h); all are assumptions, named in the workload's YAML keys.
struct KernelBuildParams {
  int jobs = 2;
  double compile_s_min = 0.2, compile_s_max = 1.2;  // assumption: cc1 CPU time per file
  int rss_mb = 12;                                  // assumption: cc1 resident set
  int user_misses_per_ms = 1500;  // assumption: gcc-class L2 miss rate, ~2 per 1000 instructions
  int source_files = 2500;        // assumption: .c files a distribution config compiles
  double c_kb = 16;               // assumption: mean .c size (~560 lines of ~28 bytes)
  int header_files = 1500;        // assumption: include/linux, asm-i386, net, scsi, ... touched
  int common_headers = 100;       // assumption: every unit's #include closure (kernel.h, sched.h)
  int headers_per_unit = 200;     // assumption: headers one cc1 opens (fixdep's .cmd lists)
  double header_kb = 6;           // assumption: mean header size (~210 lines)
  double o_kb = 20;               // assumption: mean .o size, -O2 without -g
  double parse_fraction = 0.3;    // assumption: share of cc1's time spent reading #includes
  int commit_interval_s = 5;      // ext3 data=ordered: JBD_DEFAULT_MAX_COMMIT_AGE; 0: no kjournald
  uint64_t tree_lba = 2000000;    // assumption: the source tree sits ~1 GB into hda
  // The run starts this many files into the build: the page cache already holds the
  // headers those units read (0: a cold tree, the build's first seconds).
  int first_unit = 0;
  // make's command per object: kbuild's (sh -c: gcc -pipe -> cc1, as; fixdep; rm; mv), or
  // cc1 alone (vforked by make, writing the .o itself), a counterfactual.
  bool kbuild_command = true;
  // The tree's ext3 mount: atime (2004's default: every read(2) or mmap of a header or
  // source updates its inode, a journalled metadata block) or noatime, a counterfactual.
  bool atime = true;
};

struct KernelBuildStats {
  uint64_t bytes_read = 0, bytes_written = 0;  // read(2) of sources and headers; write(2) of .o
  uint64_t files_read = 0;                     // .c and header opens
  uint64_t cold_files = 0;                     // of those, files touched for the first time
  uint64_t cold_bytes = 0;                     // the size of those
  uint64_t pgds = 0;                           // pgd_cache objects made (its slab's growth)
  uint64_t forks = 0, vforks = 0, execs = 0, exits = 0;  // the command's processes
  uint64_t pipe_pages = 0;                               // cc1's assembly, as read it
  uint64_t preload_draws = 0;  // headers looked at to fill the page cache before the run
  uint64_t cmd_files = 0;      // .cmd files fixdep wrote
  uint64_t links = 0;          // built-in.o files ld -r wrote
};

// A program of kbuild's command: what it maps (torn down at exit) and how long it runs in
// user mode after exec (ld.so's relocations and its own start).
struct BuildProgram {
  const char* comm;
  uint64_t pages;      // mapped
  uint64_t pte_pages;  // the 4 MiB regions they lie in
  double user_ms;
};

class KernelBuild : public Program {
 public:
  KernelBuild(std::string name, const KernelBuildParams& p) : name_(std::move(name)), p_(p) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override;
  uint64_t compiles() const { return done_; }
  const KernelBuildStats& stats() const { return s_; }
  const KernelBuildParams& params() const { return p_; }
  size_t live_mms() const { return mms_.size(); }  // address spaces not yet torn down
  nlohmann::json metrics(Kernel& k, double sim_s) const override;

 private:
  struct Unit {
    uint64_t lba = 0, pages = 0;  // the .c file on disk
  };
  // Inode numbers on the tree's ext3 (fs/ext3.h): untarred in order after the reserved
  // ones, headers first, then sources; the build's new files after those. A unit's
  // directory holds kUnitsPerDir sources (assumption) and their objects.
  static constexpr uint64_t kFirstIno = 12, kUnitsPerDir = 20;
  uint64_t header_ino(size_t h) const { return kFirstIno + h; }
  uint64_t unit_ino(uint64_t u) const { return kFirstIno + headers_.size() + u; }
  static uint64_t dir_of(uint64_t unit) { return unit / kUnitsPerDir; }
  uint64_t new_ino() { return next_ino_++; }
  static constexpr int kAsmPageMs = 10;  // assumption: cc1 emits a page of assembly per 10 ms
  // gcc -pipe: cc1 writes its assembly into a pipe (one page, PIPE_SIZE in 2.6.9), as
  // reads it.
  struct Pipe {
    uint64_t written = 0, read = 0;  // pages
    bool closed = false;             // cc1 has exited
    Task* reader = nullptr;          // as
    Task* writer = nullptr;          // cc1
  };
  struct Job {                     // one object's command
    uint64_t unit;                 // the .c file
    Rng rng;                       // its draws: #includes, cc1's time, the .o's size
    std::vector<size_t> includes;  // its #include closure (cc1 reads it, fixdep greps it)
    Pipe pipe;
    uint64_t d_ino = 0, tmp_ino = 0;  // its .d (gcc -Wp,-MD) and .o.tmp (fixdep's output)
  };
  void make(Kernel& k);
  void start_job(Kernel& k);
  void object_done(uint64_t unit);
  void start_link(Kernel& k);  // ld -r of the first directory in links_due_
  void shell(Kernel& k, const std::shared_ptr<Job>& job, Spinlock& lock);
  void gcc(Kernel& k, const std::shared_ptr<Job>& job, Spinlock& copy);
  void cc1(Kernel& k, Job& job);
  void as(Kernel& k, Job& job);
  void finish_object(Kernel& k, Job& job, int cc1_ms);  // command: cc1
  void fixdep(Kernel& k, Job& job, Spinlock& copy);
  // kbuild_command.cpp: the processes' lives (kernel/fork.c, fs/exec.c, kernel/exit.c).
  // spawn: fork (`fork_from`: the parent's page_table_lock; dup_mmap copies the shell's
  // VMAs into the child's, `copy`) or vfork (null: the child borrows the parent's mm and
  // the parent sleeps until it has exec'd); returns the flag the child's exit sets.
  std::shared_ptr<bool> spawn(Kernel& k, Spinlock* fork_from,
                              const std::function<void(Spinlock* copy)>& child);
  // spawn, then wait4 for the child.
  void fork_and_wait(Kernel& k, Spinlock* fork_from,
                     const std::function<void(Spinlock* copy)>& child);
  void pipe_write(Kernel& k, Pipe& pipe);  // one page of cc1's assembly
  bool pipe_read(Kernel& k, Pipe& pipe);   // one page for as; false at EOF
  void dup_mmap(Kernel& k, Spinlock& parent, Spinlock& child);
  // sys_execve: returns the new mm's page_table_lock; `copy` is the forked mm it drops.
  Spinlock& exec(Kernel& k, const BuildProgram& prog, Spinlock* copy);
  void exit_group(Kernel& k, const BuildProgram& prog, Spinlock& lock);
  void user_ms(Kernel& k, double ms);  // user mode at the build's miss rate
  // mmput -> exit_mmap of address space `mm` (`pages` mapped in `pt_pages` PTE pages).
  void exit_mmap(Kernel& k, int mm, Spinlock& lock, uint64_t pages, uint64_t pt_pages);
  // mm_init: a new mm's page_table_lock (which names the mm here) and its pgd (pgd_alloc).
  Spinlock& new_mm(Kernel& k);
  void free_mm(Kernel& k, Spinlock& lock);  // mmdrop: the pgd back to the slab, the mm freed
  // Sleep (TASK_INTERRUPTIBLE) in `where` until `ready`; the waker calls wake().
  void wait_until(Kernel& k, const std::function<bool()>& ready, const char* where);
  void wake(Kernel& k, Task* t, const char* where);
  // A vfork child's parent and the flag exec sets (mm_release: complete(vfork_done)).
  std::unordered_map<const Task*, std::pair<std::shared_ptr<bool>, Task*>> vfork_done_;
  void layout_tree(Kernel& k);
  // A unit's #include closure: headers [0, common), then `drawn` from [pool_start, end).
  struct Includes {
    size_t common = 0, drawn = 0, pool_start = 0;
  };
  Includes include_shape() const;
  size_t draw_include(Rng& rng, const Includes& inc) const;
  std::vector<size_t> includes_of(Rng& rng) const;
  void cache_read_headers(Kernel& k);      // first_unit: the earlier units' headers
  bool cache_header(Kernel& k, size_t h);  // false: cached already
  void read_file(Kernel& k, FileId f, uint64_t ino, bool& touched);
  void update_atime(Kernel& k, uint64_t ino);
  // A new file of `pages` in the unit's directory, written page by page through stdio.
  // Returns its file.
  FileId write_new_file(Kernel& k, uint64_t unit, uint64_t ino, uint64_t pages);
  void write_object(Kernel& k, Job& job);
  void write_depfile(Kernel& k, Job& job);   // cc1's .d (gcc -Wp,-MD)
  void write_cmd_file(Kernel& k, Job& job);  // fixdep's output, the shell's > .o.tmp
  std::string name_;
  KernelBuildParams p_;
  int running_ = 0;
  uint64_t done_ = 0, spawned_ = 0;
  // A live address space: its page_table_lock (which names it here) and its pgd.
  struct Mm {
    Spinlock page_table_lock{"mm->page_table_lock"};
    const void* pgd = nullptr;
  };
  std::unordered_map<const Spinlock*, std::unique_ptr<Mm>> mms_;  // freed at exit_mmap
  // pgd_cache: a freed pgd goes back to its CPU's slab array, and the next pgd_alloc there
  // takes it (LIFO), its lines as warm as its last walk left them.
  std::deque<char> pgds_;                            // one key per pgd object
  std::vector<std::vector<const void*>> free_pgds_;  // per CPU
  KernelBuildStats s_;
  std::vector<Unit> units_;
  std::vector<FileId> headers_;       // the block layer's file of each header
  std::vector<bool> header_touched_;  // opened by an earlier unit
  std::vector<FileId> sources_;       // opened .c files (0: not yet)
  uint64_t obj_lba_ = 0;              // where the next .o is allocated
  uint64_t next_ino_ = 0;             // the next new inode
  struct Dir {                        // a source directory's objects in this run
    uint64_t done = 0;
    std::vector<std::pair<FileId, uint64_t>> objects;  // file, inode
  };
  std::map<uint64_t, Dir> dirs_;
  std::deque<uint64_t> links_due_;  // directories whose objects are all written
};

}  // namespace latsim::workloads
