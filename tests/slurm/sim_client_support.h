// A RestClient wired to a SimProcess over real HTTP (CurlTransport), for the tests that run the
// client against tools/slurmrestd-sim. The client's clock is a ManualClock set to the
// simulator's clock, so windows and baselines are computed on the simulated time.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "sim_process.h"
#include "slurm/rest_client.h"

namespace tpslurm::slurm::testing {

// A small job the simulator's default cluster runs (partition debug, 2-CPU nodes).
inline model::SubmitDescription sim_description(const std::string& name,
                                                const std::string& attempt_dir = "/shared/tp/a1") {
  model::SubmitDescription description;
  description.tag = model::JobTag{name, "tuneplane:" + name + "-token", attempt_dir};
  description.script = "#!/bin/bash\ntrue\n";
  description.standard_output = attempt_dir + "/logs/slurm-%j.out";
  description.environment = {{"PATH", "/usr/bin:/bin"}};
  description.time_limit_minutes = 10;
  description.components = {model::SubmitComponent{"debug", "", 1, 1, 1, 100, ""}};
  return description;
}

// A held two-component (heterogeneous) job.
inline model::SubmitDescription held_het(const std::string& name) {
  model::SubmitDescription description = sim_description(name);
  description.hold = true;
  description.components.push_back(description.components.front());
  return description;
}

class SimClientTest : public ::testing::Test {
 protected:
  // Starts the simulator (manual clock and timing unless `args` say otherwise) and a client
  // speaking `dialect`. Fails the test when the simulator cannot start.
  void start(std::vector<std::string> args = {}, std::string dialect = "v0.0.45",
             std::chrono::milliseconds total_timeout = std::chrono::milliseconds(2000),
             RequestBudget* budget = nullptr) {
    args.insert(args.begin(), {"--manual-clock", "--timing", "manual"});
    auto sim = SimProcess::start(args);
    ASSERT_TRUE(sim.ok()) << sim.error().message();
    m_sim = std::move(sim).value();
    m_clock.set(m_sim->now());
    m_tokens = m_sim->tokens();
    CurlTransportOptions options;
    options.url = m_sim->url();
    options.connect_timeout = std::chrono::milliseconds(1000);
    options.total_timeout = total_timeout;
    auto transport = CurlTransport::create(options);
    ASSERT_TRUE(transport.ok()) << transport.error().message();
    m_transport = std::move(transport).value();
    RestClientOptions client_options;
    client_options.clock = &m_clock;
    client_options.budget = budget;
    auto client = RestClient::create(*m_transport, *m_tokens, std::move(dialect), client_options);
    ASSERT_TRUE(client.ok()) << client.error().message();
    m_client = std::move(client).value();
  }

  void fault(const std::string& rule) {
    auto id = m_sim->add_fault(rule);
    ASSERT_TRUE(id.ok()) << id.error().message();
  }

  void control(HttpMethod method, const std::string& path, const std::string& body = {}) {
    auto answer = m_sim->control(method, path, body);
    ASSERT_TRUE(answer.ok()) << answer.error().message();
  }

  // Moves the simulated clock and the client's clock together.
  void advance(std::chrono::seconds by) {
    control(HttpMethod::post, "/sim/clock/advance", "{\"seconds\": " + std::to_string(by.count()) + "}");
    m_clock.set(m_sim->now());
  }

  // Jobs start one second after they become eligible and then run.
  void auto_start() {
    control(HttpMethod::post, "/sim/timing", R"({"mode": "auto", "pending": "1s", "running": "inf"})");
  }

  // Each component's base state, read with GET job/{leader}.
  std::vector<model::SlurmBaseState> states(std::uint32_t leader) {
    std::vector<model::SlurmBaseState> out;
    const JobsResult read = m_client->get_job({leader, ""});
    EXPECT_TRUE(read.ok()) << read.message;
    for (const auto& job : read.jobs) out.push_back(job.state.base);
    return out;
  }

  std::string where() const { return " (" + m_sim->url() + ")"; }

  ManualClock m_clock{from_unix_seconds(0)};
  std::unique_ptr<SimProcess> m_sim;
  std::unique_ptr<TokenSource> m_tokens;
  std::unique_ptr<CurlTransport> m_transport;
  std::unique_ptr<RestClient> m_client;
};

}  // namespace tpslurm::slurm::testing
