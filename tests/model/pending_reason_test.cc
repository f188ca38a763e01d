// Pending reasons in words, the reasons that never clear, and when a new expected start is news.
#include "model/pending_reason.h"

#include <gtest/gtest.h>

namespace tpslurm::model {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(PendingReasonTest, CommonReasonsReadAsWordsAndSayWhatTheUserCanChange) {
  EXPECT_NE(explain_pending("Priority").explanation.find("higher priority"), std::string::npos);
  EXPECT_TRUE(explain_pending("Priority").what_to_change.empty()) << "waiting is the only way";
  const PendingExplanation resources = explain_pending("Resources");
  EXPECT_NE(resources.explanation.find("in use by other jobs"), std::string::npos);
  EXPECT_NE(resources.what_to_change.find("fewer nodes"), std::string::npos);
  EXPECT_NE(explain_pending("ReqNodeNotAvail").explanation.find("not available"), std::string::npos);
  EXPECT_NE(explain_pending("PartitionTimeLimit").what_to_change.find("spec.time_limit_minutes"), std::string::npos);
}

TEST(PendingReasonTest, AccountAndQosLimitsAreReadFromTheCodesParts) {
  const PendingExplanation gres = explain_pending("AssocGrpGRES");
  EXPECT_EQ(gres.explanation,
            "its account's limit on GPUs (GRES) is reached, shared by all its jobs; it starts when some of "
            "them end");
  EXPECT_EQ(gres.what_to_change, "ask the site to raise the limit");
  EXPECT_EQ(explain_pending("QOSMaxGRESPerJob").explanation,
            "it asks for more GPUs (GRES) than its QoS allows for one job");
  EXPECT_EQ(explain_pending("QOSGrpGRESRunMinutes").explanation,
            "its QoS's limit on GPU-minutes of running jobs is reached, shared by all its jobs; it starts when some "
            "of them end");
  EXPECT_EQ(explain_pending("AssocGrpCPUMinutesLimit").explanation,
            "its account's limit on CPU-minutes is reached, shared by all its jobs; it starts when some of them end");
  EXPECT_EQ(explain_pending("QOSMaxJobsPerUserLimit").explanation,
            "its QoS's limit on running jobs for the user is reached; it starts when other jobs of the user end");
  EXPECT_EQ(explain_pending("MaxGRESPerAccount").explanation,
            "its QoS's limit on GPUs (GRES) for the account is reached; it starts when other jobs of the account end");
  EXPECT_EQ(explain_pending("QOSMinGRES").explanation, "it asks for fewer GPUs (GRES) than its QoS requires");
  EXPECT_EQ(explain_pending("AssociationTimeLimit").explanation,
            "it asks for more run time than its account allows for one job");
}

TEST(PendingReasonTest, AnUnknownReasonIsShownAsSlurmsOwnWordWithNoAdvice) {
  EXPECT_EQ(explain_pending("FedJobLock").explanation, "Slurm's reason: FedJobLock");
  EXPECT_TRUE(explain_pending("FedJobLock").what_to_change.empty());
  EXPECT_FALSE(explain_pending("FedJobLock").never_clears);
  EXPECT_FALSE(explain_pending("").explanation.empty());
}

TEST(PendingReasonTest, ReasonsThatNeverClear) {
  for (const char* r : {"BadConstraints", "InvalidAccount", "InvalidQOS", "PartitionConfig", "AccountNotAllowed",
                        "QOSNotAllowed", "launch failed requeued held"}) {
    EXPECT_TRUE(pending_forever(r)) << r;
  }
  for (const char* r : {"Resources", "Priority", "JobHeldUser", "BeginTime", "None", "AssocGrpGRES", "QOSMaxGRESPerJob",
                        "ReqNodeNotAvail", "Unheard"}) {
    EXPECT_FALSE(pending_forever(r)) << r;
  }
}

TEST(PendingReasonTest, AnEstimateIsNewsWhenItAppearsGoesOrMovesAtTheScaleOfTheWaitLeft) {
  const TimePoint now = from_unix_seconds(1'800'000'000);
  const std::optional<TimePoint> none;
  EXPECT_FALSE(estimate_moved(none, none, now));
  EXPECT_TRUE(estimate_moved(none, now + hours(1), now));
  EXPECT_TRUE(estimate_moved(now + hours(1), none, now));
  // Seconds of drift are not news, at any scale.
  EXPECT_FALSE(estimate_moved(now + minutes(5), now + minutes(5) + seconds(40), now));
  EXPECT_FALSE(estimate_moved(now + hours(48), now + hours(48) + seconds(40), now));
  // Half an hour away: 10 minutes is news, 9 is not.
  EXPECT_TRUE(estimate_moved(now + minutes(30), now + minutes(40), now));
  EXPECT_FALSE(estimate_moved(now + minutes(30), now + minutes(39), now));
  // Two days away: a quarter of the wait, 12 hours, either way.
  EXPECT_FALSE(estimate_moved(now + hours(48), now + hours(59), now));
  EXPECT_TRUE(estimate_moved(now + hours(48), now + hours(60), now));
  EXPECT_TRUE(estimate_moved(now + hours(48), now + hours(36), now));
  // An estimate already past: the 10 minutes floor.
  EXPECT_TRUE(estimate_moved(now - minutes(5), now + minutes(5), now));
}

}  // namespace
}  // namespace tpslurm::model
