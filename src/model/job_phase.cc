#include "model/job_phase.h"

#include "model/enum_names.h"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace tpslurm::model {
namespace {

using P = JobPhase;

struct Edges {
  P from;
  std::initializer_list<P> to;
};

// The table in job_phase.h, and nothing else.
const Edges kPhaseEdges[] = {
    {P::queued, {P::submitting, P::failed, P::cancelled}},
    {P::submitting, {P::queued, P::submit_unconfirmed, P::pending, P::running, P::failed, P::cancelled}},
    {P::submit_unconfirmed, {P::queued, P::pending, P::running, P::succeeded, P::failed, P::cancelled, P::lost}},
    {P::pending, {P::running, P::succeeded, P::failed, P::cancelled, P::lost, P::queued}},
    {P::running, {P::succeeded, P::failed, P::cancelled, P::lost, P::queued}},
};

constexpr std::pair<P, std::string_view> kPhaseNames[] = {
    {P::queued, "queued"},     {P::submitting, "submitting"}, {P::submit_unconfirmed, "submit_unconfirmed"},
    {P::pending, "pending"},   {P::running, "running"},       {P::succeeded, "succeeded"},
    {P::failed, "failed"},     {P::cancelled, "cancelled"},   {P::lost, "lost"},
};

}  // namespace

std::string_view to_string(JobPhase phase) { return detail::name_of(kPhaseNames, phase); }
std::optional<JobPhase> parse_job_phase(std::string_view text) { return detail::value_of<JobPhase>(kPhaseNames, text); }

bool is_final(JobPhase phase) {
  return std::none_of(std::begin(kPhaseEdges), std::end(kPhaseEdges),
                      [phase](const Edges& edges) { return edges.from == phase; });
}

bool is_legal(JobPhase from, JobPhase to) {
  for (const auto& edges : kPhaseEdges) {
    if (edges.from == from) return std::find(edges.to.begin(), edges.to.end(), to) != edges.to.end();
  }
  return false;
}

Status check_transition(JobPhase from, JobPhase to) {
  if (is_legal(from, to)) return ok_status();
  return invalid_argument("job phase " + std::string(to_string(from)) + " -> " + std::string(to_string(to)) +
                          " is not a legal transition");
}

JobPhase phase_of(AttemptState state) {
  switch (state) {
    case AttemptState::preparing:
    case AttemptState::prepared: return P::queued;
    case AttemptState::submitting: return P::submitting;
    case AttemptState::submit_unknown: return P::submit_unconfirmed;
    case AttemptState::submitted:
    case AttemptState::pending: return P::pending;
    case AttemptState::running: return P::running;
    case AttemptState::succeeded: return P::succeeded;
    case AttemptState::failed:
    case AttemptState::rejected: return P::failed;
    case AttemptState::cancelled: return P::cancelled;
    case AttemptState::lost:
    case AttemptState::abandoned: return P::lost;
  }
  return P::lost;
}

std::string_view to_string(Desire desire) { return desire == Desire::run ? "run" : "cancel"; }

std::optional<Desire> parse_desire(std::string_view text) {
  if (text == "run") return Desire::run;
  if (text == "cancel") return Desire::cancel;
  return std::nullopt;
}

}  // namespace tpslurm::model
