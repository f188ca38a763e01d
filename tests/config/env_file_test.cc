#include "config/env_file.h"

#include <gtest/gtest.h>

namespace tpslurm::config {
namespace {

std::vector<EnvFileEntry> entries(std::string_view text) {
  auto parsed = parse_env_file(text, "f.env");
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().to_text());
  return parsed.ok() ? *parsed : std::vector<EnvFileEntry>{};
}

std::string refusal(std::string_view text) {
  auto parsed = parse_env_file(text, "f.env");
  return parsed.ok() ? "" : parsed.error().to_text();
}

TEST(EnvFileTest, ReadsPlainAssignmentsCommentsAndBlankLines) {
  EXPECT_EQ(entries("# comment\n; also a comment\n\nA=1\n  B = two words  \nC=\n"),
            (std::vector<EnvFileEntry>{{"A", "1", 4}, {"B", "two words", 5}, {"C", "", 6}}));
}

TEST(EnvFileTest, SingleQuotesAreVerbatimAndMaySpanLines) {
  EXPECT_EQ(entries("A='x \\n $y \"z\"'\nB='line1\nline2'\nC=1\n"),
            (std::vector<EnvFileEntry>{{"A", "x \\n $y \"z\"", 1}, {"B", "line1\nline2", 2}, {"C", "1", 4}}));
}

TEST(EnvFileTest, DoubleQuotesKnowShellEscapes) {
  EXPECT_EQ(entries(R"(A="say \"hi\" \$HOME \\ \x")"), (std::vector<EnvFileEntry>{{"A", R"(say "hi" $HOME \ \x)", 1}}));
  EXPECT_EQ(entries("A=\"one \\\ntwo\"\n"), (std::vector<EnvFileEntry>{{"A", "one two", 1}}));
}

TEST(EnvFileTest, UnquotedBackslashesEscapeAndContinue) {
  EXPECT_EQ(entries("A=a\\ b\\\\c\nB=long\\\nvalue\n"),
            (std::vector<EnvFileEntry>{{"A", "a b\\c", 1}, {"B", "longvalue", 2}}));
}

TEST(EnvFileTest, QuotesInsideAnUnquotedValueAreKept) {
  EXPECT_EQ(entries("A=it's \"fine\"\n"), (std::vector<EnvFileEntry>{{"A", "it's \"fine\"", 1}}));
}

TEST(EnvFileTest, ReportsEveryBadLine) {
  EXPECT_EQ(refusal("GOOD=1\nno equals here\n1BAD=x\nA='x' trailing\n"),
            "f.env:2 \"no equals here\": has no '='; write KEY=VALUE\n"
            "f.env:3 \"1BAD\": is not a variable name (letters, digits and '_', not starting with a digit)\n"
            "f.env:4 \"A\": has text after the closing quote: \" trailing\"\n");
  EXPECT_EQ(refusal("A=\"never closed\nB=1\n"), "f.env:1 \"A\": has an opening quote that is never closed\n");
}

}  // namespace
}  // namespace tpslurm::config
