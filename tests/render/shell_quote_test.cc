#include "render/shell_quote.h"

#include <gtest/gtest.h>

#include "sbatch_reader.h"
#include "support/run_process.h"

namespace tpslurm::render {
namespace {

std::vector<std::string> hostile_values() {
  std::vector<std::string> values = {"",
                                     "plain",
                                     "two words",
                                     "$HOME",
                                     "${PATH}",
                                     "`id`",
                                     "$(id)",
                                     "'",
                                     "''",
                                     "\"",
                                     "\\",
                                     "a\nb",
                                     "\n",
                                     "\t",
                                     "-e",
                                     "-n",
                                     "--",
                                     ";",
                                     "&&",
                                     "|",
                                     "*",
                                     "?",
                                     "[a]",
                                     "~",
                                     "~root",
                                     "!",
                                     "!!",
                                     "#",
                                     "{a,b}",
                                     "a=b",
                                     "=",
                                     "%",
                                     "ü€😀",
                                     "\x01\x1b\x7f",
                                     " lead",
                                     "trail ",
                                     "it's \"x\" $y `z` \\"};
  std::string every_byte;
  for (int c = 1; c < 256; ++c) every_byte += static_cast<char>(c);
  values.push_back(every_byte);
  return values;
}

TEST(ShellQuoteTest, EveryValueComesBackFromBashByteForByte) {
  const auto values = hostile_values();
  std::string script = "printf '%s\\0'";
  for (const auto& value : values) script += " " + shell_quote(value);
  script += "\n";
  const auto result =
      tpslurm::testing::run_process({"/bin/bash", "-c", script}, {{"PATH", "/usr/bin:/bin"}, {"HOME", "/home/x"}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::string> received;
  std::size_t start = 0;
  while (start < result.out.size()) {
    const auto end = result.out.find('\0', start);
    received.push_back(result.out.substr(start, end - start));
    start = end + 1;
  }
  EXPECT_EQ(received, values);
}

TEST(ShellQuoteTest, LeavesPlainWordsReadable) {
  EXPECT_EQ(shell_quote("/srv/tp/slurm/jobs/a-1/attempts/2"), "/srv/tp/slurm/jobs/a-1/attempts/2");
  EXPECT_EQ(shell_quote("--lr=3e-4"), "--lr=3e-4");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("~"), "'~'");
}

TEST(SbatchQuoteTest, EveryValueReadsBackThroughSbatchRules) {
  for (const std::string value : {"plain", "two words", "a\"b", "a'b", "back\\slash", "#not-comment", "\tx", "ü€",
                                  "a&b|c", "hetjob", "my-HETJOB-x", "packjob", "het job"}) {
    auto quoted = sbatch_quote(value);
    ASSERT_TRUE(quoted.ok()) << value;
    model::SubmitDescription description;
    const std::string script = "#!/bin/bash\n#SBATCH --job-name=" + *quoted +
                               "\n#SBATCH --no-requeue\n#SBATCH --export=NONE\n" +
                               "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=1\nhostname\n";
    auto read = testing::read_sbatch_directives(script);
    ASSERT_TRUE(read.ok()) << value << ": " << read.error().message();
    EXPECT_EQ(read->tag.name, value);
    EXPECT_EQ(read->components.size(), 1u) << value;
  }
}

TEST(SbatchQuoteTest, BreaksUpTheComponentSeparatorWords) {
  EXPECT_EQ(*sbatch_quote("tp-prod-hetjob-1"), "tp-prod-het\"\"job-1");
  EXPECT_EQ(*sbatch_quote("PackJob"), "Pack\"\"Job");
  EXPECT_EQ(*sbatch_quote("a b hetjob"), "\"a b het\"\"job\"");
}

TEST(SbatchQuoteTest, RefusesValuesNoDirectiveLineCanHold) {
  EXPECT_EQ(sbatch_quote("a\nb").error().message(), "contains a line break");
  EXPECT_EQ(sbatch_quote("a\rb").error().message(), "contains a line break");
  EXPECT_EQ(sbatch_quote(std::string("a\0b", 3)).error().message(), "contains a NUL byte");
}

}  // namespace
}  // namespace tpslurm::render
