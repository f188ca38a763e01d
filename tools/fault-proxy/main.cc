// tp-fault-proxy: an HTTP proxy that loses, repeats, delays or replaces a real server's
// answers on request, for tests (see README.md).
#include <pthread.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "address.h"
#include "proxy_server.h"

namespace {

using tpslurm::fault_proxy::HostPort;
using tpslurm::fault_proxy::ProxyServer;

int fail(const std::string& message) {
  std::cerr << "tp-fault-proxy: " << message << "\n";
  return 2;
}

// Written under a temporary name and renamed, so a reader never sees half a number.
bool write_port_file(const std::string& path, std::uint16_t port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!(out << port << "\n")) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

struct CommandLine {
  std::string listen = "127.0.0.1:0";
  std::string port_file;
  std::string upstream;
  std::string control_listen;
  std::string control_port_file;
  std::int64_t upstream_timeout_ms = 30000;
};

void add_options(CLI::App& app, CommandLine& c) {
  app.add_option("--listen", c.listen, "HOST:PORT to proxy on; port 0 picks a free one")->capture_default_str();
  app.add_option("--port-file", c.port_file, "write the port actually used to this file");
  app.add_option("--upstream", c.upstream, "the server to forward to: http://HOST:PORT")->required();
  app.add_option("--control-listen", c.control_listen, "HOST:PORT of the control API (/proxy/faults, /proxy/stats)");
  app.add_option("--control-port-file", c.control_port_file, "write the control listener's port to this file");
  app.add_option("--upstream-timeout-ms", c.upstream_timeout_ms, "bound on one upstream exchange")
      ->capture_default_str();
}

// Listens, writes the port files, and serves until SIGINT or SIGTERM.
int serve(const CommandLine& c) {
  // SIGINT/SIGTERM are taken by a waiting thread, which stops the server cleanly.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto upstream = tpslurm::fault_proxy::parse_upstream(c.upstream);
  if (!upstream) return fail("--upstream: " + upstream.error().message());
  auto listen = tpslurm::fault_proxy::parse_listen(c.listen);
  if (!listen) return fail("--listen: " + listen.error().message());
  if (c.upstream_timeout_ms <= 0) return fail("--upstream-timeout-ms: expected a positive number of milliseconds");
  auto server = ProxyServer::create(*upstream, std::chrono::milliseconds(c.upstream_timeout_ms));
  if (!server) return fail(server.error().message());
  ProxyServer& proxy = **server;
  if (auto st = proxy.listen(*listen); !st) return fail(st.error().message());
  std::optional<HostPort> control;
  if (!c.control_listen.empty()) {
    auto where = tpslurm::fault_proxy::parse_listen(c.control_listen);
    if (!where) return fail("--control-listen: " + where.error().message());
    if (auto st = proxy.listen_control(*where); !st) return fail(st.error().message());
    control = *where;
  }
  if (!c.port_file.empty() && !write_port_file(c.port_file, proxy.port())) {
    return fail("--port-file " + c.port_file + ": cannot write it");
  }
  if (!c.control_port_file.empty()) {
    if (!control) return fail("--control-port-file needs --control-listen");
    if (!write_port_file(c.control_port_file, proxy.control_port())) {
      return fail("--control-port-file " + c.control_port_file + ": cannot write it");
    }
  }
  std::cout << "listening on " << listen->host << ":" << proxy.port() << std::endl;
  if (control) std::cout << "control on " << control->host << ":" << proxy.control_port() << std::endl;

  std::thread waiter([&proxy, signals]() {
    int received = 0;
    sigwait(&signals, &received);
    proxy.stop();
  });
  proxy.run();
  waiter.join();
  return 0;
}

int run(int argc, char** argv) {
  CLI::App app{"tp-fault-proxy: an HTTP proxy that loses, repeats, delays or replaces answers on request"};
  CommandLine c;
  add_options(app, c);
  CLI11_PARSE(app, argc, argv);
  return serve(c);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "tp-fault-proxy: " << e.what() << "\n";
    return 1;
  }
}
