// The v0.0.40 and v0.0.42 codecs, and the classification of their answers, against what real
// Slurm 23.11.11 (v0.0.40) and 24.11.7 (v0.0.42) servers answered (tests/fixtures/slurm/
// samples-v0.0.40/ and samples-v0.0.42/, one plan: the same number is the same call). Each
// test reads the same call from both releases.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "dialect_shapes.h"
#include "slurm/dialect.h"
#include "slurm/outcome.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;

struct RealRelease {
  std::string directory;  // "samples-v0.0.40"
  std::string version;    // "v0.0.40"
  SlurmRelease release;
};

std::string PrintToString(const RealRelease& release) { return release.version; }

class RealReleaseTest : public ::testing::TestWithParam<RealRelease> {
 protected:
  std::string body(const std::string& sample) const {
    return testing::fixture(GetParam().directory + "/" + sample + ".response.json");
  }
  int status(const std::string& sample) const {
    return std::stoi(testing::fixture(GetParam().directory + "/" + sample + ".status.txt").substr(5, 3));
  }
  HttpExchange exchange(const std::string& sample) const {
    HttpExchange answered;
    answered.delivery = Delivery::answered;
    answered.response.status = status(sample);
    answered.response.body = body(sample);
    return answered;
  }
  // What the client's read of `sample` amounts to, as rest_call.h reads it: the envelope's
  // errors when the body is not the list the call expects.
  Classification read(const std::string& sample) const {
    const auto base = m_dialect->decode_base(body(sample));
    return classify_read(exchange(sample), {base.ok(), false, base.ok() ? base->errors : std::vector<SlurmMessage>{}, {}});
  }
  Classification submit(const std::string& sample) const {
    const auto reply = m_dialect->decode_submit(body(sample));
    DecodedFacts facts;
    if (reply.ok()) facts = {true, reply->job_id.has_value(), reply->errors, reply->job_id_problem};
    return classify_submit(exchange(sample), facts);
  }
  Classification update(const std::string& sample) const {
    const auto base = m_dialect->decode_base(body(sample));
    return classify_update(exchange(sample), {true, false, base->errors, {}});
  }

  std::unique_ptr<Dialect> m_dialect = make_dialect(GetParam().version, GetParam().release);
};

TEST_P(RealReleaseTest, PingIsUpAndNamesTheRelease) {
  const auto ping = m_dialect->decode_ping(body("01_ping_" + GetParam().version));
  ASSERT_TRUE(ping.ok()) << ping.error().message();
  EXPECT_TRUE(ping->responding);
  EXPECT_EQ(ping->status, "UP");
  EXPECT_EQ(ping->release, GetParam().release.to_string());
  EXPECT_EQ(status("04_ping_v0.0.43_unserved"), 404) << "auto moves on past a version the server lacks";
}

TEST_P(RealReleaseTest, TheSubmitBodyHasTheRecordedShape) {
  const auto request = boost::json::parse(testing::fixture(GetParam().directory + "/05_submit_single_held.request.json"));
  const auto& recorded = request.at("body").at("job").as_object();
  auto description = testing::transcript_description();
  description.hold = true;
  const auto ours = boost::json::parse(*m_dialect->encode_submit(description)).at("job").as_object();
  for (const auto& [key, value] : ours) {
    if (key == "nodes" || key == "tasks_per_node") continue;  // recorded as minimum_nodes + tasks
    EXPECT_TRUE(recorded.contains(key)) << key << " is not a field the real server took";
  }
  EXPECT_EQ(ours.at("hold"), recorded.at("hold"));
  EXPECT_EQ(ours.at("memory_per_node").as_object().size(), recorded.at("memory_per_node").as_object().size());
}

TEST_P(RealReleaseTest, AHeldSubmitIsAReceipt) {
  const Classification held = submit("05_submit_single_held");
  EXPECT_EQ(held.outcome, Outcome::ok) << held.reason;
  EXPECT_EQ(*m_dialect->decode_submit(body("05_submit_single_held"))->job_id, 1u);
  EXPECT_EQ(*m_dialect->decode_submit(body("09_submit_hetjob"))->job_id, 2u);
}

TEST_P(RealReleaseTest, RecordsDecodeWithTheirStatesAndHetComponents) {
  const auto held = m_dialect->decode_jobs(body("06_get_job_held"));
  ASSERT_TRUE(held.ok());
  ASSERT_EQ(held->jobs.size(), 1u);
  EXPECT_EQ(held->jobs[0].state.base, SlurmBaseState::pending);
  EXPECT_EQ(held->jobs[0].name, "sample-single");
  EXPECT_TRUE(held->jobs[0].sluid.empty()) << "no SLUID before v0.0.44";
  EXPECT_FALSE(held->jobs[0].requeue);
  const auto leader = m_dialect->decode_jobs(body("10_get_hetjob_leader"));
  ASSERT_TRUE(leader.ok());
  ASSERT_EQ(leader->jobs.size(), 2u);
  EXPECT_EQ(leader->jobs[0].het_job_id, 2u);
  EXPECT_EQ(leader->jobs[1].het_job_offset, 1u);
  const auto finished = m_dialect->decode_jobs(body("31_get_job_finished"));
  ASSERT_TRUE(finished.ok());
  EXPECT_TRUE(finished->jobs[0].state.base_is_final());
  EXPECT_TRUE(finished->jobs[0].state.unknown.empty());
}

TEST_P(RealReleaseTest, JobsStateAnswersEveryAskedComponent) {
  EXPECT_TRUE(m_dialect->has_jobs_state()) << GetParam().release.to_string() << " binds jobs/state";
  const auto states = m_dialect->decode_jobs_state(body("16_jobs_state_multi"));
  ASSERT_TRUE(states.ok());
  EXPECT_EQ(states->entries.size(), 4u);
  EXPECT_EQ(status("17_jobs_state_multi_csv"), 400) << "a comma list is refused: one parameter per id";
  const auto unknown = m_dialect->decode_jobs_state(body("19_jobs_state_unknown"));
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(unknown->entries.empty());
}

TEST_P(RealReleaseTest, TimesInQueriesAreWhatTheServerReads) {
  // A bare number was refused on v0.0.40 (9202) and read on v0.0.42.
  const bool bare_refused = status("13_jobs_update_time") >= 400;
  EXPECT_EQ(bare_refused, GetParam().version == "v0.0.40");
  const std::string sent = m_dialect->query_time(1796425648);
  EXPECT_EQ(sent, bare_refused ? "uts1796425648" : "1796425648");
  EXPECT_NE(m_dialect->jobs_path(1796425648).find("update_time=" + sent), std::string::npos);
}

TEST_P(RealReleaseTest, CancelAnswersReadAsTheSignalsFate) {
  const auto killed = m_dialect->decode_cancel(body("21_delete_job"));
  ASSERT_TRUE(killed.ok());
  EXPECT_EQ(killed->status, CancelStatus::signalled);
  const auto again = m_dialect->decode_cancel(body("23_delete_job_again"));
  ASSERT_TRUE(again.ok());
  // 23.11 says "already sent" as a warning; 24.11 lists 2021.
  EXPECT_TRUE(again->status == CancelStatus::signalled || again->status == CancelStatus::already_done);
  const auto pending = m_dialect->decode_cancel(body("27_delete_pending_job_sigusr1"));
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->status, CancelStatus::not_running);
  const auto unknown = m_dialect->decode_cancel(body("29_delete_unknown_job_id"));
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->status, CancelStatus::not_found);
  EXPECT_NE(read("29_delete_unknown_job_id").outcome, Outcome::uncertain);
}

TEST_P(RealReleaseTest, UpdatesOfFinishedAndUnknownJobs) {
  EXPECT_EQ(update("32_update_finished_job").outcome, Outcome::ok) << "2084: the job has already finished";
  EXPECT_EQ(update("33_update_unknown_job").outcome, Outcome::not_found);
}

TEST_P(RealReleaseTest, DiagAndPartitionsDecode) {
  const auto diag = m_dialect->decode_diag(body("34_diag"));
  ASSERT_TRUE(diag.ok());
  EXPECT_TRUE(diag->request_time.has_value());
  const auto partitions = m_dialect->decode_partitions(body("35_partitions"));
  ASSERT_TRUE(partitions.ok());
  EXPECT_EQ(partitions->names, std::vector<std::string>{"debug"});
}

TEST_P(RealReleaseTest, SlurmdbdRecordsDecode) {
  const auto found = m_dialect->decode_db_jobs(body("39_slurmdb_jobs_finished_date"));
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_FALSE(found->jobs.empty());
  EXPECT_EQ(found->jobs[0].name, "sample-finished");
  EXPECT_TRUE(found->jobs[0].state.base_is_final());
  EXPECT_TRUE(found->jobs[0].sluid.empty());
}

TEST_P(RealReleaseTest, ABadTokenIsNeverAProofOfNothingOnASubmit) {
  for (const char* sample : {"45_auth_garbage_token_submit", "46_auth_expired_token_submit"}) {
    const Outcome outcome = submit(sample).outcome;
    if (GetParam().version == "v0.0.40") {
      // 23.11 with accounting refuses the request before its handler: slurmrestd could not
      // open its slurmdbd connection with that token (error 7000, wrap_openapi_ctxt_callback).
      EXPECT_EQ(outcome, Outcome::rejected_transient) << sample;
    } else {
      EXPECT_EQ(outcome, Outcome::uncertain) << sample << ": 511 with 1007 may follow the job's creation";
    }
  }
  for (const char* sample : {"40_auth_expired_token_jobs", "41_auth_garbage_token_jobs"}) {
    const Outcome outcome = read(sample).outcome;
    EXPECT_EQ(outcome, GetParam().version == "v0.0.40" ? Outcome::uncertain : Outcome::auth) << sample;
  }
}

// 23.11's 7000 before any handler cannot tell a refused token from a slurmdbd that is down:
// its words name both, on a read and on a submit. 24.11 says 1007, and no such words.
TEST_P(RealReleaseTest, ADatabaseConnectionRefusedBeforeTheHandlerNamesTheToken) {
  const bool before_handler = GetParam().version == "v0.0.40";
  for (const Classification& answer : {read("40_auth_expired_token_jobs"), read("41_auth_garbage_token_jobs"),
                                       submit("45_auth_garbage_token_submit")}) {
    EXPECT_EQ(answer.reason.find("Unable to connect to database") != std::string::npos, before_handler)
        << answer.reason;
    EXPECT_EQ(answer.reason.find("or it refused the token") != std::string::npos, before_handler) << answer.reason;
  }
}

TEST_P(RealReleaseTest, SubmitRefusalsAreRejectedOrUncertainByTheirNumbers) {
  EXPECT_EQ(submit("47_submit_invalid_partition").outcome, Outcome::rejected);
  EXPECT_EQ(submit("48_submit_invalid_constraint").outcome, Outcome::rejected);
  // 2019 (writing the script or environment failed) is not in the table: it may come after
  // the record exists. The client never sends a job without an environment anyway.
  EXPECT_EQ(submit("49_submit_no_environment").outcome, Outcome::uncertain);
}

INSTANTIATE_TEST_SUITE_P(Releases, RealReleaseTest,
                         ::testing::Values(RealRelease{"samples-v0.0.40", "v0.0.40", {23, 11, 11}},
                                           RealRelease{"samples-v0.0.42", "v0.0.42", {24, 11, 7}}),
                         [](const auto& param_info) {
                           return param_info.param.version == "v0.0.40" ? std::string("v0040_on_23_11_11")
                                                                  : std::string("v0042_on_24_11_7");
                         });

}  // namespace
}  // namespace tpslurm::slurm
