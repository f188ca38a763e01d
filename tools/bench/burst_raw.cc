// burst_bench's clients (C connections, N items) and its raw baselines, T_raw and T_held.
#include <atomic>
#include <mutex>
#include <thread>

#include "base/clock.h"
#include "burst_bench.h"
#include "slurm/dialect.h"
#include "slurm/jwt_source.h"

namespace tpslurm::bench::burst {
namespace {

// The headers a raw POST carries: the target's user and token.
std::vector<std::pair<std::string, std::string>> slurm_headers(const Target& target) {
  std::string token = kSlurmJwt;
  if (!target.jwt_file.empty()) {
    SystemClock clock;
    slurm::FileTokenSource tokens(target.user, target.jwt_file, clock);
    auto credentials = tokens.credentials();
    if (!credentials.ok()) die(credentials.error().message());
    token = credentials->token;
  }
  return {{"Content-Type", "application/json"}, {"X-SLURM-USER-NAME", target.user}, {"X-SLURM-USER-TOKEN", token}};
}

}  // namespace

double run_from_clients(const std::string& url, int clients, int count, const ClientWork& work) {
  std::atomic<int> failures = 0;
  std::string first_failure;
  std::mutex mutex;
  const auto start = Steady::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      slurm::CurlTransportOptions options;
      options.url = url;
      options.total_timeout = std::chrono::minutes(5);
      auto transport = slurm::CurlTransport::create(options);
      if (!transport.ok()) die(transport.error().message());
      for (int i = c; i < count; i += clients) {
        std::string failure = work(**transport, i);
        if (failure.empty()) continue;
        if (failures++ == 0) {
          std::lock_guard lock(mutex);
          first_failure = std::move(failure);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const double seconds = seconds_between(start, Steady::now());
  if (failures > 0) die(std::to_string(failures.load()) + " items failed; the first: " + first_failure);
  return seconds;
}

std::string exchange(slurm::CurlTransport& transport, const HttpRequest& request, int expected, std::string& failure) {
  slurm::HttpExchange answer = transport.perform(request);
  if (answer.delivery == slurm::Delivery::answered && answer.response.status == expected) {
    return std::move(answer.response.body);
  }
  failure = request.target + ": HTTP " + std::to_string(answer.response.status) + " " + answer.detail + " " +
            answer.response.body.substr(0, 300);
  return {};
}

ClientWork one_request(int expected, std::function<HttpRequest(int)> request_of) {
  return [expected, request_of = std::move(request_of)](slurm::CurlTransport& transport, int i) {
    std::string failure;
    exchange(transport, request_of(i), expected, failure);
    return failure;
  };
}

HttpRequest http_request(HttpMethod method, std::string target_path, std::string body,
                         const std::vector<std::pair<std::string, std::string>>& headers) {
  HttpRequest request;
  request.method = method;
  request.target = std::move(target_path);
  request.body = std::move(body);
  request.headers = headers;
  return request;
}

double raw_posts(const Options& options, const Target& target, const std::string& body) {
  Simulator sim;
  if (!target.real()) start_simulator(sim, options.sim, "26.05.3");
  const HttpRequest request =
      http_request(HttpMethod::post, slurm::make_dialect(target.dialect)->submit_path(), body, slurm_headers(target));
  return run_from_clients(target.real() ? target.url : sim.url, options.clients, options.jobs,
                          one_request(200, [&](int) { return request; }));
}

double raw_held_cycles(const Options& options, const Target& target, const std::string& body) {
  Simulator sim;
  if (!target.real()) start_simulator(sim, options.sim, "26.05.3");
  const auto codec = slurm::make_dialect(target.dialect);
  const auto headers = slurm_headers(target);
  const HttpRequest submit = http_request(HttpMethod::post, codec->submit_path(), body, headers);
  auto cycle = [&](slurm::CurlTransport& transport, int) {
    std::string failure;
    const std::string answer = exchange(transport, submit, 200, failure);
    if (!failure.empty()) return failure;
    auto reply = codec->decode_submit(answer);
    if (!reply.ok() || !reply->job_id) return "the submit's answer names no job id: " + answer.substr(0, 300);
    const std::string id = std::to_string(*reply->job_id);
    exchange(transport, http_request(HttpMethod::get, codec->job_path(id), {}, headers), 200, failure);
    if (!failure.empty()) return failure;
    exchange(transport,
             http_request(HttpMethod::post, codec->update_path(*reply->job_id), codec->hold_release_body(), headers),
             200, failure);
    return failure;
  };
  return run_from_clients(target.real() ? target.url : sim.url, options.clients, options.jobs, cycle);
}

}  // namespace tpslurm::bench::burst
