// TestHttpServer: a small HTTP/1.1 server inside a test, on 127.0.0.1 or a unix socket, that
// answers each request the way the test's handler says — including the faults a real
// slurmrestd cannot be made to show: close without answering, reset, hang, a body cut short.
// It records every request (with the connection it came on) before acting on it, so a test
// can count exactly how many POSTs arrived. Keep-alive connections are served until the
// client closes them. Threads: one acceptor plus one per connection; all stop in the destructor.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tpslurm::slurm::testing {

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  int connection = 0;  // 1 for the first accepted connection, 2 for the next, ...
};

struct Action {
  enum class Kind { reply, close, reset, hang, truncate };
  Kind kind = Kind::reply;
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  bool keep_alive = true;
  std::size_t declared_length = 0;  // truncate: the Content-Length announced

  static Action reply(int status, std::string body, std::string content_type = "application/json");
  static Action close_without_reply();
  static Action reset();
  static Action hang();
  static Action truncated(int status, std::string partial_body, std::size_t declared_length);
};

class TestHttpServer {
 public:
  using Handler = std::function<Action(const ReceivedRequest&)>;

  // nullptr when the socket cannot be set up; the test must then fail.
  static std::unique_ptr<TestHttpServer> start_tcp(Handler handler);
  static std::unique_ptr<TestHttpServer> start_unix(const std::string& path, Handler handler);
  ~TestHttpServer();

  std::string url() const;  // "http://127.0.0.1:<port>" or "unix:<path>"
  std::vector<ReceivedRequest> requests() const;
  int connections() const { return m_connections.load(); }

 private:
  TestHttpServer(int listen_fd, std::string url, Handler handler);
  void accept_loop();
  void serve(int fd, int connection);

  int m_listen_fd;
  int m_stop_pipe[2] = {-1, -1};
  std::string m_url;
  Handler m_handler;
  std::atomic<int> m_connections{0};
  mutable std::mutex m_mutex;
  std::vector<ReceivedRequest> m_requests;
  std::vector<std::thread> m_threads;
  std::thread m_acceptor;
};

// A TCP port on 127.0.0.1 that never completes a connection: its accept queue is full, so the
// kernel drops new SYNs and a client's connect times out. nullptr if it cannot be set up.
class BlackholeListener {
 public:
  static std::unique_ptr<BlackholeListener> start();
  ~BlackholeListener();
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

 private:
  int m_listen_fd = -1;
  int m_port = 0;
  std::vector<int> m_fillers;
};

// A port on 127.0.0.1 with nothing listening (bound and closed again).
int unused_port();

}  // namespace tpslurm::slurm::testing
