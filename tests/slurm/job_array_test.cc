// Job arrays without a server: the task-string parser, the submit body of every dialect, the
// refusal of a heterogeneous array, 2081's class, 22.05's release note, the decoding of the
// real 22.05.8 array transcripts (arrays-v0.0.38/) and of v0.0.4x records and jobs/state
// entries, the per-release choice of the cancel path, and GET conf.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "fake_transport.h"
#include "model/job_array.h"
#include "slurm/dialect.h"
#include "slurm/rest_client.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

namespace bj = boost::json;

std::string array_fixture(const std::string& sample) {
  return testing::fixture("arrays-v0.0.38/" + sample + ".response.json");
}

model::SubmitDescription array_description() {
  model::SubmitDescription d;
  d.tag = {"sweep", "tuneplane:sweep-token", "/shared/tp/s1"};
  d.script = "#!/bin/bash\ntrue\n";
  d.environment = {{"PATH", "/usr/bin:/bin"}};
  d.hold = true;
  d.components = {model::SubmitComponent{"debug", "", 1, 1, 1, 100, ""}};
  d.array = model::ArraySpec{0, 999, 8};
  return d;
}

TEST(ArrayTaskStringTest, ReadsEachFormSlurmPrints) {
  auto plain = model::parse_array_task_string("0-4");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->tasks, (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(plain->complete);
  auto listed = model::parse_array_task_string("3,5-9%4");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->tasks, (std::vector<std::uint32_t>{3, 5, 6, 7, 8, 9})) << "the throttle is dropped";
  auto stride = model::parse_array_task_string("0-20:2");
  ASSERT_TRUE(stride.ok());
  EXPECT_EQ(stride->tasks.size(), 11u);
  EXPECT_EQ(stride->tasks.back(), 20u);
  auto big = model::parse_array_task_string("0-999");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->tasks.size(), 1000u);
  auto none = model::parse_array_task_string("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->tasks.empty());
}

TEST(ArrayTaskStringTest, ACutStringSaysItIsIncompleteAndDropsTheCutItem) {
  // Every other task of 0-98 cut as slurmctld cuts it (61 characters, then the dots).
  auto cut = model::parse_array_task_string("0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,4...%3");
  ASSERT_TRUE(cut.ok()) << cut.error().message();
  EXPECT_FALSE(cut->complete);
  EXPECT_EQ(cut->tasks.back(), 38u) << "\"4...\" may have been 40 or 400: not guessed";
  EXPECT_EQ(cut->tasks.size(), 20u);
}

TEST(ArrayTaskStringTest, RefusesWhatSlurmDoesNotPrint) {
  for (const char* bad : {"a", "3-1", "1,,2", "1,", "0-10:0", "5:2", "[1-3]", "1...2", "0-3%x"}) {
    EXPECT_FALSE(model::parse_array_task_string(bad).ok()) << bad;
  }
}

TEST(ArraySpecTest, TextIsSbatchsArrayOption) {
  EXPECT_EQ((model::ArraySpec{0, 999, 8}.text()), "0-999%8");
  EXPECT_EQ((model::ArraySpec{0, 9, std::nullopt}.text()), "0-9");
  EXPECT_EQ((model::ArraySpec{4, 4, std::nullopt}.text()), "4");
}

TEST(ArraySubmitTest, EveryDialectSendsJobArray) {
  for (std::string_view version : supported_dialects()) {
    const auto codec = make_dialect(version);
    auto body = codec->encode_submit(array_description());
    ASSERT_TRUE(body.ok()) << version << ": " << body.error().message();
    const auto job = bj::parse(*body).as_object().at("job").as_object();
    EXPECT_EQ(job.at("array"), "0-999%8") << version;
    EXPECT_EQ(job.at("hold"), true) << version;
    auto single = array_description();
    single.array.reset();
    EXPECT_FALSE(bj::parse(*codec->encode_submit(single)).as_object().at("job").as_object().contains("array"));
  }
}

TEST(ArraySubmitTest, AHeterogeneousArrayIsRefusedBeforeSending) {
  auto het = array_description();
  het.components.push_back(het.components.front());
  for (std::string_view version : supported_dialects()) {
    auto body = make_dialect(version)->encode_submit(het);
    ASSERT_FALSE(body.ok()) << version;
    EXPECT_EQ(body.error().kind(), ErrorKind::invalid_argument);
    EXPECT_NE(body.error().message().find("heterogeneous"), std::string::npos);
  }
  testing::FakeTransport transport;
  testing::StaticTokenSource tokens;
  auto client = RestClient::create(transport, tokens, "v0.0.45");
  ASSERT_TRUE(client.ok());
  const SubmitResult result = (*client)->submit(het);
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_TRUE(transport.requests().empty()) << "nothing sent";
  auto backwards = array_description();
  backwards.array = model::ArraySpec{5, 2, std::nullopt};
  EXPECT_FALSE(check_description(backwards).ok());
}

HttpExchange answered(int status, std::string body) {
  HttpExchange exchange;
  exchange.delivery = Delivery::answered;
  exchange.response.status = status;
  exchange.response.body = std::move(body);
  return exchange;
}

TEST(ArrayOutcomeTest, InvalidArraySpecificationIsRejectedOnEveryRelease) {
  const SlurmMessage refusal{2081, "Invalid job array specification", "", "_op_handler_submit_job_post"};
  for (int status : {500, 422}) {
    const Classification c = classify_submit(answered(status, "{}"), DecodedFacts{true, false, {refusal}, {}});
    EXPECT_EQ(c.outcome, Outcome::rejected) << status;
  }
  ASSERT_NE(find_known_error(2081), nullptr);
  EXPECT_EQ(find_known_error(2081)->name, "ESLURM_INVALID_ARRAY");
}

TEST(ArrayOutcomeTest, TheNumberlessArrayUpdateNoteOfTheRealReleaseIsOk) {
  const auto codec = make_dialect("v0.0.38");
  const std::string body = array_fixture("06_release_array");
  auto base = codec->decode_base(body);
  ASSERT_TRUE(base.ok());
  const Classification note = classify_update(answered(200, body), DecodedFacts{true, false, base->errors, {}});
  EXPECT_EQ(note.outcome, Outcome::ok) << note.reason;
  EXPECT_NE(note.reason.find("job array update from"), std::string::npos) << "the words are kept";

  SlurmMessage numbered = base->errors.front();
  numbered.number = 2020;
  EXPECT_EQ(classify_update(answered(200, body), DecodedFacts{true, false, {numbered}, {}}).outcome,
            Outcome::rejected_transient)
      << "a numbered note keeps its number's meaning";
  SlurmMessage other = base->errors.front();
  other.description = "job update from [localhost]:48436 failed";
  EXPECT_EQ(classify_update(answered(200, body), DecodedFacts{true, false, {other}, {}}).outcome, Outcome::rejected);
}

TEST(ArrayOutcomeTest, ReleasingAHeldArrayOn2205IsOkAndNotAlreadyEnded) {
  testing::FakeTransport transport;
  testing::StaticTokenSource tokens;
  auto client = RestClient::create(transport, tokens, "v0.0.38");
  ASSERT_TRUE(client.ok());
  transport.answer(HttpMethod::post, "/slurm/v0.0.38/job/9", 200, array_fixture("06_release_array"));
  const ReleaseResult released = (*client)->release_hold({9, ""});
  EXPECT_EQ(released.outcome, Outcome::ok) << released.message;
  EXPECT_FALSE(released.already_ended);
  EXPECT_NE(released.message.find("job array update from"), std::string::npos);
}

TEST(ArrayDecodeTest, TheReal2205RecordsCarryTheArrayIds) {
  const auto codec = make_dialect("v0.0.38");
  auto held = codec->decode_jobs(array_fixture("02_get_array_held"));
  ASSERT_TRUE(held.ok());
  ASSERT_EQ(held->jobs.size(), 1u);
  EXPECT_EQ(held->jobs[0].array_job_id, 9u);
  EXPECT_FALSE(held->jobs[0].array_task_id) << "the meta record has no task id";
  EXPECT_EQ(held->jobs[0].array_task_string, "0-4%2");

  auto running = codec->decode_jobs(array_fixture("07_get_array_running"));
  ASSERT_TRUE(running.ok());
  ASSERT_EQ(running->jobs.size(), 3u);
  EXPECT_EQ(running->jobs[0].job_id, 9u);
  EXPECT_EQ(running->jobs[0].array_task_string, "2-3%2");
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(running->jobs[i].array_job_id, 9u);
    ASSERT_TRUE(running->jobs[i].array_task_id);
    EXPECT_EQ(running->jobs[i].array_task_string, "");
  }
  EXPECT_EQ((std::vector{running->jobs[1].job_id, *running->jobs[1].array_task_id}), (std::vector<std::uint32_t>{11, 1}));
  EXPECT_EQ((std::vector{running->jobs[2].job_id, *running->jobs[2].array_task_id}), (std::vector<std::uint32_t>{10, 0}));

  auto listing = codec->decode_jobs(array_fixture("10_jobs_with_array"));
  ASSERT_TRUE(listing.ok());
  int tasks = 0;
  for (const auto& job : listing->jobs) tasks += job.array_job_id == 9u ? 1 : 0;
  EXPECT_EQ(tasks, 3);

  auto db = codec->decode_db_jobs(array_fixture("17_slurmdb_job_array_master"));
  ASSERT_TRUE(db.ok());
  ASSERT_EQ(db->jobs.size(), 4u);
  for (const auto& job : db->jobs) EXPECT_EQ(job.array_job_id, 9u);
  EXPECT_EQ(db->jobs[1].array_task_id, 0u);
}

TEST(ArrayDecodeTest, DataParserRecordsAndJobsStateEntries) {
  const std::string record = R"({"jobs": [
    {"job_id": 20, "array_job_id": {"set": true, "infinite": false, "number": 20},
     "array_task_id": {"set": false, "infinite": false, "number": 0}, "array_task_string": "3,5-9%4",
     "het_job_id": {"set": true, "infinite": false, "number": 0}, "job_state": ["PENDING"]},
    {"job_id": 22, "array_job_id": {"set": true, "infinite": false, "number": 20},
     "array_task_id": {"set": true, "infinite": false, "number": 0}, "array_task_string": "",
     "het_job_id": {"set": true, "infinite": false, "number": 0}, "job_state": ["RUNNING"]},
    {"job_id": 23, "array_job_id": {"set": true, "infinite": false, "number": 0},
     "array_task_id": {"set": false, "infinite": false, "number": 0},
     "het_job_id": {"set": true, "infinite": false, "number": 0}, "job_state": ["RUNNING"]}]})";
  const std::string states = R"({"jobs": [{"job_id": "20_3", "state": ["PENDING"]},
    {"job_id": "22_0", "state": ["RUNNING"]}, {"job_id": "21_*", "state": ["CANCELLED"]},
    {"job_id": "23", "state": ["RUNNING"]}, {"job_id": "24_[1-3]", "state": ["PENDING"]}]})";
  for (std::string_view version : supported_dialects()) {
    if (version == "v0.0.38") continue;
    const auto codec = make_dialect(version);
    auto jobs = codec->decode_jobs(record);
    ASSERT_TRUE(jobs.ok()) << version;
    EXPECT_EQ(jobs->jobs[0].array_job_id, 20u);
    EXPECT_FALSE(jobs->jobs[0].array_task_id);
    EXPECT_EQ(jobs->jobs[0].array_task_string, "3,5-9%4");
    EXPECT_EQ(jobs->jobs[1].array_task_id, 0u);
    EXPECT_FALSE(jobs->jobs[2].array_job_id) << "a plain job";
    auto reply = codec->decode_jobs_state(states);
    ASSERT_TRUE(reply.ok()) << version;
    ASSERT_EQ(reply->entries.size(), 4u) << "the bracketed id is not read";
    EXPECT_EQ(reply->entries[0], (JobStateEntry{20, std::nullopt, reply->entries[0].state, 20u, 3u}));
    EXPECT_EQ(reply->entries[1].array_task_id, 0u);
    EXPECT_EQ(reply->entries[2].array_job_id, 21u);
    EXPECT_FALSE(reply->entries[2].array_task_id);
    EXPECT_FALSE(reply->entries[3].array_job_id);
  }
}

TEST(ArrayCancelPathTest, TheReleaseDecides) {
  const auto how = [](int major, int minor, int micro) { return array_task_cancel({major, minor, micro}); };
  EXPECT_EQ(how(22, 5, 8), ArrayTaskCancel::task_path);
  EXPECT_EQ(how(23, 11, 0), ArrayTaskCancel::none);
  EXPECT_EQ(how(23, 11, 6), ArrayTaskCancel::none);
  EXPECT_EQ(how(23, 11, 7), ArrayTaskCancel::kill_jobs);
  EXPECT_EQ(how(24, 5, 8), ArrayTaskCancel::kill_jobs);
  EXPECT_EQ(how(24, 11, 0), ArrayTaskCancel::task_path);
  EXPECT_EQ(how(26, 5, 3), ArrayTaskCancel::task_path);
}

TEST(ArrayLimitsTest, ConfIsDecodedInEitherSpelling) {
  const auto codec = make_dialect("v0.0.45");
  auto listed = codec->decode_conf(
      R"({"slurm_conf": {"MaxArraySize": 5000, "SchedulerParameters": ["whole_hetjob", "max_array_tasks=2000"]}})");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->max_array_size, 5000);
  EXPECT_EQ(listed->max_array_tasks, 2000);
  auto joined = codec->decode_conf(
      R"({"slurm_conf": {"MaxArraySize": {"set": true, "infinite": false, "number": 1001}, "SchedulerParameters": "max_array_tasks=7,bf_continue"}})");
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(joined->max_array_size, 1001);
  EXPECT_EQ(joined->max_array_tasks, 7);
  EXPECT_FALSE(codec->decode_conf(R"({"meta": {}})").ok());
}

TEST(ArrayLimitsTest, NotServedBefore2605SendsNothing) {
  testing::FakeTransport transport;
  testing::StaticTokenSource tokens;
  auto client = RestClient::create(transport, tokens, "v0.0.44");
  ASSERT_TRUE(client.ok());
  const ArrayLimitsResult limits = (*client)->array_limits();
  EXPECT_EQ(limits.outcome, Outcome::ok);
  EXPECT_FALSE(limits.served);
  EXPECT_NE(limits.message.find("not served"), std::string::npos);
  EXPECT_TRUE(transport.requests().empty());
}

}  // namespace
}  // namespace tpslurm::slurm
