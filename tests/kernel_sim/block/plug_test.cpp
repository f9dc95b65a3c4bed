// 2.6.9's request-queue plugging (drivers/block/ll_rw_blk.c) on the fake drive
// (fake_disk.h, 200 us per command): a reader reads page 0 of a file (it waits on it),
// sleeps 10 ms, then reads page 1, which submits the read-ahead's ahead window and
// does not wait. With kernel.plugging timer the ahead window's requests sit on the
// plugged queue until unplug_thresh (4) of them are queued, which runs the queue in
// the reader, or until the unplug timer (3 ticks) has kblockd/0 run it; a wait on the
// page unplugs at once. With inline the reader runs the queue after each submission.
#include <gtest/gtest.h>
#include <string>
#include "tests/kernel_sim/block/fake_disk.h"

namespace latsim::kernel {
namespace {

using test::disk_params;
using test::DiskCommand;
using test::DiskMachine;

using test::ms;
using test::us;

constexpr uint64_t kLba = 5000;

struct ReadLog {
  std::vector<DiskCommand> commands;
  sc_time first_read, second_read;  // when the reader called read_page(0) and read_page(1)
};

// Requests of max_sectors_kb 32 (8 pages); read_ahead_kb decides how many the ahead window
// of read_page(1) submits at once.
ReadLog read_twice(const std::string& plugging, int read_ahead_kb) {
  KernelParams p = disk_params(32, read_ahead_kb);
  p.block.plugging = plugging;
  DiskMachine m(p);
  ReadLog r;
  m.boot([&](Kernel& k) {
    const FileId f = k.block().create_file(256, kLba);
    k.create_task(
        "reader",
        [&k, &r, f] {
          r.first_read = k.now();
          k.block().read_page(f, 0, "do_generic_mapping_read");
          k.clock_nanosleep(k.now() + ms(10), "test");
          r.second_read = k.now();
          k.block().read_page(f, 1, "do_generic_mapping_read");  // cached: no wait
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(30));
  r.commands = m.commands;
  return r;
}

// The one request of the ahead window (pages 8-15) stays plugged until the unplug timer,
// queued 3 ticks out, fires on the third tick after the submission (2-3 ms later); its
// blk_unplug_work on kblockd/0 runs the queue.
TEST(Plug, ALoneRequestIsStartedByKblockdWhenTheUnplugTimerFires) {
  const ReadLog r = read_twice("timer", 32);
  ASSERT_EQ(r.commands.size(), 2u);
  const DiskCommand& c = r.commands[1];
  EXPECT_EQ(c.lba, kLba + 8 * 8);
  EXPECT_EQ(c.sectors, 64u);
  EXPECT_EQ(c.by, "kblockd/0");
  EXPECT_GE(c.at - r.second_read, ms(2));
  EXPECT_LE(c.at - r.second_read, ms(3) + us(100));  // the softirq, kblockd's wake-up
}

TEST(Plug, InlineStartsTheLoneRequestInTheSubmitter) {
  const ReadLog r = read_twice("inline", 32);
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[1].by, "reader");
  EXPECT_LT(r.commands[1].at - r.second_read, us(100));
}

// Four 32 KB requests of a 128 KB ahead window: the fourth queued reaches unplug_thresh
// and __elv_add_request runs the queue in the reader, at once.
TEST(Plug, FourQueuedRequestsUnplugInTheSubmitter) {
  const ReadLog r = read_twice("timer", 128);
  ASSERT_EQ(r.commands.size(), 8u);  // the current window's 4, then the ahead window's 4
  const DiskCommand& c = r.commands[4];
  EXPECT_EQ(c.lba, kLba + 32 * 8);
  EXPECT_EQ(c.by, "reader");
  EXPECT_LT(c.at - r.second_read, us(100));
}

// Three (96 KB) stay below the threshold: kblockd starts them 2-3 ms later.
TEST(Plug, ThreeQueuedRequestsWaitForTheTimer) {
  const ReadLog r = read_twice("timer", 96);
  ASSERT_EQ(r.commands.size(), 6u);
  const DiskCommand& c = r.commands[3];
  EXPECT_EQ(c.lba, kLba + 24 * 8);
  EXPECT_EQ(c.by, "kblockd/0");
  EXPECT_GE(c.at - r.second_read, ms(2));
  EXPECT_LE(c.at - r.second_read, ms(3) + us(100));
}

// read_page(0) plugs the queue with the current window's one request, then waits on the
// page: the wait (block_sync_page -> generic_unplug_device) runs the queue at once.
TEST(Plug, AWaitOnThePageUnplugsImmediately) {
  const ReadLog r = read_twice("timer", 32);
  ASSERT_GE(r.commands.size(), 1u);
  const DiskCommand& c = r.commands[0];
  EXPECT_EQ(c.lba, kLba);
  EXPECT_EQ(c.sectors, 64u);
  EXPECT_EQ(c.by, "reader");
  EXPECT_LT(c.at - r.first_read, us(100));
}

// The anticipatory elevator waits (antic_expire) after a read with WRITEs queued; a read
// arriving then ends the wait (as_add_request -> as_antic_stop), and kblockd/0 runs the
// queue: with timer plugging the submitter does not (the queue had WRITEs: not plugged).
DiskCommand read_during_anticipation(const std::string& plugging, sc_time* submitted) {
  KernelParams p = disk_params(32, 32);
  p.block.plugging = plugging;
  p.block.elevator = "anticipatory";
  DiskMachine m(p);
  m.boot([&](Kernel& k) {
    k.block().setup_write_file(64, 200000);
    const FileId a = k.block().create_file(8, kLba), b = k.block().create_file(8, 9000);
    k.create_task(
        "writer",
        [&k, a] {
          k.block().read_page(a, 0, "do_generic_mapping_read");
          k.block().write_sync(0, 64, "journal_write_commit_record");  // 8 WRITEs wait
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
    k.create_task(
        "reader",
        [&k, b, submitted] {
          k.clock_nanosleep(k.now() + ms(1), "test");
          *submitted = k.now();
          k.block().read_page(b, 0, "do_generic_mapping_read");
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(20));
  EXPECT_GE(m.commands.size(), 2u);
  EXPECT_FALSE(m.commands.empty() || m.commands[0].write);
  return m.commands.size() >= 2 ? m.commands[1] : DiskCommand{};
}

TEST(Plug, AReadDuringTheAnticipationIsStartedByKblockd) {
  sc_time submitted;
  const DiskCommand c = read_during_anticipation("timer", &submitted);
  EXPECT_FALSE(c.write);
  EXPECT_EQ(c.lba, 9000u);
  EXPECT_EQ(c.by, "kblockd/0");
  EXPECT_LT(c.at - submitted, us(100));
}

TEST(Plug, InlineTheReaderStartsItsReadDuringTheAnticipation) {
  sc_time submitted;
  const DiskCommand c = read_during_anticipation("inline", &submitted);
  EXPECT_FALSE(c.write);
  EXPECT_EQ(c.lba, 9000u);
  EXPECT_EQ(c.by, "reader");
  EXPECT_LT(c.at - submitted, us(100));
}

}  // namespace
}  // namespace latsim::kernel
