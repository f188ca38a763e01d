// The change feed (GET /v1/events) against the real journal: every change an attempt's life
// makes for the platform, in order and once; the resume rule (`next` as `after`); a long poll
// that another connection's commit wakes (the daemon's and the CLI's are such connections);
// many waiting clients at once, with the server still answering others.
#include <boost/json.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "api_fixture.h"
#include "operations/change_feed.h"

namespace tpslurm::api::testing {
namespace {

namespace json = boost::json;
using model::AttemptState;
using model::CleanupStep;
using Steady = std::chrono::steady_clock;

constexpr const char* kJob = "ft-7f3c2a";  // etc/launch-request.example.json

class ApiFeedTest : public ApiFixture {
 protected:
  void SetUp() override { start(); }

  json::object feed(const std::string& query) {
    const auto answer = call("GET", "/v1/events" + query, kAliceToken);
    EXPECT_EQ(answer.status, 200) << answer.body << answer.error;
    return answer.status == 200 ? json::parse(answer.body).as_object() : json::object{};
  }

  void submitted() {
    const auto created = call("POST", "/v1/jobs", kAliceToken, example_request());
    ASSERT_EQ(created.status, 201) << created.body;
  }

  // Attempt 1 through a lost answer, its adoption, a run and a cleanup, on another connection.
  void whole_life(journal::Journal& j) {
    const journal::AttemptKey key{kJob, 1};
    ASSERT_TRUE(j.add_attempt(kJob, 1, "token-1", "input").ok());
    ASSERT_TRUE(j.transition(key, AttemptState::preparing, AttemptState::prepared, {}, {}).ok());
    ASSERT_TRUE(j.transition(key, AttemptState::prepared, AttemptState::submitting, {}, {}).ok());
    ASSERT_TRUE(j.transition(key, AttemptState::submitting, AttemptState::submit_unknown, {}, {}).ok());
    journal::AttemptChanges found;
    found.slurm_job_id = 4242;
    ASSERT_TRUE(j.transition(key, AttemptState::submit_unknown, AttemptState::submitted, found, {}).ok());
    ASSERT_TRUE(j.record_event(kJob, 1, "anomaly", {{"reason", "requeued by Slurm"}}).ok());
    ASSERT_TRUE(j.transition(key, AttemptState::submitted, AttemptState::running, {}, {}).ok());
    ASSERT_TRUE(j.transition(key, AttemptState::running, AttemptState::succeeded, {}, {}).ok());
    for (auto [from, to] : {std::pair{CleanupStep::none, CleanupStep::epilog_pending},
                            std::pair{CleanupStep::epilog_pending, CleanupStep::staging_pending},
                            std::pair{CleanupStep::staging_pending, CleanupStep::sealing},
                            std::pair{CleanupStep::sealing, CleanupStep::closed}}) {
      ASSERT_TRUE(j.advance_cleanup(key, from, to, {}).ok());
    }
  }

  static std::vector<std::string> changes(const json::object& page) {
    std::vector<std::string> out;
    for (const auto& item : page.at("events").as_array()) {
      const auto& o = item.as_object();
      std::string text(o.at("change").as_string());
      if (o.contains("resources_held")) text += o.at("resources_held").as_bool() ? ":held" : ":released";
      if (o.at("change") == "phase") text += ":" + std::string(o.at("to").as_string());
      out.push_back(text);
    }
    return out;
  }
};

TEST_F(ApiFeedTest, AnEmptyJournalHasNoEventsAndTheFeedNeedsAToken) {
  const auto page = feed("");
  EXPECT_TRUE(page.at("events").as_array().empty());
  EXPECT_EQ(page.at("next"), 0);
  EXPECT_EQ(call("GET", "/v1/events", "").status, 401);
  EXPECT_EQ(call("POST", "/v1/events", kAliceToken).status, 405);
}

TEST_F(ApiFeedTest, EveryChangeOfAnAttemptsLifeComesInOrderWithItsSequence) {
  submitted();
  auto journal = open_journal();
  ASSERT_NE(journal, nullptr);
  whole_life(*journal);
  const auto page = feed("?after=0");
  EXPECT_EQ(changes(page),
            (std::vector<std::string>{"phase:queued", "resources_held:held", "phase:submitting", "blocked",
                                      "phase:submit_unconfirmed", "unblocked", "phase:pending", "anomaly",
                                      "phase:running", "phase:succeeded", "resources_held:released"}));
  std::int64_t last = 0;
  for (const auto& item : page.at("events").as_array()) {
    const std::int64_t seq = item.at("seq").as_int64();
    EXPECT_GT(seq, last) << "in order, each once";
    last = seq;
    EXPECT_EQ(item.at("job_id"), kJob);
  }
  EXPECT_GE(page.at("next").as_int64(), last);
  const auto& unblocked = page.at("events").as_array()[5].as_object();
  EXPECT_EQ(unblocked.at("slurm_job_id"), 4242);
  EXPECT_EQ(unblocked.at("from"), "submit_unknown");
  EXPECT_EQ(page.at("events").as_array()[7].at("reason"), "requeued by Slurm");
}

TEST_F(ApiFeedTest, APendingAttemptsWaitComesWithItsWordsAndExpectedStartOnceSlurmSaysSomething) {
  submitted();
  auto journal = open_journal();
  ASSERT_NE(journal, nullptr);
  const journal::AttemptKey key{kJob, 1};
  ASSERT_TRUE(journal->add_attempt(kJob, 1, "token-1", "input").ok());
  ASSERT_TRUE(journal->transition(key, AttemptState::preparing, AttemptState::prepared, {}, {}).ok());
  ASSERT_TRUE(journal->transition(key, AttemptState::prepared, AttemptState::submitting, {}, {}).ok());
  journal::AttemptChanges receipt;
  receipt.slurm_job_id = 4243;
  ASSERT_TRUE(journal->transition(key, AttemptState::submitting, AttemptState::submitted, receipt, {}).ok());
  ASSERT_TRUE(journal->transition(key, AttemptState::submitted, AttemptState::pending, {}, {{"reason", "None"}}).ok());
  EXPECT_EQ(changes(feed("?after=0")).size(), 4u) << "Slurm has not looked at it: no item";
  ASSERT_TRUE(journal
                  ->update_attempt(key, AttemptState::pending, {}, "attempt.pending",
                                   {{"reason", "Resources"}, {"expected_start", "2026-12-24T18:00:00Z"}})
                  .ok());
  const auto page = feed("?after=0");
  ASSERT_EQ(changes(page).back(), "pending");
  const auto& item = page.at("events").as_array().back().as_object();
  EXPECT_EQ(item.at("reason"), "Resources");
  EXPECT_EQ(item.at("expected_start"), "2026-12-24T18:00:00Z");
  EXPECT_NE(std::string(item.at("explanation").as_string()).find("in use by other jobs"), std::string::npos);
  EXPECT_TRUE(item.at("what_to_change").is_string());
}

TEST(FeedChangeTest, TheMoveToPendingIsAnItemWhenSlurmHasLookedAtTheJobOrPlansIt) {
  journal::TimelineEntry moved;
  moved.kind = "attempt.state";
  moved.from_state = "submitted";
  moved.to_state = "pending";
  moved.reason = "None";
  moved.detail = R"({"reason":"None"})";
  EXPECT_FALSE(operations::feed_change(moved)) << "Slurm has not looked at it yet";
  moved.detail = R"({"reason":"None","expected_start":"2026-12-24T18:00:00Z"})";
  EXPECT_EQ(operations::feed_change(moved), "pending") << "an estimate";
  moved.reason = "Priority";
  moved.detail = R"({"reason":"Priority"})";
  EXPECT_EQ(operations::feed_change(moved), "pending") << "a reason";
  moved.to_state = "running";
  EXPECT_FALSE(operations::feed_change(moved));
}

TEST_F(ApiFeedTest, NextAsAfterResumesWithoutRepeatsOrGapsInSmallPages) {
  submitted();
  auto journal = open_journal();
  ASSERT_NE(journal, nullptr);
  whole_life(*journal);
  const auto all = changes(feed("?after=0&limit=1000"));
  std::vector<std::string> paged;
  std::int64_t after = 0;
  for (int i = 0; i < 50; ++i) {
    const auto page = feed("?after=" + std::to_string(after) + "&limit=2");
    const auto some = changes(page);
    if (some.empty()) break;
    EXPECT_LE(some.size(), 2u);
    paged.insert(paged.end(), some.begin(), some.end());
    after = page.at("next").as_int64();
  }
  EXPECT_EQ(paged, all);
  const auto end = feed("?after=" + std::to_string(after));
  EXPECT_TRUE(end.at("events").as_array().empty());
  EXPECT_EQ(end.at("next"), after) << "nothing new: the same place";
}

TEST_F(ApiFeedTest, ALongPollWakesAtAnotherConnectionsCommit) {
  submitted();
  const std::int64_t after = feed("?after=0").at("next").as_int64();
  auto journal = open_journal();
  ASSERT_NE(journal, nullptr);
  const auto asked = Steady::now();
  auto waiting = std::async(std::launch::async, [&] {
    return call("GET", "/v1/events?after=" + std::to_string(after) + "&wait=60s", kAliceToken);
  });
  // Longer than the server's per-request time in these tests (1 s): a long poll is not a slow client.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(0)), std::future_status::timeout) << "it waits for a change";
  ASSERT_TRUE(journal->add_attempt(kJob, 1, "token-1", "input").ok());  // no feed item yet
  ASSERT_TRUE(journal->transition({kJob, 1}, AttemptState::preparing, AttemptState::prepared, {}, {}).ok());
  ASSERT_TRUE(journal->transition({kJob, 1}, AttemptState::prepared, AttemptState::submitting, {}, {}).ok());
  const auto answer = waiting.get();
  ASSERT_EQ(answer.status, 200) << answer.body << answer.error;
  const auto page = json::parse(answer.body).as_object();
  EXPECT_EQ(changes(page), (std::vector<std::string>{"resources_held:held", "phase:submitting"}));
  EXPECT_LT(Steady::now() - asked, std::chrono::seconds(30)) << "woken by the commit, not by the end of its wait";
}

TEST_F(ApiFeedTest, ALongPollWithoutChangesEndsEmptyAtItsWait) {
  submitted();
  const std::int64_t after = feed("?after=0").at("next").as_int64();
  const auto page = feed("?after=" + std::to_string(after) + "&wait=2");
  EXPECT_TRUE(page.at("events").as_array().empty());
  EXPECT_EQ(page.at("next"), after);
}

TEST_F(ApiFeedTest, ManyWaitingClientsWakeTogetherAndOthersAreStillServed) {
  submitted();
  const std::int64_t after = feed("?after=0").at("next").as_int64();
  constexpr int kWaiting = 12;  // the test server takes 16 connections
  std::vector<std::future<HttpAnswer>> waiting;
  for (int i = 0; i < kWaiting; ++i) {
    waiting.push_back(std::async(std::launch::async, [&] {
      return call("GET", "/v1/events?after=" + std::to_string(after) + "&wait=50", kBobToken);
    }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(call("GET", "/healthz", "").status, 200) << "one thread serves everyone while they wait";
  EXPECT_EQ(call("GET", std::string("/v1/jobs/") + kJob, kAliceToken).status, 200);
  auto journal = open_journal();
  ASSERT_NE(journal, nullptr);
  const auto committed = std::chrono::steady_clock::now();
  ASSERT_TRUE(journal->set_phase(kJob, model::JobPhase::queued, model::JobPhase::cancelled, "operator").ok());
  for (auto& w : waiting) {
    const auto answer = w.get();
    ASSERT_EQ(answer.status, 200) << answer.body << answer.error;
    EXPECT_EQ(changes(json::parse(answer.body).as_object()), std::vector<std::string>{"phase:cancelled"});
  }
  // Woken by the commit: a poll that missed it would answer the same page only at its wait's
  // end (50 s), so the bound tells a wake from a timeout, not fast from slow.
  EXPECT_LT(std::chrono::steady_clock::now() - committed, std::chrono::seconds(25));
}

TEST_F(ApiFeedTest, ABadQueryNamesEachParameter) {
  const auto answer = call("GET", "/v1/events?after=-1&wait=61s&limit=0&since=3", kAliceToken);
  ASSERT_EQ(answer.status, 422) << answer.body;
  const auto problems = json::parse(answer.body).at("problems").as_array();
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems[0].at("field"), "after");
  EXPECT_EQ(problems[1].at("field"), "wait");
  EXPECT_EQ(problems[2].at("field"), "limit");
  EXPECT_EQ(problems[3].at("field"), "since");
}

}  // namespace
}  // namespace tpslurm::api::testing
