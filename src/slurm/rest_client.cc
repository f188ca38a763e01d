#include "slurm/rest_client.h"

#include <algorithm>

#include "slurm/signal_names.h"
#include "slurm/tag_search.h"

namespace tpslurm::slurm {
namespace {

// ESLURM_REST_EMPTY_RESULT: slurmdbd found nothing (22.05 answers it with HTTP 500).
constexpr int kNothingFound = 9003;

}  // namespace

const SystemClock RestClient::kSystemClock;

Result<std::unique_ptr<RestClient>> RestClient::create(Transport& transport, TokenSource& tokens,
                                                       std::string api_version, RestClientOptions options) {
  if (api_version != "auto" && make_dialect(api_version) == nullptr) {
    return invalid_argument("TUNEPLANE_SLURM_REST_API_VERSION \"" + api_version + "\": this build speaks " +
                            supported_dialects_text() + " (or auto)");
  }
  if (auto checked = options.bulk.check(); !checked.ok()) return checked.error();
  return std::unique_ptr<RestClient>(new RestClient(transport, tokens, std::move(api_version), options));
}

RestClient::RestClient(Transport& transport, TokenSource& tokens, std::string api_version, RestClientOptions options)
    : m_api_version(std::move(api_version)),
      m_options(options),
      m_caller(transport, tokens, options.clock != nullptr ? *options.clock : kSystemClock, options.budget),
      m_server_clock(options.clock != nullptr ? *options.clock : kSystemClock),
      m_listing(options.request_timeout, options.listing_time_per_job) {
  // A configured version needs no probing before the first call: until an answer's meta names
  // the release (serve's detect() at start does), the codec follows the rules of the oldest
  // release serving the version, the most careful ones, and dialect() rebuilds it then.
  if (m_api_version != "auto") m_dialect = make_dialect(m_api_version);
}

IdPolicy RestClient::policy(std::string_view dialect) {
  // An unknown release gets the most conservative policy: job id and tag.
  const auto release = m_caller.release();
  return release ? id_policy(*release, dialect) : IdPolicy{};
}

std::shared_ptr<const Dialect> RestClient::dialect(CallResult& failure) {
  {
    std::lock_guard lock(m_mutex);
    if (m_dialect) {
      // An upgraded (or downgraded) server keeps the version but may change the release's
      // rules: every answer's meta says which release answered.
      if (const auto release = m_caller.release(); release && release != m_dialect_release) {
        m_dialect = make_dialect(m_dialect->version(), release);
        m_dialect_release = release;
      }
      return m_dialect;
    }
  }
  ServerResult detected = detect();
  if (!detected.ok()) {
    failure = static_cast<CallResult&>(detected);
    return nullptr;
  }
  std::lock_guard lock(m_mutex);
  return m_dialect;
}

ServerResult RestClient::detect() {
  ServerResult result;
  std::string release;
  for (std::string_view version : supported_dialects()) {
    const auto probe = make_dialect(version);
    RestCaller::Sent sent = m_caller.send(HttpMethod::get, probe->ping_path());
    if (m_caller.refused(result, sent, version)) return result;
    if (sent.exchange.delivery != Delivery::answered) {
      const Classification failed = classify_read(sent.exchange, {});
      m_caller.record(sent, failed.outcome);
      m_caller.fill(result, sent, failed, nullptr, version);
      return result;
    }
    m_caller.record(sent, sent.exchange.response.status >= 500 ? Outcome::uncertain : Outcome::ok);
    // A version the server does not serve answers 404; anything else (even an auth error)
    // proves the version is there.
    if (sent.exchange.response.status == 404) continue;
    result.offered.emplace_back(version);
    if (auto base = probe->decode_base(sent.exchange.response.body); base.ok() && release.empty()) {
      release = base->release;
    }
  }
  result.release = release;
  result.server_release = SlurmRelease::parse(release);
  if (result.server_release) m_caller.remember_release(release);

  std::string chosen;
  if (m_api_version == "auto") {
    if (!result.offered.empty()) chosen = result.offered.front();
  } else if (std::find(result.offered.begin(), result.offered.end(), m_api_version) != result.offered.end()) {
    chosen = m_api_version;
  }
  if (chosen.empty()) {
    result.outcome = Outcome::rejected;
    result.message = no_common_dialect(result, release);
    return result;
  }
  result.outcome = Outcome::ok;
  result.dialect = chosen;
  if (result.server_release) result.policy = id_policy(*result.server_release, chosen);
  std::lock_guard lock(m_mutex);
  m_dialect = make_dialect(chosen, result.server_release);
  m_dialect_release = result.server_release;
  return result;
}

std::string RestClient::no_common_dialect(const ServerResult& probed, const std::string& release) {
  const std::string where =
      "slurmrestd at " + m_caller.endpoint() + " (release " + (release.empty() ? "unknown" : release) + ")";
  if (!probed.offered.empty()) {
    return where + " offers " + join_versions(probed.offered) + ", not the configured " + m_api_version +
           ": set TUNEPLANE_SLURM_REST_API_VERSION to auto or to one of those";
  }
  // None of ours answered: its OpenAPI document names what it serves instead.
  RestCaller::Sent sent = m_caller.send(HttpMethod::get, "/openapi/v3");
  const std::vector<std::string> served =
      sent.exchange.delivery == Delivery::answered && sent.exchange.response.status == 200
          ? versions_in_openapi(sent.exchange.response.body)
          : std::vector<std::string>{};
  return where + " serves " + (served.empty() ? "no REST version this build could name" : join_versions(served)) +
         "; this build speaks " + supported_dialects_text() + " (Slurm 22.05 to 26.05). " + advice_for_versions(served);
}

CallResult RestClient::preflight(const std::string& as_user) {
  CallResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  RestCaller::Sent sent =
      m_caller.send(HttpMethod::get, codec->preflight_path(), {}, Reuse::allowed, std::nullopt, {}, as_user);
  if (m_caller.refused(result, sent, codec->version())) return result;
  m_caller.read(result, sent, *codec, &Dialect::decode_base);
  return result;
}

SubmitResult RestClient::submit(const model::SubmitDescription& description, Reservation reserved) {
  SubmitResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  auto body = codec->encode_submit(description);
  if (!body.ok()) {
    result.outcome = Outcome::rejected;
    result.dialect = std::string(codec->version());
    result.message = "POST " + codec->submit_path() + ": not sent: " + body.error().message();
    return result;
  }
  RestCaller::Sent sent = m_caller.send(HttpMethod::post, codec->submit_path(), std::move(body).value(),
                                        Reuse::forbidden, std::nullopt, std::move(reserved), description.unix_user);
  sent.one_job_kind = "submit";
  if (m_caller.refused(result, sent, codec->version())) return result;
  DecodedFacts facts;
  std::optional<SubmitReply> reply;
  if (sent.exchange.delivery == Delivery::answered) {
    if (auto decoded = codec->decode_submit(sent.exchange.response.body); decoded.ok()) {
      reply = std::move(decoded).value();
      facts = {true, reply->job_id.has_value(), reply->errors, reply->job_id_problem};
    }
  }
  const Classification classification = classify_submit(sent.exchange, facts);
  m_caller.record(sent, classification.outcome);
  m_caller.fill(result, sent, classification, reply ? &*reply : nullptr, codec->version());
  if (reply) {
    m_caller.remember_release(reply->release);
    if (result.ok()) {
      result.job_id = reply->job_id;
      result.user_message = reply->user_message;
    }
  }
  return result;
}

std::optional<std::string> RestClient::job_id_text(const JobRef& job, CallResult& failure) {
  const IdPolicy rules = policy(failure.dialect);
  if (!job.sluid.empty() && rules.sluid_in_paths) return job.sluid;
  if (job.job_id > 0) return std::to_string(job.job_id);
  failure.outcome = Outcome::rejected;
  failure.message = job.sluid.empty() ? "no job id given"
                                      : "job " + job.sluid + ": this server does not accept SLUIDs in paths (" +
                                            rules.describe() + "); use the numeric job id";
  return std::nullopt;
}

JobsResult RestClient::get_job(const JobRef& job) {
  JobsResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  result.dialect = std::string(codec->version());
  auto id = job_id_text(job, result);
  if (!id) return result;
  std::unique_ptr<JobsDecoder> decoder = codec->jobs_decoder(RecordSource::slurmctld);
  RestCaller::Sent sent = m_caller.send_listing(codec->job_path(*id), *decoder, std::nullopt, job.unix_user);
  sent.one_job_kind = "read";
  if (m_caller.refused(result, sent, codec->version())) return result;
  auto reply = m_caller.read(result, sent, *codec, *decoder);
  if (reply && result.ok()) result.jobs = std::move(reply->jobs);
  return result;
}

JobsResult RestClient::jobs_changed_since(std::optional<TimePoint> since) {
  JobsResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  std::optional<std::int64_t> seconds;
  if (since) seconds = unix_seconds(*since);
  std::unique_ptr<JobsDecoder> decoder = codec->jobs_decoder(RecordSource::slurmctld);
  RestCaller::Sent sent = m_caller.send_listing(codec->jobs_path(seconds), *decoder);
  if (m_caller.refused(result, sent, codec->version())) return result;
  auto reply = m_caller.read(result, sent, *codec, *decoder);
  if (result.ok()) {
    result.unchanged = codec->unchanged(sent.exchange.response.status, reply ? &*reply : nullptr);
    if (result.unchanged) result.message.clear();
    if (reply) result.jobs = std::move(reply->jobs);
  }
  return result;
}

CancelResult RestClient::cancel(const JobRef& job, std::string_view signal) {
  CancelResult result;
  if (!signal.empty() && !is_sendable_signal(signal)) {
    result.outcome = Outcome::rejected;
    const std::string id = !job.sluid.empty() ? job.sluid : std::to_string(job.job_id);
    result.message = "cancel job " + id + ": not sent: " + unsendable_signal_message(signal);
    return result;
  }
  auto codec = dialect(result);
  if (!codec) return result;
  result.dialect = std::string(codec->version());
  auto id = job_id_text(job, result);
  if (!id) return result;
  if (*id == std::to_string(job.job_id)) {
    const std::string request = "DELETE " + codec->cancel_path(*id, {});
    if (auto check = check_identity(*codec, job, request, "cancelled", false); check.refused) {
      static_cast<CallResult&>(result) = *check.refused;
      return result;
    }
  }
  RestCaller::Sent sent = m_caller.send(HttpMethod::del, codec->cancel_path(*id, signal), {}, Reuse::allowed,
                                        std::nullopt, {}, job.unix_user);
  sent.one_job_kind = "cancel";
  if (m_caller.refused(result, sent, codec->version())) return result;
  auto reply = m_caller.read(result, sent, *codec, &Dialect::decode_cancel);
  if (!reply || result.outcome == Outcome::auth) return result;
  const Classification classification = cancel_classification(*reply, signal, result);
  m_caller.fill(result, sent, classification, &*reply, codec->version());
  return result;
}

Classification RestClient::cancel_classification(const CancelReply& reply, std::string_view signal,
                                                 CancelResult& result) {
  switch (reply.status) {
    case CancelStatus::signalled: break;
    case CancelStatus::already_done: result.already_done = true; break;
    case CancelStatus::not_found: return {Outcome::not_found, join_texts(reply.refusals)};
    case CancelStatus::not_running:
      if (!is_kill_signal(signal)) {
        result.not_running = true;
        return {Outcome::rejected_transient,
                "not signalled: Slurm signals only running jobs, and this one is pending (or suspended): " +
                    join_texts(reply.refusals)};
      }
      [[fallthrough]];
    case CancelStatus::refused:
      return {Outcome::rejected_transient, "not signalled: " + join_texts(reply.refusals)};
  }
  return {Outcome::ok, {}};
}

RestClient::IdentityCheck RestClient::check_identity(const Dialect& codec, const JobRef& job,
                                                     const std::string& request, std::string_view verb,
                                                     bool read_anyway) {
  IdentityCheck check;
  // Records of REST versions before v0.0.44 carry no SLUID to compare with.
  const bool sluid_readable = records_carry_sluid(codec.version());
  const bool identity_known = job.tag || (!job.sluid.empty() && sluid_readable);
  if (!identity_known && !read_anyway) return check;
  const JobsResult read = get_job({job.job_id, "", std::nullopt, job.unix_user});
  check.records = read.jobs;
  if (!read.ok()) {
    CallResult refused = read;
    refused.message = "not " + std::string(verb) + ": " + read.message;
    check.refused = std::move(refused);
    return check;
  }
  if (!identity_known) return check;
  // The read taught the release, which says whether this server's records have SLUIDs.
  const bool check_sluid = !job.sluid.empty() && policy(codec.version()).records_have_sluid;
  const auto record = std::find_if(read.jobs.begin(), read.jobs.end(),
                                   [&](const model::JobSnapshot& snapshot) { return snapshot.job_id == job.job_id; });
  std::string why;
  // Whatever else differs, a record without the tag is not the job asked for: it is another's.
  const bool another_job = record != read.jobs.end() && job.tag && !job.tag->identifies(record->tag());
  if (record == read.jobs.end()) {
    why = "the answer has no record for it";
  } else if (check_sluid && record->sluid != job.sluid) {
    why = "it now carries SLUID " + (record->sluid.empty() ? std::string("(none)") : record->sluid) + ", not " +
          job.sluid + " (a reused id or a requeued job)";
  } else if (another_job) {
    why = "its name, comment and working directory (\"" + record->name + "\", \"" + record->comment + "\", \"" +
          record->working_directory + "\") do not carry the tag (a reused id)";
  }
  if (why.empty()) return check;
  CallResult refused = read;
  refused.outcome = Outcome::rejected;
  refused.another_job = another_job;
  refused.message = request + ": not sent: job " + std::to_string(job.job_id) + " is not the job asked for: " + why;
  check.refused = std::move(refused);
  return check;
}

ReleaseResult RestClient::release_hold(const JobRef& job, std::span<const model::JobSnapshot> checked) {
  ReleaseResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  result.dialect = std::string(codec->version());
  if (job.job_id == 0) {
    result.outcome = Outcome::rejected;
    result.message = "release hold: no numeric job id given; job update does not take SLUIDs";
    return result;
  }
  const std::string request = "POST " + codec->update_path(job.job_id);
  // v0.0.4x releases only the record addressed: the read names the components.
  const bool per_component = codec->updates_per_component();
  IdentityCheck check;
  std::span<const model::JobSnapshot> records = checked;
  if (checked.empty()) {
    check = check_identity(*codec, job, request, "released", per_component);
    if (check.refused) {
      static_cast<CallResult&>(result) = *check.refused;
      return result;
    }
    records = check.records;
  }
  std::vector<std::uint32_t> targets;
  if (per_component) {
    for (const auto& record : records) {
      if (record.het_job_id == job.job_id && record.job_id != job.job_id) targets.push_back(record.job_id);
    }
    std::sort(targets.begin(), targets.end());
  }
  targets.push_back(job.job_id);
  bool all_ended = true;
  for (std::uint32_t id : targets) {
    result = post_release(*codec, id, job.unix_user);
    if (!result.ok()) return result;
    all_ended = all_ended && result.already_ended;
  }
  result.already_ended = all_ended;
  return result;
}

ReleaseResult RestClient::post_release(const Dialect& codec, std::uint32_t job_id, std::string_view as_user) {
  ReleaseResult result;
  RestCaller::Sent sent = m_caller.send(HttpMethod::post, codec.update_path(job_id), codec.hold_release_body(),
                                        Reuse::allowed, std::nullopt, {}, as_user);
  sent.one_job_kind = "release";
  if (m_caller.refused(result, sent, codec.version())) return result;
  DecodedFacts facts;
  std::optional<ReplyBase> reply;
  if (sent.exchange.delivery == Delivery::answered) {
    if (auto decoded = codec.decode_base(sent.exchange.response.body); decoded.ok()) {
      reply = std::move(decoded).value();
      facts = {true, false, reply->errors, {}};
    }
  }
  const Classification classification = classify_update(sent.exchange, facts);
  m_caller.record(sent, classification.outcome);
  m_caller.fill(result, sent, classification, reply ? &*reply : nullptr, codec.version());
  if (reply) m_caller.remember_release(reply->release);
  // 2084 alone: 22.05's note on an array's update (outcome.h) is no "already ended".
  result.already_ended = result.ok() && !facts.errors.empty() &&
                         std::all_of(facts.errors.begin(), facts.errors.end(),
                                     [](const SlurmMessage& e) { return e.number == kJobFinishedError; });
  return result;
}

PingResult RestClient::ping() {
  PingResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  RestCaller::Sent sent = m_caller.send(HttpMethod::get, codec->ping_path());
  if (m_caller.refused(result, sent, codec->version())) return result;
  if (auto reply = m_caller.read(result, sent, *codec, &Dialect::decode_ping)) {
    result.responding = reply->responding;
    result.status = reply->status;
  }
  return result;
}

DiagResult RestClient::diag() {
  DiagResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  RestCaller::Sent sent = m_caller.send(HttpMethod::get, codec->diag_path());
  if (m_caller.refused(result, sent, codec->version())) return result;
  if (auto reply = m_caller.read(result, sent, *codec, &Dialect::decode_diag)) {
    result.dbd_agent_queue_size = reply->dbd_agent_queue_size;
  }
  return result;
}

AccountingResult RestClient::accounting() {
  AccountingResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  // A name no job carries, from now on: slurmdbd answers with nothing, quickly.
  const std::string target = codec->db_jobs_path("tp-accounting-probe", unix_seconds(m_caller.clock().now()));
  const RecordsCall answer = read_records(m_caller, *codec, target, RecordSource::slurmdbd);
  static_cast<CallResult&>(result) = answer.call;
  if (slurmdbd_not_served(answer.call)) {
    result.outcome = Outcome::ok;
    result.message = "slurmrestd serves no slurmdbd endpoints (HTTP 404)";
    return result;
  }
  result.present = result.ok();
  return result;
}

AssociationsResult RestClient::associations(const std::string& user) {
  AssociationsResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  RestCaller::Sent sent =
      m_caller.send(HttpMethod::get, codec->associations_path(user), {}, Reuse::allowed, std::nullopt, {}, user);
  if (m_caller.refused(result, sent, codec->version())) return result;
  auto reply = m_caller.read(result, sent, *codec, &Dialect::decode_associations);
  if (slurmdbd_not_served(result)) {
    result.outcome = Outcome::ok;
    result.accounting_off = true;
    result.message = "slurmrestd serves no slurmdbd endpoints (HTTP 404)";
    return result;
  }
  const bool nothing_found = reply && reply->associations.empty() &&
                             std::any_of(result.errors.begin(), result.errors.end(),
                                         [](const SlurmMessage& e) { return e.number == kNothingFound; });
  if (nothing_found) {
    result.outcome = Outcome::ok;
    result.message.clear();
    result.errors.clear();
  }
  if (result.ok() && reply) result.associations = std::move(reply->associations);
  return result;
}

UsageResult RestClient::job_usage(const model::JobTag& tag, TimePoint since, const std::string& as_user) {
  UsageResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  refresh_server_clock(*codec);
  const std::string target = codec->db_jobs_path(tag.name, unix_seconds(slurmdbd_window(since, m_server_clock).start));
  RecordsCall answer = read_records(m_caller, *codec, target, RecordSource::slurmdbd, std::nullopt, as_user);
  static_cast<CallResult&>(result) = answer.call;
  if (slurmdbd_not_served(answer.call)) {
    result.outcome = Outcome::ok;
    result.accounting_off = true;
    result.message = "slurmrestd serves no slurmdbd endpoints (HTTP 404)";
    return result;
  }
  if (!result.ok() || !answer.reply) return result;
  for (auto& record : answer.reply->jobs) {
    if (tag.identifies(record.tag())) result.records.push_back(std::move(record));
  }
  return result;
}

PartitionsResult RestClient::partitions() {
  PartitionsResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  RestCaller::Sent sent = m_caller.send(HttpMethod::get, codec->partitions_path());
  if (m_caller.refused(result, sent, codec->version())) return result;
  auto reply = m_caller.read(result, sent, *codec, &Dialect::decode_partitions);
  if (reply && result.ok()) result.names = std::move(reply->names);
  return result;
}

NodesResult RestClient::nodes() {
  NodesResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  RestCaller::Sent sent = m_caller.send(HttpMethod::get, codec->nodes_path());
  if (m_caller.refused(result, sent, codec->version())) return result;
  auto reply = m_caller.read(result, sent, *codec, &Dialect::decode_nodes);
  if (reply && result.ok()) result.nodes = std::move(reply->nodes);
  return result;
}

std::string RestClient::refresh_server_clock(const Dialect& codec) {
  const TimePoint now = m_caller.clock().now();
  if (auto at = m_server_clock.observed_at(); at && now - *at < m_options.server_clock_max_age) return {};
  // A second try when the first was sent and failed: without a reading, 22.05's next poll
  // lists every job, which costs far more than one more diag.
  std::string note;
  for (int attempt = 0; attempt < 2; ++attempt) {
    RestCaller::Sent sent = m_caller.send(HttpMethod::get, codec.diag_path());
    CallResult result;
    if (m_caller.refused(result, sent, codec.version())) return result.message;
    auto reply = m_caller.read(result, sent, codec, &Dialect::decode_diag);
    if (result.ok() && reply && reply->request_time) {
      m_server_clock.observe(*reply->request_time, sent.received_at);
      return {};
    }
    note = result.ok() ? sent.label + ": no statistics.req_time in the answer" : result.message;
  }
  return note;
}

BulkStateResult RestClient::bulk_state(std::span<const std::uint32_t> ids, std::optional<TimePoint> since) {
  BulkStateResult failure;
  auto codec = dialect(failure);
  if (!codec) {
    failure.unanswered = normalize_ids(ids);
    return failure;
  }
  if (codec->has_jobs_state()) return poll_jobs_state(m_caller, *codec, ids, m_options.bulk);
  // A failed clock reading only costs the next poll its baseline (next_since stays empty).
  std::string clock_note = refresh_server_clock(*codec);
  BulkStateResult result = poll_update_time(m_caller, *codec, ids, since, m_server_clock);
  if (!result.next_since) result.clock_note = std::move(clock_note);
  return result;
}

SearchResult RestClient::find_jobs_by_tag(const model::JobTag& tag, TimePoint intent_time, const std::string& as_user) {
  SearchOptions options;
  options.full = true;
  options.as_user = as_user;
  BatchSearchResult batch = find_jobs_by_tags(std::span<const model::JobTag>(&tag, 1), intent_time, options);
  if (batch.searches.empty()) {
    SearchResult failure;
    static_cast<CallResult&>(failure) = batch;
    return failure;
  }
  return std::move(batch.searches.front());
}

BatchSearchResult RestClient::find_jobs_by_tags(std::span<const model::JobTag> tags, TimePoint earliest_intent,
                                                const SearchOptions& options) {
  BatchSearchResult failure;
  auto codec = dialect(failure);
  if (!codec) {
    // Every tag gets the reason, so that no result reads as an empty answer.
    for (std::size_t i = 0; i < tags.size(); ++i) {
      SearchResult search;
      static_cast<CallResult&>(search) = failure;
      failure.searches.push_back(std::move(search));
    }
    return failure;
  }
  bool searchable = false;
  for (const auto& tag : tags) searchable = searchable || tag_search_problem(tag).empty();
  // A failed clock reading only puts the window on the local clock, which the results say.
  const std::string clock_note = searchable ? refresh_server_clock(*codec) : std::string();
  return search_by_tags(m_caller, *codec, m_listing, tags, earliest_intent, options, m_options.bulk, m_server_clock,
                        clock_note);
}

std::optional<TimePoint> RestClient::backing_off_until() const {
  if (m_caller.budget() == nullptr) return std::nullopt;
  return m_caller.budget()->backing_off_until();
}

}  // namespace tpslurm::slurm
