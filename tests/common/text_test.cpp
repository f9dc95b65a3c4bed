// Printable text: what passes as printable UTF-8, and how the rest is shown.
#include "common/text.h"

#include <gtest/gtest.h>

#include <string>

namespace latsim::text {
namespace {

TEST(Text, PrintableUtf8PassesAndEverythingElseIsNamed) {
  EXPECT_EQ(unprintable("2.6.9-rc1-VP-R1"), std::nullopt);
  EXPECT_EQ(unprintable("Molnár, 70 µs, ≤ 2 ms"), std::nullopt);
  EXPECT_EQ(unprintable(""), std::nullopt);
  EXPECT_EQ(unprintable("a\x1b[31m"), "contains the control character \\x1b");
  EXPECT_EQ(unprintable("a\tb"), "contains the control character \\t");
  EXPECT_EQ(unprintable(std::string("a\0b", 3)), "contains the control character \\x00");
  EXPECT_EQ(unprintable("a\x7f"), "contains the control character \\x7f");
  EXPECT_EQ(unprintable("a\xc2\x9b"), "contains the control character \\xc2\\x9b");  // C1 CSI
  EXPECT_EQ(unprintable("a\nb"), "contains the control character \\n");
  EXPECT_EQ(unprintable("a\nb", true), std::nullopt);
  EXPECT_EQ(unprintable("\xff"), "is not valid UTF-8 (byte \\xff)");
  EXPECT_EQ(unprintable("\xc3"), "is not valid UTF-8 (byte \\xc3)");              // cut short
  EXPECT_EQ(unprintable("\xc0\xaf"), "is not valid UTF-8 (byte \\xc0)");          // overlong
  EXPECT_EQ(unprintable("\xed\xa0\x80"), "is not valid UTF-8 (byte \\xed)");      // surrogate
  EXPECT_EQ(unprintable("\xf4\x90\x80\x80"), "is not valid UTF-8 (byte \\xf4)");  // > U+10FFFF
}

TEST(Text, EscapedKeepsPrintableTextAndShowsTheRest) {
  EXPECT_EQ(escaped("Molnár: 70 µs"), "Molnár: 70 µs");
  EXPECT_EQ(escaped("a\x1b]0;x\a\nb\tc\xff"), "a\\x1b]0;x\\x07\\nb\\tc\\xff");
  EXPECT_EQ(escaped(std::string("\0", 1)), "\\x00");
}

}  // namespace
}  // namespace latsim::text
