// slurmrestd-sim: a faithful, fault-injecting slurmrestd simulator (see README.md).
#include <CLI/CLI.hpp>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "http_server.h"
#include "options.h"
#include "simulator.h"

namespace {

using tpslurm::sim::SimOptions;

bool write_port_file(const std::string& path, std::uint16_t port) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!(out << port << "\n")) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

int fail(const std::string& message) {
  std::cerr << "slurmrestd-sim: " << message << "\n";
  return 2;
}

int run(int argc, char** argv) {
  CLI::App app{"slurmrestd-sim: a fault-injecting slurmrestd simulator"};
  std::string listen = "127.0.0.1:0";
  std::string port_file;
  std::string control_listen;
  std::string control_port_file;
  std::string release = "26.05.3";
  std::string key_file;
  bool no_auth = false;
  bool manual_clock = false;
  std::int64_t clock_start = 0;
  std::string timing;
  std::string min_job_age = "300s";
  std::uint32_t first_job_id = 1;
  std::string cluster_name;
  std::string cluster_id;
  std::string partitions;
  std::string default_partition;
  std::string nodes;
  std::string features;
  std::uint32_t cpus_per_node = 0;
  std::string accounts;
  std::string qos;
  bool no_accounting = false;
  std::string cwd;

  app.add_option("--listen", listen, "HOST:PORT to serve on; port 0 picks a free one")->capture_default_str();
  app.add_option("--port-file", port_file, "write the port actually used to this file");
  app.add_option("--control-listen", control_listen, "HOST:PORT of a second listener serving only /sim/");
  app.add_option("--control-port-file", control_port_file, "write the control listener's port to this file");
  app.add_option("--release", release, "Slurm release to impersonate: 26.05.3, 25.11.7, 25.05.0 or 22.05.8")
      ->capture_default_str();
  app.add_option("--key-file", key_file, "the cluster's HS256 JWT key (file bytes are the key)");
  app.add_flag("--no-auth", no_auth, "accept every request as root (benchmarks)");
  app.add_flag("--manual-clock", manual_clock, "simulated time moves only through POST /sim/clock/*");
  app.add_option("--clock-start", clock_start, "manual clock start (Unix seconds; default 2026-11-30T12:00:00Z)");
  app.add_option("--timing", timing, "\"manual\" or e.g. pending=1s,running=2s,completing=1s (inf = until stepped)");
  app.add_option("--min-job-age", min_job_age, "MinJobAge: finished jobs leave slurmctld this long after ending")
      ->capture_default_str();
  app.add_option("--first-job-id", first_job_id, "FirstJobId")->capture_default_str();
  app.add_option("--cluster-name", cluster_name, "ClusterName");
  app.add_option("--cluster-id", cluster_id, "SLUID cluster bits (0x001-0xffe)");
  app.add_option("--partitions", partitions, "comma-separated partitions (default debug,gpu,cpu)");
  app.add_option("--default-partition", default_partition, "default partition (default: the first one)");
  app.add_option("--nodes", nodes, "comma-separated node names (default vm,vm-b)");
  app.add_option("--features", features, "comma-separated node features (default h100,cpuonly,emu)");
  app.add_option("--cpus-per-node", cpus_per_node, "CPUs per node (default 2)");
  app.add_option("--accounts", accounts, "enforce these accounts (comma-separated)");
  app.add_option("--qos", qos, "enforce these QoS (comma-separated)");
  app.add_flag("--no-accounting", no_accounting, "run without slurmdbd: no /slurmdb/ endpoints");
  app.add_option("--cwd", cwd, "slurmrestd's working directory (given to jobs without one)");
  CLI11_PARSE(app, argc, argv);

  SimOptions options;
  std::uint16_t port = 0;
  if (auto st = tpslurm::sim::parse_listen(listen, options.listen_host, port); !st) return fail(st.error().message());
  options.port = port;
  auto parsed_release = tpslurm::sim::parse_release(release);
  if (!parsed_release) return fail("--release \"" + release + "\": use 26.05.3, 25.11.7, 25.05.0 or 22.05.8");
  options.release = *parsed_release;
  options.no_auth = no_auth;
  if (!no_auth) {
    if (key_file.empty()) return fail("--key-file is required (or --no-auth for benchmarks)");
    std::ifstream in(key_file, std::ios::binary);
    if (!in) return fail("--key-file " + key_file + ": cannot read it");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    options.jwt_key = bytes.str();
    if (options.jwt_key.empty()) return fail("--key-file " + key_file + ": the file is empty");
  }
  options.manual_clock = manual_clock;
  if (clock_start > 0) options.manual_clock_start_ms = clock_start * 1000;
  if (!timing.empty()) {
    auto t = tpslurm::sim::parse_timing(timing, options.timing);
    if (!t) return fail(t.error().message());
    options.timing = *t;
  }
  auto age = tpslurm::sim::parse_millis(min_job_age.find_first_not_of("0123456789") == std::string::npos
                                            ? min_job_age + "s"
                                            : min_job_age);
  if (!age || *age < 0) return fail("--min-job-age \"" + min_job_age + "\": expected seconds, e.g. 300 or 5m");
  options.min_job_age_s = *age / 1000;
  options.first_job_id = first_job_id;
  if (!cluster_name.empty()) options.cluster.cluster_name = cluster_name;
  if (!cluster_id.empty()) {
    unsigned long id = std::stoul(cluster_id, nullptr, 0);
    if (id < 1 || id > 0xffe) return fail("--cluster-id must be from 0x001 to 0xffe");
    options.cluster_id = static_cast<std::uint16_t>(id);
  }
  if (!partitions.empty()) {
    options.cluster.partitions = tpslurm::sim::split_csv(partitions);
    if (options.cluster.partitions.empty()) return fail("--partitions: give at least one partition name");
    options.cluster.default_partition = options.cluster.partitions.front();
  }
  if (!default_partition.empty()) {
    if (!options.cluster.has_partition(default_partition)) {
      return fail("--default-partition \"" + default_partition + "\" is not in --partitions");
    }
    options.cluster.default_partition = default_partition;
  }
  if (!nodes.empty()) options.cluster.nodes = tpslurm::sim::split_csv(nodes);
  if (options.cluster.nodes.empty()) return fail("--nodes: give at least one node name");
  if (!features.empty()) {
    auto list = tpslurm::sim::split_csv(features);
    options.cluster.features = {list.begin(), list.end()};
  }
  if (cpus_per_node) options.cluster.cpus_per_node = cpus_per_node;
  if (!accounts.empty()) {
    auto list = tpslurm::sim::split_csv(accounts);
    options.cluster.accounts = {list.begin(), list.end()};
  }
  if (!qos.empty()) {
    auto list = tpslurm::sim::split_csv(qos);
    options.cluster.qos = {list.begin(), list.end()};
  }
  options.cluster.accounting = !no_accounting;
  if (cwd.empty()) {
    char buf[4096];
    cwd = getcwd(buf, sizeof buf) ? buf : "/";
  }
  options.default_cwd = cwd;

  // SIGINT/SIGTERM are taken by a waiting thread, which stops the server cleanly.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  tpslurm::sim::Simulator simulator(options);
  tpslurm::sim::Server server(simulator);
  if (auto st = server.listen(options.listen_host, options.port); !st) return fail(st.error().message());
  if (!control_listen.empty()) {
    std::string host;
    std::uint16_t control_port = 0;
    if (auto st = tpslurm::sim::parse_listen(control_listen, host, control_port); !st) return fail(st.error().message());
    if (auto st = server.listen_control(host, control_port); !st) return fail(st.error().message());
  }
  if (!port_file.empty() && !write_port_file(port_file, server.port())) {
    return fail("--port-file " + port_file + ": cannot write it");
  }
  if (!control_port_file.empty() && !write_port_file(control_port_file, server.control_port())) {
    return fail("--control-port-file " + control_port_file + ": cannot write it");
  }
  std::cout << "listening on " << options.listen_host << ":" << server.port() << std::endl;
  if (server.control_port()) std::cout << "control on " << control_listen.substr(0, control_listen.rfind(':')) << ":" << server.control_port() << std::endl;

  std::thread waiter([&server, signals]() {
    int received = 0;
    sigwait(&signals, &received);
    server.stop();
  });
  server.run();
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "slurmrestd-sim: " << e.what() << "\n";
    return 1;
  }
}
