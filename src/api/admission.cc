#include "api/admission.h"

#include <sys/resource.h>

#include <algorithm>
#include <limits>

#include "config/logging.h"
#include "metrics/metrics.h"

namespace tpslurm::api {
namespace {

// An episode of refusals ends once none of its reason came for this long.
constexpr std::chrono::seconds kQuiet{10};

std::size_t descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return std::numeric_limits<std::size_t>::max() / 2;
  }
  return static_cast<std::size_t>(limit.rlim_cur);
}

}  // namespace

Admission::Ticket::~Ticket() { m_admission.forget(*this); }

void Admission::Ticket::on_close(std::function<void()> close) {
  m_close = std::move(close);
  if (m_state == State::closed && m_close) m_close();
}

void Admission::Ticket::authenticated() {
  if (m_state != State::unauthenticated) return;
  m_admission.forget(*this);
  m_state = State::authenticated;
  ++m_admission.m_authenticated;
  m_admission.publish();
}

Admission::Admission(const ServerLimits& limits, metrics::Metrics* metrics)
    : m_limits(limits), m_metrics(metrics), m_descriptor_limit(descriptor_limit()) {
  if (m_descriptor_limit <= m_limits.descriptor_reserve) {
    config::log_warn({}, "API: RLIMIT_NOFILE is " + std::to_string(m_descriptor_limit) +
                             ", no more than the descriptors kept free for the daemon (" +
                             std::to_string(m_limits.descriptor_reserve) +
                             "): every connection will be refused; raise LimitNOFILE");
  }
  publish();
}

std::variant<std::unique_ptr<Admission::Ticket>, Admission::Refusal> Admission::admit(const std::string& peer,
                                                                                      int descriptor) {
  end_quiet_episodes();
  if (m_accept_failing) config::log_info({}, "API: accepting connections again");
  m_accept_failing = false;
  if (descriptor >= 0 && static_cast<std::size_t>(descriptor) + m_limits.descriptor_reserve >= m_descriptor_limit) {
    refused("descriptors", "API: refusing new connections: each would leave fewer than " +
                               std::to_string(m_limits.descriptor_reserve) + " of the " +
                               std::to_string(m_descriptor_limit) +
                               " file descriptors (RLIMIT_NOFILE) free for the daemon");
    return Refusal::descriptors;
  }
  const auto from_peer = m_per_peer.find(peer);
  if (from_peer != m_per_peer.end() &&
      from_peer->second >= std::max<std::size_t>(1, m_limits.unauthenticated_per_peer)) {
    close_oldest(&peer, "peer");
  } else if (m_waiting.size() >= std::max<std::size_t>(1, m_limits.unauthenticated)) {
    close_oldest(nullptr, "unauthenticated");
  }
  if (m_waiting.size() + m_authenticated >= m_limits.connections) {
    if (m_waiting.empty()) {
      refused("connections", "API: refusing new connections with 503: all " + std::to_string(m_authenticated) +
                                 " open connections are authenticated clients'");
      return Refusal::connections;
    }
    close_oldest(nullptr, "unauthenticated");
  }
  std::unique_ptr<Ticket> ticket(new Ticket(*this, peer));
  m_waiting.push_back(ticket.get());
  ++m_per_peer[peer];
  publish();
  return ticket;
}

void Admission::accept_failed(std::string_view why) {
  if (!m_accept_failing) {
    config::log_warn({}, "API: accept failed: " + std::string(why) +
                             "; trying again every 100 ms while the connections already open are served");
  }
  m_accept_failing = true;
}

void Admission::close_oldest(const std::string* peer, std::string_view reason) {
  const auto oldest = std::find_if(m_waiting.begin(), m_waiting.end(),
                                   [&](const Ticket* ticket) { return peer == nullptr || ticket->m_peer == *peer; });
  if (oldest == m_waiting.end()) return;
  Ticket& ticket = **oldest;
  const std::string words =
      peer != nullptr ? "API: closing the oldest connections of " + *peer + " that sent no valid token yet: it holds " +
                            std::to_string(m_per_peer[*peer]) + " such (the limit for one peer)"
                      : "API: closing the oldest connections that sent no valid token yet, to make room: " +
                            std::to_string(m_waiting.size()) + " are open";
  forget(ticket);
  ticket.m_state = Ticket::State::closed;
  refused(reason, words);
  if (ticket.m_close) ticket.m_close();
}

void Admission::forget(Ticket& ticket) {
  if (ticket.m_state == Ticket::State::authenticated) {
    --m_authenticated;
  } else if (ticket.m_state == Ticket::State::unauthenticated) {
    m_waiting.remove(&ticket);
    const auto count = m_per_peer.find(ticket.m_peer);
    if (count != m_per_peer.end() && --count->second == 0) m_per_peer.erase(count);
  }
  publish();
}

void Admission::refused(std::string_view reason, const std::string& words) {
  if (m_metrics != nullptr) m_metrics->count_api_connection_refused(reason);
  Episode& episode = m_episodes[std::string(reason)];
  if (episode.count == 0) config::log_warn({}, words + "; counted in tuneplane_api_connections_refused_total");
  ++episode.count;
  episode.last = std::chrono::steady_clock::now();
}

void Admission::end_quiet_episodes() {
  const auto now = std::chrono::steady_clock::now();
  for (auto& [reason, episode] : m_episodes) {
    if (episode.count == 0 || now - episode.last < kQuiet) continue;
    config::log_info({}, "API: " + std::to_string(episode.count) + " connection(s) refused or closed (" + reason +
                             "), none for 10 s since");
    episode.count = 0;
  }
}

void Admission::publish() const {
  if (m_metrics != nullptr) m_metrics->set_api_connections(m_waiting.size(), m_authenticated);
}

}  // namespace tpslurm::api
