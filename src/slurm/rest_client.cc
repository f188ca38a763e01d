#include "slurm/rest_client.h"

#include <algorithm>

namespace tpslurm::slurm {
namespace {

bool answered(const HttpExchange& exchange) { return exchange.delivery == Delivery::answered; }

// Fills what every result carries from one exchange and its classification.
void fill(CallResult& result, const std::string& label, const HttpExchange& exchange,
          const Classification& classification, const ReplyBase* base, std::string_view dialect,
          const std::string& endpoint) {
  result.outcome = classification.outcome;
  result.http_status = answered(exchange) ? exchange.response.status : 0;
  result.transport_detail = exchange.detail;
  result.dialect = std::string(dialect);
  if (base != nullptr) {
    result.release = base->release;
    result.errors = base->errors;
    result.warnings = base->warnings;
  }
  std::string reason = classification.reason;
  if (reason.empty() && base != nullptr && !base->warnings.empty()) reason = "warning: " + join_texts(base->warnings);
  if (!answered(exchange)) reason += " (" + endpoint + ")";
  result.message = reason.empty() ? std::string() : label + ": " + reason;
}

template <class R>
bool credentials_failed(R& result, const std::string& label, const std::optional<Error>& error, std::string_view dialect) {
  if (!error) return false;
  result.outcome = Outcome::auth;
  result.dialect = std::string(dialect);
  result.message = label + ": not sent: " + error->message();
  return true;
}

}  // namespace

Result<std::unique_ptr<RestClient>> RestClient::create(Transport& transport, TokenSource& tokens,
                                                       std::string api_version) {
  if (api_version != "auto" && make_dialect(api_version) == nullptr) {
    std::string known;
    for (auto version : supported_dialects()) known += std::string(known.empty() ? "" : ", ") + std::string(version);
    return invalid_argument("TUNEPLANE_SLURM_REST_API_VERSION \"" + api_version + "\": this build speaks " + known +
                            " (or auto)");
  }
  return std::unique_ptr<RestClient>(new RestClient(transport, tokens, std::move(api_version)));
}

RestClient::RestClient(Transport& transport, TokenSource& tokens, std::string api_version)
    : m_transport(transport), m_tokens(tokens), m_api_version(std::move(api_version)) {
  // A configured version needs no probing before the first call; the release is learnt from
  // the first answer's meta (until then ids follow the most conservative policy).
  if (m_api_version != "auto") m_dialect = make_dialect(m_api_version);
}

RestClient::Sent RestClient::send(HttpMethod method, std::string target, std::string body, Reuse reuse) {
  Sent sent;
  sent.label = std::string(to_string(method)) + " " + target;
  auto credentials = m_tokens.credentials();
  if (!credentials.ok()) {
    sent.credentials_error = credentials.error();
    return sent;
  }
  HttpRequest request;
  request.method = method;
  request.target = std::move(target);
  request.body = std::move(body);
  request.reuse = reuse;
  request.headers = {{"X-SLURM-USER-NAME", credentials->user}, {"X-SLURM-USER-TOKEN", credentials->token}};
  sent.exchange = m_transport.perform(request);
  return sent;
}

void RestClient::remember_release(const std::string& release) {
  if (auto parsed = SlurmRelease::parse(release)) {
    std::lock_guard lock(m_mutex);
    m_release = *parsed;
  }
}

IdPolicy RestClient::policy(std::string_view dialect) {
  std::lock_guard lock(m_mutex);
  // An unknown release gets the most conservative policy: job id and tag.
  return m_release ? id_policy(*m_release, dialect) : IdPolicy{};
}

std::shared_ptr<const Dialect> RestClient::dialect(CallResult& failure) {
  {
    std::lock_guard lock(m_mutex);
    if (m_dialect) return m_dialect;
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
    Sent sent = send(HttpMethod::get, probe->ping_path(), {}, Reuse::allowed);
    if (credentials_failed(result, sent.label, sent.credentials_error, version)) return result;
    if (!answered(sent.exchange)) {
      fill(result, sent.label, sent.exchange, classify_read(sent.exchange, {}), nullptr, version,
           m_transport.endpoint());
      return result;
    }
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
  if (result.server_release) remember_release(release);

  std::string chosen;
  if (m_api_version == "auto") {
    if (!result.offered.empty()) chosen = result.offered.front();
  } else if (std::find(result.offered.begin(), result.offered.end(), m_api_version) != result.offered.end()) {
    chosen = m_api_version;
  }
  if (chosen.empty()) {
    std::string offered;
    for (const auto& version : result.offered) offered += (offered.empty() ? "" : ", ") + version;
    std::string known;
    for (auto version : supported_dialects()) known += std::string(known.empty() ? "" : ", ") + std::string(version);
    result.outcome = Outcome::rejected;
    result.message = "slurmrestd at " + m_transport.endpoint() + " (release " + (release.empty() ? "unknown" : release) +
                     ") offers " + (offered.empty() ? "none of " + known : offered) +
                     (m_api_version == "auto" ? "" : "; configured " + m_api_version) +
                     ": set TUNEPLANE_SLURM_REST_API_VERSION to an offered version or auto";
    return result;
  }
  result.outcome = Outcome::ok;
  result.dialect = chosen;
  if (result.server_release) result.policy = id_policy(*result.server_release, chosen);
  std::lock_guard lock(m_mutex);
  m_dialect = make_dialect(chosen);
  return result;
}

CallResult RestClient::preflight() {
  CallResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  Sent sent = send(HttpMethod::get, codec->preflight_path(), {}, Reuse::allowed);
  if (credentials_failed(result, sent.label, sent.credentials_error, codec->version())) return result;
  DecodedFacts facts;
  std::optional<ReplyBase> base;
  if (answered(sent.exchange)) {
    if (auto decoded = codec->decode_base(sent.exchange.response.body); decoded.ok()) {
      base = *decoded;
      facts = {true, false, decoded->errors};
    }
  }
  fill(result, sent.label, sent.exchange, classify_read(sent.exchange, facts), base ? &*base : nullptr,
       codec->version(), m_transport.endpoint());
  if (base) remember_release(base->release);
  return result;
}

SubmitResult RestClient::submit(const model::SubmitDescription& description) {
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
  Sent sent = send(HttpMethod::post, codec->submit_path(), std::move(body).value(), Reuse::forbidden);
  if (credentials_failed(result, sent.label, sent.credentials_error, codec->version())) return result;
  DecodedFacts facts;
  std::optional<SubmitReply> reply;
  if (answered(sent.exchange)) {
    if (auto decoded = codec->decode_submit(sent.exchange.response.body); decoded.ok()) {
      reply = std::move(decoded).value();
      facts = {true, reply->job_id.has_value(), reply->errors};
    }
  }
  fill(result, sent.label, sent.exchange, classify_submit(sent.exchange, facts), reply ? &*reply : nullptr,
       codec->version(), m_transport.endpoint());
  if (reply) {
    remember_release(reply->release);
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
  Sent sent = send(HttpMethod::get, codec->job_path(*id), {}, Reuse::allowed);
  if (credentials_failed(result, sent.label, sent.credentials_error, codec->version())) return result;
  DecodedFacts facts;
  std::optional<JobsReply> reply;
  std::optional<ReplyBase> base;
  if (answered(sent.exchange)) {
    if (auto decoded = codec->decode_jobs(sent.exchange.response.body); decoded.ok()) {
      reply = std::move(decoded).value();
      facts = {true, false, reply->errors};
    } else if (auto decoded_base = codec->decode_base(sent.exchange.response.body); decoded_base.ok()) {
      // Error answers without a jobs list still carry errors (2017, 1007) worth classifying.
      base = *decoded_base;
      facts = {false, false, base->errors};
    }
  }
  fill(result, sent.label, sent.exchange, classify_read(sent.exchange, facts), reply ? static_cast<const ReplyBase*>(&*reply) : (base ? &*base : nullptr),
       codec->version(), m_transport.endpoint());
  if (reply) {
    remember_release(reply->release);
    if (result.ok()) result.jobs = std::move(reply->jobs);
  }
  return result;
}

JobsResult RestClient::jobs_changed_since(std::optional<TimePoint> since) {
  JobsResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  std::optional<std::int64_t> seconds;
  if (since) seconds = unix_seconds(*since);
  Sent sent = send(HttpMethod::get, codec->jobs_path(seconds), {}, Reuse::allowed);
  if (credentials_failed(result, sent.label, sent.credentials_error, codec->version())) return result;
  DecodedFacts facts;
  std::optional<JobsReply> reply;
  std::optional<ReplyBase> base;
  if (answered(sent.exchange)) {
    if (auto decoded = codec->decode_jobs(sent.exchange.response.body); decoded.ok()) {
      reply = std::move(decoded).value();
      facts = {true, false, reply->errors};
    } else if (auto decoded_base = codec->decode_base(sent.exchange.response.body); decoded_base.ok()) {
      base = *decoded_base;
      facts = {false, false, base->errors};
    }
  }
  fill(result, sent.label, sent.exchange, classify_read(sent.exchange, facts), reply ? static_cast<const ReplyBase*>(&*reply) : (base ? &*base : nullptr),
       codec->version(), m_transport.endpoint());
  if (result.ok()) {
    result.unchanged = codec->unchanged(sent.exchange.response.status, reply ? &*reply : nullptr);
    if (result.unchanged) result.message.clear();
    if (reply) result.jobs = std::move(reply->jobs);
  }
  if (reply) remember_release(reply->release);
  return result;
}

CancelResult RestClient::cancel(const JobRef& job, std::string_view signal) {
  CancelResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  result.dialect = std::string(codec->version());
  auto id = job_id_text(job, result);
  if (!id) return result;
  Sent sent = send(HttpMethod::del, codec->cancel_path(*id, signal), {}, Reuse::allowed);
  if (credentials_failed(result, sent.label, sent.credentials_error, codec->version())) return result;
  DecodedFacts facts;
  std::optional<CancelReply> reply;
  std::optional<ReplyBase> base;
  if (answered(sent.exchange)) {
    if (auto decoded = codec->decode_cancel(sent.exchange.response.body); decoded.ok()) {
      reply = std::move(decoded).value();
      facts = {true, false, reply->errors};
    } else if (auto decoded_base = codec->decode_base(sent.exchange.response.body); decoded_base.ok()) {
      base = *decoded_base;
      facts = {false, false, base->errors};
    }
  }
  Classification classification = classify_read(sent.exchange, facts);
  if (reply && classification.outcome != Outcome::auth) {
    switch (reply->status) {
      case CancelStatus::signalled:
        classification = {Outcome::ok, {}};
        break;
      case CancelStatus::already_done:
        classification = {Outcome::ok, {}};
        result.already_done = true;
        break;
      case CancelStatus::not_found:
        classification = {Outcome::not_found, join_texts(reply->refusals)};
        break;
      case CancelStatus::refused:
        classification = {Outcome::rejected_transient, "not signalled: " + join_texts(reply->refusals)};
        break;
    }
  }
  fill(result, sent.label, sent.exchange, classification, reply ? static_cast<const ReplyBase*>(&*reply) : (base ? &*base : nullptr), codec->version(),
       m_transport.endpoint());
  if (reply) remember_release(reply->release);
  return result;
}

PingResult RestClient::ping() {
  PingResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  Sent sent = send(HttpMethod::get, codec->ping_path(), {}, Reuse::allowed);
  if (credentials_failed(result, sent.label, sent.credentials_error, codec->version())) return result;
  DecodedFacts facts;
  std::optional<PingReply> reply;
  std::optional<ReplyBase> base;
  if (answered(sent.exchange)) {
    if (auto decoded = codec->decode_ping(sent.exchange.response.body); decoded.ok()) {
      reply = std::move(decoded).value();
      facts = {true, false, reply->errors};
    } else if (auto decoded_base = codec->decode_base(sent.exchange.response.body); decoded_base.ok()) {
      base = *decoded_base;
      facts = {false, false, base->errors};
    }
  }
  fill(result, sent.label, sent.exchange, classify_read(sent.exchange, facts), reply ? static_cast<const ReplyBase*>(&*reply) : (base ? &*base : nullptr),
       codec->version(), m_transport.endpoint());
  if (reply) {
    remember_release(reply->release);
    result.responding = reply->responding;
    result.status = reply->status;
  }
  return result;
}

PartitionsResult RestClient::partitions() {
  PartitionsResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  Sent sent = send(HttpMethod::get, codec->partitions_path(), {}, Reuse::allowed);
  if (credentials_failed(result, sent.label, sent.credentials_error, codec->version())) return result;
  DecodedFacts facts;
  std::optional<PartitionsReply> reply;
  std::optional<ReplyBase> base;
  if (answered(sent.exchange)) {
    if (auto decoded = codec->decode_partitions(sent.exchange.response.body); decoded.ok()) {
      reply = std::move(decoded).value();
      facts = {true, false, reply->errors};
    } else if (auto decoded_base = codec->decode_base(sent.exchange.response.body); decoded_base.ok()) {
      base = *decoded_base;
      facts = {false, false, base->errors};
    }
  }
  fill(result, sent.label, sent.exchange, classify_read(sent.exchange, facts), reply ? static_cast<const ReplyBase*>(&*reply) : (base ? &*base : nullptr),
       codec->version(), m_transport.endpoint());
  if (reply) {
    remember_release(reply->release);
    if (result.ok()) result.names = std::move(reply->names);
  }
  return result;
}

}  // namespace tpslurm::slurm
