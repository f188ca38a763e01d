// End-to-end tests of the command line: exit codes, exact messages, idempotent submit,
// status and audit output, the journal commands.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "base/crash_point.h"
#include "base/digest.h"
#include "cli/version.h"
#include "cli_fixture.h"
#include "journal/daemon_lock.h"

namespace tpslurm::cli {
namespace {

using testing::ProcessResult;

class CliTest : public CliFixture {
 protected:
  // The example request with one text substitution.
  std::string example_with(const std::string& from, const std::string& to,
                           const std::string& file = "etc/launch-request.example.json") {
    std::string text = testing::read_test_file(source(file));
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    const std::string path = dir.file("request-" + std::to_string(++m_files) + ".json");
    testing::write_test_file(path, text);
    return path;
  }

 private:
  int m_files = 0;
};

TEST_F(CliTest, ValidateAcceptsTheExamples) {
  const auto gpu = cli({"validate", source("etc/launch-request.example.json")});
  EXPECT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_EQ(gpu.out, source("etc/launch-request.example.json") +
                         ": valid: job ft-7f3c2a, 2 pools (trainer 2x8 h100-80g, rollout 1x8 a100-80g), runtime "
                         "custom-pytorch-2.5 (enroot-pyxis), heterogeneous\n");
  const auto cpu = cli({"validate", source("etc/launch-request.cpu-only.example.json")});
  EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_NE(cpu.out.find("1 pool (main 1x8 CPUs), runtime custom-pytorch-2.5 (enroot-pyxis), CPU-only"),
            std::string::npos);
}

TEST_F(CliTest, ValidateListsEveryProblemAndExitsTwo) {
  const std::string request = example_with("\"type\": \"custom\"", "\"type\": \"playground\", \"extra\": 1");
  const auto result = cli({"validate", request});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, request +
                            ": 2 problems:\n"
                            "type \"playground\": Playground is not supported on Slurm: compute nodes have no "
                            "inbound path from the console; run it on a fleet that supports Playground\n"
                            "extra: unknown field; remove it or fix its spelling (known here: credentials, "
                            "job_id, spec, type, user)\n");
}

TEST_F(CliTest, ValidateSpeaksJson) {
  const auto result = cli({"validate", "--json", "-"}, "{}");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out,
            "{\"valid\":false,\"problems\":[{\"path\":\"job_id\",\"value\":\"\",\"message\":\"is required\"},"
            "{\"path\":\"type\",\"value\":\"\",\"message\":\"is required\"},"
            "{\"path\":\"spec\",\"value\":\"\",\"message\":\"is required\"},"
            "{\"path\":\"credentials\",\"value\":\"\",\"message\":\"is required\"}]}\n");
}

TEST_F(CliTest, ValidateRefusesAnOversizedBodyWithoutReadingIt) {
  testing::write_test_file(dir.file("big.json"), std::string(3 << 20, ' '));
  const auto result = cli({"validate", dir.file("big.json")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, dir.file("big.json") + ": 1 problem:\n" + dir.file("big.json") +
                            ": the request is 3145728 bytes; the limit is 1 MiB\n");
}

TEST_F(CliTest, MissingCatalogSettingsNameTheKey) {
  env.erase("TUNEPLANE_GPU_SERIES_FILE");
  const auto result = cli({"validate", source("etc/launch-request.example.json")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "TUNEPLANE_GPU_SERIES_FILE is not set; `validate` needs it (see etc/tuneplane-slurm.env.example)\n");
}

TEST_F(CliTest, PerUserModeValidatesAndSubmitsAgainstTheUserMap) {
  // Accounts every Debian system has, let in by a first uid of 1: daemon (1) and bin (2).
  testing::write_test_file(dir.file("users.json"), R"({"users": {
      "alice": {"unix_user": "daemon", "accounts": ["ml-team"], "qos": ["normal"], "partitions": ["gpu"]},
      "bob": {"unix_user": "bin", "accounts": ["other"]},
      "carol": {"unix_user": "root", "accounts": ["ml-team"], "qos": ["normal"]}}})");
  env["TUNEPLANE_IDENTITY_MODE"] = "per-user";
  env["TUNEPLANE_USER_MAP_FILE"] = dir.file("users.json");
  env["TUNEPLANE_FIRST_USER_ID"] = "1";

  const std::string alice = example_with("\"job_id\": \"ft-7f3c2a\",", "\"job_id\": \"ft-7f3c2a\", \"user\": \"alice\",");
  const auto accepted = cli({"validate", alice});
  EXPECT_EQ(accepted.exit_code, 0) << accepted.err;

  const std::string bob = example_with("\"job_id\": \"ft-7f3c2a\",", "\"job_id\": \"ft-7f3c2a\", \"user\": \"bob\",");
  const auto refused = cli({"validate", bob});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("spec.slurm.account \"ml-team\": is not an account \"bob\" may use (allowed: other)"),
            std::string::npos)
      << refused.err;

  const std::string carol = example_with("\"job_id\": \"ft-7f3c2a\",", "\"job_id\": \"ft-7f3c2a\", \"user\": \"carol\",");
  const auto as_root = cli({"validate", carol});
  EXPECT_EQ(as_root.exit_code, 2);
  EXPECT_NE(as_root.err.find("user \"carol\": \"carol\"'s Unix user \"root\" is root: no job runs as root"),
            std::string::npos)
      << as_root.err;

  const auto nobody = cli({"validate", source("etc/launch-request.example.json")});
  EXPECT_EQ(nobody.exit_code, 2);
  EXPECT_NE(nobody.err.find("user: is required"), std::string::npos) << nobody.err;

  EXPECT_EQ(cli({"submit", bob}).exit_code, 2) << "refused as validate refuses it";
  EXPECT_FALSE(std::filesystem::exists(dir.file("state") + "/journal.db")) << "nothing is journaled";
  const auto submit = cli({"submit", alice});
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const auto status = cli({"status", "ft-7f3c2a"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("user alice (runs as Unix user daemon)"), std::string::npos) << status.out;
}

TEST_F(CliTest, BadConfigurationIsOneLinePerProblemAndExitsTwo) {
  env["TUNEPLANE_POLL_INTERVAL"] = "10";
  env["TUNEPLANE_SLURM_RUNTIME_PROFILE"] = "docker";
  const auto result = cli({"status"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "tuneplane-slurm: the configuration has problems:\n"
            "TUNEPLANE_SLURM_RUNTIME_PROFILE \"docker\": expected enroot-pyxis or apptainer\n"
            "TUNEPLANE_POLL_INTERVAL \"10\": expected a duration such as 10s, 5m, 1h or 1h30m (a unit is "
            "required)\n");
}

TEST_F(CliTest, AConfigFileIsReadAndTheEnvironmentWins) {
  testing::write_test_file(dir.file("tp.env"),
                           "TUNEPLANE_STATE_DIR=" + dir.file("from-file") + "\nFORGE_SLURM_QOS=normal\n");
  env.erase("TUNEPLANE_STATE_DIR");
  const auto result = cli({"--config", dir.file("tp.env"), "status"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "no jobs yet (" + dir.file("from-file") + "/journal.db does not exist)\n");
  EXPECT_EQ(result.err, "tuneplane-slurm: warning: FORGE_SLURM_QOS (" + dir.file("tp.env") +
                            ":2) is deprecated; use TUNEPLANE_SLURM_QOS\n");
  env["TUNEPLANE_STATE_DIR"] = dir.file("from-env");
  EXPECT_NE(cli({"status", "--config", dir.file("tp.env")}).out.find(dir.file("from-env")), std::string::npos);
}

// `config` shows every setting with its effective value and its source: the environment, the
// file's line, or the default (computed ones as computed); secret files by their paths only.
TEST_F(CliTest, ConfigShowsEveryEffectiveSettingAndWhereItCameFrom) {
  testing::write_test_file(dir.file("tp.env"), "TUNEPLANE_SLURM_QOS=normal\nTUNEPLANE_SLURM_PARTITION=gpu\n");
  testing::write_test_file(dir.file("jwt"), "SLURM_JWT=secret-token-text\n", std::filesystem::perms(0600));
  env["TUNEPLANE_SLURM_PARTITION"] = "from-env";
  env["TUNEPLANE_SLURM_JWT_FILE"] = dir.file("jwt");
  const auto result = cli({"--config", dir.file("tp.env"), "config"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Each row: the setting, its value ("-" when unset) and where it came from, in padded columns.
  const auto row = [&](const std::string& key) {
    std::istringstream lines(result.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string name, value, from;
      if (words >> name >> value >> from && name == key) return value + " " + from;
    }
    return std::string("no row");
  };
  EXPECT_EQ(row("TUNEPLANE_SLURM_QOS"), "normal " + dir.file("tp.env") + ":1");
  EXPECT_EQ(row("TUNEPLANE_SLURM_PARTITION"), "from-env environment");
  EXPECT_EQ(row("TUNEPLANE_SLURM_CPU_PARTITION"), "from-env default");
  EXPECT_EQ(row("TUNEPLANE_JOURNAL"), dir.file("state") + "/journal.db default");
  EXPECT_EQ(row("TUNEPLANE_POLL_INTERVAL"), "10s default");
  EXPECT_EQ(row("TUNEPLANE_SLURM_ACCOUNT"), "- default");
  EXPECT_EQ(row("TUNEPLANE_SLURM_JWT_FILE"), dir.file("jwt") + " environment");
  EXPECT_EQ(result.out.find("secret-token-text"), std::string::npos) << "a secret file is never read";

  const auto json = cli({"config", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto rows = boost::json::parse(json.out).as_array();
  EXPECT_EQ(rows.size() + 1, static_cast<std::size_t>(std::count(result.out.begin(), result.out.end(), '\n')))
      << "one row per setting and the header";
  EXPECT_EQ(rows[0].at("key"), "TUNEPLANE_SLURM_REST_URL");
  EXPECT_EQ(rows[0].at("value"), "http://127.0.0.1:6820");
  EXPECT_EQ(rows[0].at("source"), "default");

  env["TUNEPLANE_POLL_INTERVAL"] = "10";
  EXPECT_EQ(cli({"config"}).exit_code, 2) << "a bad setting is reported, as by every command";
}

// `config` prints the value the daemon uses, not the text as written: a ceiling below the
// default floor lowers the floor with it (and the source says so), paths and the REST URL lose
// a trailing '/', a flag shows as 1 or 0.
TEST_F(CliTest, ConfigShowsTheValueTheLoaderMadeNotTheTextAsWritten) {
  const auto rows_of = [&] {
    const auto shown = cli({"config", "--json"});
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    std::map<std::string, std::string> rows;
    const boost::json::value parsed = boost::json::parse(shown.out);
    for (const auto& row : parsed.as_array()) {
      const auto& value = row.at("value");
      rows[std::string(row.at("key").as_string())] =
          (value.is_null() ? std::string("-") : std::string(value.as_string())) + " " +
          std::string(row.at("source").as_string());
    }
    return rows;
  };
  EXPECT_EQ(rows_of()["TUNEPLANE_SLURM_REQUEST_RATE_FLOOR"], "10 default");

  env["TUNEPLANE_SLURM_REQUEST_RATE"] = "5";
  env["TUNEPLANE_STORAGE_ROOT"] = dir.file("storage") + "/";
  env["TUNEPLANE_SLURM_REST_URL"] = "http://127.0.0.1:6820/";
  env["TUNEPLANE_SLURM_TLS_VERIFY"] = "yes";
  auto rows = rows_of();
  EXPECT_EQ(rows["TUNEPLANE_SLURM_REQUEST_RATE"], "5 environment");
  EXPECT_EQ(rows["TUNEPLANE_SLURM_REQUEST_RATE_FLOOR"], "5 default, lowered to TUNEPLANE_SLURM_REQUEST_RATE");
  EXPECT_EQ(rows["TUNEPLANE_STORAGE_ROOT"], dir.file("storage") + " environment");
  EXPECT_EQ(rows["TUNEPLANE_SLURM_STORAGE_ROOT"], dir.file("storage") + " default");
  EXPECT_EQ(rows["TUNEPLANE_SLURM_REST_URL"], "http://127.0.0.1:6820 environment");
  EXPECT_EQ(rows["TUNEPLANE_SLURM_TLS_VERIFY"], "1 environment");
  EXPECT_EQ(rows["TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP"], "0 default");

  env["TUNEPLANE_SLURM_REQUEST_RATE_FLOOR"] = "3";
  EXPECT_EQ(rows_of()["TUNEPLANE_SLURM_REQUEST_RATE_FLOOR"], "3 environment") << "a floor set is the operator's";
}

// Without TUNEPLANE_INSTANCE the instance is the journal's (its deployment, recorded at serve's
// first start or by `journal move-deployment`), not this host's name: a renamed host names jobs
// as before. `config` says where it came from.
TEST_F(CliTest, WithoutTheInstanceSettingCommandsTakeTheJournalsInstance) {
  env.erase("TUNEPLANE_INSTANCE");
  env["TUNEPLANE_SLURM_PARTITION"] = "gpu";
  const auto instance_row = [&] {
    const auto shown = cli({"config", "--json"});
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    const boost::json::value rows = boost::json::parse(shown.out);
    for (const auto& row : rows.as_array()) {
      if (row.at("key") == "TUNEPLANE_INSTANCE") {
        return std::string(row.at("value").as_string()) + " " + std::string(row.at("source").as_string());
      }
    }
    return std::string("no row");
  };
  const std::string host = instance_row();
  ASSERT_EQ(host.substr(host.find(' ')), " default") << "no journal yet: this host's name gives it";
  ASSERT_NE(host, "moved-away default");

  env["TUNEPLANE_INSTANCE"] = "moved-away";
  ASSERT_EQ(cli({"migrate"}).exit_code, 0);
  const auto moved = cli({"journal", "move-deployment", "--reason", "the first deployment"});
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  env.erase("TUNEPLANE_INSTANCE");
  EXPECT_EQ(instance_row(), "moved-away journal");
  const auto rendered = cli({"render", source("etc/launch-request.example.json"), "--json"});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  EXPECT_EQ(boost::json::parse(rendered.out).at("submit_description").at("name"), "tp-moved-away-ft-7f3c2a-1");

  env["TUNEPLANE_INSTANCE"] = "set-here";
  EXPECT_EQ(instance_row(), "set-here environment") << "a setting is the operator's word";
}

TEST_F(CliTest, SubmitIsIdempotentByJobId) {
  const std::string example = source("etc/launch-request.example.json");
  const auto first = cli({"submit", example});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out.substr(0, 44), "ft-7f3c2a: submitted (queued); request sha25");
  const auto again = cli({"submit", example});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "ft-7f3c2a: already submitted with this request; nothing changed\n");
  // A different token does not change the request: credentials are not part of its hash.
  const auto token = cli({"submit", example_with("example-ingest-token-replace-me", "rotated")});
  EXPECT_EQ(token.exit_code, 0) << token.err;
  EXPECT_EQ(testing::read_test_file(dir.file("storage/slurm/jobs/ft-7f3c2a/credentials/ingest_token")),
            "example-ingest-token-replace-me");
  const auto conflict = cli({"submit", example_with("3e-4", "1e-3")});
  EXPECT_EQ(conflict.exit_code, 2);
  EXPECT_NE(conflict.err.find("tuneplane-slurm: job ft-7f3c2a was already submitted with a different request"),
            std::string::npos)
      << conflict.err;
}

// A crash once the credential is durable but before the job's commit, or after the commit but
// before the answer: the same request sent again is journaled (or found journaled), its
// credential the one file written.
TEST_F(CliTest, ASubmitThatCrashedIsSafeToSendAgain) {
  const std::string example = source("etc/launch-request.example.json");
  const std::string credential = dir.file("storage/slurm/jobs/ft-7f3c2a/credentials/ingest_token");
  env["TUNEPLANE_CRASH_AT"] = "submit_job.after_credentials";
  ASSERT_EQ(cli({"submit", example}).exit_code, kCrashExitCode);
  EXPECT_EQ(testing::read_test_file(credential), "example-ingest-token-replace-me");
  env.erase("TUNEPLANE_CRASH_AT");
  const auto journaled = cli({"submit", example});
  ASSERT_EQ(journaled.exit_code, 0) << journaled.err;
  EXPECT_EQ(journaled.out.substr(0, 44), "ft-7f3c2a: submitted (queued); request sha25");

  const std::string other = example_with("ft-7f3c2a", "ft-crashed");
  env["TUNEPLANE_CRASH_AT"] = "submit_job.after_commit";
  ASSERT_EQ(cli({"submit", other}).exit_code, kCrashExitCode);
  env.erase("TUNEPLANE_CRASH_AT");
  const auto found = cli({"submit", other});
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_EQ(found.out, "ft-crashed: already submitted with this request; nothing changed\n");
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.file("storage/slurm/jobs/ft-crashed/credentials"))) {
    names.push_back(entry.path().filename());
  }
  EXPECT_EQ(names, std::vector<std::string>{"ingest_token"});
}

TEST_F(CliTest, SubmitKeepsTheTokenOutOfTheJournalAndOutput) {
  const auto result = cli({"submit", "--json", source("etc/launch-request.example.json")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.find("example-ingest-token"), std::string::npos);
  EXPECT_EQ(result.out.substr(0, 45), "{\"job_id\":\"ft-7f3c2a\",\"outcome\":\"created\",\"re");
  const std::string journal =
      testing::read_test_file(dir.file("state/journal.db")) + testing::read_test_file(dir.file("state/journal.db-wal"));
  EXPECT_EQ(journal.find("example-ingest-token"), std::string::npos);
  EXPECT_NE(journal.find("ft-7f3c2a"), std::string::npos);
  struct stat info {};
  ASSERT_EQ(::stat(dir.file("storage/slurm/jobs/ft-7f3c2a/credentials/ingest_token").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0400u);
  ASSERT_EQ(::stat(dir.file("state/hmac.key").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST_F(CliTest, RefusedRequestsWriteNothing) {
  const auto result = cli({"submit", example_with("\"nodes\": 2", "\"nodes\": 0")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("spec.pools[0].nodes 0: must be a whole number from 1 to 10000"), std::string::npos);
  struct stat info {};
  EXPECT_NE(::stat(dir.file("state").c_str(), &info), 0);
  EXPECT_NE(::stat(dir.file("storage").c_str(), &info), 0);
}

TEST_F(CliTest, StatusAndAuditShowTheJournal) {
  ASSERT_EQ(cli({"submit", source("etc/launch-request.example.json")}).exit_code, 0);
  const auto status = cli({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.out.substr(0, status.out.find('\n')),
            "JOB        USER  PHASE   DESIRE  ATTEMPT  STATE  SLURM JOB  CLEANUP  HELD  UPDATED");
  EXPECT_NE(status.out.find("ft-7f3c2a  -     queued  run     -        -      -          -        no"), std::string::npos)
      << status.out;

  const auto one = cli({"status", "ft-7f3c2a", "--json"});
  EXPECT_EQ(one.exit_code, 0);
  EXPECT_NE(one.out.find("\"phase\":\"queued\",\"desire\":\"run\""), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("\"attempts\":[]"), std::string::npos);

  const auto audit = cli({"audit", "ft-7f3c2a"});
  EXPECT_EQ(audit.exit_code, 0) << audit.err;
  EXPECT_NE(audit.out.find("job.created  -     queued"), std::string::npos) << audit.out;
  EXPECT_EQ(cli({"audit", "--blocked"}).out, "no blocked submissions\n");
  EXPECT_EQ(cli({"audit", "--cleanup", "--json"}).out, "[]\n");
  const auto missing = cli({"audit", "nope"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "tuneplane-slurm: no job nope in " + dir.file("state/journal.db") + "\n");
}

// In one-user mode a request's user is only recorded: `status` and `audit` name it, and the
// job runs as the job user (no Unix user).
TEST_F(CliTest, AJobsUserShowsInStatusAndAudit) {
  ASSERT_EQ(cli({"submit", example_with("\"job_id\": \"ft-7f3c2a\",", "\"job_id\": \"ft-7f3c2a\", \"user\": \"alice\",")})
                .exit_code,
            0);
  const auto status = cli({"status"});
  EXPECT_NE(status.out.find("ft-7f3c2a  alice  queued"), std::string::npos) << status.out;
  const auto one = cli({"status", "ft-7f3c2a"});
  EXPECT_EQ(one.out.substr(0, one.out.find('\n')), "job ft-7f3c2a, user alice: queued (desire run), resources held: no");
  const auto json = cli({"status", "ft-7f3c2a", "--json"});
  EXPECT_NE(json.out.find("\"user\":\"alice\",\"unix_user\":null"), std::string::npos) << json.out;
  const auto audit = cli({"audit", "ft-7f3c2a"});
  EXPECT_NE(audit.out.find(", user alice\n"), std::string::npos) << audit.out;
}

TEST_F(CliTest, MigrateCheckAndBackup) {
  const auto migrate = cli({"migrate"});
  EXPECT_EQ(migrate.exit_code, 0) << migrate.err;
  EXPECT_EQ(migrate.out, "journal " + dir.file("state/journal.db") + ": up to date\n");
  const auto check = cli({"journal", "check"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok    migrations: at 10 of 10\n"), std::string::npos);
  EXPECT_EQ(cli({"journal", "backup", dir.file("copy.db")}).exit_code, 0);
  const auto again = cli({"journal", "backup", dir.file("copy.db")});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(again.err,
            "tuneplane-slurm: " + dir.file("copy.db") + " already exists; a backup never overwrites a file\n");
}

// TUNEPLANE_JOURNAL outside the state directory: the lock is the journal's, beside it.
TEST_F(CliTest, MigrateIsRefusedWhileADaemonHoldsTheJournalsLock) {
  env["TUNEPLANE_JOURNAL"] = dir.file("elsewhere/journal.db");
  ASSERT_EQ(cli({"migrate"}).exit_code, 0);
  auto held = journal::DaemonLock::acquire(dir.file("elsewhere/journal.db"));
  ASSERT_TRUE(held.ok()) << held.error().message();
  const auto refused = cli({"migrate"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, "tuneplane-slurm: migrate: another tuneplane-slurm daemon (pid " + std::to_string(::getpid()) +
                             ") holds " + dir.file("elsewhere/journal.db.lock") +
                             "; one daemon per journal: stop it or point TUNEPLANE_JOURNAL at another journal\n");
  const auto check = cli({"journal", "check"});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("ok    daemon lock: held by pid " + std::to_string(::getpid()) + " (" +
                           dir.file("elsewhere/journal.db.lock") + ")\n"),
            std::string::npos)
      << check.out;
}

TEST_F(CliTest, JournalCheckFailsOnADamagedFileAndLeavesItAlone) {
  testing::write_test_file(dir.file("state/journal.db"), "garbage, not SQLite");
  const auto check = cli({"journal", "check"});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.out.find("FAIL  sqlite: file is not a database"), std::string::npos) << check.out;
  const auto submit = cli({"submit", source("etc/launch-request.example.json")});
  EXPECT_EQ(submit.exit_code, 1);
  EXPECT_NE(submit.err.find("file is not a database"), std::string::npos) << submit.err;
  EXPECT_EQ(testing::read_test_file(dir.file("state/journal.db")), "garbage, not SQLite");
}

TEST_F(CliTest, RenderPrintsTheScriptAndRefusesLikeValidate) {
  env["TUNEPLANE_SLURM_PARTITION"] = "gpu";
  const auto script = cli({"render", source("etc/launch-request.example.json")});
  EXPECT_EQ(script.exit_code, 0) << script.err;
  EXPECT_EQ(script.out.substr(0, 12), "#!/bin/bash\n");
  EXPECT_NE(script.out.find("#SBATCH --no-requeue\n"), std::string::npos);
  EXPECT_NE(script.out.find("#SBATCH hetjob\n"), std::string::npos);
  EXPECT_EQ(script.out.find("example-ingest-token"), std::string::npos);

  const std::string bad = example_with("\"type\": \"custom\"", "\"type\": \"deployment\"");
  const auto refused = cli({"render", bad});
  const auto validated = cli({"validate", bad});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, validated.err);
  EXPECT_EQ(refused.out, "");
}

TEST_F(CliTest, RenderWritesAnAttemptDirectoryOnceAfterCheckingTheImage) {
  env["TUNEPLANE_SLURM_PARTITION"] = "gpu";
  const std::string image = "image bytes";
  testing::write_test_file(dir.file("storage/runtimes/cpu.sqsh"), image);
  testing::write_test_file(dir.file("registry.json"),
                           R"({"runtimes": {"custom-pytorch-2.5": {"framework": "custom", "launcher": "srun",
                               "sqsh": {"path": "runtimes/cpu.sqsh",
                                        "sha256": "6b2f8a4d57b5c6d3ba8b2b6e1f1c2e4d09b51be2d41e33bcd7e5d1a7c3a4f5e6"}}}})");
  env["TUNEPLANE_RUNTIME_REGISTRY_FILE"] = dir.file("registry.json");
  const std::string attempt = dir.file("storage/slurm/jobs/prep-41d9e0/attempts/1");
  const auto mismatch = cli({"render", source("etc/launch-request.cpu-only.example.json"), "--attempt-dir", attempt});
  EXPECT_EQ(mismatch.exit_code, 1) << mismatch.err;  // the request is fine; the storage is not
  EXPECT_NE(mismatch.err.find("expected sha256 6b2f8a4d"), std::string::npos) << mismatch.err;
  struct stat info {};
  EXPECT_NE(::stat(attempt.c_str(), &info), 0);

  testing::write_test_file(dir.file("registry.json"),
                           R"({"runtimes": {"custom-pytorch-2.5": {"framework": "custom", "launcher": "srun",
                               "sqsh": {"path": "runtimes/cpu.sqsh", "sha256": ")" +
                               sha256_hex(image) + R"("}}}})");
  const auto written = cli({"render", source("etc/launch-request.cpu-only.example.json"), "--attempt-dir", attempt});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(written.err, "tuneplane-slurm: attempt written to " + attempt + "\n");
  for (const char* file : {"job.sh", "env", "command", "manifest.json", "credentials/ingest_token"}) {
    EXPECT_EQ(::stat((attempt + "/" + file).c_str(), &info), 0) << file;
  }
  const auto again = cli({"render", source("etc/launch-request.cpu-only.example.json"), "--attempt-dir", attempt});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err, "tuneplane-slurm: attempt already complete in " + attempt + "\n");
}

// With the API configured, doctor reads its tokens file as serve would: a line without scopes
// is a warning that fails nothing, a bad line or a missing file a failure.
TEST_F(CliTest, DoctorChecksTheApiTokensFile) {
  const std::string tokens = dir.file("api-tokens");
  env["TUNEPLANE_API_TOKENS_FILE"] = tokens;
  const auto line_of = [&](const std::string& text) -> std::string {
    testing::write_test_file(tokens, text);
    ::chmod(tokens.c_str(), 0600);
    const std::string out = cli({"doctor"}).out;
    const std::size_t at = out.find("API tokens: ");
    return at == std::string::npos ? out : out.substr(at - 6, out.find('\n', at) - at + 6);
  };
  EXPECT_EQ(line_of("alice tpcanary-alice-0123456789 read,submit\nscraper tpcanary-scraper-0123456789 read\n"),
            "ok    API tokens: 2 token(s): alice (read,submit), scraper (read)");
  EXPECT_EQ(line_of("alice tpcanary-alice-0123456789 read,submit\nold tpcanary-old-0123456789\n"),
            "warn  API tokens: 2 token(s): alice (read,submit), old (read,submit,operate); lines 2 (old) name no "
            "scopes, so each holds every scope; fix: give each line the scopes its client needs, e.g. NAME TOKEN "
            "read for a scraper (docs/deploy.md, step 12: The platform's API token)");
  EXPECT_EQ(line_of("alice tpcanary-alice-0123456789 read,write\n"),
            "FAIL  API tokens: TUNEPLANE_API_TOKENS_FILE " + tokens +
                " line 1: SCOPES must be read, submit and operate, comma-separated without blanks (e.g. "
                "read,submit); fix: write each line as NAME TOKEN SCOPES: serve does not start with a bad line, and a "
                "running serve holds its token invalid (docs/deploy.md, step 12: The platform's API token)");
  // A missing file is the configuration's problem, as for every other command.
  ASSERT_EQ(::unlink(tokens.c_str()), 0);
  const auto missing = cli({"doctor"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("TUNEPLANE_API_TOKENS_FILE \"" + tokens + "\": cannot be read"), std::string::npos)
      << missing.err;
}

// In per-user mode doctor judges every mapped Unix user as validate would (root, a system
// account, a missing user: each named with its platform user).
TEST_F(CliTest, DoctorChecksEveryUserOfTheUserMapInPerUserMode) {
  env["TUNEPLANE_IDENTITY_MODE"] = "per-user";
  env["TUNEPLANE_USER_MAP_FILE"] = dir.file("users.json");
  env["TUNEPLANE_FIRST_USER_ID"] = "1";
  const auto line_of = [&](const std::string& map) -> std::string {
    testing::write_test_file(dir.file("users.json"), map);
    const std::string out = cli({"doctor"}).out;
    const std::size_t at = out.find("user map: ");
    return at == std::string::npos ? out : out.substr(at - 6, out.find('\n', at) - at + 6);
  };
  EXPECT_EQ(line_of(R"({"users": {"alice": {"unix_user": "daemon", "accounts": ["a"]}}})"),
            "ok    user map: 1 user(s): alice as daemon (uid 1)");
  EXPECT_EQ(line_of(R"({"users": {"alice": {"unix_user": "daemon", "accounts": ["a"]},
                                  "carol": {"unix_user": "root", "accounts": ["a"]}}})"),
            "FAIL  user map: \"carol\"'s Unix user \"root\" is root: no job runs as root; map the user to its own "
            "account; fix: create each Unix user on this host and the compute nodes, or map the platform user to an "
            "account of its own (docs/deploy.md, step 8: Configure the daemon)");
  EXPECT_EQ(line_of(R"({"users": {"alice": {"unix_user": "daemon"}}})"),
            "FAIL  user map: " + dir.file("users.json") +
                ".users.alice.accounts: is required; fix: fix the catalogs (tuneplane-slurm validate names the same "
                "problems) (docs/deploy.md, step 8: Configure the daemon)");
}

TEST_F(CliTest, UsageErrorsExitTwoAndHelpExitsZero) {
  const auto unknown = cli({"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "tuneplane-slurm: unknown command \"frobnicate\"; run tuneplane-slurm --help\n");
  EXPECT_EQ(cli({}).exit_code, 2);
  EXPECT_EQ(cli({"validate"}).exit_code, 2);
  EXPECT_EQ(cli({"audit"}).exit_code, 2);
  const auto help = cli({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("submit"), std::string::npos);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--version"}, {"validate", "--version"}, {"journal", "check", "--version"}, {"status", "--version"}}) {
    const auto version = cli(args);
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_EQ(version.out, std::string("tuneplane-slurm ") + kVersion + " (commit " + kCommit + ")\n");
  }
  // The commit is the tree's, read at build time: 12 hex digits (and "-dirty"), never empty.
  EXPECT_TRUE(std::regex_match(std::string(kCommit), std::regex("[0-9a-f]{12}(-dirty)?")))
      << kCommit << ": this test builds from a git checkout";
  EXPECT_EQ(cli({"submit", "--help"}).exit_code, 0);
}

}  // namespace
}  // namespace tpslurm::cli
