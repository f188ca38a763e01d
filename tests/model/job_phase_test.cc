#include "model/job_phase.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace tpslurm::model {
namespace {

using P = JobPhase;

const std::set<std::pair<P, P>> kLegalMoves = {
    {P::queued, P::submitting},          {P::queued, P::failed},
    {P::queued, P::cancelled},           {P::submitting, P::queued},
    {P::submitting, P::submit_unconfirmed}, {P::submitting, P::pending},
    {P::submitting, P::running},         {P::submitting, P::failed},
    {P::submitting, P::cancelled},       {P::submit_unconfirmed, P::pending},
    {P::submit_unconfirmed, P::running}, {P::submit_unconfirmed, P::succeeded},
    {P::submit_unconfirmed, P::failed},  {P::submit_unconfirmed, P::cancelled},
    {P::submit_unconfirmed, P::lost},    {P::submit_unconfirmed, P::queued}, {P::pending, P::running},
    {P::pending, P::succeeded},          {P::pending, P::failed},
    {P::pending, P::cancelled},          {P::pending, P::lost},
    {P::pending, P::queued},             {P::running, P::succeeded},
    {P::running, P::failed},             {P::running, P::cancelled},
    {P::running, P::lost},               {P::running, P::queued},
};

TEST(JobPhaseTest, EveryPairIsLegalExactlyWhenTheTableSaysSo) {
  for (const P from : kAllJobPhases) {
    for (const P to : kAllJobPhases) {
      const bool expected = kLegalMoves.count({from, to}) == 1;
      EXPECT_EQ(is_legal(from, to), expected) << to_string(from) << " -> " << to_string(to);
      EXPECT_EQ(check_transition(from, to).ok(), expected);
    }
  }
}

TEST(JobPhaseTest, FinalPhases) {
  for (const P phase : kAllJobPhases) {
    const bool expected = phase == P::succeeded || phase == P::failed || phase == P::cancelled || phase == P::lost;
    EXPECT_EQ(is_final(phase), expected) << to_string(phase);
  }
}

TEST(JobPhaseTest, EachAttemptStateShowsOnePhase) {
  EXPECT_EQ(phase_of(AttemptState::preparing), P::queued);
  EXPECT_EQ(phase_of(AttemptState::prepared), P::queued);
  EXPECT_EQ(phase_of(AttemptState::submitting), P::submitting);
  EXPECT_EQ(phase_of(AttemptState::submit_unknown), P::submit_unconfirmed);
  EXPECT_EQ(phase_of(AttemptState::submitted), P::pending);
  EXPECT_EQ(phase_of(AttemptState::pending), P::pending);
  EXPECT_EQ(phase_of(AttemptState::running), P::running);
  EXPECT_EQ(phase_of(AttemptState::succeeded), P::succeeded);
  EXPECT_EQ(phase_of(AttemptState::failed), P::failed);
  EXPECT_EQ(phase_of(AttemptState::rejected), P::failed);
  EXPECT_EQ(phase_of(AttemptState::cancelled), P::cancelled);
  EXPECT_EQ(phase_of(AttemptState::lost), P::lost);
  EXPECT_EQ(phase_of(AttemptState::abandoned), P::lost);
}

TEST(JobPhaseTest, AttemptMovesNeverAskForAnIllegalPhaseMove) {
  // Every legal attempt move maps to "same phase" or a legal phase move.
  for (const AttemptState from : kAllAttemptStates) {
    for (const AttemptState to : kAllAttemptStates) {
      if (!is_legal(from, to)) continue;
      const P a = phase_of(from);
      const P b = phase_of(to);
      EXPECT_TRUE(a == b || is_legal(a, b)) << to_string(from) << " -> " << to_string(to);
    }
  }
}

TEST(JobPhaseTest, NamesRoundTrip) {
  for (const P phase : kAllJobPhases) EXPECT_EQ(parse_job_phase(to_string(phase)), phase);
  EXPECT_EQ(parse_desire("cancel"), Desire::cancel);
  EXPECT_EQ(parse_desire("stop"), std::nullopt);
  EXPECT_EQ(check_transition(P::succeeded, P::running).error().message(),
            "job phase succeeded -> running is not a legal transition");
}

}  // namespace
}  // namespace tpslurm::model
