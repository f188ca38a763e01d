// FakeTransport: answers each request target with a canned exchange and records what it was
// asked (method, target, headers, body, reuse, timeout), for client tests that need no
// socket. An answer given for a method and a target wins over one given for the target.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "slurm/transport.h"

namespace tpslurm::slurm::testing {

class FakeTransport final : public Transport {
 public:
  void answer(const std::string& target, int status, std::string body) {
    HttpExchange exchange;
    exchange.delivery = Delivery::answered;
    exchange.response.status = status;
    exchange.response.body = std::move(body);
    m_answers[target] = std::move(exchange);
  }
  void answer(HttpMethod method, const std::string& target, int status, std::string body) {
    answer(key(method, target), status, std::move(body));
  }
  void fail(const std::string& target, Delivery delivery, TransportFault fault) {
    HttpExchange exchange;
    exchange.delivery = delivery;
    exchange.fault = fault;
    m_answers[target] = std::move(exchange);
  }

  HttpExchange perform(const HttpRequest& request) override {
    std::lock_guard lock(m_mutex);
    m_requests.push_back(request);
    if (auto it = m_answers.find(key(request.method, request.target)); it != m_answers.end()) return it->second;
    if (auto it = m_answers.find(request.target); it != m_answers.end()) return it->second;
    HttpExchange missing;
    missing.delivery = Delivery::answered;
    missing.response.status = 404;
    missing.response.body = "Unable find requested URL. Please view /openapi/v3 for API reference.";
    return missing;
  }
  std::string endpoint() const override { return "http://slurmrestd.test:6820"; }

  std::vector<HttpRequest> requests() const {
    std::lock_guard lock(m_mutex);
    return m_requests;
  }
  std::vector<std::string> targets() const {
    std::vector<std::string> targets;
    for (const auto& request : requests()) targets.push_back(request.target);
    return targets;
  }

 private:
  static std::string key(HttpMethod method, const std::string& target) {
    return std::string(to_string(method)) + " " + target;
  }

  mutable std::mutex m_mutex;
  std::map<std::string, HttpExchange> m_answers;
  std::vector<HttpRequest> m_requests;
};

}  // namespace tpslurm::slurm::testing
