// The platform API's clients: a few hundred connections that connect and send nothing, held for
// the action's window, while the explorer's own authenticated client asks for a job about twice
// a second. A refusal (401, 403, 503 too_many_connections, no answer) while serve has been up
// long enough to listen is a finding: idle strangers must not lock a client with a token out.
#include "explore_faults.h"

namespace tpslurm::soak {
namespace {

constexpr int kIdleConnections = 300;  // more than the API's 256 at once (docs/api.md, *Limits*)
constexpr double kPollEveryS = 0.5;
constexpr double kListeningAfterS = 3;  // serve listens within this of its start

}  // namespace

void idle_connections(const Action& action, World& world) {
  if (action.follow_up) {
    const std::size_t held = world.idle.size();
    world.idle.close();
    return note(world, action, std::to_string(held) + " idle connections closed");
  }
  const int opened = world.idle.open(world.api_port, kIdleConnections);
  note(world, action, std::to_string(opened) + " connections opened to the API, none sends a byte");
  struct Polls {
    int asked = 0;
    std::vector<std::string> refused;
    Steady::time_point next = Steady::now();
  };
  auto polls = std::make_shared<Polls>();
  world.watches.push_back([action, polls](World& w) {
    if (w.idle.size() == 0) {
      if (!polls->refused.empty()) {
        w.api_refusals.push_back("API: with " + std::to_string(kIdleConnections) + " idle connections open, " +
                                 std::to_string(polls->refused.size()) + " of " + std::to_string(polls->asked) +
                                 " requests of the client with a token were refused (first: " +
                                 polls->refused.front() + ")");
      }
      note(w, action, "the client asked " + std::to_string(polls->asked) + " times, refused " +
                          std::to_string(polls->refused.size()));
      return true;
    }
    if (Steady::now() < polls->next || !w.daemon.running() || seconds_since(w.daemon.started_at()) < kListeningAfterS) {
      return false;
    }
    polls->next = Steady::now() + std::chrono::milliseconds(static_cast<long>(kPollEveryS * 1000));
    ++polls->asked;
    if (std::string refused = w.api.poll("/v1/jobs/exp-001"); !refused.empty()) polls->refused.push_back(refused);
    return false;
  });
}

}  // namespace tpslurm::soak
