// RegisterBank: decode by offset, access rights, reset values, W1C status bits, hooks,
// register arrays and the TLM unpacking, on a small made-up device.
#include "models/common/register_bank.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>

namespace latsim {
namespace {

using latsim::testing::fresh_simulation;

struct Toy {
  using Reg = Register<Toy>;
  RegisterBank<Toy> regs{this, 0xff};
  Reg ctrl = Reg(regs, "CTRL", {0x00, 2}, RegAccess::RW, 0x1234);
  Reg id = Reg(regs, "ID", {0x02, 1}, RegAccess::RO, 0x5a);
  Reg cmd = Reg(regs, "CMD", {0x03, 1}, RegAccess::WO, 0, nullptr, &Toy::on_cmd);
  Reg status = Reg(regs, "STATUS", {0x04, 2}, RegRights{0x00f0, 0x000f}, 0x0102);
  Reg isr = Reg(regs, "ISR", {0x06, 2}, RegAccess::W1C, 0, nullptr, &Toy::on_isr);
  Reg base = Reg(regs, "BASE", {0x08, 4}, RegRights{0xfffff000, 0});
  Reg stat = Reg(regs, "STAT", {0x0c, 1}, RegAccess::RO, 0, &Toy::read_stat);
  Reg cmd2 = Reg(regs, "CMD2", {0x0c, 1}, RegAccess::WO, 0, nullptr, &Toy::on_cmd);
  Reg chan =
      Reg(regs, "CHAN", {0x10, 2, 3, 4}, RegAccess::RW, 0, &Toy::read_chan, &Toy::write_chan);

  void on_cmd(uint32_t v, const RegIo&) { cmds.push_back(v); }
  void on_isr(uint32_t v, const RegIo& io) {
    isr.apply(v, io);
    isr_writes++;
  }
  uint32_t read_stat(const RegIo&) { return ++stat_reads; }
  uint32_t read_chan(const RegIo& io) { return 0x100u * (io.index + 1) + io.lane; }
  void write_chan(uint32_t v, const RegIo& io) { chan_log.push_back({io.index, io.lane, v}); }

  std::vector<uint32_t> cmds;
  int isr_writes = 0;
  uint32_t stat_reads = 0;
  struct Chan {
    unsigned index, lane;
    uint32_t v;
  };
  std::vector<Chan> chan_log;
};

TEST(RegisterBank, DecodesByOffsetAndResetValuesHold) {
  fresh_simulation();
  Toy t;
  EXPECT_EQ(t.regs.read(0x00, 2), 0x1234u);
  EXPECT_EQ(t.regs.read(0x01, 1), 0x12u);  // byte lane 1 of CTRL
  EXPECT_EQ(t.regs.read(0x02, 1), 0x5au);
  EXPECT_EQ(t.regs.read(0x04, 2), 0x0102u);
  EXPECT_STREQ(t.regs.decodes_to(0x05)->name(), "STATUS");
  EXPECT_EQ(t.regs.decodes_to(0x0e), nullptr);
  EXPECT_EQ(t.regs.registers().size(), 9u);
}

TEST(RegisterBank, UnclaimedReadsFloatAndUnclaimedWritesAreDropped) {
  fresh_simulation();
  Toy t;
  EXPECT_EQ(t.regs.read(0x0e, 1), 0xffu);
  EXPECT_EQ(t.regs.read(0x40, 4), 0xffu);  // the floating value, not sign-extended
  t.regs.write(0x0e, 1, 0x77);
  EXPECT_EQ(t.regs.read(0x0e, 1), 0xffu);
}

TEST(RegisterBank, WideAccessStaysInTheRegisterOfItsFirstByte) {
  fresh_simulation();
  Toy t;
  EXPECT_EQ(t.regs.read(0x02, 4), 0x5au);  // ID only: CMD and STATUS are not read
  t.regs.write(0x00, 4, 0xffffabcd);       // CTRL takes its two bytes, ID is untouched
  EXPECT_EQ(uint32_t(t.ctrl), 0xabcdu);
  EXPECT_EQ(uint32_t(t.id), 0x5au);
  EXPECT_TRUE(t.cmds.empty());
}

TEST(RegisterBank, ReadOnlyIgnoresWritesWriteOnlyFloatsOnRead) {
  fresh_simulation();
  Toy t;
  t.regs.write(0x02, 1, 0x00);
  EXPECT_EQ(t.regs.read(0x02, 1), 0x5au);
  t.regs.write(0x03, 1, 0x42);
  EXPECT_EQ(t.regs.read(0x03, 1), 0xffu);
  EXPECT_EQ(t.cmds, std::vector<uint32_t>{0x42});
}

TEST(RegisterBank, ReadOnlyAndWriteOnlyRegistersShareAnOffset) {
  fresh_simulation();
  Toy t;
  EXPECT_EQ(t.regs.read(0x0c, 1), 1u);  // STAT's hook
  t.regs.write(0x0c, 1, 0x99);          // CMD2's hook, STAT's not called
  EXPECT_EQ(t.stat_reads, 1u);
  EXPECT_EQ(t.cmds, std::vector<uint32_t>{0x99});
  EXPECT_STREQ(t.regs.decodes_to(0x0c, false)->name(), "STAT");
  EXPECT_STREQ(t.regs.decodes_to(0x0c, true)->name(), "CMD2");
}

TEST(RegisterBank, WriteOneToClearClearsOnlyWrittenOnes) {
  fresh_simulation();
  Toy t;
  t.isr = 0x8181;
  t.regs.write(0x06, 2, 0x0001);
  EXPECT_EQ(uint32_t(t.isr), 0x8180u);
  t.regs.write(0x06, 2, 0x0002);  // a 1 where nothing is set: no change
  EXPECT_EQ(uint32_t(t.isr), 0x8180u);
  t.regs.write(0x07, 1, 0x80);  // byte write to the high half clears bit 15 only
  EXPECT_EQ(uint32_t(t.isr), 0x0180u);
  t.regs.write(0x06, 1, 0xff);  // the low half: the high half is not written
  EXPECT_EQ(uint32_t(t.isr), 0x0100u);
  EXPECT_EQ(t.isr_writes, 4);
}

TEST(RegisterBank, MixedRightsKeepReadOnlyBitsAndClearStatusBits) {
  fresh_simulation();
  Toy t;
  t.status = 0x010f;
  t.regs.write(0x04, 2, 0xffa5);  // RW nibble takes 0xa, W1C bits 0 and 2 clear, RO bit 8 stays
  EXPECT_EQ(uint32_t(t.status), 0x01aau);
  t.regs.write(0x08, 4, 0xffffffff);  // an address register: low bits read back 0 (BAR-style)
  EXPECT_EQ(t.regs.read(0x08, 4), 0xfffff000u);
}

TEST(RegisterBank, ResetRestoresEveryStoredValue) {
  fresh_simulation();
  Toy t;
  t.regs.write(0x00, 2, 0x0000);
  t.status = 0;
  t.regs.reset();
  EXPECT_EQ(uint32_t(t.ctrl), 0x1234u);
  EXPECT_EQ(uint32_t(t.status), 0x0102u);
  t.ctrl.set_reset_value(0x4321);
  t.regs.reset();
  EXPECT_EQ(t.regs.read(0x00, 2), 0x4321u);
}

TEST(RegisterBank, ArrayElementsDecodeWithIndexAndLaneGapsFloat) {
  fresh_simulation();
  Toy t;
  EXPECT_EQ(t.regs.read(0x10, 2), 0x100u);
  EXPECT_EQ(t.regs.read(0x18, 2), 0x300u);
  EXPECT_EQ(t.regs.read(0x15, 1), 0x02u);  // element 1, lane 1: the hook's value shifted down
  EXPECT_EQ(t.regs.read(0x16, 1), 0xffu);  // between elements (width 2, stride 4)
  t.regs.write(0x19, 1, 0xab);
  ASSERT_EQ(t.chan_log.size(), 1u);
  EXPECT_EQ(t.chan_log[0].index, 2u);
  EXPECT_EQ(t.chan_log[0].lane, 1u);
  EXPECT_EQ(t.chan_log[0].v, 0xab00u);  // written bytes in their lanes
}

TEST(RegisterBank, SpanningAccessesSplitAtRegisterBoundaries) {
  fresh_simulation();
  Toy t;
  // CTRL (2 bytes) and ID (1) and CMD (write-only: floats) in one dword read.
  EXPECT_EQ(t.regs.read_span(0x00, 4), 0xff5a1234u);
  t.status = 0x01f3;
  t.regs.write_span(0x02, 4, 0x0000f0aa);  // ID is read-only, CMD takes 0xf0, STATUS gets 0
  EXPECT_EQ(uint32_t(t.id), 0x5au);
  EXPECT_EQ(t.cmds, std::vector<uint32_t>{0xf0});
  EXPECT_EQ(uint32_t(t.status), 0x0103u);         // zeros: RW nibble cleared, W1C bits kept
  EXPECT_EQ(t.regs.read_span(0x0d, 2), 0xffffu);  // nothing there: floating bytes
}

TEST(RegisterBank, TransportUnpacksLittleEndianAndTimesTheAccess) {
  fresh_simulation();
  Toy t;
  uint8_t buf[4] = {0x78, 0x56, 0, 0};
  tlm::tlm_generic_payload p;
  p.set_address(0x00);
  p.set_data_ptr(buf);
  p.set_data_length(2);
  p.set_command(tlm::TLM_WRITE_COMMAND);
  sc_time delay(5, SC_NS);
  t.regs.transport(p, delay);
  EXPECT_EQ(uint32_t(t.ctrl), 0x5678u);
  EXPECT_EQ(p.get_response_status(), tlm::TLM_OK_RESPONSE);
  p.set_address(0x02);
  p.set_data_length(1);
  p.set_command(tlm::TLM_READ_COMMAND);
  t.regs.transport(p, delay);
  EXPECT_EQ(buf[0], 0x5a);
  EXPECT_EQ(buf[1], 0x56);  // beyond the access: untouched
}

}  // namespace
}  // namespace latsim
