// The kernel_build workload's I/O on the fake drive (tests/kernel_sim/block/fake_disk.h):
// what each cc1 reads from the disk, what stays in the page cache, what it writes.
#include "workloads/kernel_build.h"
#include <gtest/gtest.h>
#include "kernel_sim/fs/ext3.h"
#include "models/cpu/l2_residency.h"
#include "tests/kernel_sim/block/fake_disk.h"

namespace latsim::workloads {
namespace {

using test::disk_params;
using test::DiskMachine;

sc_time ms(double v) { return sc_time(v, sc_core::SC_MS); }

// A small tree: every unit includes the same 10 headers, compiles in 20 ms.
KernelBuildParams small_tree() {
  KernelBuildParams p;
  p.jobs = 1;
  p.compile_s_min = p.compile_s_max = 0.02;
  p.rss_mb = 1;
  p.user_misses_per_ms = 0;
  p.source_files = 50;
  p.header_files = p.common_headers = p.headers_per_unit = 10;
  p.c_kb = 40;
  p.header_kb = 8;
  p.commit_interval_s = 0;
  return p;
}

// Cold files are read from the disk once, in requests of at most max_sectors_kb;
// headers that an earlier unit read are page-cache hits.
TEST(KernelBuildTest, ColdFilesAreReadOnceInRequestsWithinMaxSectors) {
  DiskMachine m(disk_params(32, 128));
  auto* kb = new KernelBuild("kernel_build", small_tree());
  m.k->add_workload(std::unique_ptr<Workload>(kb));
  m.k->boot();
  sc_core::sc_start(ms(200));
  const auto& s = kb->stats();
  ASSERT_GE(kb->compiles(), 3u);
  // Every unit opened its .c and the 10 headers; only the first read the headers cold.
  EXPECT_GE(s.files_read, 11 * kb->compiles());
  // Cold: the 10 headers once, and each unit's own .c (the last may still be running).
  EXPECT_GE(s.cold_files, 10 + kb->compiles());
  EXPECT_LE(s.cold_files, 10 + kb->compiles() + 1);
  EXPECT_EQ(m.k->block().stats().pages_from_disk * 4096, s.cold_bytes);
  uint64_t read_sectors = 0;
  for (const auto& c : m.commands) {
    EXPECT_LE(c.sectors, 64u);
    if (!c.write) read_sectors += c.sectors;
  }
  EXPECT_EQ(read_sectors * 512, s.cold_bytes);
}

// Runs small_tree() for 300 ms, kjournald committing every `commit_ms` (0: none).
struct ObjectRun {
  uint64_t write_sectors = 0, dirty_bytes = 0, bytes_written = 0, commits = 0, log_blocks = 0;
};
ObjectRun run_objects(int commit_ms) {
  DiskMachine m(disk_params(128, 128));
  auto* kb = new KernelBuild("kernel_build", small_tree());
  m.k->add_workload(std::unique_ptr<Workload>(kb));
  if (commit_ms)
    m.k->add_workload(std::make_unique<test::LambdaWorkload>(
        [commit_ms](Kernel& k) { k.ext3().start_kjournald(uint64_t(commit_ms)); }));
  m.k->boot();
  sc_core::sc_start(ms(300));
  ObjectRun r;
  for (const auto& c : m.commands)
    if (c.write) r.write_sectors += c.sectors;
  r.dirty_bytes = m.k->block().nr_dirty() * 4096;
  r.bytes_written = kb->stats().bytes_written;
  r.commits = m.k->ext3().stats().commits;
  r.log_blocks = m.k->ext3().stats().log_blocks;
  return r;
}

// Without kjournald the few dirty .o pages stay below dirty_background_ratio: no WRITE.
TEST(KernelBuildTest, WithoutACommitObjectsStayDirty) {
  const ObjectRun r = run_objects(0);
  EXPECT_GT(r.bytes_written, 0u);
  EXPECT_EQ(r.write_sectors, 0u);
  EXPECT_EQ(r.dirty_bytes, r.bytes_written);
}

// With a commit every 50 ms each commit writes what the units wrote since the last:
// what is still dirty at the end is what was written after the last commit; the rest of
// the WRITEs are the journal's log blocks.
TEST(KernelBuildTest, ObjectsReachTheDiskAtTheJournalCommit) {
  const ObjectRun r = run_objects(50);
  EXPECT_EQ(r.commits, 5u);  // at 50, 100, ..., 250 ms
  EXPECT_GT(r.write_sectors, 0u);
  EXPECT_GT(r.log_blocks, r.commits);  // metadata as well as the commit blocks
  EXPECT_EQ(r.write_sectors * 512 + r.dirty_bytes, r.bytes_written + r.log_blocks * 4096);
}

// The small tree built for 200 ms on the fake drive without timer ticks, the tracer
// measuring `spans` (its steps are then exactly the modelled work).
struct TracedBuild {
  explicit TracedBuild(const char* spans, cpu::L2Residency* l2 = nullptr) : m(traced(spans)) {
    m.cpu->timer_enabled = false;
    m.cpu->l2 = l2;
    kb = new KernelBuild("kernel_build", small_tree());
    m.k->add_workload(std::unique_ptr<Workload>(kb));
    m.k->boot();
    sc_core::sc_start(ms(200));
  }
  static kernel::KernelParams traced(const char* spans) {
    kernel::KernelParams kp = disk_params(32, 32);
    kp.trace.enabled = true;
    kp.trace.spans = spans;
    return kp;
  }
  std::vector<SpanStats> spans() const { return m.k->tracer().spans().stats(); }
  DiskMachine m;
  KernelBuild* kb = nullptr;  // owned by the kernel
};

// Each object's command (sh -c: gcc -> cc1, as; fixdep; rm; mv) tears down eleven
// address spaces: seven exits, and the four copies of the shell's mm its forks made,
// dropped at exec (make and gcc vfork: nothing to copy or drop). Each exit_mmap's
// clear_page_tables reads all 768 user pgd entries (96 lines). The lines of the present
// entries are cached (the page walker read them); the others were last read by the
// pgd's previous walk, and pgd_cache hands the last freed pgd out first. On the fake CPU
// (1 ns cycles, 100 ns fills, no timer) with an L2 that never evicts, the first walk,
// of a pgd the slab has just made, fills all 96 lines of a 3-PTE-page program (all but
// cc1) from DRAM: 768 * 4 + 40 * 3 cycles, the mcount's own 60 and 96 fills; a walk of a
// reused pgd fills none.
TEST(KernelBuildTest, EveryExitAndExecOfAForkWalksTheWholePgd) {
  cpu::L2Residency never_evicts(uint64_t(1) << 50);
  TracedBuild b("clear_page_tables", &never_evicts);
  const uint64_t c = b.kb->compiles();
  ASSERT_GE(c, 2u);
  const auto st = b.spans();
  ASSERT_EQ(st.size(), 1u);
  EXPECT_GE(st[0].count, 11 * c);  // -j1: the command under way has done fewer
  EXPECT_LT(st[0].count, 11 * (c + 1));
  EXPECT_DOUBLE_EQ(st[0].max_us, ((768 * 4 + 40 * 3 + 60) + 96 * 100) / 1000.0);
  EXPECT_DOUBLE_EQ(st[0].median_us, (768 * 4 + 40 * 3 + 60) / 1000.0);
  // A handful of pgds serve every process: make, sh, gcc, cc1 or as, a fork's copy.
  const KernelBuildStats& s = b.kb->stats();
  EXPECT_LE(s.pgds, 8u);
  // Per object: sh, gcc, cc1, as, fixdep, rm, mv each exec and exit; four forks (the
  // shell's), three vforks (make's, and gcc's two).
  EXPECT_GE(s.exits, 7 * c);
  EXPECT_LT(s.exits, 7 * (c + 1));
  EXPECT_GE(s.forks, 4 * c);  // and the command under way's, partway
  EXPECT_LE(s.forks, 4 * (c + 1));
  EXPECT_GE(s.vforks, 3 * c);
  EXPECT_LE(s.vforks, 3 * (c + 1));
  EXPECT_GE(s.execs, s.exits);
  // -pipe: as reads a page of cc1's assembly per 10 ms of cc1's 20, beside it.
  EXPECT_GE(s.pipe_pages, 2 * c);
  EXPECT_LE(s.pipe_pages, 2 * (c + 1));
}

// The counterfactual command: make vforks cc1 alone, which writes the .o itself; one exec
// and one exit per object, nothing forked, no pipe.
TEST(KernelBuildTest, Cc1AloneIsOneProcessPerObject) {
  DiskMachine m(disk_params(32, 128));
  KernelBuildParams p = small_tree();
  p.kbuild_command = false;
  auto* kb = new KernelBuild("kernel_build", p);
  m.k->add_workload(std::unique_ptr<Workload>(kb));
  m.k->boot();
  sc_core::sc_start(ms(200));
  const uint64_t c = kb->compiles();
  ASSERT_GE(c, 3u);
  const KernelBuildStats& s = kb->stats();
  EXPECT_EQ(s.forks, 0u);
  EXPECT_EQ(s.pipe_pages, 0u);
  EXPECT_EQ(s.exits, c);
  EXPECT_GE(s.vforks, c);
  EXPECT_LE(s.vforks, c + 1);
  EXPECT_GT(s.bytes_written, 0u);  // the .o, from cc1
}

// Only the shell forks (make and gcc vfork): dup_mmap copies its nine VMAs one at a time,
// each under the child's page_table_lock (a section of its own); the child's three PTE
// pages are allocated with the lock dropped. Four forks per object: gcc, fixdep, rm, mv.
TEST(KernelBuildTest, ShellForksCopyEachVmaInItsOwnSection) {
  TracedBuild b("copy_page_range,pte_alloc_one,kmem_cache_alloc");
  const uint64_t c = b.kb->compiles();
  ASSERT_GE(c, 2u);
  const auto st = b.spans();
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(st[0].name, "copy_page_range");
  EXPECT_EQ(st[0].count % 9, 0u);  // traced inside each VMA's section
  EXPECT_GE(st[0].count / 9, 4 * c);
  EXPECT_LE(st[0].count / 9, 4 * c + 4);
  EXPECT_EQ(st[1].count, 0u);  // pte_alloc_one: preemptible, in no section
  EXPECT_EQ(st[2].count, 0u);  // kmem_cache_alloc: before the lock is taken
}

// Each process is freed once it has exited (its parent reaps it), with its address space,
// its page_table_lock and the caches' history of them: after a hundred more exits
// the kernel holds as many task structs, mms, locks and cached objects as after the
// first few commands.
TEST(KernelBuildTest, ExitedProcessesLeaveNothingBehind) {
  cpu::L2Residency l2(uint64_t(1) << 50);
  DiskMachine m(disk_params(32, 128));
  m.cpu->l2 = &l2;
  auto* kb = new KernelBuild("kernel_build", small_tree());
  m.k->add_workload(std::unique_ptr<Workload>(kb));
  m.k->boot();
  sc_core::sc_start(ms(100));
  const uint64_t exits = kb->stats().exits;
  const size_t tasks = m.k->tasks().size(), locks = m.k->lock_stats().size();
  const size_t objects = l2.objects();
  ASSERT_GE(exits, 14u);
  sc_core::sc_start(ms(500));
  EXPECT_GE(kb->stats().exits, exits + 100);
  // -j1: at most make's shell, gcc, cc1 and as are alive, each with an mm (and a fork's
  // copy of the shell's until it execs).
  EXPECT_LE(m.k->tasks().size(), tasks + 4);
  EXPECT_LE(kb->live_mms(), 5u);
  EXPECT_LE(m.k->lock_stats().size(), locks + 5);
  EXPECT_LE(l2.objects(), objects + 64);  // code paths first run since, and live objects
}

// first_unit: the headers the earlier units read are cached before the run. Looking at
// the units' includes stops once every header is cached: 100,000 units of 500 headers
// from a pool of 2,000 take about 2,000 x ln 2,000 draws, not 50 million.
TEST(KernelBuildTest, CachingTheEarlierUnitsHeadersStopsWhenAllAre) {
  DiskMachine m(disk_params(32, 128));
  KernelBuildParams p = small_tree();
  p.header_files = 2000;
  p.common_headers = 0;
  p.headers_per_unit = 500;
  p.header_kb = 4;
  p.first_unit = 100000;
  auto* kb = new KernelBuild("kernel_build", p);
  m.k->add_workload(std::unique_ptr<Workload>(kb));
  m.k->boot();
  sc_core::sc_start(ms(5));
  EXPECT_LE(kb->stats().preload_draws, 40000u);
  ASSERT_GE(m.k->block().files(), 2u + 2000u);  // kReadFile, kWriteFile, then include/
  for (kernel::FileId f = 2; f < 2 + 2000; ++f) EXPECT_TRUE(m.k->block().cached(f, 0));
}

}  // namespace
}  // namespace latsim::workloads
