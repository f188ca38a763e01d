#include "model/attempt_state.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace tpslurm::model {
namespace {

using A = AttemptState;
using C = CleanupStep;

// The legal moves, written out independently of the implementation's table.
const std::set<std::pair<A, A>> kLegal = {
    {A::preparing, A::prepared},       {A::preparing, A::failed},          {A::preparing, A::cancelled},
    {A::prepared, A::submitting},      {A::prepared, A::preparing},        {A::prepared, A::failed},
    {A::prepared, A::cancelled},       {A::submitting, A::submitted},      {A::submitting, A::rejected},
    {A::submitting, A::prepared},      {A::submitting, A::submit_unknown}, {A::submit_unknown, A::submitted},
    {A::submit_unknown, A::abandoned}, {A::submitted, A::pending},         {A::submitted, A::running},
    {A::submitted, A::succeeded},      {A::submitted, A::failed},          {A::submitted, A::cancelled},
    {A::submitted, A::lost},           {A::pending, A::running},           {A::pending, A::succeeded},
    {A::pending, A::failed},           {A::pending, A::cancelled},         {A::pending, A::lost},
    {A::running, A::succeeded},        {A::running, A::failed},            {A::running, A::cancelled},
    {A::running, A::lost},
};

TEST(AttemptStateTest, EveryPairIsLegalExactlyWhenTheTableSaysSo) {
  int legal = 0;
  for (const A from : kAllAttemptStates) {
    for (const A to : kAllAttemptStates) {
      const bool expected = kLegal.count({from, to}) == 1;
      EXPECT_EQ(is_legal(from, to), expected) << to_string(from) << " -> " << to_string(to);
      EXPECT_EQ(check_transition(from, to).ok(), expected);
      legal += expected ? 1 : 0;
    }
  }
  EXPECT_EQ(legal, static_cast<int>(kLegal.size()));
}

TEST(AttemptStateTest, ALostResponseNeverLeadsBackToSending) {
  EXPECT_FALSE(is_legal(A::submit_unknown, A::prepared));
  EXPECT_FALSE(is_legal(A::submit_unknown, A::submitting));
  EXPECT_FALSE(is_legal(A::submit_unknown, A::preparing));
}

TEST(AttemptStateTest, FinalStatesHaveNoWayOut) {
  const std::set<A> final_states = {A::succeeded, A::failed, A::cancelled, A::lost, A::rejected, A::abandoned};
  for (const A state : kAllAttemptStates) EXPECT_EQ(is_final(state), final_states.count(state) == 1) << to_string(state);
}

// A state has a Slurm job when it is `submitted` or every way into it passes through one.
TEST(AttemptStateTest, TheStatesWithASlurmJobAreThoseReachedOnlyThroughSubmitted) {
  for (const A state : kAllAttemptStates) {
    bool reached = false;
    bool only_through_a_job = true;
    for (const auto& [from, to] : kLegal) {
      if (to != state) continue;
      reached = true;
      only_through_a_job = only_through_a_job && has_slurm_job(from);
    }
    EXPECT_EQ(has_slurm_job(state), state == A::submitted || (reached && only_through_a_job)) << to_string(state);
  }
  EXPECT_TRUE(needs_slurm_job_id(A::submitting, A::submitted));
  EXPECT_TRUE(needs_slurm_job_id(A::running, A::failed));
  EXPECT_FALSE(needs_slurm_job_id(A::preparing, A::failed));
  EXPECT_FALSE(needs_slurm_job_id(A::submitting, A::submit_unknown));
}

TEST(AttemptStateTest, IllegalMovesAreRefusedWithBothNames) {
  const Status status = check_transition(A::submitting, A::running);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(), "attempt state submitting -> running is not a legal transition");
}

TEST(AttemptStateTest, NamesRoundTrip) {
  for (const A state : kAllAttemptStates) EXPECT_EQ(parse_attempt_state(to_string(state)), state);
  EXPECT_EQ(parse_attempt_state("done"), std::nullopt);
}

TEST(CleanupStepTest, RunsInOrderAndOnlyForward) {
  const std::set<std::pair<C, C>> legal = {{C::none, C::epilog_pending},
                                           {C::none, C::staging_pending},
                                           {C::epilog_pending, C::staging_pending},
                                           {C::staging_pending, C::sealing},
                                           {C::sealing, C::closed}};
  for (const C from : kAllCleanupSteps) {
    for (const C to : kAllCleanupSteps) {
      EXPECT_EQ(is_legal(from, to), legal.count({from, to}) == 1) << to_string(from) << " -> " << to_string(to);
    }
  }
  EXPECT_EQ(check_transition(C::closed, C::none).error().message(),
            "cleanup step closed -> none is not a legal transition");
  for (const C step : kAllCleanupSteps) EXPECT_EQ(parse_cleanup_step(to_string(step)), step);
}

}  // namespace
}  // namespace tpslurm::model
