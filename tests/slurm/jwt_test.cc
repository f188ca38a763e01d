// JWTs: minting and reading, the token file that is re-read on rotation, and minting with
// refresh at 80 % of the lifespan, one refresh at a time, failures reported.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <thread>
#include <unistd.h>
#include <vector>

#include "slurm/jwt.h"
#include "slurm/jwt_source.h"
#include "support/temp_dir.h"

namespace tpslurm::slurm {
namespace {

const TimePoint kStart = from_unix_seconds(1796040000);
constexpr std::string_view kKey = "0123456789abcdef0123456789abcdef";

using tpslurm::testing::TempDir;

void write(const std::string& path, const std::string& content) {
  // Write beside and rename, as rotation tools do.
  const std::string temp = path + ".new";
  std::ofstream(temp, std::ios::binary | std::ios::trunc) << content;
  std::rename(temp.c_str(), path.c_str());
}

TEST(JwtTest, MintedTokenCarriesSlurmsClaimsAndVerifiesWithTheKey) {
  const std::string token = mint_hs256(kKey, "alice", kStart, std::chrono::seconds(1800));
  EXPECT_TRUE(verify_hs256(token, kKey));
  EXPECT_FALSE(verify_hs256(token, "another key"));
  auto claims = read_claims(token);
  ASSERT_TRUE(claims.ok());
  EXPECT_EQ(claims->user, "alice");
  EXPECT_EQ(claims->issued_at, 1796040000);
  EXPECT_EQ(claims->expires_at, 1796041800);
  EXPECT_EQ(token.substr(0, token.find('.')), "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9");  // {"alg":"HS256","typ":"JWT"}
}

TEST(JwtTest, ReadClaimsRefusesWhatIsNotAJwt) {
  EXPECT_EQ(read_claims("abc").error().message(), "not a JWT: expected three dot-separated parts");
  EXPECT_EQ(read_claims("a.!!!.c").error().message(), "not a JWT: the claims are not base64url");
  EXPECT_EQ(read_claims("a." + base64url_encode("[1]") + ".c").error().message(),
            "not a JWT: the claims are not a JSON object");
}

// Found by tools/fuzz jwt: an `exp` of 3.7e19 was converted to int64 (undefined behaviour).
TEST(JwtTest, AClaimPastInt64IsNoClaim) {
  for (const std::string exp : {"3.7e19", "-1e300", "18446744073709551615"}) {
    const std::string token = base64url_encode(R"({"alg":"HS256","typ":"JWT"})") + "." +
                              base64url_encode(R"({"sun":"alice","exp":)" + exp + "}") + "." + base64url_encode("s");
    const auto claims = read_claims(token);
    ASSERT_TRUE(claims.ok()) << exp;
    EXPECT_FALSE(claims->expires_at.has_value()) << exp;
  }
}

TEST(JwtTest, Base64UrlRoundTripsEveryLength) {
  for (std::string text : {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\x00"}) {
    EXPECT_EQ(base64url_decode(base64url_encode(text)), text);
  }
}

TEST(FileTokenSourceTest, ReadsScontrolOutputAndBareTokens) {
  TempDir dir;
  ManualClock clock(kStart);
  const std::string token = mint_hs256(kKey, "alice", kStart, std::chrono::seconds(3600));
  write(dir.file("jwt"), "SLURM_JWT=" + token + "\n");
  FileTokenSource source("alice", dir.file("jwt"), clock);
  auto credentials = source.credentials();
  ASSERT_TRUE(credentials.ok()) << credentials.error().message();
  EXPECT_EQ(credentials->token, token);
  EXPECT_EQ(credentials->user, "alice");
  EXPECT_EQ(credentials->expires_at, kStart + std::chrono::seconds(3600));

  write(dir.file("bare.token"), token);
  FileTokenSource bare("alice", dir.file("bare.token"), clock);
  EXPECT_EQ(bare.credentials()->token, token);
}

TEST(FileTokenSourceTest, PicksUpARotatedTokenWithoutARestart) {
  TempDir dir;
  ManualClock clock(kStart);
  const std::string first = mint_hs256(kKey, "alice", kStart, std::chrono::seconds(3600));
  const std::string second = mint_hs256(kKey, "alice", kStart + std::chrono::seconds(60), std::chrono::seconds(3600));
  write(dir.file("jwt"), "SLURM_JWT=" + first + "\n");
  FileTokenSource source("alice", dir.file("jwt"), clock);
  EXPECT_EQ(source.credentials()->token, first);
  EXPECT_EQ(source.credentials()->token, first);

  write(dir.file("jwt"), "SLURM_JWT=" + second + "\n");

  EXPECT_EQ(source.credentials()->token, second);
}

TEST(FileTokenSourceTest, ExplainsEveryUnusableFileWithoutShowingIt) {
  TempDir dir;
  ManualClock clock(kStart);
  FileTokenSource missing("alice", dir.file("none"), clock);
  EXPECT_EQ(missing.credentials().error().message(),
            "token file " + dir.file("none") +
                ": cannot be read; create it (scontrol token prints SLURM_JWT=<token>) or fix TUNEPLANE_SLURM_JWT_FILE");

  write(dir.file("empty"), "\n\n");
  FileTokenSource empty("alice", dir.file("empty"), clock);
  EXPECT_EQ(empty.credentials().error().message(),
            "token file " + dir.file("empty") + ": holds no token; write SLURM_JWT=<token> or the bare token");

  write(dir.file("garbage"), "SLURM_JWT=secret-but-not-a-jwt\n");
  FileTokenSource garbage("alice", dir.file("garbage"), clock);
  const std::string message = garbage.credentials().error().message();
  EXPECT_EQ(message, "token file " + dir.file("garbage") + ": does not hold a JWT; write SLURM_JWT=<token> or the bare token");
  EXPECT_EQ(message.find("secret-but-not-a-jwt"), std::string::npos);
}

TEST(FileTokenSourceTest, RefusesAnExpiredToken) {
  TempDir dir;
  ManualClock clock(kStart);
  const std::string token = mint_hs256(kKey, "alice", kStart, std::chrono::seconds(600));
  write(dir.file("jwt"), token + "\n");
  FileTokenSource source("alice", dir.file("jwt"), clock);
  ASSERT_TRUE(source.credentials().ok());

  clock.advance(std::chrono::seconds(600));

  auto expired = source.credentials();
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().message(), "token file " + dir.file("jwt") +
                                           ": the token expired at 2026-11-30T12:10:00Z; write a fresh one (scontrol token "
                                           "lifespan=<seconds>)");
}

TEST(FileTokenSourceTest, AFileCaughtHalfWrittenKeepsTheLastGoodTokenAndIsReportedOnce) {
  TempDir dir;
  ManualClock clock(kStart);
  const std::string token = mint_hs256(kKey, "alice", kStart, std::chrono::seconds(3600));
  write(dir.file("jwt"), "SLURM_JWT=" + token + "\n");
  std::vector<std::string> reported;
  FileTokenSource source("alice", dir.file("jwt"), clock, std::chrono::seconds(65),
                         [&](const Error& error) { reported.push_back(error.message()); });
  ASSERT_EQ(source.credentials()->token, token);

  // A rotation caught mid-write: the signature is cut short.
  write(dir.file("jwt"), "SLURM_JWT=" + token.substr(0, token.size() - 10));
  EXPECT_EQ(source.credentials()->token, token);
  EXPECT_EQ(source.credentials()->token, token);
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(reported[0], "keeping the last good Slurm token: token file " + dir.file("jwt") +
                             ": does not hold a whole JWT (the JWT's signature is missing or cut short); "
                             "write SLURM_JWT=<token> or the bare token, beside the file and rename it into place");
  EXPECT_EQ(reported[0].find(token.substr(0, 20)), std::string::npos);

  // Truncated to nothing, or gone for a moment: still the last good one.
  write(dir.file("jwt"), "");
  EXPECT_EQ(source.credentials()->token, token);
  ::unlink(dir.file("jwt").c_str());
  EXPECT_EQ(source.credentials()->token, token);
  EXPECT_EQ(reported.size(), 3u);

  const std::string next = mint_hs256(kKey, "alice", kStart + std::chrono::seconds(60), std::chrono::seconds(3600));
  write(dir.file("jwt"), "SLURM_JWT=" + next + "\n");
  EXPECT_EQ(source.credentials()->token, next);
}

TEST(FileTokenSourceTest, WithoutAGoodTokenTheFailureIsReturned) {
  TempDir dir;
  ManualClock clock(kStart);
  const std::string token = mint_hs256(kKey, "alice", kStart, std::chrono::seconds(3600));
  write(dir.file("jwt"), token.substr(0, token.size() - 3));
  FileTokenSource source("alice", dir.file("jwt"), clock);
  EXPECT_EQ(source.credentials().error().message(),
            "token file " + dir.file("jwt") +
                ": does not hold a whole JWT (the JWT's HS256 signature is 30 bytes, not 32 (cut short?)); write "
                "SLURM_JWT=<token> or the bare token, beside the file and rename it into place");
}

TEST(FileTokenSourceTest, RefusesATokenAnHttpHeaderCannotCarry) {
  TempDir dir;
  ManualClock clock(kStart);
  const std::string token = mint_hs256(kKey, "alice", kStart, std::chrono::seconds(3600));
  write(dir.file("jwt"), "SLURM_JWT=" + token.substr(0, 5) + "\r" + token.substr(5) + "\n");
  FileTokenSource source("alice", dir.file("jwt"), clock);
  EXPECT_EQ(source.credentials().error().message(),
            "token file " + dir.file("jwt") +
                ": the token contains CR at byte 6, which an HTTP header cannot carry; write the token on one line "
                "(SLURM_JWT=<token> or the bare token)");
  write(dir.file("jwt"), token.substr(0, 5) + "\x01" + token.substr(5));
  EXPECT_NE(source.credentials().error().message().find("contains a control byte at byte 6"), std::string::npos);
}

TEST(FileTokenSourceTest, RefusesATokenThatWouldExpireDuringARequest) {
  TempDir dir;
  ManualClock clock(kStart);
  write(dir.file("jwt"), mint_hs256(kKey, "alice", kStart, std::chrono::seconds(600)) + "\n");
  FileTokenSource source("alice", dir.file("jwt"), clock, std::chrono::seconds(65));
  ASSERT_TRUE(source.credentials().ok());
  clock.advance(std::chrono::seconds(535));
  ASSERT_TRUE(source.credentials().ok());
  clock.advance(std::chrono::seconds(1));
  EXPECT_EQ(source.credentials().error().message(),
            "token file " + dir.file("jwt") +
                ": the token expires at 2026-11-30T12:10:00Z, sooner than a request may take (65s: "
                "TUNEPLANE_SLURM_CONNECT_TIMEOUT + TUNEPLANE_SLURM_REQUEST_TIMEOUT); write a fresh one");
}

TEST(MintingTokenSourceTest, RefreshesEarlyEnoughToOutlastARequest) {
  ManualClock clock(kStart);
  MintingTokenSource source("alice", "/k", std::chrono::seconds(200), clock, {},
                            [&]() -> Result<std::string> { return std::string(kKey); }, std::chrono::seconds(65));
  const auto first = source.credentials();
  clock.advance(std::chrono::seconds(134));
  EXPECT_EQ(source.credentials()->token, first->token);
  clock.advance(std::chrono::seconds(1));  // 65 s left: at 80 % (160 s) only 40 s would be left
  const auto second = source.credentials();
  EXPECT_NE(second->token, first->token);
  EXPECT_GE(*second->expires_at - clock.now(), std::chrono::seconds(65));
}

TEST(MakeTokenSourceTest, AMintingLifespanMustOutlastTwoRequests) {
  ManualClock clock(kStart);
  model::Settings settings;
  settings.rest_user = "alice";
  settings.jwt_key_file = "/k";
  settings.jwt_lifespan = std::chrono::seconds(130);
  EXPECT_EQ(make_token_source(settings, clock).error().message(),
            "TUNEPLANE_SLURM_JWT_LIFESPAN 130s is too short for requests that may take 65s "
            "(TUNEPLANE_SLURM_CONNECT_TIMEOUT + TUNEPLANE_SLURM_REQUEST_TIMEOUT); use more than 130s");
  settings.jwt_lifespan = std::chrono::seconds(131);
  EXPECT_TRUE(make_token_source(settings, clock).ok());
}

TEST(MintingTokenSourceTest, RefreshesAtEightyPercentOfTheLifespan) {
  ManualClock clock(kStart);
  int reads = 0;
  MintingTokenSource source("alice", "/k", std::chrono::seconds(1000), clock, {}, [&]() -> Result<std::string> {
    ++reads;
    return std::string(kKey);
  });
  const auto first = source.credentials();
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(verify_hs256(first->token, kKey));
  EXPECT_EQ(read_claims(first->token)->user, "alice");

  clock.advance(std::chrono::seconds(799));
  EXPECT_EQ(source.credentials()->token, first->token);
  EXPECT_EQ(reads, 1);

  clock.advance(std::chrono::seconds(1));
  const auto second = source.credentials();
  EXPECT_NE(second->token, first->token);
  EXPECT_EQ(read_claims(second->token)->issued_at, unix_seconds(kStart) + 800);
  EXPECT_EQ(second->expires_at, kStart + std::chrono::seconds(1800));
  EXPECT_EQ(reads, 1) << "the key is read once";
}

// Per-user mode: a job's user gets a token whose `sun` names it and is sent under its name;
// each user's token is kept until its own refresh, and the key is still read once.
TEST(MintingTokenSourceTest, EachUsersTokenNamesThatUserAndIsKeptForIt) {
  ManualClock clock(kStart);
  int reads = 0;
  MintingTokenSource source("tuneplane", "/k", std::chrono::seconds(1000), clock, {}, [&]() -> Result<std::string> {
    ++reads;
    return std::string(kKey);
  });
  const auto service = source.credentials();
  const auto alice = source.credentials_for("alice");
  const auto bob = source.credentials_for("bob");
  ASSERT_TRUE(service.ok() && alice.ok() && bob.ok());
  EXPECT_EQ(service->user, "tuneplane");
  EXPECT_EQ(read_claims(service->token)->user, "tuneplane");
  EXPECT_EQ(alice->user, "alice");
  EXPECT_EQ(read_claims(alice->token)->user, "alice");
  EXPECT_TRUE(verify_hs256(alice->token, kKey));
  EXPECT_EQ(bob->user, "bob");
  EXPECT_EQ(read_claims(bob->token)->user, "bob");
  clock.advance(std::chrono::seconds(500));
  EXPECT_EQ(source.credentials_for("alice")->token, alice->token);
  const auto carol = source.credentials_for("carol");
  clock.advance(std::chrono::seconds(300));
  EXPECT_NE(source.credentials_for("alice")->token, alice->token) << "alice's reached 80 %";
  EXPECT_EQ(source.credentials_for("carol")->token, carol->token) << "carol's was minted later";
  EXPECT_EQ(reads, 1);
}

// Each mint is told (who, when, until when, for the service or a job's user), a token taken from
// the cache is not, and the listener runs after the source's lock is released: it may ask the
// source again (here it does) without a deadlock.
TEST(MintingTokenSourceTest, EachMintIsToldOnceAfterTheLockIsReleased) {
  ManualClock clock(kStart);
  MintingTokenSource source("tuneplane", "/k", std::chrono::seconds(1000), clock, {},
                            [&]() -> Result<std::string> { return std::string(kKey); });
  std::vector<Mint> told;
  source.on_mint([&](const Mint& mint) {
    told.push_back(mint);
    EXPECT_TRUE(source.credentials_for(mint.user).ok());
  });
  ASSERT_TRUE(source.credentials().ok());
  ASSERT_TRUE(source.credentials_for("alice").ok());
  ASSERT_TRUE(source.credentials_for("alice").ok());
  ASSERT_EQ(told.size(), 2u);
  EXPECT_EQ(told[0].user, "tuneplane");
  EXPECT_TRUE(told[0].service);
  EXPECT_EQ(told[1].user, "alice");
  EXPECT_FALSE(told[1].service);
  EXPECT_EQ(told[1].at, kStart);
  EXPECT_EQ(told[1].expires_at, kStart + std::chrono::seconds(1000));
  clock.advance(std::chrono::seconds(800));
  ASSERT_TRUE(source.credentials_for("alice").ok());
  EXPECT_EQ(told.size(), 3u) << "minted again at 80 %";
}

// A token file acts for a job's user by naming it in X-SLURM-USER-NAME with the file's token
// (which Slurm accepts from SlurmUser or root).
TEST(FileTokenSourceTest, ActsForAUserWithTheFilesTokenUnderTheUsersName) {
  TempDir dir;
  ManualClock clock(kStart);
  const std::string token = mint_hs256(kKey, "slurm", kStart, std::chrono::hours(1));
  tpslurm::testing::write_test_file(dir.file("jwt"), "SLURM_JWT=" + token + "\n");
  FileTokenSource source("slurm", dir.file("jwt"), clock);
  const auto alice = source.credentials_for("alice");
  ASSERT_TRUE(alice.ok()) << alice.error().message();
  EXPECT_EQ(alice->user, "alice");
  EXPECT_EQ(alice->token, token);
  EXPECT_EQ(source.credentials()->user, "slurm");
}

// The key is read once; until a read succeeds, each mint tries again and reports its failure.
TEST(MintingTokenSourceTest, AKeyThatCannotBeReadYetIsReportedAndReadAgainByTheNextMint) {
  ManualClock clock(kStart);
  bool key_readable = false;
  int reads = 0;
  std::vector<std::string> reported;
  MintingTokenSource source(
      "alice", "/etc/slurm/jwt_hs256.key", std::chrono::seconds(1000), clock,
      [&](const Error& error) { reported.push_back(error.message()); },
      [&]() -> Result<std::string> {
        ++reads;
        if (!key_readable) return permanent("JWT key file /etc/slurm/jwt_hs256.key: cannot be read");
        return std::string(kKey);
      });
  const auto refused = source.credentials_for("bob");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            "refreshing the Slurm token for bob: JWT key file /etc/slurm/jwt_hs256.key: cannot be read");
  EXPECT_EQ(reported.size(), 1u);
  key_readable = true;
  ASSERT_TRUE(source.credentials_for("bob").ok());
  key_readable = false;
  clock.advance(std::chrono::seconds(900));
  ASSERT_TRUE(source.credentials_for("bob").ok()) << "the key is kept: a refresh needs no read";
  EXPECT_EQ(reads, 2);
  EXPECT_EQ(reported.size(), 1u);
}

TEST(MintingTokenSourceTest, ConcurrentCallersShareOneRefresh) {
  ManualClock clock(kStart);
  std::mutex mutex;
  std::condition_variable changed;
  bool release = false;
  std::atomic<int> reads{0};
  std::atomic<int> callers{0};
  MintingTokenSource source("alice", "/k", std::chrono::seconds(1000), clock, {}, [&]() -> Result<std::string> {
    ++reads;
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return release; });
    return std::string(kKey);
  });
  std::string tokens[2];
  std::thread first([&] {
    ++callers;
    tokens[0] = source.credentials()->token;
  });
  std::thread second([&] {
    ++callers;
    tokens[1] = source.credentials()->token;
  });
  while (callers.load() < 2 || reads.load() < 1) std::this_thread::yield();
  {
    std::lock_guard lock(mutex);
    release = true;
  }
  changed.notify_all();
  first.join();
  second.join();

  EXPECT_EQ(reads.load(), 1);
  EXPECT_EQ(tokens[0], tokens[1]);
}

TEST(MakeTokenSourceTest, NeedsAUserAndATokenOrKeyFile) {
  ManualClock clock(kStart);
  model::Settings settings;
  EXPECT_EQ(make_token_source(settings, clock).error().message(),
            "TUNEPLANE_SLURM_REST_USER is not set; name the Slurm user jobs run as");
  settings.rest_user = "alice";
  EXPECT_EQ(make_token_source(settings, clock).error().message(),
            "neither TUNEPLANE_SLURM_JWT_FILE nor TUNEPLANE_SLURM_JWT_KEY_FILE is set; set the token file (or, opt-in, "
            "the HS256 key file)");
  EXPECT_FALSE(model::mints_tokens(settings));
  settings.jwt_key_file = "/k";
  EXPECT_EQ((*make_token_source(settings, clock))->describe(), "tokens minted for alice from key file /k");
  EXPECT_TRUE(model::mints_tokens(settings));
  settings.jwt_file = "/t";
  EXPECT_EQ((*make_token_source(settings, clock))->describe(), "token file /t");
  EXPECT_FALSE(model::mints_tokens(settings));
  settings.jwt_key_file.clear();
  EXPECT_EQ((*make_token_source(settings, clock))->describe(), "token file /t");
  EXPECT_FALSE(model::mints_tokens(settings));
}

}  // namespace
}  // namespace tpslurm::slurm
