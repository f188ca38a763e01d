// The error-number table itself: every entry is classified and sourced, and the rules that
// read it decide from numbers, never from the HTTP status alone.
#include <gtest/gtest.h>

#include <set>

#include "slurm/outcome.h"

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
  EXPECT_EQ(find_known_error(2029)->error_class, ErrorClass::rejected);    // submit_badconstraint
  EXPECT_EQ(find_known_error(2127)->error_class, ErrorClass::rejected);    // submit_noenv
  EXPECT_EQ(find_known_error(9001)->error_class, ErrorClass::rejected);    // submit_unknownkey
  EXPECT_EQ(find_known_error(1007)->error_class, ErrorClass::auth);        // 26.05 expired token
  EXPECT_EQ(find_known_error(2017)->error_class, ErrorClass::not_found);   // unknown job
  EXPECT_EQ(find_known_error(2050)->error_class, ErrorClass::rejected_transient);
  EXPECT_EQ(find_known_error(4242), nullptr);
}

TEST(OutcomeRulesTest, EveryRejectedNumberAloneRejectsASubmit) {
  for (const KnownError& known : known_errors()) {
    const Classification result = classify_submit(answered(500), errors({known.number}));
    switch (known.error_class) {
      case ErrorClass::rejected:
        EXPECT_EQ(result.outcome, Outcome::rejected) << known.name;
        break;
      case ErrorClass::rejected_transient:
        EXPECT_EQ(result.outcome, Outcome::rejected_transient) << known.name;
        break;
      case ErrorClass::auth:
        EXPECT_EQ(result.outcome, Outcome::auth) << known.name;
        break;
      case ErrorClass::not_found:
        // "No such job" says nothing about whether a submit created one.
        EXPECT_EQ(result.outcome, Outcome::uncertain) << known.name;
        break;
    }
  }
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
  exchange.delivery = Delivery::maybe_sent;
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

}  // namespace
}  // namespace tpslurm::slurm
