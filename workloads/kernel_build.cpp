#include "workloads/kernel_build.h"
#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include "kernel_sim/fs/ext3.h"
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {

using params::integer;
using params::number;
using P = KernelBuildParams;
constexpr int kMaxHeaders = 20000;  // a 4.x tree's .h files

params::Table<Config> kernel_build_keys() {
  return {
      name_key(),
      param(params::bind(integer("jobs", 1, 64, "", "make -j parallel jobs"), &P::jobs)),
      param(params::bind(integer("source_files", 0, 100000, "",
                                 ".c files compiled, in tree order (assumption: a 2.6.9 "
                                 "distribution config; 0: no source reads)"),
                         &P::source_files)),
      param(params::bind(
          number("c_kb", 1, 10000, "KiB", "mean .c size (assumption: 2.6.9, ~560 lines)"),
          &P::c_kb)),
      param(params::bind(integer("header_files", 0, kMaxHeaders, "",
                                 "headers in include/ a build touches (assumption; 0: no header "
                                 "reads; 2.6.9's tree has ~7,100 .h, a 4.x one ~20,000)"),
                         &P::header_files)),
      param(params::bind(integer("common_headers", 0, kMaxHeaders, "",
                                 "headers every unit includes (assumption: the kernel.h/sched.h "
                                 "closure)"),
                         &P::common_headers)),
      param(params::bind(integer("headers_per_unit", 0, kMaxHeaders, "",
                                 "headers one cc1 opens (assumption: fixdep's .cmd lists ~200)"),
                         &P::headers_per_unit)),
      // Every header's pages are laid out (and with first_unit, cached) before the run: the
      // tree's header volume, header_files x header_kb, bounds that work (640 MB at most;
      // 2.6.9's headers are ~40 MB).
      param(params::bind(
          number("header_kb", 1, 32, "KiB", "mean header size (assumption: 2.6.9's is ~6 KiB)"),
          &P::header_kb)),
      param(params::bind(
          number("o_kb", 1, 100000, "KiB", "mean .o size written by as (assumption)"), &P::o_kb)),
      param(params::bind(number("parse_fraction", 0, 1, "",
                                "share of a compile over which its #includes are read "
                                "(assumption)"),
                         &P::parse_fraction)),
      param(params::bind(
          integer("commit_interval_s", 0, 3600, "s",
                  "ext3 data=ordered: kjournald commits every N s, the dirty data pages "
                  "first, then the metadata into the log (JBD_DEFAULT_MAX_COMMIT_AGE "
                  "5); 0: no kjournald, only pdflush"),
          &P::commit_interval_s)),
      param(params::bind(integer("first_unit", 0, 100000, "",
                                 "the run starts this many files into the build, the headers they "
                                 "read already cached (0: a cold tree)"),
                         &P::first_unit)),
      param(params::bind(integer("l2_misses_per_ms", 0, 100000, "1/ms",
                                 "cc1's L2 misses per ms of user time: its evictions of kernel "
                                 "lines (assumption: gcc-class, ~2 per 1000 instructions)"),
                         &P::user_misses_per_ms)),
      param(params::bind_enum(
          params::choice("command", {"kbuild", "cc1"},
                         "what make runs per object: kbuild (vfork sh -c; the shell forks gcc, "
                         "which vforks cc1 and as over a pipe, then fixdep, rm and mv: eleven "
                         "address spaces torn down per object) or cc1 (make vforks cc1 alone, "
                         "which also writes the .o: one exit per object)"),
          &P::kbuild_command, {{true, "kbuild"}, {false, "cc1"}})),
      param(params::bind_enum(
          params::choice("mount", {"atime", "noatime"},
                         "the tree's ext3 mount: atime (2004's default: each read(2) or mmap "
                         "of a header or source dirties its inode, journalled at the next "
                         "commit) or noatime (reads leave inodes clean; a counterfactual)"),
          &P::atime, {{true, "atime"}, {false, "noatime"}})),
  };
}

const Registration kKernelBuild{
    {"kernel_build", "make -jN of a kernel tree: compiler processes, page cache and disk reads",
     kernel_build_keys(), [] { return P{}; },
     [](const Config& c, const Board&) {
       return std::make_unique<KernelBuild>(c.name, c.as<P>());
     }}};

// A file size drawn from an exponential distribution of mean `kb` (assumption: many
// small files, a few large), in whole pages.
uint64_t draw_pages(Rng& rng, double kb) {
  const double bytes = rng.exponential(kb * 1024.0);
  return std::max<uint64_t>(1, uint64_t(std::ceil(bytes / 4096.0)));
}
}  // namespace

void KernelBuild::start(Kernel& k) {
  layout_tree(k);
  k.create_task(
      "make", [this, &k] { make(k); }, Policy::Normal, 0);
  k.block().start_pdflush();
  k.ext3().start_kjournald(uint64_t(p_.commit_interval_s) * uint64_t(k.params().hz));
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
  next_ino_ = unit_ino(units_.size());
  cache_read_headers(k);
  spawned_ = uint64_t(std::max(p_.first_unit, 0));
}

// A build under way: the headers the earlier units' cc1s read (the same draws) are in
// the page cache, in the order they were first read. Once every header is, the units
// left change nothing: the work is bounded by the tree, not by first_unit.
void KernelBuild::cache_read_headers(Kernel& k) {
  if (p_.first_unit <= 0) return;
  const Includes inc = include_shape();
  for (size_t h = 0; h < inc.common; ++h) cache_header(k, h);
  size_t uncached = headers_.size() - inc.pool_start;  // of the subsystem headers
  for (int u = 0; u < p_.first_unit && uncached > 0 && inc.drawn > 0; ++u) {
    Rng unit_rng(k.params().seed, name_ + "/cc1/" + std::to_string(u));
    for (size_t i = 0; i < inc.drawn && uncached > 0; ++i)
      if (cache_header(k, draw_include(unit_rng, inc))) --uncached;
  }
}

bool KernelBuild::cache_header(Kernel& k, size_t h) {
  s_.preload_draws++;
  if (header_touched_[h]) return false;
  header_touched_[h] = true;
  k.block().prefill(headers_[h]);
  return true;
}

// The #include closure: the first `common` headers (the kernel.h/sched.h closure every
// unit includes), then `drawn` headers of the unit's subsystem, drawn from the rest.
KernelBuild::Includes KernelBuild::include_shape() const {
  const size_t nh = headers_.size(), per_unit = size_t(std::max(p_.headers_per_unit, 0));
  const size_t pool_start = std::min<size_t>(size_t(std::max(p_.common_headers, 0)), nh);
  const size_t common = std::min(pool_start, per_unit);
  return {common, nh > pool_start ? per_unit - common : 0, pool_start};
}

size_t KernelBuild::draw_include(Rng& rng, const Includes& inc) const {
  return inc.pool_start + size_t(rng.below(headers_.size() - inc.pool_start));
}

std::vector<size_t> KernelBuild::includes_of(Rng& rng) const {
  const Includes inc = include_shape();
  std::vector<size_t> includes;
  for (size_t h = 0; h < inc.common; ++h) includes.push_back(h);
  for (size_t i = 0; i < inc.drawn; ++i) includes.push_back(draw_include(rng, inc));
  return includes;
}

void KernelBuild::make(Kernel& k) {
  for (;;) {
    while (running_ < p_.jobs) links_due_.empty() ? start_job(k) : start_link(k);
    // wait4(): sleep until a child exits.
    k.set_current_state(TASK_INTERRUPTIBLE);
    if (running_ >= p_.jobs) k.schedule("sys_wait4");
    k.set_current_state(TASK_RUNNING);
    k.user_exec(200000, 40);  // make reads its dependency state
  }
}

// open(2) and one read(2) of the whole file (cpplib's read_file_guts reads st_size):
// do_generic_mapping_read page by page, with the file's own read-ahead.
void KernelBuild::read_file(Kernel& k, FileId f, uint64_t ino, bool& touched) {
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
  update_atime(k, ino);
  s_.files_read++;
  if (!touched) s_.cold_files++, s_.cold_bytes += pages * 4096;
  touched = true;
}

// update_atime (fs/inode.c): the read's or mmap's file_accessed dirties the inode.
void KernelBuild::update_atime(Kernel& k, uint64_t ino) {
  if (p_.atime) k.ext3().dirty_inode(ino, "update_atime");
}

// A new file in the unit's directory (open O_CREAT: ext3_create), written through stdio,
// a 4 KiB buffer (st_blksize) per write(2); ext3 allocates its blocks after the previous
// new file's.
FileId KernelBuild::write_new_file(Kernel& k, uint64_t unit, uint64_t ino, uint64_t pages) {
  k.fn("sys_open", "syscall_call", 300, 3);
  k.ext3().create(dir_of(unit), ino, "vfs_create");
  const FileId f = k.block().create_file(pages, obj_lba_);
  k.ext3().get_blocks(ino, obj_lba_, "ext3_prepare_write");
  obj_lba_ += pages * 8;
  for (uint64_t p = 0; p < pages; ++p) {
    k.user_exec(4000, 8);  // the program fills the stdio buffer
    k.fn("sys_write", "syscall_call", 300, 2);
    k.block().write_page(f, p, "generic_file_write");
    s_.bytes_written += 4096;
  }
  return f;
}

// as writes the .o.
void KernelBuild::write_object(Kernel& k, Job& job) {
  const uint64_t ino = new_ino();
  const FileId f = write_new_file(k, job.unit, ino, draw_pages(job.rng, p_.o_kb));
  dirs_[dir_of(job.unit)].objects.emplace_back(f, ino);
}

// gcc -Wp,-MD,.o.d: cc1 writes the dependency file, a line per header (assumption: ~32
// bytes each). rm deletes it before kjournald's next commit in all but a few cases, which
// truncates its dirty pages (journal_invalidatepage): its blocks are allocated and freed
// in the transaction, its data never written (not modelled when a commit falls between).
void KernelBuild::write_depfile(Kernel& k, Job& job) {
  job.d_ino = new_ino();
  k.fn("sys_open", "syscall_call", 300, 3);
  k.ext3().create(dir_of(job.unit), job.d_ino, "vfs_create");
  k.ext3().get_blocks(job.d_ino, obj_lba_, "ext3_prepare_write");
  const uint64_t pages = (32 * job.includes.size() + 4095) / 4096;
  for (uint64_t p = 0; p < pages; ++p) {
    k.fn("sys_write", "syscall_call", 300, 2);
    k.fn("__copy_from_user_ll", "generic_file_buffered_write", 1100, 4, 128);
  }
}

// fixdep's output (the shell's > .o.tmp): the command line and a line per header the .d
// lists (assumption: ~32 bytes each), later renamed to .o.cmd.
void KernelBuild::write_cmd_file(Kernel& k, Job& job) {
  const uint64_t bytes = 1024 + 32 * job.includes.size();
  job.tmp_ino = new_ino();
  write_new_file(k, job.unit, job.tmp_ino, (bytes + 4095) / 4096);
  s_.cmd_files++;
}

// cc1 (-O2, its preprocessor built in): reads its .c file, then the headers as the
// parser reaches each #include, computing in user mode with a page fault on fresh heap
// every few ms and a page of assembly to as every kAsmPageMs; its resident set is torn
// down at exit.
void KernelBuild::cc1(Kernel& k, Job& job) {
  const uint64_t pages = uint64_t(p_.rss_mb) * 256;
  const BuildProgram prog{"cc1", pages, pages / 1024 + 4, 0};
  Spinlock& lock = exec(k, prog, nullptr);
  const double mhz = k.this_cpu().mhz();
  if (!units_.empty()) {  // the .c file itself
    if (!sources_[job.unit])
      sources_[job.unit] = k.block().create_file(units_[job.unit].pages, units_[job.unit].lba);
    bool touched = false;
    read_file(k, sources_[job.unit], unit_ino(job.unit), touched);
  }
  const int ms = int(job.rng.uniform(p_.compile_s_min, p_.compile_s_max) * 1000);
  const int parse_ms = std::max(1, int(ms * p_.parse_fraction));
  const std::vector<size_t>& includes = job.includes;
  size_t next = 0;
  for (int i = 0; i < ms; ++i) {
    k.user_exec(uint64_t(mhz * 1000), uint64_t(p_.user_misses_per_ms));
    if (i % 4 == 0) {  // a page fault on fresh heap: clear_page
      k.fn("do_page_fault", "error_code", 300, 3);
      k.fn("do_anonymous_page", "handle_mm_fault", 200, 2);
      k.might_sleep("clear_user_highpage");
      k.kmap_atomic("do_anonymous_page");  // clear_user_highpage
      if (!k.mmx_clear_page("do_anonymous_page"))
        k.fn("clear_page", "do_anonymous_page", 1100, 2, 128);
      k.kunmap_atomic("do_anonymous_page");
    }
    // The parser reaches the next #include: the headers spread over its first part.
    while (next < includes.size() &&
           uint64_t(next) * uint64_t(parse_ms) <= uint64_t(i) * uint64_t(includes.size())) {
      const size_t h = includes[next++];
      bool touched = header_touched_[h];
      read_file(k, headers_[h], header_ino(h), touched);
      header_touched_[h] = touched;
    }
    if (p_.kbuild_command && (i + 1) % kAsmPageMs == 0) pipe_write(k, job.pipe);  // to as
  }
  if (p_.kbuild_command) write_depfile(k, job);
  if (!p_.kbuild_command) finish_object(k, job, ms);  // no as: cc1 writes the .o itself
  exit_group(k, prog, lock);
  // exit_files: the pipe's write end closes, and as reads EOF.
  job.pipe.closed = true;
  job.pipe.writer = nullptr;
  if (job.pipe.reader) wake(k, job.pipe.reader, "pipe_release");
}

nlohmann::json KernelBuild::metrics(Kernel&, double) const {
  return {{"compiles", compiles()},
          {"bytes_read", s_.bytes_read},
          {"bytes_written", s_.bytes_written},
          {"files_read", s_.files_read},
          {"cold_files", s_.cold_files},
          {"cmd_files", s_.cmd_files},
          {"links", s_.links},
          {"processes",
           {{"forks", s_.forks}, {"vforks", s_.vforks}, {"execs", s_.execs}, {"exits", s_.exits}}}};
}

}  // namespace latsim::workloads
