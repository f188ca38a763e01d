#include "model/attempt_state.h"

#include "model/enum_names.h"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace tpslurm::model {
namespace {

using A = AttemptState;

struct Edges {
  A from;
  std::initializer_list<A> to;
};

// The table in attempt_state.h, and nothing else.
const Edges kAttemptEdges[] = {
    {A::preparing, {A::prepared, A::failed, A::cancelled}},
    {A::prepared, {A::submitting, A::preparing, A::failed, A::cancelled}},
    {A::submitting, {A::submitted, A::rejected, A::prepared, A::submit_unknown}},
    {A::submit_unknown, {A::submitted, A::abandoned}},
    {A::submitted, {A::pending, A::running, A::succeeded, A::failed, A::cancelled, A::lost}},
    {A::pending, {A::running, A::succeeded, A::failed, A::cancelled, A::lost}},
    {A::running, {A::succeeded, A::failed, A::cancelled, A::lost}},
};

constexpr std::pair<A, std::string_view> kAttemptNames[] = {
    {A::preparing, "preparing"}, {A::prepared, "prepared"},   {A::submitting, "submitting"},
    {A::submit_unknown, "submit_unknown"}, {A::submitted, "submitted"}, {A::pending, "pending"},
    {A::running, "running"},     {A::succeeded, "succeeded"}, {A::failed, "failed"},
    {A::cancelled, "cancelled"}, {A::lost, "lost"},           {A::rejected, "rejected"},
    {A::abandoned, "abandoned"},
};

using C = CleanupStep;

constexpr std::pair<C, std::string_view> kCleanupNames[] = {
    {C::none, "none"},
    {C::epilog_pending, "epilog_pending"},
    {C::staging_pending, "staging_pending"},
    {C::sealing, "sealing"},
    {C::closed, "closed"},
};

}  // namespace

std::string_view to_string(AttemptState state) { return detail::name_of(kAttemptNames, state); }
std::optional<AttemptState> parse_attempt_state(std::string_view text) { return detail::value_of<AttemptState>(kAttemptNames, text); }

bool is_final(AttemptState state) {
  return std::none_of(std::begin(kAttemptEdges), std::end(kAttemptEdges),
                      [state](const Edges& edges) { return edges.from == state; });
}

bool is_legal(AttemptState from, AttemptState to) {
  for (const auto& edges : kAttemptEdges) {
    if (edges.from == from) return std::find(edges.to.begin(), edges.to.end(), to) != edges.to.end();
  }
  return false;
}

Status check_transition(AttemptState from, AttemptState to) {
  if (is_legal(from, to)) return ok_status();
  return invalid_argument("attempt state " + std::string(to_string(from)) + " -> " + std::string(to_string(to)) +
                          " is not a legal transition");
}

bool has_slurm_job(AttemptState state) {
  switch (state) {
    case A::submitted:
    case A::pending:
    case A::running:
    case A::succeeded:
    case A::lost: return true;
    default: return false;
  }
}

bool needs_slurm_job_id(AttemptState from, AttemptState to) { return has_slurm_job(from) || has_slurm_job(to); }

std::string_view to_string(CleanupStep step) { return detail::name_of(kCleanupNames, step); }
std::optional<CleanupStep> parse_cleanup_step(std::string_view text) { return detail::value_of<CleanupStep>(kCleanupNames, text); }

bool is_legal(CleanupStep from, CleanupStep to) {
  switch (from) {
    case C::none: return to == C::epilog_pending || to == C::staging_pending;
    case C::epilog_pending: return to == C::staging_pending;
    case C::staging_pending: return to == C::sealing;
    case C::sealing: return to == C::closed;
    case C::closed: return false;
  }
  return false;
}

Status check_transition(CleanupStep from, CleanupStep to) {
  if (is_legal(from, to)) return ok_status();
  return invalid_argument("cleanup step " + std::string(to_string(from)) + " -> " + std::string(to_string(to)) +
                          " is not a legal transition");
}

}  // namespace tpslurm::model
