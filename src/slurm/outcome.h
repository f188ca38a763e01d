// Outcome: what one slurmrestd call amounted to — the classification the reconciler's safety
// rests on (docs/architecture.md §4 step 3). One table of Slurm error numbers, each with
// the source it was read from, and two rules that use it:
//
// classify_submit (POST job/submit):
//   ok                 a job_id parsed from the body, whatever the HTTP status (errors kept);
//                      a job_id that is not a whole number in 1..MAX_JOB_ID is `uncertain`;
//   auth               only slurmrestd's own plain-text 401 (missing or malformed auth headers,
//                      refused before any RPC); a 511, a JSON 401 or an auth error number
//                      (1007, 6000, 6001, 9008) on a submit is `uncertain`, because Slurm's
//                      client library reports 1007 also for a reply whose credential fails to
//                      verify, after slurmctld created the job;
//   rejected           no job_id and every error number is in the table as raised during
//                      validation, before anything is created (at least one must be permanent);
//   rejected_transient the same, but every number is a temporary refusal (submit limits,
//                      EAGAIN, accounting unavailable): nothing was created, retry later;
//   not_sent           the transport proved that no byte of the request left;
//   uncertain          everything else: timeouts, resets, empty replies, 5xx/502/504/511 without
//                      a job_id, unparsable or truncated bodies, unknown error numbers (EAGAIN
//                      among them: see the table's sources).
//
// classify_read (GET, DELETE, ping): ok; auth (as above, plus 22.05's 500 "slurmctld config is
// unable to load" that any bad token produces on ping); not_found (error 2017: the job is not
// known to slurmctld); rejected (a 4xx the server explained: bad query, URL not served);
// not_sent; uncertain (the call failed after leaving: nothing can be concluded, try again).
//
// classify_update (POST job/{id}, a job update such as a hold release): slurmrestd reports a
// refused update in `errors[]`, with HTTP 200 on v0.0.4x (measured on 26.05.3) and 500 on
// v0.0.38 (its handler returns slurm_update_job2()'s code), so the errors decide, not the
// status: transport failures and auth as classify_read; error 2017 not_found; errors that are
// all 2084 ("Job has already finished") ok; errors that are all Slurm refusals (slurmctld's
// 2000-2999, slurmrestd's parser 9000-9099, numberless parser notes) rejected, or
// rejected_transient when every numbered one is a temporary refusal (2020 "try again later",
// the table's transient ones); HTTP 200 whose errors are all 22.05's numberless note "job array
// update from <client> failed" (a job array's update that took effect) ok, the words kept; any other error number (a communication failure between
// slurmrestd and slurmctld, -1) uncertain; no error: as classify_read.
//
// Pure functions over values; thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "slurm/transport.h"

namespace tpslurm::slurm {

enum class Outcome { ok, rejected, rejected_transient, auth, not_found, not_sent, uncertain };
std::string_view to_string(Outcome outcome);

// One entry of a response's `errors[]` or `warnings[]` (v0.0.38's `error_code` is read as
// `number`). `number` is 0 for warnings and entries without one.
struct SlurmMessage {
  int number = 0;
  std::string error;        // Slurm's short text: "Invalid feature specification"
  std::string description;  // the handler's longer text, often empty
  std::string source;       // the function that raised it

  // "Invalid feature specification (error 2029)": the words users read.
  std::string text() const;
  bool operator==(const SlurmMessage&) const = default;
};

// "a; b" of every message's text().
std::string join_texts(const std::vector<SlurmMessage>& messages);

struct KnownError {
  int number;
  std::string_view name;    // Slurm's symbol: ESLURM_INVALID_FEATURE
  Outcome outcome;          // what the number means when it is a call's only error: rejected,
                            // rejected_transient, auth or not_found
  std::string_view source;  // where we know it from: a transcript, or Slurm's source
};

std::span<const KnownError> known_errors();
const KnownError* find_known_error(int number);

// What a codec could read from an answer; `parsed` is false when the body was not the JSON
// the dialect expects (then the other fields are empty).
struct DecodedFacts {
  bool parsed = false;
  bool has_job_id = false;
  std::vector<SlurmMessage> errors;
  // Set when a submit answer carried a `job_id` that is not a Slurm job id (receipt.h).
  std::string job_id_problem;
};

struct Classification {
  Outcome outcome = Outcome::uncertain;
  std::string reason;  // for humans: Slurm's words or the transport's; never a secret
};

Classification classify_submit(const HttpExchange& exchange, const DecodedFacts& facts);
Classification classify_read(const HttpExchange& exchange, const DecodedFacts& facts);
Classification classify_update(const HttpExchange& exchange, const DecodedFacts& facts);

// Slurm's ESLURM_DB_CONNECTION, "Unable to connect to database".
inline constexpr int kDbConnectionError = 7000;
// Slurm's ESLURM_JOB_FINISHED: an update of a job that has ended.
inline constexpr int kJobFinishedError = 2084;
// Slurm's ESLURM_TRANSITION_STATE_NO_UPDATE, "Job can not be altered now, try again later": an
// update slurmctld cannot make in the job's present state, or a signal to a job that is not
// running.
inline constexpr int kCannotAlterNowError = 2020;

}  // namespace tpslurm::slurm
