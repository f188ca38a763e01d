#include "sim_harness.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cctype>

#include "base/digest.h"

namespace tpslurm::sim::test {

namespace json = boost::json;

SimInstance::SimInstance(SimOptions options, bool with_control_listener)
    : m_sim(std::make_unique<Simulator>(std::move(options))), m_server(std::make_unique<Server>(*m_sim)) {
  Status st = m_server->listen("127.0.0.1", 0);
  if (!st) {
    ADD_FAILURE() << "simulator could not listen: " << st.error().message();
    std::abort();
  }
  if (with_control_listener) {
    Status cst = m_server->listen_control("127.0.0.1", 0);
    if (!cst) {
      ADD_FAILURE() << "control listener could not listen: " << cst.error().message();
      std::abort();
    }
  }
  m_thread = std::thread([this]() { m_server->run(); });
}

SimInstance::~SimInstance() {
  m_server->stop();
  m_thread.join();
}

std::string SimInstance::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port()) + path;
}

std::string SimInstance::control_url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(control_port()) + path;
}

const json::value& HttpResult::json() const {
  if (!m_json) {
    boost::system::error_code ec;
    m_json = json::parse(body, ec);
    if (ec) {
      ADD_FAILURE() << "not JSON (" << ec.message() << "): " << body.substr(0, 300);
      m_json = json::value();
    }
  }
  return *m_json;
}

namespace {

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* result = static_cast<HttpResult*>(user);
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    result->status_line = line;
    result->headers.clear();
  } else if (auto colon = line.find(':'); colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(value.begin());
    result->headers[name] = value;
  }
  return size * count;
}

}  // namespace

HttpClient::HttpClient() : m_curl(curl_easy_init()) {}
HttpClient::~HttpClient() { curl_easy_cleanup(static_cast<CURL*>(m_curl)); }

HttpResult HttpClient::request(const std::string& method, const std::string& url, const RequestOptions& options) {
  CURL* curl = static_cast<CURL*>(m_curl);
  HttpResult result;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROXY, "");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, options.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, options.fresh_connection ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &result);
  if (!options.body.empty() || method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, options.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(options.body.size()));
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method == "POST" ? nullptr : method.c_str());
  } else {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);  // leaves POST mode from an earlier request
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method == "GET" ? nullptr : method.c_str());
  }
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : options.headers) headers = curl_slist_append(headers, (name + ": " + value).c_str());
  if (!options.body.empty()) headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  result.curl_code = static_cast<int>(curl_easy_perform(curl));
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &result.new_connections);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_slist_free_all(headers);
  return result;
}

namespace {

std::string b64url(std::string_view data) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    auto n = (static_cast<unsigned>(static_cast<unsigned char>(data[i])) << 16) |
             (static_cast<unsigned>(static_cast<unsigned char>(data[i + 1])) << 8) |
             static_cast<unsigned>(static_cast<unsigned char>(data[i + 2]));
    out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63], kAlphabet[n & 63]};
  }
  if (data.size() - i == 1) {
    auto n = static_cast<unsigned>(static_cast<unsigned char>(data[i])) << 16;
    out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63]};
  } else if (data.size() - i == 2) {
    auto n = (static_cast<unsigned>(static_cast<unsigned char>(data[i])) << 16) |
             (static_cast<unsigned>(static_cast<unsigned char>(data[i + 1])) << 8);
    out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63]};
  }
  return out;
}

std::string sign(const std::string& key, const std::string& payload) {
  std::string signing_input = b64url(R"({"alg":"HS256","typ":"JWT"})") + "." + b64url(payload);
  auto mac = hmac_sha256(key, signing_input);
  return signing_input + "." + b64url(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
}

}  // namespace

std::string mint_token(const std::string& key, const std::string& user, std::int64_t exp) {
  return sign(key, R"({"exp":)" + std::to_string(exp) + R"(,"iat":)" + std::to_string(exp - 3600) +
                       R"(,"sun":")" + user + R"("})");
}

std::string mint_token_without_exp(const std::string& key, const std::string& user) {
  return sign(key, R"({"iat":1796000000,"sun":")" + user + R"("})");
}

SimOptions test_options(Release release) {
  SimOptions options;
  options.release = release;
  options.jwt_key = kTestKey;
  options.manual_clock = true;
  options.timing.automatic = false;
  options.default_cwd = "/srv/slurmrestd";
  return options;
}

SimOptions local_slurm_22_05_options() {
  SimOptions options = test_options(Release::r22_05_8);
  options.cluster.cluster_name = "tuneplane";
  options.cluster.partitions = {"debug"};
  options.cluster.default_partition = "debug";
  options.cluster.nodes = {"vm", "vm-emu"};
  options.cluster.features = {"h100", "cpuonly", "emu"};
  options.cluster.accounting = true;
  return options;
}

std::vector<std::pair<std::string, std::string>> auth_headers(const SimOptions& options, const std::string& user) {
  std::int64_t exp = options.manual_clock_start_ms / 1000 + 36000;
  return {{"X-SLURM-USER-NAME", user}, {"X-SLURM-USER-TOKEN", mint_token(options.jwt_key, user, exp)}};
}

HttpResult slurm_call(const SimInstance& sim, const SimOptions& options, const std::string& method,
                      const std::string& path, const std::string& body, const std::string& user) {
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options, user);
  req.body = body;
  return client.request(method, sim.url(path), req);
}

std::string simple_job(const std::string& name, const std::string& script) {
  json::object job{{"name", name}, {"environment", json::array{"PATH=/usr/bin:/bin"}}, {"current_working_directory", "/w"}};
  return json::serialize(json::object{{"script", script}, {"job", std::move(job)}});
}

HttpResult control_raw(const SimInstance& sim, const std::string& method, const std::string& path,
                       const std::string& body) {
  HttpClient client;
  RequestOptions options;
  options.body = body;
  return client.request(method, sim.url(path), options);
}

json::value control(const SimInstance& sim, const std::string& method, const std::string& path,
                    const std::string& body) {
  HttpResult result = control_raw(sim, method, path, body);
  EXPECT_EQ(result.curl_code, 0) << method << " " << path;
  EXPECT_GE(result.status, 200) << method << " " << path << ": " << result.body;
  EXPECT_LT(result.status, 300) << method << " " << path << ": " << result.body;
  return result.json();
}

}  // namespace tpslurm::sim::test
