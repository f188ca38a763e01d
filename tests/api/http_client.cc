#include "http_client.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace tpslurm::api::testing {
namespace {

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* out) {
  const std::string line(data, size * count);
  const std::size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ')) value.erase(0, 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * count;
}

}  // namespace

HttpAnswer http(const Endpoint& endpoint, const std::string& method, const std::string& target, const std::string& body,
                const std::vector<std::string>& headers) {
  HttpAnswer answer;
  CURL* curl = curl_easy_init();
  const std::string scheme = endpoint.ca_file.empty() ? "http" : "https";
  const std::string url =
      scheme + "://127.0.0.1:" + std::to_string(endpoint.unix_socket.empty() ? endpoint.port : 80) + target;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  if (!endpoint.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, endpoint.ca_file.c_str());
  if (!endpoint.unix_socket.empty()) curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, endpoint.unix_socket.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 60L);
  if (method == "POST" || !body.empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_slist* list = nullptr;
  for (const auto& header : headers) list = curl_slist_append(list, header.c_str());
  list = curl_slist_append(list, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &answer.headers);
  const CURLcode code = curl_easy_perform(curl);
  if (code == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  } else {
    answer.error = curl_easy_strerror(code);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  }
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  return answer;
}

RawClient::RawClient(int port) {
  m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) close();
}

RawClient::RawClient(const std::string& unix_socket) {
  m_fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", unix_socket.c_str());
  if (::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) close();
}

RawClient::~RawClient() { close(); }

bool RawClient::send(const std::string& bytes) {
  return m_fd >= 0 && ::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

// Waits for bytes until `deadline`: 1 when some were read, 0 when the server closed, -1 when
// the time ran out.
int RawClient::read_more(std::chrono::steady_clock::time_point deadline) {
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return -1;
    pollfd entry{m_fd, POLLIN, 0};
    if (::poll(&entry, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[4096];
    const ssize_t got = ::recv(m_fd, buffer, sizeof buffer, 0);
    if (got <= 0) return 0;
    m_received.append(buffer, static_cast<std::size_t>(got));
    return 1;
  }
}

bool RawClient::wait_closed(std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  if (m_fd < 0) return true;
  int read = 1;
  while (read > 0) read = read_more(deadline);
  return read == 0;
}

bool RawClient::wait_for(const std::string& text, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  if (m_fd < 0) return false;
  while (m_received.find(text) == std::string::npos) {
    if (read_more(deadline) <= 0) return false;
  }
  return true;
}

void RawClient::close() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
}

}  // namespace tpslurm::api::testing
