#include "slurm/rest_call.h"

namespace tpslurm::slurm {

RestCaller::Sent RestCaller::perform(HttpRequest request, Reservation reserved, std::string_view as_user) {
  Sent sent;
  sent.label = std::string(to_string(request.method)) + " " + request.target;
  // Credentials first: they cost the server nothing, and a call refused for want of them
  // must not take a budget slot.
  auto credentials = as_user.empty() ? m_tokens.credentials() : m_tokens.credentials_for(as_user);
  if (!credentials.ok()) {
    sent.refused = Outcome::auth;
    sent.refusal = "not sent: " + credentials.error().message();
    sent.received_at = m_clock.now();
    return sent;
  }
  if (reserved.held()) {
    reserved.spend();
  } else if (m_budget != nullptr) {
    Admission admission = m_budget->admit();
    if (!admission.granted) {
      sent.refused = Outcome::not_sent;
      sent.refusal = "not sent: " + admission.reason;
      sent.received_at = m_clock.now();
      return sent;
    }
  }
  request.headers = {{"X-SLURM-USER-NAME", credentials->user}, {"X-SLURM-USER-TOKEN", credentials->token}};
  const auto started = std::chrono::steady_clock::now();
  sent.exchange = m_transport.perform(request);
  sent.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  sent.received_at = m_clock.now();
  return sent;
}

RestCaller::Sent RestCaller::send(HttpMethod method, std::string target, std::string body, Reuse reuse,
                                  std::optional<std::chrono::milliseconds> timeout, Reservation reserved,
                                  std::string_view as_user) {
  HttpRequest request;
  request.method = method;
  request.target = std::move(target);
  request.body = std::move(body);
  request.reuse = reuse;
  request.timeout = timeout;
  return perform(std::move(request), std::move(reserved), as_user);
}

RestCaller::Sent RestCaller::send_listing(std::string target, JobsDecoder& decoder,
                                          std::optional<std::chrono::milliseconds> timeout, std::string_view as_user) {
  HttpRequest request;
  request.target = std::move(target);
  request.timeout = timeout;
  request.reader = &decoder;
  return perform(std::move(request), {}, as_user);
}

bool RestCaller::refused(CallResult& result, const Sent& sent, std::string_view dialect) const {
  if (!sent.refused) return false;
  result.outcome = *sent.refused;
  result.dialect = std::string(dialect);
  result.http_status = 0;
  result.message = sent.label + ": " + sent.refusal;
  return true;
}

void RestCaller::fill(CallResult& result, const Sent& sent, const Classification& classification, const ReplyBase* base,
                      std::string_view dialect) const {
  const HttpExchange& exchange = sent.exchange;
  const bool answered = exchange.delivery == Delivery::answered;
  result.outcome = classification.outcome;
  result.http_status = answered ? exchange.response.status : 0;
  result.transport_detail = exchange.detail;
  result.dialect = std::string(dialect);
  if (base != nullptr) {
    result.release = base->release;
    result.errors = base->errors;
    result.warnings = base->warnings;
  }
  std::string reason = classification.reason;
  if (reason.empty() && base != nullptr && !base->warnings.empty()) reason = "warning: " + join_texts(base->warnings);
  if (!answered) reason += " (" + m_transport.endpoint() + ")";
  result.message = reason.empty() ? std::string() : sent.label + ": " + reason;
}

void RestCaller::record(const Sent& sent, Outcome outcome) {
  if (m_budget != nullptr) m_budget->record(outcome, sent.took, sent.one_job_kind);
}

void RestCaller::remember_release(const std::string& release) {
  if (auto parsed = SlurmRelease::parse(release)) {
    std::lock_guard lock(m_mutex);
    m_release = *parsed;
  }
}

std::optional<SlurmRelease> RestCaller::release() const {
  std::lock_guard lock(m_mutex);
  return m_release;
}

}  // namespace tpslurm::slurm
