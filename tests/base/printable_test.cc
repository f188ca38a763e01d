#include "base/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace tpslurm {
namespace {

// The inverse printable()'s header promises: \\ and \" undone, \xHH a byte, \uHHHH a character.
std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
    } else if (text[i + 1] == 'x') {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 2, 2)), nullptr, 16));
      i += 3;
    } else if (text[i + 1] == 'u') {
      const auto code = static_cast<std::uint32_t>(std::stoul(std::string(text.substr(i + 2, 4)), nullptr, 16));
      if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
      } else {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      }
      out += static_cast<char>(0x80 | (code & 0x3F));
      i += 5;
    } else {
      out += text[++i];
    }
  }
  return out;
}

bool shows_safely(std::string_view shown) {
  for (std::size_t i = 0; i < shown.size();) {
    const std::size_t length = utf8_length(shown, i);
    if (length == 0 || static_cast<unsigned char>(shown[i]) < 0x20 || shown[i] == 0x7f) return false;
    i += length;
  }
  return true;
}

TEST(PrintableTest, KeepsPrintableAsciiAndValidUtf8) {
  EXPECT_EQ(printable("batch.out"), "batch.out");
  EXPECT_EQ(printable("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80.log"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80.log");
  EXPECT_EQ(printable(""), "");
}

TEST(PrintableTest, EscapesControlsQuotesAndBackslashes) {
  EXPECT_EQ(printable("a\nb"), "a\\x0ab");
  EXPECT_EQ(printable(std::string("\x01\x1f\x7f\t\r", 5)), "\\x01\\x1f\\x7f\\x09\\x0d");
  EXPECT_EQ(printable("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(printable("C:\\x41"), "C:\\\\x41") << "a backslash is escaped, so a name cannot pose as an escape";
  EXPECT_EQ(printable(std::string("nul\0byte", 8)), "nul\\x00byte");
}

TEST(PrintableTest, EscapesEachByteThatIsNotValidUtf8) {
  EXPECT_EQ(printable("\xff"), "\\xff");
  EXPECT_EQ(printable("\x80tail"), "\\x80tail") << "a stray continuation byte";
  EXPECT_EQ(printable("cut\xC3"), "cut\\xc3") << "a truncated sequence";
  EXPECT_EQ(printable("\xC3\x28"), "\\xc3(");
  EXPECT_EQ(printable("\xC0\x80"), "\\xc0\\x80") << "an overlong form";
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xed\\xa0\\x80") << "a UTF-16 surrogate";
  EXPECT_EQ(printable("\xF4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80") << "past U+10FFFF";
}

TEST(PrintableTest, EscapesCharactersThatBreakLinesOrReorderText) {
  EXPECT_EQ(printable("\xC2\x85"), "\\u0085") << "NEL, a C1 control";
  EXPECT_EQ(printable("a\xE2\x80\xA8z"), "a\\u2028z");
  EXPECT_EQ(printable("\xE2\x80\xAEgol.exe"), "\\u202egol.exe");
  EXPECT_EQ(printable("\xE2\x81\xA6x"), "\\u2066x");
}

TEST(PrintableTest, EveryByteShowsSafelyAndCanBeRecovered) {
  for (int byte = 0; byte < 256; ++byte) {
    const std::string name = "a" + std::string(1, static_cast<char>(byte)) + "b";
    const std::string shown = printable(name);
    EXPECT_TRUE(shows_safely(shown)) << byte;
    EXPECT_EQ(unescape(shown), name) << byte;
  }
  for (const char* name : {"\xE2\x80\xA8", "\xC2\x9F\\\"", "mixed \xff\xC3\xA9\n\xE2\x80\xAE"}) {
    EXPECT_TRUE(shows_safely(printable(name))) << name;
    EXPECT_EQ(unescape(printable(name)), name);
  }
}

TEST(PrintableTest, Utf8LengthNamesTheValidSequence) {
  EXPECT_EQ(utf8_length("a", 0), 1u);
  EXPECT_EQ(utf8_length("\xC3\xA9", 0), 2u);
  EXPECT_EQ(utf8_length("\xE2\x82\xAC", 0), 3u);
  EXPECT_EQ(utf8_length("\xF0\x9F\x98\x80", 0), 4u);
  EXPECT_EQ(utf8_length("\xF0\x9F\x98", 0), 0u);
  EXPECT_EQ(utf8_length("\xC3\xA9", 1), 0u);
  EXPECT_EQ(utf8_length("a", 1), 0u) << "past the end";
}

}  // namespace
}  // namespace tpslurm
