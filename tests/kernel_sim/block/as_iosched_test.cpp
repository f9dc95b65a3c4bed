// drivers/block/as-iosched.c's batches on the fake drive (fake_disk.h, 2 ms per
// command): a writer queues 128 WRITEs at once, a reader starts 1 ms later. noop
// serves them in arrival order; anticipatory lets the writes run for their 125 ms
// batch (HZ/8), then streams the reader's READs back to back, then the writes again.
#include <gtest/gtest.h>
#include <string>
#include "tests/kernel_sim/block/fake_disk.h"

namespace latsim::kernel {
namespace {

using test::disk_params;
using test::DiskMachine;

using test::ms;

// The command log as a string: W per WRITE DMA, R per READ DMA.
// 32 KB requests and read-ahead, the given elevator.
KernelParams with_elevator(const std::string& elevator) {
  KernelParams p = disk_params(32, 32);
  p.block.elevator = elevator;
  return p;
}

std::string order(const std::string& elevator) {
  DiskMachine m(with_elevator(elevator), ms(2));
  m.boot([&](Kernel& k) {
    k.block().setup_write_file(1024, 200000);
    const FileId r = k.block().create_file(64, 5000);
    k.create_task(
        "writer",
        [&] {
          k.block().write_sync(0, 1024, "journal_write_commit_record");  // 128 x 8 pages
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
    k.create_task(
        "reader",
        [&k, r] {
          k.clock_nanosleep(k.now() + ms(1), "test");
          for (uint64_t i = 0; i < 64; ++i) k.block().read_page(r, i, "do_generic_mapping_read");
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(400));
  std::string s;
  for (const auto& c : m.commands) s += c.write ? 'W' : 'R';
  return s;
}

TEST(AsIosched, NoopServesTheReaderAfterEveryQueuedWrite) {
  EXPECT_EQ(order("noop"), std::string(128, 'W') + std::string(8, 'R'));
}

TEST(AsIosched, AnticipatoryEndsTheWriteBatchAndStreamsTheReads) {
  const std::string s = order("anticipatory");
  ASSERT_EQ(s.size(), 136u);
  const size_t first = s.find('R');
  // 125 ms (HZ/8 ticks) of writes at 2 ms and the driver's few us each: 62 of them, give
  // or take the tick the batch started in; then the reader's 8 reads in a row (the
  // anticipation bridges the gaps between them), then the other writes.
  EXPECT_GE(first, 61u);
  EXPECT_LE(first, 63u);
  EXPECT_EQ(s.substr(first, 8), std::string(8, 'R'));
  EXPECT_EQ(s.find('R', first + 8), std::string::npos);
}

// One READ, then nothing more from its reader, with WRITEs queued behind it: the queue
// waits antic_expire (HZ/150: 6 ticks) for the reader, then the antic_timer's work on
// kblockd/0 starts the first WRITE.
TEST(AsIosched, AfterTheAnticipationTimesOutKblockdStartsTheWrites) {
  DiskMachine m(with_elevator("anticipatory"), ms(2));
  m.boot([&](Kernel& k) {
    k.block().setup_write_file(64, 200000);
    const FileId r = k.block().create_file(8, 5000);
    k.create_task(
        "reader",
        [&k, r] {
          for (uint64_t i = 0; i < 8; ++i) k.block().read_page(r, i, "do_generic_mapping_read");
          k.block().write_sync(0, 64, "journal_write_commit_record");
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(100));
  ASSERT_GE(m.commands.size(), 2u);
  EXPECT_FALSE(m.commands[0].write);
  EXPECT_TRUE(m.commands[1].write);
  const sc_time wait = m.commands[1].at - m.commands[0].at;  // 2 ms read, then the wait
  EXPECT_GE(wait, ms(2 + 5));
  EXPECT_LE(wait, ms(2 + 7));
}

}  // namespace
}  // namespace latsim::kernel
