#include "slurm_api.h"

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

namespace tpslurm::sim {

namespace {

constexpr int kSigKill = 9;
// glibc's SIGRTMAX on Linux: 22.05 refuses signal numbers from it up.
constexpr int kSigRtMax = 64;
constexpr std::uint32_t kMaxJobId = 0x03ffffff;
constexpr char kOldDbConnFailure[] = "openapi_get_db_conn() failed to open slurmdb connection";

HttpReply json_reply(int status, std::string body) {
  HttpReply reply;
  reply.status = status;
  reply.body = std::move(body);
  // slurmrestd closes the connection after every error answer.
  reply.close = status >= 400;
  return reply;
}

HttpReply not_found_url() { return text_reply(404, "Unable to find requested URL", true); }

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 10) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::uint64_t to_u64(std::string_view s) { return std::stoull(std::string(s)); }

// How a v0.0.4x path names a job.
struct JobRef {
  bool valid = false;
  bool by_sluid = false;
  std::uint64_t sluid = 0;
  std::uint32_t id = 0;
  std::vector<std::string> warnings;
};

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

// slurm_xlate_job_id()@22.05: "123", "123+1" (the component), "123_4"; 0 if not a job id.
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
  if (sep != std::string_view::npos && !all_digits(text.substr(sep + 1))) return 0;
  return static_cast<std::uint32_t>(id);
}

std::string iso_time(std::int64_t unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

// A time in a v0.0.4x query: v0.0.42 on first turns a number into one (data_convert_type in
// _parse_timestamp at slurm-24-11-7-1), then hands a string to parse_time(); v0.0.40/41 hand
// every value to parse_time(), which refuses a bare number (error 9202 on real 23.11.11 and
// 24.11.7) and reads "uts<N>".
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

// The data_parser's own error for a time it could not read, before the handler's 9000.
void time_refused(Diagnostics& diag, Dialect dialect, const std::string& key, const std::string& value) {
  if (dialect == Dialect::v0040 || dialect == Dialect::v0041) {
    diag.error(err::kDataConvFailed, "Parsing of " + value + " for timestamp failed", "#/" + key + "/");
  }
}

// The status of a query whose time was refused: the handler's 9000, except that 23.11 and
// 24.05 answer with the parser's 9202, which their table makes a 500 (real 23.11.11: 500;
// real 24.11.7: 422).
int time_refused_status(Release release) {
  const bool parser_error_wins =
      release == Release::r23_11_4 || release == Release::r23_11_11 || release == Release::r24_05_8;
  return http_status_for_error(release, parser_error_wins ? err::kDataConvFailed : err::kRestInvalidQuery);
}

// The jobs GET slurmdb/.../jobs looks at: by job_name, else by step (job id or, on
// v0.0.45, SLUID), else all; in the order they were created, each once.
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

// What GET slurmdb/.../jobs keeps of its candidates: state, user and partition filters and
// the time window.
struct DbdFilter {
  std::optional<std::int64_t> start_time;
  std::optional<std::int64_t> end_time;
  std::optional<std::int64_t> submit_time;
  bool steps = false;
  std::set<std::string> states;
  std::set<std::string> users;
  std::set<std::string> partitions;
  std::int64_t window_start = 0;
  std::int64_t window_end = 0;

  // slurmdb_job_cond_def_start_end(): without step or state, an unset start_time means
  // midnight today; an unset end means now.
  void set_window(std::int64_t now_s, bool state_given) {
    if (start_time) {
      window_start = *start_time;
    } else if (!steps && !state_given && !submit_time) {
      window_start = now_s - (now_s % 86400);
    }
    window_end = end_time ? *end_time : now_s;
  }

  bool matches(const JobRecord& job) const {
    if (!states.empty() && !states.count(std::string(base_state_name(job.state)))) return false;
    if (!users.empty() && !users.count(job.user_name)) return false;
    if (!partitions.empty() && !partitions.count(job.partition)) return false;
    if (submit_time) return job.submit_time >= *submit_time && job.submit_time <= window_end;
    if (!steps || start_time || end_time) {
      // The usage window: the job was eligible or running at some point inside it.
      if (job.eligible_time > window_end) return false;
      if (is_finished(job.state) && job.end_time < window_start) return false;
    }
    return true;
  }
};

}  // namespace

struct SlurmApi::Call {
  const HttpRequest& request;
  const Target& target;
  const Identity& identity;
  RequestContext ctx;
  bool dbd = false;
};

SlurmApi::SlurmApi(const SimOptions& options, SimClock& clock, JobStore& store, Stats& stats, FaultPlan& faults)
    : m_options(options), m_clock(clock), m_store(store), m_stats(stats), m_faults(faults) {
  // Every slurmd registered with the controller when the cluster came up (as SlurmUser).
  for (std::size_t i = 0; i < m_options.cluster.nodes.size(); ++i) {
    m_rpcs.record(Rpc::node_registration, m_options.slurm_user, uid_of(m_options.slurm_user));
  }
}

void SlurmApi::rpc(const Call& call, Rpc type) { m_rpcs.record(type, call.identity.user, call.identity.uid); }

std::string SlurmApi::route_key(const std::string& method, const Target& target) {
  const auto& s = target.segments;
  std::string key = method + " ";
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::string part = s[i];
    const bool slurm = !s.empty() && (s[0] == "slurm" || s[0] == "slurmdb");
    if (slurm && i == 3 && s.size() == 4 && s[2] == "job" && part != "submit" && part != "allocate") {
      part = "{job_id}";
    } else if (slurm && i == 3 && s.size() == 4 && s[2] == "partition") {
      part = "{partition_name}";
    } else if (s.size() > 2 && s[0] == "sim" && s[1] == "jobs" && i == 2 && all_digits(part)) {
      part = "{job_id}";
    }
    key += "/" + part;
  }
  if (s.empty()) key += "/";
  return key;
}

HttpReply SlurmApi::handle(const HttpRequest& request, const Target& target, const Identity& identity) {
  const auto& seg = target.segments;
  if (seg.size() < 2 || (seg[0] != "slurm" && seg[0] != "slurmdb")) return not_found_url();
  Dialect dialect = Dialect::v0045;
  if (version_support(m_options.release, seg[1], &dialect) != VersionSupport::implemented) return not_found_url();
  const bool dbd = seg[0] == "slurmdb";
  // The openapi/slurmdbd plugin refuses to load on a cluster without slurmdbd.
  if (dbd && !m_options.cluster.accounting) return not_found_url();
  if (!target.path_valid) {
    int status = invalid_path_status(m_options.release);
    return text_reply(status, status == 404 ? "Unable to find requested URL" : "Unable to parse URL path.", true);
  }

  Call call{request, target, identity, {}, dbd};
  call.ctx.release = m_options.release;
  call.ctx.dialect = dialect;
  call.ctx.slurmdbd = dbd;
  call.ctx.user = identity.user;
  call.ctx.group = group_of(identity.user);
  call.ctx.client_source = request.client_source;
  call.ctx.cluster_name = m_options.cluster.cluster_name;
  call.ctx.accounting = m_options.cluster.accounting;

  // 26.05 fails to parse a query holding a literal comma before any handler runs.
  if (is_v4x(dialect) && target.query_has_literal_comma) return text_reply(500, "Unspecified error", true);
  if (!target.query_valid) return text_reply(400, "Unable to parse query.", true);

  // 22.05: a token slurmctld refuses surfaces as this misleading 500 on every endpoint.
  if (!identity.token_ok && !is_v4x(dialect)) {
    Diagnostics diag;
    diag.error(err::kUnspecified, "slurmctld config is unable to load", "slurm_load_ctl_conf");
    JsonWriter out;
    out.begin_object();
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(500, out.take());
  }

  // 23.11: every ctxt handler first opens a slurmdbd connection with the caller's token
  // (wrap_openapi_ctxt_callback() in openapi.c at slurm-23-11-11-1); slurmdbd refuses a bad
  // token, so the call fails with 7000 before its handler runs, ping included.
  if (!identity.token_ok && slurmctld_calls_open_dbd(m_options.release) && m_options.cluster.accounting) {
    Diagnostics diag;
    diag.error(err::kDbConnection, "openapi_get_db_conn() failed to open slurmdb connection",
               "wrap_openapi_ctxt_callback");
    JsonWriter out;
    out.begin_object();
    write_errors_first(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kDbConnection), out.take());
  }

  m_store.tick();
  const std::string& method = request.method;
  const std::size_t n = seg.size();
  const std::string& res = n > 2 ? seg[2] : std::string();
  if (!dbd) {
    if (n == 3 && res == "ping" && method == "GET") return ping(call);
    if (n == 3 && res == "diag" && method == "GET") return diag(call);
    if (n == 4 && res == "job" && seg[3] == "submit") {
      return method == "POST" ? submit(call) : text_reply(405, "Unsupported HTTP method", true);
    }
    if (n == 4 && res == "job") {
      if (method == "GET") return get_job(call, seg[3]);
      if (method == "DELETE") return delete_job(call, seg[3]);
      if (method == "POST") return update_job(call, seg[3]);
      return text_reply(405, "Unsupported HTTP method", true);
    }
    if (n == 3 && res == "jobs" && method == "GET") return get_jobs(call);
    // 23.11.0-23.11.4 do not bind jobs/state: the router answers as for any unknown path.
    if (n == 4 && res == "jobs" && seg[3] == "state" && is_v4x(dialect) && binds_jobs_state(m_options.release) &&
        method == "GET") {
      return jobs_state(call);
    }
    if (n == 3 && res == "partitions" && method == "GET") return partitions(call, nullptr);
    if (n == 4 && res == "partition" && method == "GET") return partitions(call, &seg[3]);
  } else {
    if (n == 3 && res == "jobs" && method == "GET") return dbd_jobs(call);
    if (n == 4 && res == "job" && method == "GET") return dbd_job(call, seg[3]);
  }
  return not_found_url();
}

HttpReply SlurmApi::ping(Call& call) {
  const bool ok = call.identity.token_ok;
  const std::string host = m_options.cluster.nodes.empty() ? "localhost" : m_options.cluster.nodes.front();
  const std::int64_t latency = 800 + static_cast<std::int64_t>((m_pings++ * 37) % 500);
  if (!is_v4x(call.ctx.dialect)) {
    // 22.05 loads the configuration first, then pings each controller it names.
    rpc(call, Rpc::build_info);
    rpc(call, Rpc::ping);
    // v0.0.38 puts meta and errors first.
    JsonWriter v38;
    v38.begin_object();
    write_tail(v38, call.ctx, Diagnostics{});
    v38.key("pings").begin_array().begin_object();
    v38.str_field("hostname", host).str_field("ping", "UP").int_field("status", 0).str_field("mode", "primary");
    v38.end_object().end_array();
    v38.end_object();
    return json_reply(200, v38.take());
  }
  if (ok) rpc(call, Rpc::ping);
  JsonWriter out;
  out.begin_object();
  out.key("pings").begin_array().begin_object();
  out.str_field("hostname", host);
  if (call.ctx.dialect == Dialect::v0040 || call.ctx.dialect == Dialect::v0041) {
    // CONTROLLER_PING before v0.0.42: no `responding`, no `primary`.
    out.str_field("pinged", ok ? "UP" : "DOWN");
    out.int_field("latency", latency);
    out.str_field("mode", "primary");
  } else if (call.ctx.dialect == Dialect::v0045) {
    out.bool_field("responding", ok);
    out.int_field("latency", latency);
    out.bool_field("primary", true);
    out.str_field("status", ok ? "No error" : err::strerror(err::kProtocolAuthentication));
  } else {
    out.str_field("pinged", ok ? "UP" : "DOWN");
    out.bool_field("responding", ok);
    out.int_field("latency", latency);
    out.str_field("mode", "primary");
    out.bool_field("primary", true);
  }
  out.end_object().end_array();
  write_tail(out, call.ctx, Diagnostics{});
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::diag(Call& call) {
  const Dialect dialect = call.ctx.dialect;
  if (!call.identity.token_ok) {
    // Only v0.0.4x gets here (22.05 answered before routing): no statistics, errors first.
    Diagnostics failed;
    failed.error(err::kProtocolAuthentication, "slurm_get_statistics() failed to get slurmctld statistics",
                 "op_handler_diag");
    JsonWriter out;
    out.begin_object();
    write_errors_first(out, call.ctx, failed);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kProtocolAuthentication), out.take());
  }
  DiagSnapshot snapshot;
  snapshot.req_time = m_clock.now_s();
  snapshot.jobs = m_store.counters();
  snapshot.jobs_pending = m_store.count_in_state(BaseState::pending);
  snapshot.jobs_running = m_store.count_in_state(BaseState::running);
  snapshot.job_states_ts = snapshot.req_time;
  if (auto since = m_faults.accounting_lag_since(m_clock.now_ms())) {
    for (const auto& job : m_store.accounting()) snapshot.dbd_agent_queue_size += job->phase_since_ms >= *since ? 1 : 0;
  }
  snapshot.rpcs_by_type = m_rpcs.by_type();
  snapshot.rpcs_by_user = m_rpcs.by_user();
  JsonWriter out;
  out.begin_object();
  if (is_v4x(dialect)) {
    write_diag_statistics(out, snapshot, dialect);
    write_tail(out, call.ctx, Diagnostics{});
  } else {
    write_tail(out, call.ctx, Diagnostics{});
    write_diag_statistics(out, snapshot, dialect);
  }
  out.end_object();
  // slurmctld adds an RPC to its statistics once it has answered it.
  rpc(call, Rpc::stats_info);
  return json_reply(200, out.take());
}

HttpReply SlurmApi::submit(Call& call) {
  ++m_stats.submits_received;
  const Dialect dialect = call.ctx.dialect;
  SubmitDefaults defaults;
  defaults.user_name = call.identity.user;
  defaults.user_id = call.identity.uid;
  defaults.group_name = group_of(call.identity.user);
  defaults.group_id = uid_of(defaults.group_name == "nogroup" ? "nobody" : defaults.group_name);
  defaults.default_cwd = m_options.default_cwd;
  SubmitParse parsed = parse_submit(call.request.body, dialect, defaults);
  if (parsed.unparsable_body) return text_reply(400, "Unable to parse query.", true);

  auto refused = [&](Diagnostics& diag, int rc) {
    JsonWriter out;
    out.begin_object();
    if (is_v4x(dialect)) {
      write_errors_first(out, call.ctx, diag);
    } else {
      write_tail(out, call.ctx, diag);
    }
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, rc), out.take());
  };

  if (is_v4x(dialect) && submit_needs_top_level_script(m_options.release) && !parsed.top_level_script &&
      parsed.rc != err::kRestFailParsing) {
    // 23.11.0-23.11.4's _job_post() looks only at the top-level script, before job/jobs.
    Diagnostics diag;
    for (const auto& w : parsed.diag.warnings) diag.warnings.push_back(w);
    diag.error(err::kRestInvalidQuery, "Populated \"script\" field is required for job submission", "_job_post");
    return refused(diag, err::kRestInvalidQuery);
  }
  if (parsed.rc) return refused(parsed.diag, parsed.rc);
  if (!call.identity.token_ok) {
    Diagnostics diag;
    diag.error(err::kProtocolAuthentication, "Batch job submission failed", "slurm_submit_batch_job()");
    return refused(diag, err::kProtocolAuthentication);
  }
  rpc(call, parsed.components.size() > 1 ? Rpc::submit_batch_het_job : Rpc::submit_batch_job);
  SubmitCheck check = check_submit(parsed.components, m_options.cluster, dialect);
  if (check.rc) {
    Diagnostics diag = parsed.diag;
    if (is_v4x(dialect)) {
      diag.error(check.rc, "Batch job submission failed", "slurm_submit_batch_job()");
    } else {
      diag.errors.push_back({check.rc, "", "", ErrorItem::Form::code_first, {}});
    }
    return refused(diag, check.rc);
  }
  const std::size_t components = parsed.components.size();
  const std::uint32_t job_id = m_store.submit(std::move(parsed.components));
  m_stats.jobs_created += components;

  Diagnostics diag = parsed.diag;
  JsonWriter out;
  out.begin_object();
  if (is_v4x(dialect)) {
    if (check.nonfatal) diag.warn(std::string(err::strerror(check.nonfatal)), "slurm_submit_batch_job()");
    if (dialect == Dialect::v0040 || dialect == Dialect::v0041) {
      // The deprecated `result` (JOB_SUBMIT_RESPONSE_MSG) precedes the flat fields.
      out.key("result").begin_object();
      out.int_field("job_id", job_id);
      out.str_field("step_id", "batch");
      out.int_field("error_code", check.nonfatal);
      out.str_field("error", err::strerror(check.nonfatal));
      out.str_field("job_submit_user_msg", "");
      out.end_object();
    }
    out.int_field("job_id", job_id);
    out.str_field("step_id", "batch");
    out.str_field("job_submit_user_msg", "");
    write_tail(out, call.ctx, diag);
  } else {
    // 22.05 reports a non-fatal code as an error next to the job id.
    if (check.nonfatal) diag.errors.push_back({check.nonfatal, "", "", ErrorItem::Form::code_first, {}});
    write_tail(out, call.ctx, diag);
    out.int_field("job_id", job_id);
    out.str_field("step_id", "BATCH");
    out.str_field("job_submit_user_msg", "");
  }
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::get_job(Call& call, const std::string& id_text) {
  const Dialect dialect = call.ctx.dialect;
  if (!is_v4x(dialect)) {
    std::uint32_t id = xlate_job_id_v38(id_text, m_store);
    Diagnostics diag;
    JsonWriter out;
    out.begin_object();
    if (!id) {
      diag.error(err::kRestInvalidJobsDesc, "Unable to find JobId=" + id_text, "_handle_job_get");
      write_tail(out, call.ctx, diag);
      out.end_object();
      return json_reply(http_status_for_error(m_options.release, err::kRestInvalidJobsDesc), out.take());
    }
    rpc(call, Rpc::job_info_single);
    JobRecord* job = m_store.find(id);
    if (!job) {
      diag.error(err::kInvalidJobId, "Unable to find JobId=" + id_text, "slurm_load_job");
      write_tail(out, call.ctx, diag);
      out.empty_array_field("jobs");
      out.end_object();
      return json_reply(http_status_for_error(m_options.release, err::kInvalidJobId), out.take());
    }
    write_tail(out, call.ctx, diag);
    out.key("jobs").begin_array();
    for (JobRecord* r : m_store.records_for_get(*job)) write_job_v38(out, *r, m_options.cluster);
    out.end_array();
    out.end_object();
    return json_reply(200, out.take());
  }

  JobRef ref = parse_job_ref_v4x(id_text, m_options.release);
  Diagnostics diag;
  JsonWriter out;
  out.begin_object();
  if (!ref.valid) {
    diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_job");
    write_errors_first(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kRestInvalidQuery), out.take());
  }
  for (auto& w : ref.warnings) diag.warn(w, "_handle_job_get");
  auto empty_answer = [&](int rc) {
    out.empty_array_field("jobs");
    out.key("last_backfill");
    write_no_val(out, 0);
    out.key("last_update");
    write_no_val(out, 0);
    diag.error(rc, "Unable to query JobId=" + id_text, "_handle_job_get");
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, rc), out.take());
  };
  if (!call.identity.token_ok) return empty_answer(err::kProtocolAuthentication);
  rpc(call, Rpc::job_info_single);
  JobRecord* job = ref.by_sluid ? m_store.find_sluid(ref.sluid) : m_store.find(ref.id);
  if (!job) return empty_answer(err::kInvalidJobId);
  out.key("jobs").begin_array();
  for (JobRecord* r : m_store.records_for_get(*job))
    write_job_v4x(out, *r, dialect, m_options.release, m_options.cluster);
  out.end_array();
  out.key("last_backfill");
  write_no_val(out, m_store.last_backfill());
  out.key("last_update");
  write_no_val(out, m_clock.now_s());
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::delete_job(Call& call, const std::string& id_text) {
  const Dialect dialect = call.ctx.dialect;
  int signal = kSigKill;
  Diagnostics notes;
  if (const std::string* s = call.target.param("signal")) {
    const QueryValue value = read_query_value(*s, dialect);
    const bool number = value.kind == QueryValue::Kind::number;
    const int parsed = static_cast<int>(
        std::clamp<long long>(number ? value.number : sig_name2num(*s, m_options.release), -1, kSigRtMax));
    if (is_v4x(dialect)) {
      // data_parser's SIGNAL parser notes an unknown name with error 0 (and a freed string,
      // hence "(null)") and leaves the signal 0, which _parse_job_delete makes SIGKILL: the
      // job is killed (measured on 26.05.3). A number is taken as it is; 0 is SIGKILL too.
      if (!number && parsed == 0) notes.error(0, "Unknown signal (null)", "#/signal/");
      if (parsed != 0) signal = parsed;
    } else if (value.kind != QueryValue::Kind::other) {
      // 22.05's _op_handler_job: a number as it is, a string through sig_name2num (0 when it
      // cannot read it), and 0 or a number from SIGRTMAX up is refused before any RPC. A
      // value of another type (null, boolean, fraction) leaves the default, SIGKILL.
      signal = parsed;
    }
    if (signal < 1 || signal >= kSigRtMax) {
      Diagnostics diag;
      diag.error(err::kRestInvalidQuery, "invalid signal: " + std::to_string(signal), "HTTP request: signal");
      JsonWriter out;
      out.begin_object();
      if (is_v4x(dialect)) {
        write_errors_first(out, call.ctx, diag);
      } else {
        write_tail(out, call.ctx, diag);
      }
      out.end_object();
      return json_reply(http_status_for_error(m_options.release, err::kRestInvalidQuery), out.take());
    }
  }

  return is_v4x(dialect) ? delete_job_v4x(call, id_text, signal, notes) : delete_job_v38(call, id_text, signal);
}

HttpReply SlurmApi::delete_job_v38(Call& call, const std::string& id_text, int signal) {
  Diagnostics diag;
  int rc = 0;
  std::uint32_t id = xlate_job_id_v38(id_text, m_store);
  rpc(call, Rpc::kill_job);
  JobRecord* job = id ? m_store.find(id) : nullptr;
  KillResult result =
      job ? m_store.kill(*job, signal, call.identity.uid, call.identity.privileged) : KillResult::not_found;
  switch (result) {
    case KillResult::signalled:
    case KillResult::already_done: break;  // 22.05 counts "already done" as success
    case KillResult::not_found: rc = err::kInvalidJobId; break;
    case KillResult::denied: rc = err::kAccessDenied; break;
    case KillResult::pending_het_component: rc = err::kNotWholeHetJob; break;
    case KillResult::not_running: rc = err::kTransitionStateNoUpdate; break;
  }
  if (rc) {
    diag.error(rc,
               "unable to kill JobId=" + id_text + " with signal " + std::to_string(signal) + ": " +
                   std::string(err::strerror(rc)),
               "slurm_kill_job");
  }
  JsonWriter out;
  out.begin_object();
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(http_status_for_error(m_options.release, rc), out.take());
}

HttpReply SlurmApi::delete_job_v4x(Call& call, const std::string& id_text, int signal, const Diagnostics& notes) {
  JobRef ref = parse_job_ref_v4x(id_text, m_options.release);
  Diagnostics diag = notes;
  JsonWriter out;
  out.begin_object();
  if (!ref.valid) {
    diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_job");
    write_errors_first(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kRestInvalidQuery), out.take());
  }
  if (!kill_jobs_rpc(m_options.release)) return delete_job_kill_job(call, ref.by_sluid ? nullptr : &ref.id, id_text, signal, diag);
  // 24.11's v0.0.40/41 parsers have no OPENAPI_KILL_JOB_RESP: it is an alias of OPENAPI_RESP.
  const bool with_status = dialect_number(call.ctx.dialect) >= 42;
  if (!call.identity.token_ok) {
    if (with_status) out.empty_array_field("status");
    diag.error(err::kProtocolAuthentication, "Signal request failed", "slurm_kill_jobs()");
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kProtocolAuthentication), out.take());
  }
  rpc(call, Rpc::kill_jobs);
  JobRecord* job = ref.by_sluid ? m_store.find_sluid(ref.sluid) : m_store.find(ref.id);
  KillResult result =
      job ? m_store.kill(*job, signal, call.identity.uid, call.identity.privileged) : KillResult::not_found;
  int code = 0;
  switch (result) {
    case KillResult::signalled: break;
    case KillResult::already_done: code = err::kAlreadyDone; break;
    case KillResult::not_found: code = err::kInvalidJobId; break;
    case KillResult::denied: code = err::kAccessDenied; break;
    case KillResult::pending_het_component: code = err::kNotWholeHetJob; break;
    case KillResult::not_running: code = err::kTransitionStateNoUpdate; break;
  }
  if (!with_status) {
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(200, out.take());
  }
  // Failures to signal come back per job in status[], with HTTP 200.
  out.key("status").begin_array();
  if (code) {
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
  out.end_array();
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::delete_job_kill_job(Call& call, const std::uint32_t* id, const std::string& id_text, int signal,
                                         Diagnostics diag) {
  // _handle_job_delete() at slurm-23-11-4-1 and slurm-24-05-8-1.
  int rc = 0;
  JobRecord* job = nullptr;
  if (!call.identity.token_ok) {
    rc = err::kProtocolAuthentication;
  } else {
    rpc(call, Rpc::kill_job);
    job = id ? m_store.find(*id) : nullptr;
    KillResult result =
        job ? m_store.kill(*job, signal, call.identity.uid, call.identity.privileged) : KillResult::not_found;
    switch (result) {
      case KillResult::signalled: break;
      case KillResult::already_done: rc = err::kAlreadyDone; break;
      case KillResult::not_found: rc = err::kInvalidJobId; break;
      case KillResult::denied: rc = err::kAccessDenied; break;
      case KillResult::pending_het_component: rc = err::kNotWholeHetJob; break;
      case KillResult::not_running: rc = err::kTransitionStateNoUpdate; break;
    }
  }
  const std::string name = signal_description(signal);
  if (rc == err::kAlreadyDone) {
    diag.warn("Job was already sent signal " + name, "_handle_job_delete");
    rc = 0;
  } else if (rc) {
    const std::uint32_t shown = id ? *id : 0;
    diag.error(rc, "unable to send signal " + name + " to JobId=" + std::to_string(shown), "slurm_kill_job2()");
  }
  (void)id_text;
  // Nothing is dumped: the wrapper adds errors, warnings and meta to an empty answer.
  JsonWriter out;
  out.begin_object();
  write_errors_first(out, call.ctx, diag);
  out.end_object();
  return json_reply(http_status_for_error(m_options.release, rc), out.take());
}

HttpReply SlurmApi::update_job(Call& call, const std::string& id_text) {
  ++m_stats.updates_received;
  return is_v4x(call.ctx.dialect) ? update_job_v4x(call, id_text) : update_job_v38(call, id_text);
}

int SlurmApi::apply_hold(Call& call, JobRecord& target, bool hold, bool each_component) {
  std::vector<JobRecord*> records{&target};
  if (each_component && target.is_het_leader()) records = m_store.het_group(target);
  int first = 0;
  for (JobRecord* record : records) {
    const int rc = m_store.set_hold(*record, hold, call.identity.uid, call.identity.privileged);
    if (rc && !first) first = rc;
  }
  return first;
}

HttpReply SlurmApi::update_job_v38(Call& call, const std::string& id_text) {
  const std::string client = call.request.client_source;
  UpdateParse parsed = parse_update(call.request.body, call.ctx.dialect, client);
  if (parsed.unparsable_body) return text_reply(400, "Unable to parse query.", true);
  Diagnostics diag = parsed.diag;
  int rc = 0;
  if (!parsed.refused) {
    // The path id goes to slurmctld as text (update_job_str()): "12", "12+1", anything else
    // is an invalid job id there, a SLUID included.
    rpc(call, Rpc::update_job);
    std::uint32_t id = xlate_job_id_v38(id_text, m_store);
    if (id_text.find('_') != std::string::npos) id = 0;  // arrays are not simulated
    JobRecord* job = id ? m_store.find(id) : nullptr;
    if (!job) {
      rc = err::kInvalidJobId;
    } else if (parsed.hold) {
      // A leader named by its plain id: update_job_str() updates each component.
      rc = apply_hold(call, *job, *parsed.hold, id_text.find('+') == std::string::npos);
    }
    if (rc) diag.error(rc, "job update from " + client + " failed", "_parse_job_list");
  }
  JsonWriter out;
  out.begin_object();
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(http_status_for_error(m_options.release, rc), out.take());
}

HttpReply SlurmApi::update_job_v4x(Call& call, const std::string& id_text) {
  JobRef ref = parse_job_ref_v4x(id_text, m_options.release);
  if (!ref.valid) {
    Diagnostics diag;
    diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_job");
    JsonWriter out;
    out.begin_object();
    write_errors_first(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kRestInvalidQuery), out.take());
  }
  UpdateParse parsed = parse_update(call.request.body, call.ctx.dialect, call.request.client_source);
  if (parsed.unparsable_body) return text_reply(400, "Unable to parse query.", true);
  Diagnostics diag = parsed.diag;
  int status = 200;
  if (!parsed.refused && id_text.find('_') != std::string::npos) {
    diag.error(err::kRestInvalidQuery,
               "Rejecting request. Submit job update against Array Job's JobID instead of array task id.",
               "_job_post_update");
    parsed.refused = true;
  }
  if (!parsed.refused) {
    if (id_text.find('.') != std::string::npos) {
      diag.warn(
          "Job step information ignored. Job update requests apply to whole job and can not be targeted to "
          "specific steps.",
          "_job_post_update");
    }
    int rc = 0;
    if (!call.identity.token_ok) {
      rc = err::kProtocolAuthentication;
      status = http_status_for_error(m_options.release, rc);
    } else {
      rpc(call, Rpc::update_job);
      // The handler copies only the numeric job id into the update: a SLUID in the path
      // reaches slurmctld as no job at all.
      JobRecord* job = ref.by_sluid ? nullptr : m_store.find(ref.id);
      if (!job) {
        rc = err::kInvalidJobId;
      } else if (parsed.hold) {
        rc = apply_hold(call, *job, *parsed.hold, false);
      }
    }
    if (rc) diag.error(rc, "Job update requested failed", "slurm_update_job2()");
  }
  // OPENAPI_JOB_POST_RESPONSE: `results` (null: slurmctld answered with a return code), then
  // the tail, whatever happened.
  JsonWriter out;
  out.begin_object();
  out.null_field("results");
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(status, out.take());
}

HttpReply SlurmApi::get_jobs(Call& call) {
  const Dialect dialect = call.ctx.dialect;
  std::int64_t update_time = 0;
  if (const std::string* t = call.target.param("update_time")) {
    auto parsed = parse_time_param(t, dialect);
    if (!parsed) {
      Diagnostics diag;
      time_refused(diag, dialect, "update_time", *t);
      diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_jobs");
      JsonWriter out;
      out.begin_object();
      if (is_v4x(dialect)) {
        write_errors_first(out, call.ctx, diag);
      } else {
        write_tail(out, call.ctx, diag);
      }
      out.end_object();
      return json_reply(time_refused_status(m_options.release), out.take());
    }
    update_time = *parsed;
  }
  if (call.identity.token_ok) rpc(call, Rpc::job_info);
  // slurmctld: nothing changed when (update_time - 1) >= last_job_update.
  const bool unchanged = update_time > 0 && update_time - 1 >= m_store.last_job_update();
  if (!is_v4x(dialect)) {
    if (unchanged) {
      HttpReply reply;
      reply.status = 304;
      reply.content_type.clear();
      return reply;
    }
    JsonWriter out;
    out.begin_object();
    write_tail(out, call.ctx, Diagnostics{});
    out.key("jobs").begin_array();
    for (const auto& [id, job] : m_store.controller_jobs()) write_job_v38(out, *job, m_options.cluster);
    out.end_array();
    out.end_object();
    return json_reply(200, out.take());
  }
  Diagnostics diag;
  JsonWriter out;
  out.begin_object();
  if (!call.identity.token_ok || unchanged) {
    out.empty_array_field("jobs");
    out.key("last_backfill");
    write_no_val(out, 0);
    out.key("last_update");
    write_no_val(out, 0);
    int status = 200;
    if (!call.identity.token_ok) {
      diag.error(err::kProtocolAuthentication, "Unable to query jobs", "slurm_load_jobs()");
      status = http_status_for_error(m_options.release, err::kProtocolAuthentication);
    } else {
      diag.warn("No job changes since update_time[" + std::to_string(update_time) + "]=" + iso_time(update_time),
                "op_handler_jobs");
    }
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(status, out.take());
  }
  out.key("jobs").begin_array();
  for (const auto& [id, job] : m_store.controller_jobs()) {
    write_job_v4x(out, *job, dialect, m_options.release, m_options.cluster);
  }
  out.end_array();
  out.key("last_backfill");
  write_no_val(out, m_store.last_backfill());
  out.key("last_update");
  write_no_val(out, m_clock.now_s());
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::jobs_state(Call& call) {
  Diagnostics diag;
  JsonWriter out;
  out.begin_object();
  if (!call.identity.token_ok) {
    out.empty_array_field("jobs");
    diag.error(err::kProtocolAuthentication, "Unable to query jobs", "slurm_load_jobs_state()");
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kProtocolAuthentication), out.take());
  }
  std::vector<const JobRecord*> entries;
  auto add_all = [&]() {
    for (const auto& [id, job] : m_store.controller_jobs()) entries.push_back(job.get());
  };
  const std::vector<std::string> ids = call.target.params("job_id");
  if (ids.empty()) add_all();
  for (const std::string& value : ids) {
    if (!value.empty() && (value[0] == 's' || value[0] == 'S')) {
      // A SLUID does not filter jobs/state: each one brings back every job.
      add_all();
      continue;
    }
    if (!all_digits(value)) {
      diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_jobs_state");
      JsonWriter fail;
      fail.begin_object();
      write_errors_first(fail, call.ctx, diag);
      fail.end_object();
      return json_reply(http_status_for_error(m_options.release, err::kRestInvalidQuery), fail.take());
    }
    JobRecord* job = m_store.find(static_cast<std::uint32_t>(to_u64(value)));
    if (!job) continue;
    for (JobRecord* r : m_store.records_for_get(*job)) entries.push_back(r);
  }
  rpc(call, Rpc::job_state);
  out.key("jobs").begin_array();
  for (const JobRecord* job : entries) {
    out.begin_object();
    std::string id = std::to_string(job->job_id);
    if (job->is_het()) id += "+" + std::to_string(job->het_job_offset);
    out.str_field("job_id", id);
    out.string_array_field("state", state_array(job->state, job->flags, call.ctx.dialect));
    out.end_object();
  }
  out.end_array();
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::partitions(Call& call, const std::string* name) {
  const Dialect dialect = call.ctx.dialect;
  const auto& cluster = m_options.cluster;
  Diagnostics diag;
  int rc = 0;
  if (call.identity.token_ok) rpc(call, Rpc::partition_info);
  if (!call.identity.token_ok) {
    rc = err::kProtocolAuthentication;
    diag.error(rc, "Unable to query partitions", "slurm_load_partitions()");
  } else if (name && !cluster.has_partition(*name)) {
    rc = err::kInvalidPartitionName;
    diag.error(rc, "Unable to find partition " + *name, "_op_handler_partitions");
  }
  JsonWriter out;
  out.begin_object();
  auto list = [&]() {
    out.key("partitions").begin_array();
    if (!rc) {
      for (const auto& p : cluster.partitions) {
        if (!name || p == *name) write_partition(out, p, dialect, cluster);
      }
    }
    out.end_array();
  };
  if (is_v4x(dialect)) {
    list();
    out.key("last_update");
    write_no_val(out, rc ? 0 : m_clock.now_s());
    write_tail(out, call.ctx, diag);
  } else {
    write_tail(out, call.ctx, diag);
    list();
  }
  out.end_object();
  return json_reply(http_status_for_error(m_options.release, rc), out.take());
}

HttpReply SlurmApi::dbd_unavailable(Call& call, const std::string& description, int status_override,
                                     const char* source) {
  Diagnostics diag;
  diag.error(err::kDbConnection, description, source);
  JsonWriter out;
  out.begin_object();
  if (is_v4x(call.ctx.dialect)) {
    write_errors_first(out, call.ctx, diag);
  } else {
    write_tail(out, call.ctx, diag);
  }
  out.end_object();
  int status = status_override ? status_override : http_status_for_error(m_options.release, err::kDbConnection);
  return json_reply(status, out.take());
}

std::optional<HttpReply> SlurmApi::dbd_query_times(Call& call, Diagnostics& diag,
                                                   std::optional<std::int64_t>& start_time,
                                                   std::optional<std::int64_t>& end_time,
                                                   std::optional<std::int64_t>& submit_time) {
  const Dialect dialect = call.ctx.dialect;
  static const std::set<std::string> kKnownV38 = {"account",    "association", "cluster",     "constraints",
                                                  "format",     "groups",      "job_name",    "partition",
                                                  "qos",        "reason",      "reservation", "state",
                                                  "wckey",      "cpus_min",    "cpus_max",    "exit_code",
                                                  "nodes_min",  "nodes_max",   "skip_steps",  "disable_wait_for_result",
                                                  "start_time", "end_time",    "submit_time", "node",
                                                  "step",       "users"};
  for (const auto& [key, value] : call.target.query) {
    if (!is_v4x(dialect) && !kKnownV38.count(key)) {
      diag.error(err::kRestFailParsing, "Unknown query key \"" + key + "\"", "_parse_job_cond");
      JsonWriter out;
      out.begin_object();
      write_tail(out, call.ctx, diag);
      out.end_object();
      return json_reply(http_status_for_error(m_options.release, err::kRestFailParsing), out.take());
    }
  }
  if (is_v4x(dialect)) {
    auto time_param = [&](const char* key, std::optional<std::int64_t>& out) -> bool {
      const std::string* v = call.target.param(key);
      if (!v) return true;
      out = parse_time_param(v, dialect);
      if (!out) time_refused(diag, dialect, key, *v);
      return out.has_value();
    };
    if (!time_param("start_time", start_time) || !time_param("end_time", end_time) ||
        !time_param("submit_time", submit_time)) {
      diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_jobs");
      JsonWriter out;
      out.begin_object();
      write_errors_first(out, call.ctx, diag);
      out.end_object();
      return json_reply(time_refused_status(m_options.release), out.take());
    }
    return std::nullopt;
  }
  return dbd_times_v38(call, start_time, end_time, submit_time);
}

std::optional<HttpReply> SlurmApi::dbd_refusal(Call& call) {
  const std::int64_t now_ms = m_clock.now_ms();
  // Before 24.11 the wrapper words it its own way (openapi.c at slurm-24-05-8-1).
  const bool old_wrapper = !kill_jobs_rpc(m_options.release) && m_options.release != Release::r22_05_8;
  if (const FaultRule* outage = m_faults.accounting_outage(now_ms, call.request.method, call.target.path)) {
    ++m_stats.faults_by_kind["accounting_outage"];
    if (old_wrapper) return dbd_unavailable(call, kOldDbConnFailure, outage->status, "wrap_openapi_ctxt_callback");
    return dbd_unavailable(call, "Failed to open slurmdbd connection", outage->status);
  }
  if (!call.identity.token_ok) {
    if (old_wrapper) return dbd_unavailable(call, kOldDbConnFailure, 0, "wrap_openapi_ctxt_callback");
    return dbd_unavailable(call, "Failed to open slurmdbd connection, authentication error", 0);
  }
  return std::nullopt;
}

HttpReply SlurmApi::dbd_jobs(Call& call) {
  const Dialect dialect = call.ctx.dialect;
  if (auto refused = dbd_refusal(call)) return std::move(*refused);
  Diagnostics diag;
  DbdFilter filter;
  if (auto refused = dbd_query_times(call, diag, filter.start_time, filter.end_time, filter.submit_time)) {
    return std::move(*refused);
  }
  const std::string* names = call.target.param("job_name");
  const std::string* steps = call.target.param("step");
  filter.steps = steps != nullptr;
  filter.states = csv_set(call.target.param("state"));
  filter.users = csv_set(call.target.param("users"));
  filter.partitions = csv_set(call.target.param("partition"));
  filter.set_window(m_clock.now_s(), call.target.param("state") != nullptr);

  std::vector<JobStore::JobPtr> candidates = dbd_candidates(m_store, names, steps, dialect);
  std::vector<const JobRecord*> matched;
  for (const auto& job : candidates) {
    if (filter.matches(*job)) matched.push_back(job.get());
  }
  return dbd_answer(call, matched, diag, "op_handler_jobs");
}

HttpReply SlurmApi::dbd_answer(Call& call, std::vector<const JobRecord*> jobs, Diagnostics& diag,
                               const char* handler) {
  const Dialect dialect = call.ctx.dialect;
  const std::int64_t now_s = m_clock.now_s();
  // Records that changed since an accounting lag began are still in slurmctld's DBD agent
  // queue: slurmdbd has not received them.
  if (auto since = m_faults.accounting_lag_since(m_clock.now_ms())) {
    std::erase_if(jobs, [&](const JobRecord* job) { return job->phase_since_ms >= *since; });
  }
  JsonWriter out;
  out.begin_object();
  if (!is_v4x(dialect)) {
    // db_query_list()@22.05 reports an empty result as error 9003, yet the handler still
    // succeeds: HTTP 200, meta and errors first, then the (empty) list.
    if (jobs.empty()) diag.error(err::kRestEmptyResult, "Nothing found", "slurmdb_jobs_get");
    write_tail(out, call.ctx, diag);
  }
  out.key("jobs").begin_array();
  for (const JobRecord* job : jobs) write_dbd_job(out, *job, dialect, m_options.cluster, now_s);
  out.end_array();
  if (is_v4x(dialect)) {
    if (jobs.empty()) diag.warn("slurmdb_jobs_get(0x1) found nothing", handler);
    write_tail(out, call.ctx, diag);
  }
  out.end_object();
  return json_reply(200, out.take());
}

std::optional<HttpReply> SlurmApi::dbd_times_v38(Call& call, std::optional<std::int64_t>& start_time,
                                                 std::optional<std::int64_t>& end_time,
                                                 std::optional<std::int64_t>& submit_time) {
  // _foreach_query_search()@22.05 walks the query in order and stops at the first bad
  // time; the handler then returns SLURM_ERROR, which 22.05 answers with HTTP 500.
  auto refuse = [&](const std::string& description, const std::string& key) {
    Diagnostics diag;
    diag.error(err::kRestInvalidQuery, description, key);
    JsonWriter out;
    out.begin_object();
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kUnspecified), out.take());
  };
  for (const auto& [key, value] : call.target.query) {
    const bool start = key == "start_time";
    const bool submit = key == "submit_time";
    if (!start && !submit && key != "end_time") continue;
    if ((start && submit_time) || (submit && start_time)) {
      return refuse("start_time and submit_time are mutually exclusive", key);
    }
    std::optional<std::int64_t> parsed = parse_slurm_time(value);
    if (!parsed) return refuse("Unable to parse time format", key);
    (start ? start_time : submit ? submit_time : end_time) = parsed;
  }
  return std::nullopt;
}

HttpReply SlurmApi::dbd_job(Call& call, const std::string& id_text) {
  const Dialect dialect = call.ctx.dialect;
  if (auto refused = dbd_refusal(call)) return std::move(*refused);
  std::vector<JobStore::JobPtr> found;
  if (!id_text.empty() && id_text[0] == 's' && dialect == Dialect::v0045) {
    if (auto sluid = parse_sluid(id_text)) {
      for (const auto& job : m_store.accounting()) {
        if (job->sluid == *sluid || job->original_sluid == *sluid) found.push_back(job);
      }
    }
  } else if (all_digits(id_text)) {
    found = m_store.accounting_by_id(static_cast<std::uint32_t>(to_u64(id_text)));
  } else {
    Diagnostics diag;
    diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_job");
    JsonWriter out;
    out.begin_object();
    write_errors_first(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kRestInvalidQuery), out.take());
  }
  // A het component brings its whole het job, as slurmdbd's job/{id} does.
  std::vector<JobStore::JobPtr> expanded;
  for (const auto& job : found) {
    if (!job->is_het()) {
      expanded.push_back(job);
      continue;
    }
    for (std::uint32_t k = 0; k < job->het_size; ++k) {
      for (const auto& member : m_store.accounting_by_id(job->het_job_id + k)) {
        if (member->het_job_id == job->het_job_id && member->submit_time == job->submit_time) {
          expanded.push_back(member);
        }
      }
    }
  }
  std::sort(expanded.begin(), expanded.end());
  expanded.erase(std::unique(expanded.begin(), expanded.end()), expanded.end());
  std::sort(expanded.begin(), expanded.end(),
            [](const JobStore::JobPtr& a, const JobStore::JobPtr& b) { return a->created_seq < b->created_seq; });
  Diagnostics diag;
  std::vector<const JobRecord*> records;
  for (const auto& job : expanded) records.push_back(job.get());
  return dbd_answer(call, records, diag, "op_handler_job");
}

}  // namespace tpslurm::sim
