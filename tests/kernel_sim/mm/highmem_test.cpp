// kmap_atomic()/kunmap_atomic() (kernel_sim/mm/highmem.cpp): on 2.6.9 a page's copy to
// user space in file_read_actor is a non-preemptible section from kmap_atomic+0x23 to
// kunmap_atomic+0x7b, as in the seed's X trace; 2.4's kmap leaves preemption alone. A
// page mapped by filemap_nopage is not copied at all. On the fake drive (fake_disk.h),
// every line cold, the tracer keeping every section.
#include <gtest/gtest.h>

#include <string>

#include "tests/kernel_sim/block/fake_disk.h"

namespace latsim::kernel {
namespace {

using test::DiskMachine;
using test::ms;

struct CopyRun {
  uint64_t kmap_sections = 0;  // sections kmap_atomic .. kunmap_atomic
  bool shape = false;          // kmap_atomic, page_address, __copy_to_user_ll (file_read_actor)
  uint64_t copies = 0;         // __copy_to_user_ll entries in any section
};

// A task reads (or maps) 4 pages of a file already in the page cache.
CopyRun read_four_pages(const char* flavour, bool mapped, bool highmem = true) {
  KernelParams p = test::flavour_params(flavour);
  p.highmem = highmem;
  p.trace.enabled = true;
  p.trace.threshold_us = 0;
  p.trace.max_traces = 100000;
  DiskMachine m(p);
  m.cpu->timer_enabled = false;
  m.boot([&](Kernel& k) {
    const FileId f = k.block().create_file(4, 5000);
    k.block().prefill(f);
    k.create_task(
        "reader",
        [&k, f, mapped] {
          for (uint64_t i = 0; i < 4; ++i) {
            if (mapped)
              k.block().fault_page(f, i);
            else
              k.block().read_page(f, i, "do_generic_mapping_read");
          }
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(20));
  CopyRun r;
  for (const auto& t : m.k->tracer().traces()) {
    const bool kmap =
        std::string(t.start.fn) == "kmap_atomic" && std::string(t.end.fn) == "kunmap_atomic";
    r.kmap_sections += kmap;
    for (const auto& e : t.entries) r.copies += std::string(e.fn) == "__copy_to_user_ll";
    if (kmap && t.entries.size() >= 3)
      r.shape = std::string(t.entries[0].fn) == "kmap_atomic" &&
                std::string(t.entries[1].fn) == "page_address" &&
                std::string(t.entries[2].fn) == "__copy_to_user_ll" &&
                std::string(t.entries[2].parent) == "file_read_actor";
  }
  return r;
}

TEST(Highmem, A26PageCopyIsAKmapAtomicSection) {
  const CopyRun r = read_four_pages("2.6.9-vp", false);
  EXPECT_EQ(r.kmap_sections, 4u);
  EXPECT_TRUE(r.shape);
  EXPECT_EQ(r.copies, 4u);
}

TEST(Highmem, A24PageCopyLeavesPreemptionOn) {
  const CopyRun r = read_four_pages("2.4.10-preempt", false);
  EXPECT_EQ(r.kmap_sections, 0u);
}

TEST(Highmem, WithoutHighmemThePageCopyIsPreemptible) {
  const CopyRun r = read_four_pages("2.6.9-vp", false, false);
  EXPECT_EQ(r.kmap_sections, 0u);
}

TEST(Highmem, AMappedPageIsNotCopied) {
  const CopyRun r = read_four_pages("2.6.9-vp", true);
  EXPECT_EQ(r.kmap_sections, 0u);
  EXPECT_EQ(r.copies, 0u);
}

}  // namespace
}  // namespace latsim::kernel
