// Secrets stay secret in a whole deployment: the real `serve` against tools/slurmrestd-sim,
// with a canary (tests/support/canary.h) in every secret it holds — the Slurm JWT (or the
// HS256 key it mints from), the API's bearer token, the API's TLS key, the credential key and
// the jobs' ingest tokens — runs two jobs to a closed cleanup while tools/secrets-scan looks
// for them in the argv and environment of the daemon and its descendants, its trace log, the
// journal (raw and dumped), the state directory and every attempt directory. The scan is
// shown to catch canaries planted on purpose, so it cannot pass for having looked nowhere.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "binary_fixture.h"
#include "journal/journal.h"
#include "slurm/jwt.h"
#include "support/background_process.h"
#include "support/canary.h"
#include "support/eventually.h"
#include "support/planted_files.h"

namespace tpslurm::reconcile::testing {
namespace {

using tpslurm::testing::canary;
using tpslurm::testing::eventually;
using tpslurm::testing::read_test_file;
using tpslurm::testing::write_test_file;

enum class SlurmAuth { token_file, hs256_key };

const std::string kApiToken = canary("api-bearer-0123456789");
const std::string kCredentialKey = canary("credential-key-00000000");  // 32 bytes
const std::string kIngestToken = canary("ingest-token");               // binary_fixture.h's requests
const std::string kGpuPool =
    R"([{"name": "a", "gpu_series": "h100-80g", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1}])";

// A TCP port on loopback nobody listens on right now.
int unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                     ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0;
  ::close(fd);
  return bound ? ntohs(address.sin_port) : 0;
}

class SecretsTest : public BinaryTest {
 protected:
  // A deployment under deploy/ whose every secret is a canary; the secret files themselves
  // live beside it (m_dir), where the scan does not look, as a site keeps them in /etc.
  void deploy(SlurmAuth auth) {
    start_sim("26.05.3");
    m_root = m_dir.file("deploy");
    m_env = environment(m_root);
    m_env["TUNEPLANE_POLL_INTERVAL"] = "1s";
    m_env["TUNEPLANE_LOG_LEVEL"] = "trace";  // everything the daemon can say
    if (auth == SlurmAuth::hs256_key) {
      m_env.erase("TUNEPLANE_SLURM_JWT_FILE");
      write_test_file(m_dir.file("jwt_hs256.key"), m_sim->key());
      m_env["TUNEPLANE_SLURM_JWT_KEY_FILE"] = m_dir.file("jwt_hs256.key");
    }
    m_port = unused_port();
    ASSERT_NE(m_port, 0);
    m_env["TUNEPLANE_API_LISTEN"] = "127.0.0.1:" + std::to_string(m_port);
    m_env["TUNEPLANE_API_TOKENS_FILE"] = m_dir.file("api-tokens");
    write_test_file(m_dir.file("api-tokens"), "platform " + kApiToken + " read,submit,operate\n");
    make_tls_key();
    write_test_file(m_root + "/state/hmac.key", kCredentialKey);
    ASSERT_EQ(kCredentialKey.size(), 32U);
    write_test_file(m_dir.file("secrets-literals"), read_test_file(m_dir.file("jwt")).substr(10) + m_sim->key() + "\n" +
                                                        kApiToken + "\n" + kCredentialKey + "\n" + kIngestToken + "\n" +
                                                        m_tls_key_line + "\n");
  }

  // A self-signed certificate and its key, the key file opened by a canary line (PEM readers
  // skip text before BEGIN); a line of the key's own body is one of the scan's literals.
  void make_tls_key() {
    const auto made = tpslurm::testing::run_process(
        {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", m_dir.file("api.key"), "-out",
         m_dir.file("api.crt")},
        tpslurm::testing::minimal_environment());
    ASSERT_EQ(made.exit_code, 0) << made.err;
    const std::string pem = read_test_file(m_dir.file("api.key"));
    const auto body = pem.find('\n') + 1;
    m_tls_key_line = pem.substr(body, pem.find('\n', body) - body);
    ASSERT_GE(m_tls_key_line.size(), 40U) << pem.substr(0, 40);
    write_test_file(m_dir.file("api.key"), canary("tls-key") + "\n" + pem);
    m_env["TUNEPLANE_API_TLS_CERT"] = m_dir.file("api.crt");
    m_env["TUNEPLANE_API_TLS_KEY"] = m_dir.file("api.key");
  }

  std::optional<journal::AttemptRecord> attempt(const std::string& job_id) {
    return tpslurm::testing::first_attempt(m_root + "/state/journal.db", job_id);
  }

  bool attempt_is(const std::string& job_id, model::AttemptState state) {
    return eventually([&] {
      auto a = attempt(job_id);
      return a && a->state == state;
    });
  }

  void slurm_state(const std::string& job_id, const std::string& body) {
    auto a = attempt(job_id);
    ASSERT_TRUE(a && a->slurm_job_id) << job_id;
    auto answer =
        m_sim->control(slurm::HttpMethod::post, "/sim/jobs/" + std::to_string(*a->slurm_job_id) + "/state", body);
    ASSERT_TRUE(answer.ok()) << answer.error().message();
  }

  // GET /v1/jobs over HTTPS with `token` (through a header file: never in curl's argv).
  long api_status(const std::string& token) {
    write_test_file(m_dir.file("curl-headers"), "Authorization: Bearer " + token + "\n");
    const auto run = tpslurm::testing::run_process(
        {"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", m_dir.file("api.crt"), "-H",
         "@" + m_dir.file("curl-headers"), "https://127.0.0.1:" + std::to_string(m_port) + "/v1/jobs"},
        tpslurm::testing::minimal_environment());
    return run.exit_code == 0 ? std::stol(run.out) : -run.exit_code;
  }

  // tools/secrets-scan over the deployment and the log (and the process tree of `pid`).
  tpslurm::testing::ProcessResult scan(std::vector<std::string> paths, std::optional<pid_t> pid = std::nullopt) {
    std::vector<std::string> argv{TP_SOURCE_DIR "/tools/secrets-scan", "--literals-file",
                                  m_dir.file("secrets-literals")};
    if (pid) argv.insert(argv.end(), {"--pid", std::to_string(*pid)});
    argv.insert(argv.end(), paths.begin(), paths.end());
    return tpslurm::testing::run_process(argv, tpslurm::testing::minimal_environment());
  }

  void run_two_jobs_to_closed_and_scan();

  std::string m_root;
  tpslurm::testing::EnvironmentMap m_env;
  int m_port = 0;
  std::string m_tls_key_line;
};

void SecretsTest::run_two_jobs_to_closed_and_scan() {
  ASSERT_EQ(cli(m_env, {"migrate"}).exit_code, 0);
  std::string error;
  auto serve = tpslurm::testing::BackgroundProcess::start({TP_BINARY, "serve"}, m_env, m_root + "/serve.log", error);
  ASSERT_TRUE(serve) << error;
  const auto log = [&] { return read_test_file(m_root + "/serve.log"); };
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "s1")}).exit_code, 0);
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "s2", kGpuPool)}).exit_code, 0);
  ASSERT_TRUE(attempt_is("s1", model::AttemptState::pending)) << log();
  ASSERT_TRUE(attempt_is("s2", model::AttemptState::pending)) << log();
  slurm_state("s1", R"({"state": "RUNNING"})");
  slurm_state("s2", R"({"state": "RUNNING"})");
  ASSERT_TRUE(attempt_is("s1", model::AttemptState::running)) << log();
  ASSERT_TRUE(attempt_is("s2", model::AttemptState::running)) << log();
  EXPECT_TRUE(eventually([&] { return api_status(kApiToken) == 200; })) << log();
  EXPECT_EQ(api_status(canary("not-a-known-token")), 401);

  const auto running = scan({m_root}, serve->pid());
  EXPECT_EQ(running.exit_code, 0) << running.out << running.err;

  slurm_state("s1", R"({"state": "COMPLETED", "exit_code": 0})");
  slurm_state("s2", R"({"state": "FAILED", "exit_code": 3})");
  ASSERT_TRUE(eventually([&] {
    auto one = attempt("s1");
    auto two = attempt("s2");
    return one && two && one->cleanup == model::CleanupStep::closed && two->cleanup == model::CleanupStep::closed;
  })) << log();
  const auto ended = scan({m_root}, serve->pid());
  EXPECT_EQ(ended.exit_code, 0) << ended.out << ended.err;
  int files = 0;
  EXPECT_EQ(std::sscanf(ended.out.c_str(), "secrets-scan: %d files", &files), 1) << ended.out;
  EXPECT_GE(files, 12) << "the log, the journal and its WAL, two attempts' job.sh, env and manifest, and the "
                          "daemon's cmdline and environ: "
                       << ended.out;

  serve->signal(SIGTERM);
  EXPECT_EQ(serve->wait(), 0) << log();
  const auto stopped = scan({m_root});
  EXPECT_EQ(stopped.exit_code, 0) << stopped.out << stopped.err;
  EXPECT_NE(log().find("job=s2 attempt=1"), std::string::npos) << "the log was written, and scanned";
}

TEST_F(SecretsTest, NoCanaryLeavesTheSecretFilesWhileTwoJobsRunToTheirEndWithATokenFile) {
  deploy(SlurmAuth::token_file);
  run_two_jobs_to_closed_and_scan();
}

// The tokens it minted are journaled (user, expiry, purpose), and the scan found none of them
// anywhere (their header is one of its needles).
TEST_F(SecretsTest, NoCanaryLeavesTheSecretFilesWhenTheDaemonMintsFromTheHs256Key) {
  deploy(SlurmAuth::hs256_key);
  run_two_jobs_to_closed_and_scan();
  auto journal = tpslurm::testing::open_read_only(m_root + "/state/journal.db");
  ASSERT_TRUE(journal);
  auto mints = journal->mints("", 100);
  ASSERT_TRUE(mints.ok()) << mints.error().message();
  ASSERT_FALSE(mints->empty()) << "every mint is journaled";
  for (const auto& mint : *mints) {
    EXPECT_EQ(mint.user, "root");
    EXPECT_EQ(mint.purpose, "service");
    EXPECT_GT(mint.expires_at, mint.at);
  }
  const auto audit = cli(m_env, {"audit", "--mints", "--user", "root"});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  EXPECT_EQ(audit.out.rfind("AT", 0), 0u) << audit.out;
  EXPECT_NE(audit.out.find(mints->back().expires_at + "  service"), std::string::npos) << audit.out;
  EXPECT_EQ(cli(m_env, {"audit", "--mints", "--user", "alice"}).out, "no tokens minted\n");
}

// Canaries planted in a log, an env file (a JWT, base64url), an SQLite file and a process's
// environment are each found, with the file and the offset; the secret files are not.
TEST_F(SecretsTest, TheScanFindsEveryPlantedCanaryAndSkipsOnlyTheSecretFiles) {
  deploy(SlurmAuth::token_file);
  const std::string planted = m_dir.file("planted");
  write_test_file(planted + "/serve.log", "a line\nsubmitting with " + kApiToken + "\n");
  write_test_file(planted + "/attempt/env", "X=" + read_test_file(m_dir.file("jwt")).substr(10));
  write_test_file(planted + "/state/jwt", read_test_file(m_dir.file("jwt")));
  // A token the daemon mints carries no marker: it is found by its header.
  write_test_file(planted + "/minted.log",
                  "as alice: " + slurm::mint_hs256("some key", "alice", std::chrono::system_clock::now(),
                                                   std::chrono::seconds(60)));
  write_test_file(planted + "/credentials/ingest_token", kIngestToken, std::filesystem::perms::owner_read);
  const auto made = tpslurm::testing::run_process(
      {"sqlite3", planted + "/state/journal.db"}, tpslurm::testing::minimal_environment(),
      "CREATE TABLE t (v BLOB); INSERT INTO t VALUES (X'" + std::string("00747063616e61727900") + "');\n");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::string error;
  auto child = tpslurm::testing::BackgroundProcess::start(
      {"/bin/sleep", "60"}, {{"PATH", "/usr/bin:/bin"}, {"PLANTED", kCredentialKey}}, m_dir.file("sleep.log"), error);
  ASSERT_TRUE(child) << error;

  const auto found = scan({planted}, child->pid());
  EXPECT_EQ(found.exit_code, 1) << found.out << found.err;
  EXPECT_NE(found.out.find(planted + "/serve.log: offset 23: canary"), std::string::npos) << found.out;
  EXPECT_NE(found.out.find(planted + "/attempt/env: offset "), std::string::npos) << found.out;
  EXPECT_NE(found.out.find("canary (base64, alignment"), std::string::npos) << found.out;
  EXPECT_NE(found.out.find(planted + "/state/journal.db: offset "), std::string::npos) << found.out;
  EXPECT_NE(found.out.find(planted + "/state/journal.db (sqlite3 .dump): offset "), std::string::npos) << found.out;
  EXPECT_NE(found.out.find("/proc/" + std::to_string(child->pid()) + "/environ: offset "), std::string::npos)
      << found.out;
  EXPECT_NE(found.out.find(planted + "/minted.log: offset 10: a minted token"), std::string::npos) << found.out;
  EXPECT_EQ(found.out.find("state/jwt:"), std::string::npos) << "the token file itself is a secret file";
  EXPECT_EQ(found.out.find("ingest_token:"), std::string::npos) << "a 0400 credential is a secret file";
  EXPECT_EQ(found.out.find(" 0 finds"), std::string::npos) << found.out;

  EXPECT_EQ(scan({m_dir.file("no-such-dir")}).exit_code, 2) << "a path that is not there is no clean scan";
  // Gone even when the test directories are kept for the scan after the suite (tools/test).
  std::filesystem::permissions(planted + "/credentials/ingest_token", std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::filesystem::remove_all(planted);
}

// What a job leaves may be a sparse terabyte: the scan reads only where the file has data, in
// chunks, and still finds a canary that straddles two chunks and one beyond a 512 GiB hole, each
// at its offset. (Read whole, this file would take the scan hours, as it once took the suite.)
TEST_F(SecretsTest, TheScanReadsASparseTerabyteOnlyWhereItHasDataAndFindsACanaryAcrossAChunk) {
  deploy(SlurmAuth::token_file);
  const std::string huge = m_dir.file("left/huge.log");
  write_test_file(huge, std::string(32 << 20, 'x'));
  tpslurm::testing::make_sparse(huge, std::uint64_t{1} << 40);
  const std::string marker = canary("");
  const std::uint64_t across = (std::uint64_t{16} << 20) - 3, beyond = std::uint64_t{1} << 39;
  std::FILE* f = std::fopen(huge.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  for (const std::uint64_t at : {across, beyond}) {
    ASSERT_EQ(::fseeko(f, static_cast<off_t>(at), SEEK_SET), 0);
    ASSERT_EQ(std::fwrite(marker.data(), 1, marker.size(), f), marker.size());
  }
  std::fclose(f);

  const auto found = scan({m_dir.file("left")});
  EXPECT_EQ(found.exit_code, 1) << found.out << found.err;
  EXPECT_NE(found.out.find(huge + ": offset " + std::to_string(across) + ": canary\n"), std::string::npos)
      << found.out;
  EXPECT_NE(found.out.find(huge + ": offset " + std::to_string(beyond) + ": canary\n"), std::string::npos)
      << found.out;
  EXPECT_NE(found.out.find(", 2 finds"), std::string::npos) << "each found once, not again in the overlap: "
                                                              << found.out;
  std::filesystem::remove_all(m_dir.file("left"));
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
