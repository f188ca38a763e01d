#include "slurm_api_support.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <set>
#include <unordered_set>

#include "auth.h"
#include "dbd_json.h"
#include "diag_json.h"
#include "envelope.h"
#include "job_json.h"
#include "json_writer.h"
#include "sluid.h"
#include "slurm_errors.h"
#include "slurm_signals.h"
#include "slurm_time.h"
#include "submit_request.h"
#include "update_request.h"

namespace tpslurm::sim::api_support {

HttpReply json_reply(int status, std::string body) {
  HttpReply reply;
  reply.status = status;
  reply.body = std::move(body);
  // slurmrestd closes the connection after every error answer.
  reply.close = status >= 400;
  return reply;
}

HttpReply not_found_url() { return text_reply(404, "Unable to find requested URL", true); }

HttpReply error_answer(const RequestContext& ctx, const Diagnostics& diag, int status) {
  JsonWriter out;
  out.begin_object();
  if (is_v4x(ctx.dialect)) {
    write_errors_first(out, ctx, diag);
  } else {
    write_tail(out, ctx, diag);
  }
  out.end_object();
  return json_reply(status, out.take());
}

void write_list_times(JsonWriter& out, std::int64_t last_backfill, std::int64_t last_update) {
  out.key("last_backfill");
  write_no_val(out, last_backfill);
  out.key("last_update");
  write_no_val(out, last_update);
}

HttpReply refused_job_ref(const RequestContext& ctx, Diagnostics diag, Release release) {
  diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_job");
  JsonWriter out;
  out.begin_object();
  write_errors_first(out, ctx, diag);
  out.end_object();
  return json_reply(http_status_for_error(release, err::kRestInvalidQuery), out.take());
}

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 10) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::uint64_t to_u64(std::string_view s) { return std::stoull(std::string(s)); }

JobRef parse_job_ref_v4x(std::string_view text, Release release) {
  JobRef ref;
  if (!text.empty() && text[0] == 's') {
    if (!sluid_in_paths(release)) return ref;
    auto sluid = parse_sluid(text);
    if (!sluid) return ref;
    ref.valid = true;
    ref.by_sluid = true;
    ref.sluid = *sluid;
    return ref;
  }
  std::size_t sep = text.find_first_of("+_.");
  std::string_view head = text.substr(0, sep);
  if (!all_digits(head)) return ref;
  std::uint64_t id = to_u64(head);
  if (id == 0 || id >= kMaxJobId) return ref;
  if (sep != std::string_view::npos) {
    std::string_view tail = text.substr(sep + 1);
    if (text[sep] == '+') {
      if (!all_digits(tail)) return ref;
      id += to_u64(tail);  // the REST layer adds the het offset
    } else if (text[sep] == '_') {
      if (!all_digits(tail)) return ref;
      ref.warnings.push_back(
          "Job array Ids are not currently supported for job searches. Showing all jobs in array instead.");
    } else {
      if (tail.empty()) return ref;
      ref.warnings.push_back("Job steps are not supported for job searches. Showing whole job instead.");
    }
  }
  ref.valid = true;
  ref.id = static_cast<std::uint32_t>(id);
  return ref;
}

std::uint32_t xlate_job_id_v38(std::string_view text, JobStore& store) {
  std::size_t sep = text.find_first_of("+_");
  std::string_view head = text.substr(0, sep);
  if (!all_digits(head)) return 0;
  std::uint64_t id = to_u64(head);
  if (id == 0 || id >= kMaxJobId) return 0;
  if (sep != std::string_view::npos && text[sep] == '+') {
    std::string_view tail = text.substr(sep + 1);
    if (!all_digits(tail)) return 0;
    JobRecord* leader = store.find(static_cast<std::uint32_t>(id));
    std::uint64_t offset = to_u64(tail);
    if (!leader || !leader->is_het_leader() || offset >= leader->het_size) return 0;
    return static_cast<std::uint32_t>(id + offset);
  }
  if (sep == std::string_view::npos) return static_cast<std::uint32_t>(id);
  std::string_view tail = text.substr(sep + 1);
  if (!all_digits(tail) || tail.empty()) return 0;
  // "M_t": the record of the array M whose array_task_id is t; a task still pending in the
  // meta record has none.
  JobRecord* master = store.find(static_cast<std::uint32_t>(id));
  if (!master) return 0;
  const std::uint64_t task = to_u64(tail);
  for (JobRecord* r : store.records_for_get(*master)) {
    if (r->array_task_id && *r->array_task_id == task) return r->job_id;
  }
  return 0;
}

void write_kill_status(JsonWriter& out, int code, const std::string& id_text, const JobRecord* job) {
  out.begin_object();
  out.key("error").begin_object();
  out.str_field("string", err::strerror(code));
  out.int_field("code", code);
  out.str_field("message", err::strerror(code));
  out.end_object();
  out.str_field("step_id", id_text);
  out.key("job_id");
  if (job) {
    write_no_val(out, job->job_id);
  } else {
    write_no_val(out, 0, false);
  }
  out.key("federation").begin_object().str_field("sibling", "").end_object();
  out.end_object();
}

int kill_jobs_code(KillResult result) {
  switch (result) {
    case KillResult::signalled: return 0;
    case KillResult::already_done: return err::kAlreadyDone;
    case KillResult::not_found: return err::kInvalidJobId;
    case KillResult::denied: return err::kAccessDenied;
    case KillResult::pending_het_component: return err::kNotWholeHetJob;
    case KillResult::not_running: return err::kTransitionStateNoUpdate;
  }
  return 0;
}

std::optional<ArrayTaskRef> parse_array_task_ref(std::string_view text) {
  const std::size_t underscore = text.find('_');
  if (underscore == std::string_view::npos) return std::nullopt;
  std::string_view head = text.substr(0, underscore);
  std::string_view tail = text.substr(underscore + 1);
  if (head.empty() || tail.empty() || !all_digits(head) || !all_digits(tail)) return std::nullopt;
  const std::uint64_t master = to_u64(head);
  const std::uint64_t task = to_u64(tail);
  if (master == 0 || master >= kMaxJobId || task >= kMaxJobId) return std::nullopt;
  return ArrayTaskRef{static_cast<std::uint32_t>(master), static_cast<std::uint32_t>(task)};
}

std::string iso_time(std::int64_t unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

std::optional<std::int64_t> parse_time_param(const std::string* value, Dialect dialect) {
  if (!value || value->empty()) return std::nullopt;
  const bool numeric = value->size() <= 12 && std::all_of(value->begin(), value->end(), [](char c) {
                         return std::isdigit(static_cast<unsigned char>(c)) != 0;
                       });
  if (numeric) {
    if (dialect == Dialect::v0040 || dialect == Dialect::v0041) return std::nullopt;
    return std::stoll(*value);
  }
  return parse_slurm_time(*value);
}

void time_refused(Diagnostics& diag, Dialect dialect, const std::string& key, const std::string& value) {
  if (dialect == Dialect::v0040 || dialect == Dialect::v0041) {
    diag.error(err::kDataConvFailed, "Parsing of " + value + " for timestamp failed", "#/" + key + "/");
  }
}

int time_refused_status(Release release) {
  const bool parser_error_wins =
      release == Release::r23_11_4 || release == Release::r23_11_11 || release == Release::r24_05_8;
  return http_status_for_error(release, parser_error_wins ? err::kDataConvFailed : err::kRestInvalidQuery);
}

std::vector<JobStore::JobPtr> dbd_candidates(JobStore& store, const std::string* names, const std::string* steps,
                                             Dialect dialect) {
  std::vector<JobStore::JobPtr> candidates;
  if (names) {
    for (const auto& name : split_csv(*names)) {
      auto found = store.accounting_by_name(name);
      candidates.insert(candidates.end(), found.begin(), found.end());
    }
  } else if (steps) {
    for (const auto& step : split_csv(*steps)) {
      if (!step.empty() && step[0] == 's' && dialect == Dialect::v0045) {
        if (auto sluid = parse_sluid(step)) {
          for (const auto& job : store.accounting()) {
            if (job->sluid == *sluid || job->original_sluid == *sluid) candidates.push_back(job);
          }
        }
      } else if (all_digits(step.substr(0, step.find('.')))) {
        auto found = store.accounting_by_id(static_cast<std::uint32_t>(to_u64(step.substr(0, step.find('.')))));
        candidates.insert(candidates.end(), found.begin(), found.end());
      }
    }
  } else {
    candidates = store.accounting();
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const JobStore::JobPtr& a, const JobStore::JobPtr& b) { return a->created_seq < b->created_seq; });
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  return candidates;
}

std::set<std::string> csv_set(const std::string* text) {
  std::set<std::string> out;
  if (text) {
    for (const auto& item : split_csv(*text)) out.insert(item);
  }
  return out;
}

}  // namespace tpslurm::sim::api_support
