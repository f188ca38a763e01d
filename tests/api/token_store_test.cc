// The tokens file's syntax (names, tokens, scopes), its secret-file rule, what is said about a
// bad one, and what a new version of it does to the tokens in force: a removed file revokes
// every token, a removed or broken line its own, a file others may write can only revoke.
#include "api/token_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "config/logging.h"
#include "support/temp_dir.h"

namespace tpslurm::api {
namespace {

constexpr std::string_view kToken = "s3cret-token-value-1234";
constexpr std::string_view kOther = "other-token-value-5678";
constexpr std::string_view kThird = "third-token-value-9012";

Scopes scopes(std::string_view text) { return *parse_scopes(text); }

TEST(TokenStoreTest, ParsesNamesTokensScopesCommentsAndBlankLines) {
  const TokensFile file =
      parse_tokens("# clients\n\n  alice\t" + std::string(kToken) + "  read,submit \r\nbob " + std::string(kOther) +
                       "\nops " + std::string(kThird) + " operate,read,operate\n",
                   "/f");
  ASSERT_TRUE(file.problems.empty()) << file.problems.front();
  ASSERT_EQ(file.entries.size(), 3u);
  EXPECT_EQ(file.entries[0].name, "alice");
  EXPECT_EQ(file.entries[0].digest, token_digest(kToken));
  EXPECT_EQ(file.entries[0].scopes, scopes("read,submit"));
  EXPECT_TRUE(file.entries[0].scoped);
  EXPECT_EQ(file.entries[0].line, 3u);
  EXPECT_EQ(file.entries[1].name, "bob");
  EXPECT_EQ(file.entries[1].scopes, Scopes::all()) << "a line without scopes holds them all";
  EXPECT_FALSE(file.entries[1].scoped);
  EXPECT_EQ(file.entries[2].scopes, scopes("read,operate"));
  EXPECT_EQ(file.entries[2].scopes.text(), "read,operate");
  EXPECT_EQ(file.unscoped_lines(), "4 (bob)");
}

TEST(TokenStoreTest, ScopesAreReadSubmitAndOperateCommaSeparated) {
  EXPECT_EQ(parse_scopes("read"), Scopes().with(Scope::read));
  EXPECT_EQ(parse_scopes("submit,read,operate"), Scopes::all());
  for (const std::string_view bad : {"", "write", "read,", ",read", "read,,submit", "Read", "read;submit"}) {
    EXPECT_EQ(parse_scopes(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(Scopes().text(), "none");
}

TEST(TokenStoreTest, NamesEachBadLineButNeverTheTokenAndKeepsTheGoodOnes) {
  const std::string token(kToken);
  const std::pair<std::string, std::string> cases[] = {
      {"alice\n", "line 2: expected `NAME TOKEN SCOPES` (SCOPES: read, submit and operate, comma-separated)"},
      {"# c\nalice " + token + " read extra\n",
       "line 3: expected `NAME TOKEN SCOPES` (SCOPES: read, submit and operate, comma-separated)"},
      {"alice short read\n", "line 2: the token must be 16 to 4096 bytes long"},
      {"al/ice " + token + "\n", "line 2: the name may hold only letters, digits and . _ @ -"},
      {"alice " + token + " read,write\n",
       "line 2: SCOPES must be read, submit and operate, comma-separated without blanks (e.g. read,submit)"},
      {"alice " + token,
       "line 2: the line has no newline at its end, so it may be cut short (the file read while it was being "
       "written); end every line with a newline"},
      {"alice " + token + " read\nalice " + std::string(kOther) + " read\n",
       "line 3: the name alice is used twice (line 2 has it)"},
      {"alice " + token + " read\nbob " + token + " read\n",
       "line 3: the token of bob is also alice's; give every client its own token"},
  };
  for (const auto& [text, expected] : cases) {
    const TokensFile file = parse_tokens("keeper " + std::string(kThird) + " read\n" + text, "/etc/t");
    ASSERT_EQ(file.problems.size(), 1u) << text;
    EXPECT_EQ(file.problems[0], "TUNEPLANE_API_TOKENS_FILE /etc/t " + expected);
    EXPECT_EQ(file.problems[0].find(token), std::string::npos);
    ASSERT_FALSE(file.entries.empty()) << text;
    EXPECT_EQ(file.entries.front().name, "keeper") << "the good lines stay";
  }
}

TEST(TokenStoreTest, AuthenticatesOnlyWholeTokensWithTheirScopes) {
  tpslurm::testing::TempDir dir;
  tpslurm::testing::write_test_file(dir.file("t"), "alice " + std::string(kToken) + " read\n");
  auto store = TokenStore::open(dir.file("t"), ::geteuid());
  ASSERT_TRUE(store.ok()) << store.error().message();
  const auto alice = (*store)->authenticate(kToken);
  ASSERT_TRUE(alice.has_value());
  EXPECT_EQ(alice->name, "alice");
  EXPECT_EQ(alice->scopes, scopes("read"));
  EXPECT_EQ((*store)->authenticate(""), std::nullopt);
  EXPECT_EQ((*store)->authenticate(kToken.substr(1)), std::nullopt);
  EXPECT_EQ((*store)->authenticate(std::string(kToken) + "0"), std::nullopt);
  EXPECT_EQ((*store)->outage(), "");
}

TEST(TokenStoreTest, OpenRefusesAFileOthersMayWriteOrAnyBadLine) {
  tpslurm::testing::TempDir dir;
  tpslurm::testing::write_test_file(dir.file("t"), "alice " + std::string(kToken) + " read\n");
  ::chmod(dir.file("t").c_str(), 0622);
  auto store = TokenStore::open(dir.file("t"), ::geteuid());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().message(), "TUNEPLANE_API_TOKENS_FILE " + dir.file("t") +
                                         ": is writable by group or others (mode 0622); run: chmod 600 " +
                                         dir.file("t"));
  tpslurm::testing::write_test_file(dir.file("u"), "alice " + std::string(kToken) + " read\nbob x\ncarol y\n");
  store = TokenStore::open(dir.file("u"), ::geteuid());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().message(), "TUNEPLANE_API_TOKENS_FILE " + dir.file("u") +
                                         " line 2: the token must be 16 to 4096 bytes long (and 1 more bad line(s))");
}

// A store over a file in a temporary directory, whose log is captured.
class TokenFileChangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path = dir.file("api-tokens");
    replace("alice " + std::string(kToken) + " read,submit\nbob " + std::string(kOther) + " read\n");
    auto opened = TokenStore::open(path, ::geteuid());
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    store = std::move(*opened);
    ASSERT_TRUE(config::configure_logging("info", model::LogFormat::text, log).ok());
  }
  void TearDown() override { ASSERT_TRUE(config::configure_logging("info", model::LogFormat::text).ok()); }

  // A new version by rename, as an editor or `install` writes it: a new inode, mode 0600.
  void replace(const std::string& text) {
    tpslurm::testing::write_test_file(path + ".new", text);
    ASSERT_EQ(::chmod((path + ".new").c_str(), 0600), 0);
    ASSERT_EQ(std::rename((path + ".new").c_str(), path.c_str()), 0);
  }
  // The file rewritten in place (same inode), as `>` in a shell does.
  void rewrite(const std::string& text) {
    FILE* file = std::fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs(text.c_str(), file);
    std::fclose(file);
  }

  std::optional<std::string> who(std::string_view token) {
    auto caller = store->authenticate(token);
    return caller ? std::optional<std::string>(caller->name) : std::nullopt;
  }
  std::size_t logged(const std::string& text) {
    std::size_t count = 0;
    for (auto at = log.str().find(text); at != std::string::npos; at = log.str().find(text, at + 1)) ++count;
    return count;
  }

  tpslurm::testing::TempDir dir;
  std::string path;
  std::unique_ptr<TokenStore> store;
  std::ostringstream log;
};

TEST_F(TokenFileChangeTest, ARemovedFileRevokesEveryTokenUntilItIsBack) {
  ASSERT_EQ(who(kToken), "alice");
  ASSERT_EQ(::unlink(path.c_str()), 0);
  EXPECT_EQ(who(kToken), std::nullopt);
  EXPECT_EQ(who(kOther), std::nullopt);
  EXPECT_EQ(store->size(), 0u);
  EXPECT_EQ(store->outage(), "the API's tokens file is gone");
  EXPECT_EQ(logged(" error TUNEPLANE_API_TOKENS_FILE " + path +
                   " is gone: every token of the API is revoked (2) until the file is back"),
            1u)
      << log.str();
  replace("alice " + std::string(kToken) + " read\n");
  EXPECT_EQ(who(kToken), "alice");
  EXPECT_EQ(who(kOther), std::nullopt);
  EXPECT_EQ(store->outage(), "");
}

TEST_F(TokenFileChangeTest, ARemovedLineRevokesItsTokenAndAChangedOneTakesItsNewScopes) {
  replace("bob " + std::string(kOther) + " read,operate\n");
  EXPECT_EQ(who(kToken), std::nullopt);
  const auto bob = store->authenticate(kOther);
  ASSERT_TRUE(bob.has_value());
  EXPECT_EQ(bob->scopes, scopes("read,operate"));
  EXPECT_EQ(logged("TUNEPLANE_API_TOKENS_FILE " + path + " re-read"), 1u) << "one version, read once: " << log.str();
  EXPECT_NE(log.str().find("tokens=1"), std::string::npos) << log.str();
}

TEST_F(TokenFileChangeTest, AHalfWrittenFileKeepsItsCompleteLinesAndRevokesTheRest) {
  // Cut inside bob's token: bob's line has no newline yet, and is not taken for a token with
  // every scope; alice's line is complete.
  const std::string whole = "alice " + std::string(kToken) + " read,submit\nbob " + std::string(kOther) + " read\n";
  rewrite(whole.substr(0, whole.find(kOther) + 18));
  EXPECT_EQ(who(kToken), "alice");
  EXPECT_EQ(who(kOther), std::nullopt);
  EXPECT_EQ(who(kOther.substr(0, 18)), std::nullopt);
  EXPECT_EQ(logged("line 2: the line has no newline at its end, so it may be cut short"), 1u) << log.str();
  // Cut inside the scopes.
  rewrite(whole.substr(0, whole.size() - 3));
  EXPECT_EQ(who(kToken), "alice");
  EXPECT_EQ(who(kOther), std::nullopt);
  rewrite(whole);
  EXPECT_EQ(who(kOther), "bob");
  EXPECT_EQ(log.str().find(kToken), std::string::npos) << log.str();
  EXPECT_EQ(log.str().find(kOther.substr(0, 16)), std::string::npos) << log.str();
}

TEST_F(TokenFileChangeTest, AFileOthersMayWriteCanOnlyRevoke) {
  // Removes bob, widens alice, adds carol: of that, only bob's removal is taken.
  replace("alice " + std::string(kToken) + " read,submit,operate\ncarol " + std::string(kThird) + " read\n");
  ::chmod(path.c_str(), 0620);
  const auto alice = store->authenticate(kToken);
  ASSERT_TRUE(alice.has_value());
  EXPECT_EQ(alice->scopes, scopes("read,submit"));
  EXPECT_EQ(who(kOther), std::nullopt);
  EXPECT_EQ(who(kThird), std::nullopt);
  EXPECT_EQ(logged("is writable by group or others (mode 0620); run: chmod 600 " + path +
                   "; until it is fixed the file can only revoke: 1 token(s) stay valid"),
            1u)
      << log.str();
  ::chmod(path.c_str(), 0600);
  EXPECT_EQ(store->authenticate(kToken)->scopes, Scopes::all());
  EXPECT_EQ(who(kThird), "carol");
}

TEST_F(TokenFileChangeTest, AFileThatCannotBeReadKeepsTheTokens) {
  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  EXPECT_EQ(who(kToken), "alice") << "what the file says now is not known";
  EXPECT_EQ(who(kOther), "bob");
  EXPECT_EQ(
      logged("TUNEPLANE_API_TOKENS_FILE " + path + ": expected a regular file; the API keeps the tokens it has (2)"),
      1u)
      << log.str();
}

TEST_F(TokenFileChangeTest, BadLinesAndLinesWithoutScopesAreLoggedOncePerVersion) {
  replace("alice " + std::string(kToken) + "\nbob " + std::string(kOther) + "x y z\n");
  EXPECT_EQ(who(kToken), "alice");
  EXPECT_EQ(who(kToken), "alice");
  EXPECT_EQ(store->size(), 1u);
  EXPECT_EQ(logged(" error TUNEPLANE_API_TOKENS_FILE " + path +
                   " line 2: expected `NAME TOKEN SCOPES` (SCOPES: read, submit and operate, comma-separated); "
                   "that line's token is not valid"),
            1u)
      << log.str();
  EXPECT_EQ(logged(" warn TUNEPLANE_API_TOKENS_FILE " + path +
                   ": lines 1 (alice) name no scopes, so each holds every scope (read, submit, operate); give each "
                   "the scopes its client needs: NAME TOKEN read,submit"),
            1u)
      << log.str();
  EXPECT_EQ(log.str().find(kToken), std::string::npos) << log.str();
  EXPECT_EQ(log.str().find("other-token-value"), std::string::npos) << log.str();
}

TEST(TokenStoreTest, OpenWarnsOfLinesWithoutScopes) {
  tpslurm::testing::TempDir dir;
  tpslurm::testing::write_test_file(dir.file("t"), "alice " + std::string(kToken) + "\nbob " + std::string(kOther) +
                                                       " read\nci " + std::string(kThird) + "\n");
  std::ostringstream log;
  ASSERT_TRUE(config::configure_logging("info", model::LogFormat::text, log).ok());
  auto store = TokenStore::open(dir.file("t"), ::geteuid());
  ASSERT_TRUE(config::configure_logging("info", model::LogFormat::text).ok());
  ASSERT_TRUE(store.ok()) << store.error().message();
  EXPECT_NE(log.str().find("lines 1 (alice), 3 (ci) name no scopes"), std::string::npos) << log.str();
  EXPECT_EQ((*store)->authenticate(kThird)->scopes, Scopes::all());
}

}  // namespace
}  // namespace tpslurm::api
