// The tokens file's syntax, its secret-file rule, and what is said about a bad one.
#include "api/token_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

#include "config/logging.h"
#include "support/temp_dir.h"

namespace tpslurm::api {
namespace {

constexpr std::string_view kToken = "s3cret-token-value-1234";

TEST(TokenStoreTest, ParsesNamesTokensCommentsAndBlankLines) {
  auto entries =
      parse_tokens("# clients\n\n  alice\t" + std::string(kToken) + "  \r\nbob other-token-value-5678\n", "/f");
  ASSERT_TRUE(entries.ok()) << entries.error().message();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].name, "alice");
  EXPECT_EQ((*entries)[0].digest, token_digest(kToken));
  EXPECT_EQ((*entries)[1].name, "bob");
}

TEST(TokenStoreTest, RefusesBadLinesNamingTheLineButNeverTheToken) {
  const std::string token(kToken);
  const std::pair<std::string, std::string> cases[] = {
      {"alice\n", "line 1: expected `NAME TOKEN` (two words)"},
      {"# c\nalice " + token + " extra\n", "line 2: expected `NAME TOKEN` (two words)"},
      {"alice short\n", "line 1: the token must be 16 to 4096 bytes long"},
      {"al/ice " + token + "\n", "line 1: the name may hold only letters, digits and . _ @ -"},
      {"alice " + token + "\nalice other-token-value-5678\n", "line 2: the name alice is used twice"},
      {"alice " + token + "\nbob " + token + "\n",
       "line 2: the token of bob is also alice's; give every client its own token"},
  };
  for (const auto& [text, expected] : cases) {
    auto entries = parse_tokens(text, "/etc/t");
    ASSERT_FALSE(entries.ok()) << text;
    EXPECT_EQ(entries.error().message(), "TUNEPLANE_API_TOKENS_FILE /etc/t " + expected);
    EXPECT_EQ(entries.error().message().find(token), std::string::npos);
  }
}

TEST(TokenStoreTest, AuthenticatesOnlyWholeTokens) {
  tpslurm::testing::TempDir dir;
  tpslurm::testing::write_test_file(dir.file("t"), "alice " + std::string(kToken) + "\n");
  auto store = TokenStore::open(dir.file("t"), ::geteuid());
  ASSERT_TRUE(store.ok()) << store.error().message();
  EXPECT_EQ((*store)->authenticate(kToken), "alice");
  EXPECT_EQ((*store)->authenticate(""), std::nullopt);
  EXPECT_EQ((*store)->authenticate(kToken.substr(1)), std::nullopt);
  EXPECT_EQ((*store)->authenticate(std::string(kToken) + "0"), std::nullopt);
}

TEST(TokenStoreTest, OpenRefusesAFileOthersMayWrite) {
  tpslurm::testing::TempDir dir;
  tpslurm::testing::write_test_file(dir.file("t"), "alice " + std::string(kToken) + "\n");
  ::chmod(dir.file("t").c_str(), 0622);
  auto store = TokenStore::open(dir.file("t"), ::geteuid());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().message(), "TUNEPLANE_API_TOKENS_FILE " + dir.file("t") +
                                         ": is writable by group or others (mode 622); run: chmod 600 " +
                                         dir.file("t"));
}

TEST(TokenStoreTest, ABadReReadIsLoggedOnceWithoutTheToken) {
  tpslurm::testing::TempDir dir;
  const std::string path = dir.file("t");
  tpslurm::testing::write_test_file(path, "alice " + std::string(kToken) + "\n");
  auto store = TokenStore::open(path, ::geteuid());
  ASSERT_TRUE(store.ok());
  std::ostringstream log;
  ASSERT_TRUE(config::configure_logging("info", model::LogFormat::text, log).ok());
  tpslurm::testing::write_test_file(path + ".new",
                                    "alice " + std::string(kToken) + "\nbob " + std::string(kToken) + "x y\n");
  ASSERT_EQ(std::rename((path + ".new").c_str(), path.c_str()), 0);
  EXPECT_EQ((*store)->authenticate(kToken), "alice");
  EXPECT_EQ((*store)->authenticate(kToken), "alice");
  EXPECT_EQ((*store)->size(), 1u);
  tpslurm::testing::write_test_file(path + ".new", "bob other-token-value-5678\n");
  ASSERT_EQ(std::rename((path + ".new").c_str(), path.c_str()), 0);
  EXPECT_EQ((*store)->authenticate(kToken), std::nullopt);
  EXPECT_EQ((*store)->authenticate("other-token-value-5678"), "bob");
  ASSERT_TRUE(config::configure_logging("info", model::LogFormat::text).ok());
  const std::string text = log.str();
  const std::string error = " error TUNEPLANE_API_TOKENS_FILE " + path +
                            " line 2: expected `NAME TOKEN` (two words); the API keeps the tokens it read last";
  EXPECT_NE(text.find(error), std::string::npos) << text;
  EXPECT_EQ(text.find(error), text.rfind(error)) << "logged more than once:\n" << text;
  EXPECT_NE(text.find("tokens=1"), std::string::npos) << text;
  EXPECT_EQ(text.find(kToken), std::string::npos) << text;
  EXPECT_EQ(text.find("other-token-value"), std::string::npos) << text;
}

}  // namespace
}  // namespace tpslurm::api
