#include "slurm/outcome.h"

#include <algorithm>
#include <array>

namespace tpslurm::slurm {
namespace {

using enum Outcome;

// Slurm error numbers whose meaning for a submit is known. Anything not here is unknown and
// leaves a submit `uncertain`. Every number and name was checked against slurm/slurm_errno.h at
// slurm-22-05-8-1, slurm-23-11-11-1, slurm-24-11-7-1 and slurm-26-05-3-1
// (tests/fixtures/slurm/slurm_errno_numbers.tsv, made by tools/slurm-errno-table; where the
// name differs between those releases both are given). Before 24.11 slurmrestd answers every
// error but 9000-9002 and 2017 with HTTP 500 (operations.c), 1007 and lost connections too:
// the rules below decide by the numbers, so the same table holds for every release. Sources:
//   T38  a real 22.05.8 transcript in tests/fixtures/slurm/samples-v0.0.38/
//   T45  a real 26.05.3 transcript in tests/fixtures/slurm/samples-v0.0.45/
//   SRC  Slurm's source at those tags: job_mgr.c job creation / slurm_opt.c option parsing
//        reject the request before a job record exists (docs/slurm.md, *Errors raised before a job exists*).
//
// Left out on purpose, so that a submit answered with them stays `uncertain`:
//   11 EAGAIN (a system errno, not in slurm_errno.h): job_mgr.c@22.05.8 _copy_job_desc_to_job_record
//      puts a record on the job list (_create_job_record) before _set_job_id returns EAGAIN
//      (job_mgr.c:11845; @26.05.3 job_mgr.c:8707, 8726, 11702), and the client library's socket
//      layer passes raw errno values through (slurm_protocol_socket.c _send_timeout); sbatch
//      retrying it proves nothing about whether a record exists.
//   2026 ESLURM_INVALID_JOB_CREDENTIAL: a step credential error, not an answer to a submit.
constexpr std::array kKnownErrors{
    KnownError{1007, "SLURM_PROTOCOL_AUTHENTICATION_ERROR", auth,
               "T45 28_auth_expired_token_jobs, 34_auth_expired_token_submit; on a submit never proof of nothing: "
               "slurm_protocol_api.c@22.05.8,@26.05.3 slurm_unpack_received_msg returns it when the reply's "
               "credential fails auth_g_verify, after slurmctld handled the request"},
    KnownError{2000, "ESLURM_INVALID_PARTITION_NAME", rejected, "SRC: job_mgr.c _valid_job_part"},
    KnownError{2001, "ESLURM_DEFAULT_PARTITION_NOT_SET", rejected, "SRC: job_mgr.c _get_job_parts"},
    KnownError{2002, "ESLURM_ACCESS_DENIED", rejected,
               "T38 nobody_delete_root_job; SRC: partition AllowGroups/AllowAccounts"},
    KnownError{2003, "ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP", rejected, "SRC: job_mgr.c _valid_job_part"},
    KnownError{2004, "ESLURM_REQUESTED_NODES_NOT_IN_PARTITION", rejected, "SRC: job_mgr.c _job_create"},
    KnownError{2005, "ESLURM_TOO_MANY_REQUESTED_CPUS", rejected, "SRC: job_mgr.c _job_create"},
    KnownError{2006, "ESLURM_INVALID_NODE_COUNT", rejected, "SRC: job_mgr.c _job_create"},
    KnownError{2007, "ESLURM_MAX_JOB_COUNT", rejected_transient,
               "named ESLURM_ERROR_ON_DESC_TO_RECORD_COPY up to 25.11; SRC: @26.05.3 job_allocate returns it for "
               "MaxJobCount before _job_create (job_mgr.c:4215-4218); @22.05.8 _job_create returns it only when "
               "_create_job_record gave no record (job_mgr.c:7592-7597, 8541-8543), the same code at @23.11.11 "
               "(job_mgr.c:8911-8916) and @24.11.7 (job_mgr.c:7388-7394); sbatch retries it"},
    KnownError{2008, "ESLURM_JOB_MISSING_SIZE_SPECIFICATION", rejected, "SRC: job_mgr.c _job_create"},
    KnownError{2009, "ESLURM_JOB_SCRIPT_MISSING", rejected, "SRC: v0.0.38 jobs.c top-level script required"},
    KnownError{2012, "ESLURM_PATHNAME_TOO_LONG", rejected, "SRC: job_mgr.c _validate_job_desc"},
    KnownError{2014, "ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE", rejected,
               "SRC: job_mgr.c _job_create (no node can ever satisfy it)"},
    KnownError{2017, "ESLURM_INVALID_JOB_ID", not_found,
               "T38 get_job_nonexistent, delete_job_nonexistent; T45 25_get_unknown_job_id"},
    KnownError{2027, "ESLURM_IN_STANDBY_MODE", rejected_transient,
               "SRC: backup.c _background_process_msg (@22.05.8:457, @26.05.3:425) answers it without processing "
               "the RPC; slurm_protocol_api.c slurm_send_recv_controller_msg (@26.05.3:2292-2310) tries the next "
               "controller only after such an answer, never after a failed send"},
    KnownError{2029, "ESLURM_INVALID_FEATURE", rejected, "T38 submit_badconstraint"},
    KnownError{2044, "ESLURM_INVALID_TASK_MEMORY", rejected, "SRC: job_mgr.c _valid_pn_min_mem"},
    KnownError{2045, "ESLURM_INVALID_ACCOUNT", rejected, "SRC: job_mgr.c _job_create association check"},
    KnownError{2048, "ESLURM_INVALID_LICENSES", rejected, "SRC: licenses.c license_validate"},
    KnownError{2050, "ESLURM_ACCOUNTING_POLICY", rejected_transient,
               "SRC: acct_policy_validate (MaxSubmitJobs and other submit limits; the same number covers size/time "
               "limits, which then keep failing and are reported on each try)"},
    KnownError{2051, "ESLURM_INVALID_TIME_LIMIT", rejected, "SRC: job_mgr.c _job_create partition MaxTime"},
    KnownError{2052, "ESLURM_RESERVATION_ACCESS", rejected, "SRC: reservation.c job_test_resv"},
    KnownError{2053, "ESLURM_RESERVATION_INVALID", rejected, "SRC: reservation.c validate_job_resv"},
    KnownError{2054, "ESLURM_INVALID_TIME_VALUE", rejected, "SRC: slurm_opt.c time parsing"},
    KnownError{2057, "ESLURM_INVALID_WCKEY", rejected,
               "SRC: job_mgr.c _copy_job_desc_to_job_record wckey check, before _create_job_record"},
    KnownError{2066, "ESLURM_INVALID_QOS", rejected, "SRC: job_mgr.c _job_create QOS check"},
    KnownError{2069, "ESLURM_INVALID_CPU_COUNT", rejected, "SRC: job_mgr.c _job_create"},
    KnownError{2072, "ESLURM_INVALID_GRES", rejected, "SRC: gres.c gres_job_state_validate"},
    KnownError{2081, "ESLURM_INVALID_ARRAY", rejected,
               "SRC: job_mgr.c validate_job_create_req refuses a bad `array` (_valid_array_inx: syntax, a task id "
               "not below MaxArraySize, more tasks than max_array_tasks) before any record exists "
               "(@22.05.8:7986, @26.05.3:8080); slurmrestd answers it with HTTP 500, 422 on 26.05"},
    KnownError{2105, "ESLURM_SUBMISSIONS_DISABLED", rejected_transient,
               "SRC: partition/cluster submissions disabled (maintenance)"},
    KnownError{2115, "ESLURM_INVALID_TRES", rejected, "SRC: job_mgr.c TRES validation"},
    KnownError{2119, "ESLURM_INVALID_GRES_TYPE", rejected, "SRC: gres.c"},
    KnownError{2122, "ESLURM_UNSUPPORTED_GRES", rejected, "SRC: gres.c"},
    KnownError{2127, "ESLURM_ENVIRONMENT_MISSING", rejected, "T38 submit_noenv"},
    KnownError{6000, "ESLURM_AUTH_CRED_INVALID", auth,
               "SRC: rest_auth/jwt and rest_auth/local refuse headers with it (@22.05.8, @26.05.3), which slurmrestd "
               "answers as a plain-text 401 before routing; common/http.c@26.05.3 maps it to 401"},
    KnownError{6001, "ESLURM_AUTH_EXPIRED", auth,
               "named ESLURM_AUTH_FOPEN_ERROR in 22.05, unused 23.02-24.05 (none at 23.11.11); SRC: auth_jwt.c@26.05.3 cred_verify "
               "token expired; common/http.c@26.05.3 maps it to 401"},
    KnownError{kDbConnectionError, "ESLURM_DB_CONNECTION", rejected_transient, "SRC: accounting (slurmdbd) unavailable"},
    KnownError{7008, "ESLURM_DB_CONNECTION_INVALID", rejected_transient, "SRC: accounting (slurmdbd) unavailable"},
    KnownError{9000, "ESLURM_REST_INVALID_QUERY", rejected,
               "T45 26_get_invalid_job_id; SRC: _job_post missing script/job"},
    KnownError{9001, "ESLURM_REST_FAIL_PARSING", rejected, "T38 submit_unknownkey, submit_noenv"},
    KnownError{9002, "ESLURM_REST_INVALID_JOBS_DESC", rejected, "SRC: v0.0.38 jobs.c"},
    KnownError{9008, "ESLURM_REST_AUTH_FAIL", auth,
               "new in 26.05 (absent at 22.05.8 and 25.11); SRC: rest_auth.c@26.05.3 "
               "rest_authenticate_http_request, before any RPC; common/http.c maps it to 401"},
};

bool is_auth_status(int status) { return status == 401 || status == 511; }

// 22.05 answers a bad, expired or forged token on ping with HTTP 500 and this error
// (T38 auth_badsig, auth_expired, auth_garbage, auth_nobody_token_root_header).
bool is_v0038_auth_signature(const SlurmMessage& message) {
  return message.number == -1 && message.source == "slurm_load_ctl_conf";
}

// 22.05's v0.0.38 _parse_job_list (openapi/v0.0.38/jobs.c@slurm-22-05-8-1:1185-1190) adds
// "job array update from <client> failed" to errors[] whenever slurmctld answers an update
// with its per-task list (it tests the list's pointer, never the codes), numbered with the
// list's first code: without a number, the first record's update succeeded. Seen with HTTP
// 200 on 22.05.8 for a release that took effect (arrays-v0.0.38/06_release_array: every task
// ran after it). Only this exact shape is that note: no number, these words; a numbered one is
// a refusal like any other.
bool is_array_update_note(const SlurmMessage& message) {
  return message.number == 0 && message.error.empty() && message.description.starts_with("job array update from ") &&
         message.description.ends_with(" failed");
}

std::optional<Classification> transport_failure(const HttpExchange& exchange) {
  if (exchange.delivery == Delivery::not_sent) {
    return Classification{Outcome::not_sent, "not sent: " + std::string(to_string(exchange.fault))};
  }
  if (exchange.delivery == Delivery::uncertain) {
    return Classification{Outcome::uncertain, "may have been received: " + std::string(to_string(exchange.fault))};
  }
  return std::nullopt;
}

const SlurmMessage* first_with_class(const DecodedFacts& facts, Outcome wanted) {
  for (const auto& message : facts.errors) {
    const KnownError* known = find_known_error(message.number);
    if (known != nullptr && known->outcome == wanted) return &message;
  }
  return nullptr;
}

// 23.11's slurmrestd opens a slurmdbd connection with the caller's token before any handler
// runs (openapi.c@slurm-23-11-11-1 wrap_openapi_ctxt_callback); when that fails it answers
// 7000 whatever the cause: slurmdbd is down, or it refused the token (samples-v0.0.40 40-46).
// The words say both, so that an operator with a bad token is not sent to look at slurmdbd.
std::string error_texts(const DecodedFacts& facts) {
  std::string words = join_texts(facts.errors);
  const bool before_handler = std::any_of(facts.errors.begin(), facts.errors.end(), [](const SlurmMessage& m) {
    return m.number == kDbConnectionError && m.source == "wrap_openapi_ctxt_callback";
  });
  if (before_handler) {
    words += "; slurmrestd could not open its slurmdbd connection for this request: slurmdbd is down or "
             "unreachable, or it refused the token (Slurm 23.11 answers a bad or expired token this way)";
  }
  return words;
}

std::string http_words(const HttpExchange& exchange, const DecodedFacts& facts) {
  std::string words = "HTTP " + std::to_string(exchange.response.status);
  // An error answer often lacks the list a read expects but still says what went wrong.
  if (!facts.errors.empty()) {
    words += ": " + error_texts(facts);
  } else if (!facts.parsed) {
    words += exchange.response.body.empty() ? " with an empty body" : " with a body that is not the expected JSON";
  }
  return words;
}

}  // namespace

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::ok: return "ok";
    case Outcome::rejected: return "rejected";
    case Outcome::rejected_transient: return "rejected_transient";
    case Outcome::auth: return "auth";
    case Outcome::not_found: return "not_found";
    case Outcome::not_sent: return "not_sent";
    case Outcome::uncertain: return "uncertain";
  }
  return "uncertain";
}

std::string SlurmMessage::text() const {
  std::string words = !error.empty() ? error : description;
  if (!error.empty() && !description.empty() && description != error) words += " (" + description + ")";
  if (words.empty()) words = "no message";
  if (number != 0) words += " (error " + std::to_string(number) + ")";
  return words;
}

std::string join_texts(const std::vector<SlurmMessage>& messages) {
  std::string joined;
  for (const auto& message : messages) {
    if (!joined.empty()) joined += "; ";
    joined += message.text();
  }
  return joined;
}

std::span<const KnownError> known_errors() { return kKnownErrors; }

const KnownError* find_known_error(int number) {
  for (const auto& known : kKnownErrors) {
    if (known.number == number) return &known;
  }
  return nullptr;
}

Classification classify_submit(const HttpExchange& exchange, const DecodedFacts& facts) {
  if (auto failed = transport_failure(exchange)) return *failed;
  if (facts.parsed && !facts.job_id_problem.empty()) {
    return {Outcome::uncertain,
            http_words(exchange, facts) + " and a job_id that is not a Slurm job id (" + facts.job_id_problem + ")"};
  }
  if (facts.parsed && facts.has_job_id) return {Outcome::ok, join_texts(facts.errors)};
  // slurmrestd's router refuses missing or malformed auth headers itself, before routing,
  // with a plain-text 401 (operations.c@22.05.8:522-528, @26.05.3:432-436). Any other auth
  // answer came from a handler that may have made the RPC: see kKnownErrors' 1007.
  if (exchange.response.status == 401 && !facts.parsed) {
    return {Outcome::auth, "authentication failed: " + http_words(exchange, facts)};
  }
  if (is_auth_status(exchange.response.status) || first_with_class(facts, Outcome::auth) != nullptr) {
    return {Outcome::uncertain,
            "authentication failed after slurmrestd took the request, which may come after "
            "slurmctld created the job: " +
                http_words(exchange, facts) + " and no job_id"};
  }
  // Only a refusal made entirely of known validation/refusal numbers proves that nothing was
  // created; one unknown number and the job may exist.
  if (facts.parsed && !facts.errors.empty() && exchange.response.status >= 400) {
    bool all_known = true;
    bool any_permanent = false;
    for (const auto& message : facts.errors) {
      const KnownError* known = find_known_error(message.number);
      if (known == nullptr ||
          (known->outcome != Outcome::rejected && known->outcome != Outcome::rejected_transient)) {
        all_known = false;
        break;
      }
      any_permanent = any_permanent || known->outcome == Outcome::rejected;
    }
    if (all_known) {
      return {any_permanent ? Outcome::rejected : Outcome::rejected_transient, error_texts(facts)};
    }
  }
  return {Outcome::uncertain, http_words(exchange, facts) + " and no job_id"};
}

Classification classify_read(const HttpExchange& exchange, const DecodedFacts& facts) {
  if (auto failed = transport_failure(exchange)) return *failed;
  const int status = exchange.response.status;
  if (is_auth_status(status) || first_with_class(facts, Outcome::auth) != nullptr) {
    return {Outcome::auth, "authentication failed: " + http_words(exchange, facts)};
  }
  if (status == 500 && facts.parsed && facts.errors.size() == 1 && is_v0038_auth_signature(facts.errors.front())) {
    return {Outcome::auth,
            "authentication failed (Slurm 22.05 reports a bad token this way): " + http_words(exchange, facts)};
  }
  if (const SlurmMessage* missing = first_with_class(facts, Outcome::not_found)) {
    return {Outcome::not_found, missing->text()};
  }
  if (facts.parsed && ((status >= 200 && status < 300) || status == 304))
    return {Outcome::ok, join_texts(facts.errors)};
  if (status == 304) return {Outcome::ok, {}};
  if (status >= 400 && status < 500) return {Outcome::rejected, http_words(exchange, facts)};
  return {Outcome::uncertain, http_words(exchange, facts)};
}

Classification classify_update(const HttpExchange& exchange, const DecodedFacts& facts) {
  const Classification read = classify_read(exchange, facts);
  if (read.outcome == Outcome::not_sent || read.outcome == Outcome::auth || read.outcome == Outcome::not_found) {
    return read;
  }
  if (exchange.delivery != Delivery::answered || !facts.parsed || facts.errors.empty()) return read;
  bool all_finished = true;
  bool all_refusals = true;
  bool all_transient = true;
  bool any_numbered = false;
  for (const auto& message : facts.errors) {
    const int number = message.number;
    all_finished = all_finished && number == kJobFinishedError;
    if (number == 0) continue;  // v0.0.38's parser notes ("Unknown key") carry no number
    any_numbered = true;
    const KnownError* known = find_known_error(number);
    const bool transient =
        number == kCannotAlterNowError || (known != nullptr && known->outcome == Outcome::rejected_transient);
    const bool refusal = (number >= 2000 && number <= 2999) || (number >= 9000 && number <= 9099) || transient;
    all_refusals = all_refusals && refusal;
    all_transient = all_transient && transient;
  }
  const std::string words = join_texts(facts.errors);
  if (all_finished) return {Outcome::ok, words};
  if (exchange.response.status == 200 && std::all_of(facts.errors.begin(), facts.errors.end(), is_array_update_note)) {
    return {Outcome::ok, words};
  }
  if (!all_refusals) return {Outcome::uncertain, http_words(exchange, facts)};
  if (any_numbered && all_transient) return {Outcome::rejected_transient, "not updated: " + words};
  return {Outcome::rejected, "not updated: " + words};
}

}  // namespace tpslurm::slurm
