// The trace.dat writer on hand-made events: the file's layout (decoded here from the
// format's description), each CPU's records in time order across pages and long gaps,
// and, where trace-cmd is installed, what `trace-cmd report` prints of it.
#include "platform/timeline/trace_dat_writer.h"
#include <gtest/gtest.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "platform/timeline/ftrace_text_writer.h"

namespace tl = latsim::platform::timeline;
namespace fs = std::filesystem;

namespace {

std::string tmp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("latsim-tdw-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

uint64_t le(const std::string& s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | uint8_t(s[at + size_t(i)]);
  return v;
}

struct Decoded {
  uint64_t ns;
  int type, pid;
  std::string payload;  // after the common header, padded to 4 bytes
};

// One CPU's ring-buffer pages, as the header_event text describes them.
std::vector<Decoded> decode_cpu(const std::string& f, uint64_t offset, uint64_t size) {
  std::vector<Decoded> out;
  for (uint64_t page = offset; page < offset + size; page += tl::TraceDatWriter::kPageSize) {
    uint64_t ts = le(f, page, 8);
    const uint64_t commit = le(f, page + 8, 8);
    EXPECT_LE(commit, tl::TraceDatWriter::kPageSize - 16);
    for (uint64_t at = page + 16; at < page + 16 + commit;) {
      const uint32_t h = uint32_t(le(f, at, 4));
      const uint32_t type_len = h & 31;
      ts += h >> 5;
      at += 4;
      if (type_len == 30) {  // time extend
        ts += le(f, at, 4) << 27;
        at += 4;
        continue;
      }
      uint64_t len = type_len * 4;
      if (type_len == 0) {
        len = le(f, at, 4) - 4;
        at += 4;
      }
      out.push_back(
          {ts, int(le(f, at, 2)), int(int32_t(le(f, at + 4, 4))), f.substr(at + 8, len - 8)});
      at += len;
    }
  }
  return out;
}

// The flyrecord section: each CPU's (offset, size).
std::vector<std::pair<uint64_t, uint64_t>> cpu_sections(const std::string& f, int ncpus) {
  const size_t at = f.find(std::string("flyrecord\0", 10));
  EXPECT_NE(at, std::string::npos);
  std::vector<std::pair<uint64_t, uint64_t>> v;
  for (int c = 0; c < ncpus; ++c)
    v.emplace_back(le(f, at + 10 + 16 * size_t(c), 8), le(f, at + 18 + 16 * size_t(c), 8));
  return v;
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

// A writer with one event type "test/tick": u32 seq, then a name.
struct Ticks {
  explicit Ticks(const std::string& path, int ncpus) : w(path, ncpus) {
    type = w.add_event("test", "tick", {{"u32 seq", 4, false}, {"__data_loc char[] name", 4, true}},
                       "\"seq=%u name=%s\", REC->seq, __get_str(name)");
  }
  void tick(int cpu, uint64_t ns, uint32_t seq, const std::string& name = "x") {
    tl::TraceRecord r;
    r.u32(seq).str(name);
    w.record(cpu, ns, type, 0, 0, 100 + cpu, r);
  }
  tl::TraceDatWriter w;
  int type;
};

}  // namespace

TEST(TraceDatWriter, HeaderIsVersion6WithTheFormatsAndPageAlignedCpuData) {
  const std::string p = tmp_path("layout.dat");
  Ticks t(p, 2);
  t.w.set_comm(100, "cyclictest");
  t.tick(0, 1000, 1);
  t.tick(1, 2000, 2);
  t.w.finish();
  const std::string f = slurp(p);
  fs::remove(p);
  EXPECT_EQ(f.substr(0, 14), std::string("\x17\x08\x44tracing6\0\0\x08", 14));
  EXPECT_EQ(le(f, 14, 4), 4096u);  // page size
  EXPECT_NE(f.find("name: tick\nID: 20\nformat:\n"), std::string::npos);
  EXPECT_NE(f.find("\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n"),
            std::string::npos);
  EXPECT_NE(f.find("100 cyclictest\n"), std::string::npos);
  const auto cpus = cpu_sections(f, 2);
  for (const auto& [offset, size] : cpus) {
    EXPECT_EQ(offset % 4096, 0u);
    EXPECT_EQ(size, 4096u);
  }
  EXPECT_EQ(f.size(), cpus[1].first + cpus[1].second);
  const auto c1 = decode_cpu(f, cpus[1].first, cpus[1].second);
  ASSERT_EQ(c1.size(), 1u);
  EXPECT_EQ(c1[0].ns, 2000u);
  EXPECT_EQ(c1[0].type, 20);
  EXPECT_EQ(c1[0].pid, 101);
  EXPECT_EQ(le(c1[0].payload, 0, 4), 2u);
  // __data_loc: length 2 ("x" and its NUL) << 16 | offset 16 in the record.
  EXPECT_EQ(le(c1[0].payload, 4, 4), (2u << 16) | 16u);
  EXPECT_EQ(c1[0].payload.substr(8, 2), std::string("x\0", 2));
}

TEST(TraceDatWriter, RecordsComeOutInTimeOrderAcrossPagesAndLongGaps) {
  const std::string p = tmp_path("order.dat");
  Ticks t(p, 1);
  // Out of order within what is pending, a gap longer than a time delta's 27 bits
  // (134 ms), and enough records for several pages.
  t.tick(0, 5000, 2);
  t.tick(0, 4000, 1);
  t.tick(0, 4000, 11);  // the same time: kept in the order given
  t.tick(0, 4000000000ull, 3);
  for (uint32_t i = 0; i < 1000; ++i) t.tick(0, 5000000000ull + 10 * i, 100 + i, "a-long-name");
  t.w.finish();
  const std::string f = slurp(p);
  fs::remove(p);
  const auto cpu = cpu_sections(f, 1)[0];
  EXPECT_GT(cpu.second, 4096u);
  const auto ev = decode_cpu(f, cpu.first, cpu.second);
  ASSERT_EQ(ev.size(), 1004u);
  EXPECT_EQ(t.w.records(0), 1004u);
  EXPECT_EQ(t.w.late(), 0u);
  const std::vector<std::pair<uint64_t, uint32_t>> head = {
      {4000, 1}, {4000, 11}, {5000, 2}, {4000000000ull, 3}};
  for (size_t i = 0; i < head.size(); ++i) {
    EXPECT_EQ(ev[i].ns, head[i].first) << i;
    EXPECT_EQ(le(ev[i].payload, 0, 4), head[i].second) << i;
  }
  for (size_t i = 4; i < ev.size(); ++i) {
    EXPECT_EQ(ev[i].ns, 5000000000ull + 10 * (i - 4)) << i;
    EXPECT_EQ(le(ev[i].payload, 0, 4), 100 + (i - 4)) << i;
  }
}

TEST(TraceDatWriter, AdvanceWritesWhatIsFinalAndClampsWhatComesLater) {
  const std::string p = tmp_path("advance.dat");
  Ticks t(p, 1);
  for (uint32_t i = 0; i < 5000; ++i) t.tick(0, 1000 + i, i);
  t.w.advance(0, 3000);   // records before 3000 ns are final
  t.tick(0, 2500, 9999);  // too late: written at the time of the last one written
  t.w.finish();
  EXPECT_EQ(t.w.late(), 1u);
  const std::string f = slurp(p);
  fs::remove(p);
  const auto cpu = cpu_sections(f, 1)[0];
  const auto ev = decode_cpu(f, cpu.first, cpu.second);
  ASSERT_EQ(ev.size(), 5001u);
  for (size_t i = 1; i < ev.size(); ++i) EXPECT_GE(ev[i].ns, ev[i - 1].ns) << i;
}

TEST(TraceDatWriter, TraceCmdReportReadsItsEventsPerCpu) {
  if (run("command -v trace-cmd").empty())
    GTEST_SKIP() << "trace-cmd is not installed (apt-get install trace-cmd)";
  const std::string p = tmp_path("report.dat");
  {
    Ticks t(p, 2);
    t.w.set_comm(100, tl::ftrace_comm("IRQ 14"));
    t.w.set_comm(101, "cc1");
    const int32_t caller = t.w.symbol("schedule");
    const int off = t.w.add_event("preemptirq", "irq_disable",
                                  {{"s32 caller_offs", 4, true}, {"s32 parent_offs", 4, true}},
                                  "\"caller=%pS parent=%pS\", (void *)((unsigned long)(_stext) + "
                                  "REC->caller_offs), (void *)((unsigned long)(_stext) + "
                                  "REC->parent_offs)");
    t.tick(0, 1'500'000'000, 7, "ide0");
    t.tick(1, 1'500'000'001, 8);
    tl::TraceRecord r;
    r.i32(caller).i32(t.w.symbol("cpu_idle"));
    t.w.record(1, 1'600'000'000, off, tl::TraceDatWriter::kIrqsOff, 1, 101, r);
    t.w.finish();
  }
  const std::string all = run("trace-cmd report " + p + " 2>&1");
  EXPECT_NE(all.find("irq/14-100   [000]     1.500000: tick:                 seq=7 name=ide0"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("caller=schedule+0x0 parent=cpu_idle+0x0"), std::string::npos) << all;
  const std::string cpu1 = run("trace-cmd report --cpu 1 " + p + " 2>&1");
  EXPECT_EQ(cpu1.find("seq=7"), std::string::npos) << cpu1;
  EXPECT_NE(cpu1.find("cc1-101   [001]     1.500000: tick:                 seq=8 name=x"),
            std::string::npos)
      << cpu1;
  fs::remove(p);
}
