// `logs` as operators meet it (the real binary): the tail of each log with its header and the
// marker naming what is left out, paging with --offset, --json, and the refusals (unknown job,
// attempt or component; a manifest path outside the attempt).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "cli_fixture.h"
#include "journal/journal.h"
#include "storage/manifest.h"

namespace tpslurm::cli {
namespace {

using model::AttemptState;
using model::CleanupStep;
using testing::write_test_file;

std::string numbered_lines(int count, int first = 0) {
  std::string out;
  for (int i = first; i < first + count; ++i) out += "line " + std::to_string(i) + "\n";
  return out;
}

class LogsCommandTest : public CliFixture {
 protected:
  LogsCommandTest() { EXPECT_EQ(cli({"migrate"}).exit_code, 0); }

  std::unique_ptr<journal::Journal> journal() {
    auto opened = journal::Journal::open(dir.file("state/journal.db"), m_clock);
    EXPECT_TRUE(opened.ok()) << opened.error().message();
    return std::move(*opened);
  }

  std::string attempt_dir(int number) { return dir.file("attempts/" + std::to_string(number)); }

  // Attempt `number` of `job_id`, prepared in attempt_dir(number) with a batch and a
  // component-0 log; `state` prepared or running.
  void prepared_attempt(journal::Journal& j, const std::string& job_id, int number,
                        std::vector<model::AttemptLog> logs = {
                            {"batch", -1, "logs/batch.out", "logs/batch.err"},
                            {"component-0", 0, "logs/component-0.out", "logs/component-0.err"}}) {
    ASSERT_TRUE(j.add_attempt(job_id, number, "token-" + std::to_string(number), "in").ok());
    journal::AttemptChanges changes;
    changes.attempt_dir = attempt_dir(number);
    ASSERT_TRUE(j.transition({job_id, number}, AttemptState::preparing, AttemptState::prepared, changes, {}).ok());
    storage::Manifest manifest;
    manifest.job_id = job_id;
    manifest.attempt = number;
    manifest.submit_token = "token-" + std::to_string(number);
    manifest.image_path = "runtimes/x.sif";
    manifest.image_sha256 = std::string(64, 'a');
    manifest.logs = std::move(logs);
    write_test_file(attempt_dir(number) + "/manifest.json", storage::manifest_json(manifest));
  }

  // Job "ft-logs" with one prepared attempt.
  void one_attempt() {
    auto j = journal();
    ASSERT_TRUE(j->add_job({"ft-logs", "{}", "hash", "", "", 2}).ok());
    prepared_attempt(*j, "ft-logs", 1);
  }

  ManualClock m_clock{SystemClock().now()};
};

TEST_F(LogsCommandTest, ShowsEachLogWithAHeaderAndSaysWhenOneIsEmptyOrMissing) {
  one_attempt();
  write_test_file(attempt_dir(1) + "/logs/batch.out", "hello from the batch step\n");
  write_test_file(attempt_dir(1) + "/logs/component-0.out", "");
  const auto shown = cli({"logs", "ft-logs"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out, "job ft-logs attempt 1 (prepared) in " + attempt_dir(1) +
                           "\n"
                           "\n"
                           "==> batch stdout: logs/batch.out (26 bytes, showing bytes 0 to 26) <==\n"
                           "hello from the batch step\n"
                           "\n"
                           "==> component-0 stdout: logs/component-0.out (0 bytes) <==\n"
                           "(empty)\n");
  const auto errors = cli({"logs", "ft-logs", "--stderr"});
  EXPECT_EQ(errors.exit_code, 0) << errors.err;
  EXPECT_NE(errors.out.find("==> batch stderr: logs/batch.err <==\n(missing: the job has not written it yet)\n"),
            std::string::npos)
      << errors.out;
}

TEST_F(LogsCommandTest, MarksWhatTheTailLeavesOut) {
  one_attempt();
  const std::string content = numbered_lines(3000);
  write_test_file(attempt_dir(1) + "/logs/batch.out", content);
  const auto shown = cli({"logs", "ft-logs", "--component", "-1"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  const std::string kept = numbered_lines(2000, 1000);
  ASSERT_EQ(content.size() - kept.size(), 8890u);
  EXPECT_NE(shown.out.find(" (28,890 bytes, showing bytes 8,890 to 28,890) <==\n"
                           "[... 8,890 bytes (1,000 lines) before this are not shown; --offset 0 pages from the start "
                           "...]\n" +
                           kept),
            std::string::npos)
      << shown.out.substr(0, 400);
  EXPECT_EQ(shown.out.find("component-0"), std::string::npos) << "--component -1 shows the batch log only";
}

TEST_F(LogsCommandTest, OffsetPagesForwardAndNamesTheNextPage) {
  one_attempt();
  const std::string content = numbered_lines(2500);
  write_test_file(attempt_dir(1) + "/logs/batch.out", content);
  const auto first = cli({"logs", "ft-logs", "--component", "-1", "--offset", "0"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  const std::string page = numbered_lines(2000);
  const std::string rest = numbered_lines(500, 2000);
  EXPECT_NE(first.out.find("<==\n" + page +
                           "[... 5,000 bytes (500 lines) after this are not shown; next page: "
                           "--offset " +
                           std::to_string(page.size()) + " ...]\n"),
            std::string::npos)
      << first.out.substr(0, 300);
  const auto second = cli({"logs", "ft-logs", "--component", "-1", "--offset", std::to_string(page.size())});
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(
      second.out.find("[... 18,890 bytes before this are not shown; this page starts at --offset 18890 ...]\n" + rest),
      std::string::npos)
      << second.out.substr(0, 300);
  EXPECT_EQ(second.out.find("after this"), std::string::npos) << second.out;
}

TEST_F(LogsCommandTest, AnUnfinishedLastLineWaitsWhileTheJobRuns) {
  one_attempt();
  write_test_file(attempt_dir(1) + "/logs/batch.out", "done\nloading");
  const auto page = cli({"logs", "ft-logs", "--component", "-1", "--offset", "0"});
  EXPECT_EQ(page.exit_code, 0) << page.err;
  EXPECT_NE(page.out.find("<==\ndone\n[... 7 bytes (1 line) after this are not shown: the last line has no newline "
                          "yet; next page: --offset 5 ...]\n"),
            std::string::npos)
      << page.out;
  const auto inside = cli({"logs", "ft-logs", "--component", "-1", "--offset", "2"});
  EXPECT_NE(inside.out.find("<==\n[... 2 bytes before this are not shown (the first line shown is cut: it starts "
                            "among them); this page starts at --offset 2 ...]\nne\n[... 7 bytes"),
            std::string::npos)
      << inside.out;

  // Once the attempt has ended nothing will finish the line: the page shows it.
  ASSERT_TRUE(journal()->transition({"ft-logs", 1}, AttemptState::prepared, AttemptState::failed, {}, {}).ok());
  const auto ended = cli({"logs", "ft-logs", "--component", "-1", "--offset", "5"});
  EXPECT_EQ(ended.exit_code, 0) << ended.err;
  EXPECT_NE(ended.out.find("(12 bytes, showing bytes 5 to 12) <==\n[... 5 bytes before this are not shown; this page "
                           "starts at --offset 5 ...]\nloading\n"),
            std::string::npos)
      << ended.out;
  EXPECT_EQ(ended.out.find("after this"), std::string::npos) << ended.out;
}

TEST_F(LogsCommandTest, JsonHasTheSameFactsPerFile) {
  one_attempt();
  write_test_file(attempt_dir(1) + "/logs/batch.out", "ok \xFF\n");
  const auto shown = cli({"logs", "ft-logs", "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  boost::system::error_code error;
  const auto value = boost::json::parse(shown.out, error);
  ASSERT_FALSE(error) << shown.out;
  const auto& report = value.as_object();
  EXPECT_EQ(report.at("job_id").as_string(), "ft-logs");
  EXPECT_EQ(report.at("attempt").as_int64(), 1);
  EXPECT_EQ(report.at("attempt_state").as_string(), "prepared");
  EXPECT_EQ(report.at("directory_written").as_bool(), true);
  const auto& logs = report.at("logs").as_array();
  ASSERT_EQ(logs.size(), 2u);
  const auto& batch = logs[0].as_object();
  EXPECT_EQ(batch.at("name").as_string(), "batch");
  EXPECT_EQ(batch.at("component").as_int64(), -1);
  EXPECT_EQ(batch.at("stream").as_string(), "stdout");
  EXPECT_EQ(batch.at("path").as_string(), "logs/batch.out");
  EXPECT_EQ(batch.at("state").as_string(), "present");
  EXPECT_EQ(batch.at("size").to_number<std::uint64_t>(), 5u);
  EXPECT_EQ(batch.at("begin").to_number<std::uint64_t>(), 0u);
  EXPECT_EQ(batch.at("end").to_number<std::uint64_t>(), 5u);
  EXPECT_EQ(batch.at("next_offset").to_number<std::uint64_t>(), 5u);
  EXPECT_EQ(batch.at("bytes_before").to_number<std::uint64_t>(), 0u);
  EXPECT_EQ(batch.at("lines_before").to_number<std::uint64_t>(), 0u);
  EXPECT_EQ(batch.at("text").as_string(), "ok \xEF\xBF\xBD\n");  // JSON text is valid UTF-8
  EXPECT_EQ(logs[1].as_object().at("state").as_string(), "missing");
}

TEST_F(LogsCommandTest, DefaultsToTheNewestAttemptAndTakesAnOlderOne) {
  {
    auto j = journal();
    ASSERT_TRUE(j->add_job({"ft-logs", "{}", "hash", "", "", 2}).ok());
    prepared_attempt(*j, "ft-logs", 1);
    journal::AttemptChanges retry;
    retry.job_phase = model::JobPhase::queued;
    ASSERT_TRUE(j->transition({"ft-logs", 1}, AttemptState::prepared, AttemptState::failed, retry, {}).ok());
    ASSERT_TRUE(j->advance_cleanup({"ft-logs", 1}, CleanupStep::none, CleanupStep::staging_pending, {}).ok());
    ASSERT_TRUE(j->advance_cleanup({"ft-logs", 1}, CleanupStep::staging_pending, CleanupStep::sealing, {}).ok());
    ASSERT_TRUE(j->advance_cleanup({"ft-logs", 1}, CleanupStep::sealing, CleanupStep::closed, {}).ok());
    prepared_attempt(*j, "ft-logs", 2);
  }
  write_test_file(attempt_dir(1) + "/logs/batch.out", "first try\n");
  write_test_file(attempt_dir(2) + "/logs/batch.out", "second try\n");
  const auto newest = cli({"logs", "ft-logs", "--component", "-1"});
  EXPECT_EQ(newest.exit_code, 0) << newest.err;
  EXPECT_NE(newest.out.find("second try\n"), std::string::npos) << newest.out;
  const auto older = cli({"logs", "ft-logs", "--attempt", "1", "--component", "-1"});
  EXPECT_EQ(older.exit_code, 0) << older.err;
  EXPECT_NE(older.out.find("job ft-logs attempt 1 (failed) in"), std::string::npos) << older.out;
  EXPECT_NE(older.out.find("first try\n"), std::string::npos) << older.out;
  const auto unknown = cli({"logs", "ft-logs", "--attempt", "7"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err,
            "tuneplane-slurm: job ft-logs has no attempt 7; its attempts are 1, 2 (without --attempt: the newest, "
            "2)\n");
}

TEST_F(LogsCommandTest, RefusesAnUnknownJobOrComponentNamingTheFix) {
  one_attempt();
  const auto job = cli({"logs", "nope"});
  EXPECT_EQ(job.exit_code, 2);
  EXPECT_EQ(job.err, "tuneplane-slurm: no job nope in " + dir.file("state/journal.db") + "\n");
  const auto component = cli({"logs", "ft-logs", "--component", "3"});
  EXPECT_EQ(component.exit_code, 2);
  EXPECT_EQ(component.err,
            "tuneplane-slurm: job ft-logs attempt 1: no log of component 3; the attempt's components are: -1 (the "
            "job's own log), 0; pick one with --component, or leave it out for every log\n");
  EXPECT_EQ(component.out, "");
}

TEST_F(LogsCommandTest, SaysSoWhenThereIsNoAttemptOrNoDirectoryYet) {
  {
    auto j = journal();
    ASSERT_TRUE(j->add_job({"ft-logs", "{}", "hash", "", "", 1}).ok());
  }
  const auto none = cli({"logs", "ft-logs"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, "job ft-logs has no attempt yet (queued): nothing has written a log\n");
  {
    auto j = journal();
    ASSERT_TRUE(j->add_attempt("ft-logs", 1, "token", "in").ok());
  }
  const auto preparing = cli({"logs", "ft-logs"});
  EXPECT_EQ(preparing.exit_code, 0) << preparing.err;
  const std::string expected_dir = dir.file("storage/slurm/jobs/ft-logs/attempts/1");
  EXPECT_EQ(preparing.out, "job ft-logs attempt 1 (preparing) in " + expected_dir + "\n" + expected_dir +
                               " has no manifest.json: the attempt never got its directory (not prepared yet, or "
                               "preparing failed)\n");
}

TEST_F(LogsCommandTest, NeverReadsAManifestPathOutsideTheAttempt) {
  {
    auto j = journal();
    ASSERT_TRUE(j->add_job({"ft-logs", "{}", "hash", "", "", 1}).ok());
    prepared_attempt(*j, "ft-logs", 1, {{"batch", -1, "../../state/journal.db", "logs/batch.err"}});
  }
  const auto refused = cli({"logs", "ft-logs"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.out.find("==> batch stdout: ../../state/journal.db <==\n(unreadable: "), std::string::npos)
      << refused.out;
  EXPECT_NE(refused.err.find("which climbs out with \"..\"; refusing to read it"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out.find("SQLite"), std::string::npos);
}

TEST_F(LogsCommandTest, HelpSaysOffsetAppliesToEachFile) {
  const auto help = cli({"logs", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("applied to each file selected"), std::string::npos) << help.out;
  EXPECT_EQ(cli({"logs"}).exit_code, 2);
}

}  // namespace
}  // namespace tpslurm::cli
