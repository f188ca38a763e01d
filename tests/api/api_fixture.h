// ApiFixture: the platform API as `serve` runs it (api::ApiService: its own journal
// connection, the token store, the routes, the Beast server), started in the test process on
// an ephemeral loopback port or a unix socket, over a real journal in a temporary state
// directory — the same environment the CLI tests give the real binary, so the test can ask
// the CLI the same questions and compare. Tokens: alice and bob, each with every scope.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/api_service.h"
#include "base/clock.h"
#include "http_client.h"
#include "journal/journal.h"
#include "metrics/metrics.h"
#include "model/catalogs.h"
#include "model/settings.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::api::testing {

inline const std::string kAliceToken = "tpcanary-alice-0123456789abcdef";
inline const std::string kBobToken = "tpcanary-bob-0123456789abcdef";

class ApiFixture : public ::testing::Test {
 protected:
  ApiFixture();
  ~ApiFixture() override;
  // Stops the service before the test's own members go: the metrics it was given, say.
  void TearDown() override { stop(); }

  // Small limits so the limit tests run quickly; everything else as in production.
  static ServerLimits test_limits();

  // Starts the service listening on `listen` (TUNEPLANE_API_LISTEN's syntax).
  void start(ServerLimits limits = test_limits(), const std::string& listen = "127.0.0.1:0");
  // The same, returning why the service did not start ("" when it did).
  std::string try_start(ServerLimits limits, const std::string& listen);
  void stop() { m_service.reset(); }
  const Clock& clock() const { return m_clock; }
  Endpoint endpoint() const;

  HttpAnswer call(const std::string& method, const std::string& target, const std::string& token,
                  const std::string& body = "");

  // Gives the service (at start()) metrics of the fixture's own, read by metric().
  void keep_metrics() { metrics = &m_own_metrics; }
  // A sample of those metrics now, as a scraper reads it; -1 when there is none.
  double metric(const std::string& name, const std::map<std::string, std::string>& labels = {});

  // Replaces the tokens file (a new inode, mode 0600), as an operator's editor would.
  void write_tokens(const std::string& content);
  // Another journal connection, as the daemon's or the CLI's.
  std::unique_ptr<journal::Journal> open_journal();
  // The real binary with the same environment.
  tpslurm::testing::ProcessResult cli(std::vector<std::string> args);

  // Attempt 1 of `job_id` prepared (on another connection) with its directory at
  // dir/attempts/1 and a manifest naming the logs of the batch step and of component 0.
  void prepared_attempt_with_logs(journal::Journal& journal, const std::string& job_id);

  static std::string source(const std::string& relative) { return std::string(TP_SOURCE_DIR) + "/" + relative; }
  static std::string example_request() {
    return tpslurm::testing::read_test_file(source("etc/launch-request.example.json"));
  }

  tpslurm::testing::TempDir dir;
  tpslurm::testing::EnvironmentMap env;
  std::string tokens_path;
  model::Settings settings;
  metrics::Metrics* metrics = nullptr;  // given to the service when set: GET /metrics answers

 private:
  SystemClock m_clock;
  metrics::Metrics m_own_metrics{m_clock};
  std::unique_ptr<model::Catalogs> m_catalogs;
  std::unique_ptr<ApiService> m_service;  // last: stops first
};

// Replaces the first `from` in `text` by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to);

}  // namespace tpslurm::api::testing
