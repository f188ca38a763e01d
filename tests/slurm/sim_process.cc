#include "sim_process.h"

#include <boost/json.hpp>
#include <chrono>

#include "base/digest.h"
#include "slurm/jwt.h"
#include "support/canary.h"

namespace tpslurm::slurm::testing {
namespace {

class StaticTokens final : public TokenSource {
 public:
  StaticTokens(std::string user, std::string token) : m_user(std::move(user)), m_token(std::move(token)) {}
  Result<Credentials> credentials() override { return Credentials{m_user, m_token, std::nullopt}; }
  std::string describe() const override { return "a token signed with the simulator's key"; }

 private:
  std::string m_user;
  std::string m_token;
};

// mint_hs256()'s token with one more claim, the canary (tests/support/canary.h), so that a
// leaked token is found by its base64url form; Slurm and the simulator ignore unknown claims.
std::string canary_token(std::string_view key, std::string_view user, TimePoint issued, std::chrono::seconds lifespan) {
  const std::int64_t iat = unix_seconds(issued);
  boost::json::object claims;
  claims["iat"] = iat;
  claims["exp"] = iat + lifespan.count();
  claims["sun"] = user;
  claims[tpslurm::testing::kCanary] = tpslurm::testing::kCanary;
  const std::string signing_input =
      base64url_encode(R"({"alg":"HS256","typ":"JWT"})") + "." + base64url_encode(boost::json::serialize(claims));
  const auto mac = hmac_sha256(key, signing_input);
  return signing_input + "." +
         base64url_encode(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
}

}  // namespace

Result<std::unique_ptr<SimProcess>> SimProcess::start(const std::vector<std::string>& args) {
  std::unique_ptr<SimProcess> sim(new SimProcess());
  sim->m_dir = std::make_unique<tpslurm::testing::TempDir>();
  sim->m_key = tpslurm::testing::canary("sim-hs256-key-0123456789abcdef");
  const std::string key_file = sim->m_dir->file("jwt_hs256.key");
  tpslurm::testing::write_test_file(key_file, sim->m_key);

  std::vector<std::string> argv{SIM_BINARY,    "--listen",   "127.0.0.1:0", "--control-listen",
                                "127.0.0.1:0", "--key-file", key_file};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string error;
  sim->m_child = tpslurm::testing::ChildProcess::start(argv, "", error);
  if (sim->m_child == nullptr) return permanent("slurmrestd-sim: " + error);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  const Listeners listeners = read_listeners(*sim->m_child, deadline);
  sim->m_port = listeners.port;
  sim->m_control_port = listeners.control_port;
  if (sim->m_port == 0 || sim->m_control_port == 0) {
    return permanent("slurmrestd-sim (" + std::string(SIM_BINARY) +
                     ") did not report its ports within 20 s; run it by hand with the same arguments to see why");
  }
  auto control = ControlClient::create(sim->m_control_port);
  if (!control.ok()) return control.error();
  sim->m_control = std::move(control).value();
  auto health = sim->control(HttpMethod::get, "/sim/health");
  if (!health.ok()) return health.error();
  return sim;
}

// The simulator stops before the temporary directory with its key goes.
SimProcess::~SimProcess() { m_child.reset(); }

Result<boost::json::value> SimProcess::control(HttpMethod method, const std::string& path, const std::string& body) {
  // The simulator's POST routes expect a JSON object even when the call has nothing to say.
  const bool empty_post = method == HttpMethod::post && body.empty();
  return m_control->call(method, path, empty_post ? "{}" : body);
}

Result<std::int64_t> SimProcess::add_fault(const std::string& rule_json) {
  auto answer = control(HttpMethod::post, "/sim/faults", rule_json);
  if (!answer.ok()) return answer.error();
  return answer->at("id").to_number<std::int64_t>();
}

std::int64_t SimProcess::stat(const std::string& name) {
  auto answer = control(HttpMethod::get, "/sim/stats");
  if (!answer.ok() || !answer->is_object()) return -1;
  const auto* value = answer->as_object().if_contains(name);
  return value == nullptr ? -1 : value->to_number<std::int64_t>();
}

std::int64_t SimProcess::route_count(const std::string& route) {
  auto answer = control(HttpMethod::get, "/sim/stats");
  if (!answer.ok() || !answer->is_object()) return -1;
  const auto* routes = answer->as_object().if_contains("requests_by_route");
  if (routes == nullptr || !routes->is_object()) return -1;
  const auto* count = routes->as_object().if_contains(route);
  return count == nullptr ? 0 : count->to_number<std::int64_t>();
}

TimePoint SimProcess::now() {
  auto answer = control(HttpMethod::get, "/sim/clock");
  if (!answer.ok()) return {};
  return TimePoint(std::chrono::milliseconds(answer->at("now_ms").to_number<std::int64_t>()));
}

std::unique_ptr<TokenSource> SimProcess::tokens(const std::string& user) {
  return std::make_unique<StaticTokens>(user, canary_token(m_key, user, now(), std::chrono::hours(24)));
}

}  // namespace tpslurm::slurm::testing
