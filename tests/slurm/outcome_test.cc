// The error-number table itself: every entry is classified and sourced, and the rules that
// read it decide from numbers, never from the HTTP status alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "slurm/outcome.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

HttpExchange answered(int status) {
  HttpExchange exchange;
  exchange.delivery = Delivery::answered;
  exchange.response.status = status;
  exchange.response.body = "{}";
  return exchange;
}

DecodedFacts errors(std::vector<int> numbers) {
  DecodedFacts facts;
  facts.parsed = true;
  for (int number : numbers) facts.errors.push_back({number, "e" + std::to_string(number), "", ""});
  return facts;
}

TEST(OutcomeTableTest, EveryEntryHasANameASourceAndIsListedOnce) {
  std::set<int> seen;
  for (const KnownError& known : known_errors()) {
    EXPECT_TRUE(seen.insert(known.number).second) << known.number << " is listed twice";
    EXPECT_FALSE(known.name.empty()) << known.number;
    EXPECT_FALSE(known.source.empty()) << known.number;
  }
}

TEST(OutcomeTableTest, NumbersSeenInRealTranscriptsHaveTheirClass) {
  EXPECT_EQ(find_known_error(2029)->outcome, Outcome::rejected);    // submit_badconstraint
  EXPECT_EQ(find_known_error(2127)->outcome, Outcome::rejected);    // submit_noenv
  EXPECT_EQ(find_known_error(9001)->outcome, Outcome::rejected);    // submit_unknownkey
  EXPECT_EQ(find_known_error(1007)->outcome, Outcome::auth);        // 26.05 expired token
  EXPECT_EQ(find_known_error(2017)->outcome, Outcome::not_found);   // unknown job
  EXPECT_EQ(find_known_error(2050)->outcome, Outcome::rejected_transient);
  EXPECT_EQ(find_known_error(4242), nullptr);
}

TEST(OutcomeRulesTest, EveryRejectedNumberAloneRejectsASubmit) {
  for (const KnownError& known : known_errors()) {
    const Classification result = classify_submit(answered(500), errors({known.number}));
    switch (known.outcome) {
      case Outcome::rejected:
        EXPECT_EQ(result.outcome, Outcome::rejected) << known.name;
        break;
      case Outcome::rejected_transient:
        EXPECT_EQ(result.outcome, Outcome::rejected_transient) << known.name;
        break;
      case Outcome::auth:
        // An auth error in a handler's answer may come after slurmctld created the job.
        EXPECT_EQ(result.outcome, Outcome::uncertain) << known.name;
        break;
      case Outcome::not_found:
        // "No such job" says nothing about whether a submit created one.
        EXPECT_EQ(result.outcome, Outcome::uncertain) << known.name;
        break;
      default:
        ADD_FAILURE() << known.name << ": a known error means rejected, rejected_transient, auth or not_found";
    }
  }
}

// Each row of the fixture: a number and its names at 22.05.8, 23.11.11, 24.11.7 and 26.05.3
// ("-" = none), in that order.
std::map<int, std::vector<std::string>> errno_names() {
  std::map<int, std::vector<std::string>> rows;
  std::istringstream in(testing::fixture("slurm_errno_numbers.tsv"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream fields(line);
    int number = 0;
    fields >> number;
    std::string name;
    while (fields >> name) rows[number].push_back(name);
  }
  return rows;
}

TEST(OutcomeTableTest, EveryNumberAndNameIsSlurmsAtTheSupportedReleases) {
  const auto rows = errno_names();
  for (const KnownError& known : known_errors()) {
    const auto row = rows.find(known.number);
    ASSERT_NE(row, rows.end()) << known.number << " " << known.name << " is not in the verified excerpt";
    ASSERT_EQ(row->second.size(), 4u) << known.number;
    EXPECT_NE(std::find(row->second.begin(), row->second.end(), known.name), row->second.end())
        << known.number << " is not named " << known.name << " at any release";
    // A number that means something else (or nothing) in one release says so in its source.
    for (const std::string& other : row->second) {
      if (other == known.name) continue;
      EXPECT_TRUE(other == "-" ? known.source.find("new in") != std::string_view::npos ||
                                     known.source.find("unused") != std::string_view::npos
                               : known.source.find(other) != std::string_view::npos)
          << known.number << ": the source does not mention " << other;
    }
  }
  EXPECT_EQ(rows.at(2026).back(), "ESLURM_INVALID_JOB_CREDENTIAL");
  EXPECT_EQ(rows.at(2027).back(), "ESLURM_IN_STANDBY_MODE");
  EXPECT_EQ(std::string(find_known_error(2027)->name), "ESLURM_IN_STANDBY_MODE");
  EXPECT_EQ(find_known_error(2026), nullptr);
}

// Before 24.11 slurmrestd answers an auth error and a lost slurmctld with 500, not 511 or 502
// (operations.c@slurm-24-05-8-1): the numbers still decide.
TEST(OutcomeRulesTest, Before2411AnAuthErrorIs500AndStillClassifiedByItsNumber) {
  EXPECT_EQ(classify_submit(answered(500), errors({1007})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_read(answered(500), errors({1007})).outcome, Outcome::auth);
  EXPECT_EQ(classify_read(answered(500), errors({1001})).outcome, Outcome::uncertain) << "a lost slurmctld";
  EXPECT_EQ(classify_submit(answered(500), errors({1001})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_read(answered(404), errors({2017})).outcome, Outcome::not_found);
  EXPECT_EQ(classify_submit(answered(500), errors({2000})).outcome, Outcome::rejected);
}

TEST(OutcomeRulesTest, EagainMayFollowAJobRecordAndLeavesASubmitUncertain) {
  EXPECT_EQ(find_known_error(11), nullptr);
  EXPECT_EQ(classify_submit(answered(500), errors({11})).outcome, Outcome::uncertain);
}

TEST(OutcomeRulesTest, StandbyControllerRefusalIsTransient) {
  EXPECT_EQ(classify_submit(answered(500), errors({2027})).outcome, Outcome::rejected_transient);
}

TEST(OutcomeRulesTest, AuthFailureOnASubmitIsUncertainUnlessSlurmrestdRefusedTheHeaders) {
  EXPECT_EQ(classify_submit(answered(511), errors({1007})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_submit(answered(500), errors({1007})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_submit(answered(401), errors({6000})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_submit(answered(401), errors({6001})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_submit(answered(401), errors({9008})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_submit(answered(511), {}).outcome, Outcome::uncertain);
  // The router's own refusal: a plain-text 401, before any RPC.
  HttpExchange refused = answered(401);
  refused.response.body = "Authentication failure";
  EXPECT_EQ(classify_submit(refused, {}).outcome, Outcome::auth);
}

TEST(OutcomeRulesTest, ReadsKeepTheirAuthClassification) {
  EXPECT_EQ(classify_read(answered(511), errors({1007})).outcome, Outcome::auth);
  EXPECT_EQ(classify_read(answered(401), errors({6000})).outcome, Outcome::auth);
  EXPECT_EQ(classify_read(answered(401), errors({9008})).outcome, Outcome::auth);
  EXPECT_EQ(classify_read(answered(401), {}).outcome, Outcome::auth);
}

TEST(OutcomeRulesTest, AJobIdThatIsNoSlurmJobIdIsUncertainNotAReceipt) {
  DecodedFacts facts = errors({2029});
  facts.job_id_problem = "1.5 is not a whole number";
  const Classification result = classify_submit(answered(500), facts);
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.reason,
            "HTTP 500: e2029 (error 2029) and a job_id that is not a Slurm job id (1.5 is not a whole number)");
  facts = errors({});
  facts.job_id_problem = "0 is outside Slurm's job id range 1..67108863";
  EXPECT_EQ(classify_submit(answered(200), facts).outcome, Outcome::uncertain);
}

TEST(OutcomeRulesTest, PermanentAndTemporaryRefusalTogetherIsRejected) {
  EXPECT_EQ(classify_submit(answered(500), errors({2050, 2029})).outcome, Outcome::rejected);
}

TEST(OutcomeRulesTest, KnownNumbersInASuccessStatusWithoutJobIdStayUncertain) {
  EXPECT_EQ(classify_submit(answered(200), errors({2029})).outcome, Outcome::uncertain);
}

TEST(OutcomeRulesTest, AServerErrorWithoutErrorsIsUncertain) {
  EXPECT_EQ(classify_submit(answered(500), errors({})).outcome, Outcome::uncertain);
}

TEST(OutcomeRulesTest, NotSentOnlyWhenTheTransportProvedIt) {
  HttpExchange exchange;
  exchange.delivery = Delivery::not_sent;
  exchange.fault = TransportFault::connect_refused;
  EXPECT_EQ(classify_submit(exchange, {}).outcome, Outcome::not_sent);
  exchange.delivery = Delivery::uncertain;
  exchange.fault = TransportFault::send_timeout;
  EXPECT_EQ(classify_submit(exchange, {}).outcome, Outcome::uncertain);
}

TEST(OutcomeRulesTest, ReadsMapUnknownJobsToNotFoundAndBadQueriesToRejected) {
  EXPECT_EQ(classify_read(answered(404), errors({2017})).outcome, Outcome::not_found);
  EXPECT_EQ(classify_read(answered(500), errors({2017})).outcome, Outcome::not_found);
  EXPECT_EQ(classify_read(answered(422), errors({9000})).outcome, Outcome::rejected);
  EXPECT_EQ(classify_read(answered(511), errors({1007})).outcome, Outcome::auth);
  EXPECT_EQ(classify_read(answered(500), errors({1001})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_read(answered(200), errors({})).outcome, Outcome::ok);
}

TEST(OutcomeRulesTest, MessageTextCombinesSlurmsWords) {
  EXPECT_EQ((SlurmMessage{2017, "Invalid job id specified", "Unable to query JobId=999999", "_handle_job_get"}).text(),
            "Invalid job id specified (Unable to query JobId=999999) (error 2017)");
  EXPECT_EQ((SlurmMessage{0, "", "No job changes since update_time[1796040419]", "op_handler_jobs"}).text(),
            "No job changes since update_time[1796040419]");
}

// A job update answers its refusals in errors[] (200 on v0.0.4x, 500 on v0.0.38): the
// numbers decide.
TEST(OutcomeRulesTest, AnUpdateIsJudgedByItsErrorsNotItsStatus) {
  EXPECT_EQ(classify_update(answered(200), errors({})).outcome, Outcome::ok);
  EXPECT_EQ(classify_update(answered(200), errors({2084})).outcome, Outcome::ok);
  EXPECT_EQ(classify_update(answered(500), errors({2084})).outcome, Outcome::ok);
  EXPECT_EQ(classify_update(answered(200), errors({2017})).outcome, Outcome::not_found);
  EXPECT_EQ(classify_update(answered(500), errors({2017})).outcome, Outcome::not_found);
  EXPECT_EQ(classify_update(answered(200), errors({2010})).outcome, Outcome::rejected);
  EXPECT_EQ(classify_update(answered(500), errors({2002})).outcome, Outcome::rejected);
  EXPECT_EQ(classify_update(answered(200), errors({0, 9001})).outcome, Outcome::rejected);
  EXPECT_EQ(classify_update(answered(200), errors({2020})).outcome, Outcome::rejected_transient);
  EXPECT_EQ(classify_update(answered(200), errors({2084, 2010})).outcome, Outcome::rejected);
  // slurmrestd could not reach slurmctld: the update may or may not have been made.
  EXPECT_EQ(classify_update(answered(200), errors({1001})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_update(answered(500), errors({-1, 2010})).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_update(answered(511), errors({1007})).outcome, Outcome::auth);
  EXPECT_EQ(classify_update(answered(502), DecodedFacts{}).outcome, Outcome::uncertain);
  EXPECT_EQ(classify_update(answered(200), errors({2010})).reason, "not updated: e2010 (error 2010)");
  HttpExchange lost;
  lost.delivery = Delivery::uncertain;
  lost.fault = TransportFault::send_timeout;
  EXPECT_EQ(classify_update(lost, DecodedFacts{}).outcome, Outcome::uncertain);
}

}  // namespace
}  // namespace tpslurm::slurm
