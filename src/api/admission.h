// Admission: which connections the API server keeps, so that clients that do not play fair —
// many idle connections, handshakes never finished — cannot lock out the clients the API
// knows, nor take the descriptors the rest of the daemon needs (server.h's limits).
//
// Every connection starts unauthenticated and moves to the authenticated clients' pool once
// one of its requests carries a valid token (Ticket::authenticated()). A new connection is
// admitted at once, and room is made for it by closing the oldest unauthenticated connection
// of its peer when that peer already holds `unauthenticated_per_peer` of them, else the oldest
// unauthenticated connection of all when `unauthenticated` are open, or when all
// `connections` are open; only when every open connection is authenticated is it refused
// (Refusal::connections: answered 503). A client that connects and then sends its request at
// once is not closed to make room unless that many newer connections came in the meantime;
// one that holds connections idle loses the oldest first. A peer is the remote IP address on
// TCP, and the peer's uid on a unix socket (its clients are local processes; one user's share
// a limit).
//
// Descriptors: the system hands out the lowest free file descriptor, so a new connection's
// descriptor number says how many below it are taken. One that would leave fewer than
// `descriptor_reserve` of RLIMIT_NOFILE (its soft limit, read once) free is refused
// (Refusal::descriptors: closed without an answer), whatever the pools hold.
//
// Refusals and the connections closed to make room are counted in
// tuneplane_api_connections_refused_total{reason} (`connections`, `descriptors`, `peer`,
// `unauthenticated`) and logged once per episode (a warning when it begins, a line with the
// count once none of that reason came for 10 s, noticed at the next connection); the open
// connections are the gauge tuneplane_api_connections{state}. Not thread-safe: the server's
// one thread alone uses it; a Ticket must not outlive its Admission.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "api/server.h"

namespace tpslurm::metrics {
class Metrics;
}

namespace tpslurm::api {

class Admission {
 public:
  enum class Refusal { connections, descriptors };

  // One admitted connection, held by it while it is open.
  class Ticket {
   public:
    ~Ticket();
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;

    // How to close the connection when room is made for a newer one; called at once when
    // that happened before the connection got to set it.
    void on_close(std::function<void()> close);
    bool closed() const { return m_state == State::closed; }
    // A request of the connection carried a valid token.
    void authenticated();
    bool is_authenticated() const { return m_state == State::authenticated; }

   private:
    friend class Admission;
    enum class State { unauthenticated, authenticated, closed };
    Ticket(Admission& admission, std::string peer) : m_admission(admission), m_peer(std::move(peer)) {}

    Admission& m_admission;
    const std::string m_peer;
    State m_state = State::unauthenticated;
    std::function<void()> m_close;
  };

  // `metrics` may be null; it must outlive the admission.
  Admission(const ServerLimits& limits, metrics::Metrics* metrics);

  // A new connection from `peer` on `descriptor`.
  std::variant<std::unique_ptr<Ticket>, Refusal> admit(const std::string& peer, int descriptor);

  // accept() failed (out of descriptors, say): logged once until an accept succeeds again.
  void accept_failed(std::string_view why);

 private:
  struct Episode {
    std::size_t count = 0;  // 0: none under way
    std::chrono::steady_clock::time_point last;
  };

  void close_oldest(const std::string* peer, std::string_view reason);
  void forget(Ticket& ticket);
  void refused(std::string_view reason, const std::string& words);
  void end_quiet_episodes();
  void publish() const;

  const ServerLimits m_limits;
  metrics::Metrics* const m_metrics;
  std::size_t m_descriptor_limit = 0;
  std::list<Ticket*> m_waiting;  // unauthenticated, oldest first
  std::map<std::string, std::size_t, std::less<>> m_per_peer;
  std::size_t m_authenticated = 0;
  std::map<std::string, Episode, std::less<>> m_episodes;  // by reason
  bool m_accept_failing = false;
};

}  // namespace tpslurm::api
