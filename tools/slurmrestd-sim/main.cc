// slurmrestd-sim: a faithful, fault-injecting slurmrestd simulator (see README.md).
#include <CLI/CLI.hpp>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
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

// The command line as given, before it is checked.
struct CommandLine {
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
  std::string gres;
  std::uint32_t cpus_per_node = 0;
  std::string accounts;
  std::string qos;
  bool no_accounting = false;
  bool whole_hetjob = false;
  std::uint32_t max_array_size = 1001;
  std::optional<std::uint32_t> max_array_tasks;
  bool private_jobs = false;
  std::string associations;
  std::string cwd;
};

void add_options(CLI::App& app, CommandLine& c) {
  app.add_option("--listen", c.listen, "HOST:PORT to serve on; port 0 picks a free one")->capture_default_str();
  app.add_option("--port-file", c.port_file, "write the port actually used to this file");
  app.add_option("--control-listen", c.control_listen, "HOST:PORT of a second listener serving only /sim/");
  app.add_option("--control-port-file", c.control_port_file, "write the control listener's port to this file");
  app.add_option("--release", c.release, "Slurm release to impersonate: 26.05.3, 25.11.7, 25.05.0, 24.11.7, 24.05.8, 23.11.11, 23.11.4 or 22.05.8")
      ->capture_default_str();
  app.add_option("--key-file", c.key_file, "the cluster's HS256 JWT key (file bytes are the key)");
  app.add_flag("--no-auth", c.no_auth, "accept every request as root (benchmarks)");
  app.add_flag("--manual-clock", c.manual_clock, "simulated time moves only through POST /sim/clock/*");
  app.add_option("--clock-start", c.clock_start, "manual clock start (Unix seconds; default 2026-11-30T12:00:00Z)");
  app.add_option("--timing", c.timing, "\"manual\" or e.g. pending=1s,running=2s,completing=1s (inf = until stepped)");
  app.add_option("--min-job-age", c.min_job_age, "MinJobAge: finished jobs leave slurmctld this long after ending")
      ->capture_default_str();
  app.add_option("--first-job-id", c.first_job_id, "FirstJobId")->capture_default_str();
  app.add_option("--cluster-name", c.cluster_name, "ClusterName");
  app.add_option("--cluster-id", c.cluster_id, "SLUID cluster bits (0x001-0xffe)");
  app.add_option("--partitions", c.partitions, "comma-separated partitions (default debug,gpu,cpu)");
  app.add_option("--default-partition", c.default_partition, "default partition (default: the first one)");
  app.add_option("--nodes", c.nodes, "comma-separated node names (default vm,vm-b)");
  app.add_option("--features", c.features, "comma-separated node features (default h100,cpuonly,emu)");
  app.add_option("--gres", c.gres, "each node's GRES as Slurm prints it, e.g. gpu:h100:8 (default none)");
  app.add_option("--cpus-per-node", c.cpus_per_node, "CPUs per node (default 2)");
  app.add_option("--accounts", c.accounts, "enforce these accounts (comma-separated)");
  app.add_option("--qos", c.qos, "enforce these QoS (comma-separated)");
  app.add_flag("--no-accounting", c.no_accounting, "run without slurmdbd: no /slurmdb/ endpoints");
  app.add_flag("--whole-hetjob", c.whole_hetjob,
               "SchedulerParameters=whole_hetjob: a hold or release of one het component applies to all");
  app.add_option("--max-array-size", c.max_array_size,
                 "MaxArraySize: every array task id is below it (0: no arrays)")
      ->capture_default_str();
  app.add_option("--max-array-tasks", c.max_array_tasks,
                 "SchedulerParameters max_array_tasks=: most tasks in one array (default MaxArraySize)");
  app.add_option("--associations", c.associations,
                 "slurmdbd's associations, USER=ACCOUNT[:ACCOUNT...] separated by commas (others have none)");
  app.add_flag("--private-jobs", c.private_jobs,
               "PrivateData=jobs: users other than root and SlurmUser see only their own jobs");
  app.add_option("--cwd", c.cwd, "slurmrestd's working directory (given to jobs without one)");
}

// The server's own settings: where it listens, what it impersonates, auth, clock, timing, ids.
// An error message when one is wrong.
std::optional<std::string> configure_server(const CommandLine& c, SimOptions& options) {
  std::uint16_t port = 0;
  if (auto st = tpslurm::sim::parse_listen(c.listen, options.listen_host, port); !st) return st.error().message();
  options.port = port;
  auto parsed_release = tpslurm::sim::parse_release(c.release);
  if (!parsed_release) return "--release \"" + c.release + "\": use 26.05.3, 25.11.7, 25.05.0, 24.11.7, 24.05.8, 23.11.11, 23.11.4 or 22.05.8";
  options.release = *parsed_release;
  options.no_auth = c.no_auth;
  if (!c.no_auth) {
    if (c.key_file.empty()) return "--key-file is required (or --no-auth for benchmarks)";
    std::ifstream in(c.key_file, std::ios::binary);
    if (!in) return "--key-file " + c.key_file + ": cannot read it";
    std::ostringstream bytes;
    bytes << in.rdbuf();
    options.jwt_key = bytes.str();
    if (options.jwt_key.empty()) return "--key-file " + c.key_file + ": the file is empty";
  }
  options.manual_clock = c.manual_clock;
  if (c.clock_start > 0) options.manual_clock_start_ms = c.clock_start * 1000;
  if (!c.timing.empty()) {
    auto t = tpslurm::sim::parse_timing(c.timing, options.timing);
    if (!t) return t.error().message();
    options.timing = *t;
  }
  auto age = tpslurm::sim::parse_millis(c.min_job_age.find_first_not_of("0123456789") == std::string::npos
                                            ? c.min_job_age + "s"
                                            : c.min_job_age);
  if (!age || *age < 0) return "--min-job-age \"" + c.min_job_age + "\": expected seconds, e.g. 300 or 5m";
  options.min_job_age_s = *age / 1000;
  options.first_job_id = c.first_job_id;
  return std::nullopt;
}

// The simulated cluster: its name and id, partitions, nodes, features, limits, accounting.
std::optional<std::string> configure_cluster(const CommandLine& c, SimOptions& options) {
  auto& cluster = options.cluster;
  if (!c.cluster_name.empty()) cluster.cluster_name = c.cluster_name;
  if (!c.cluster_id.empty()) {
    unsigned long id = std::stoul(c.cluster_id, nullptr, 0);
    if (id < 1 || id > 0xffe) return "--cluster-id must be from 0x001 to 0xffe";
    options.cluster_id = static_cast<std::uint16_t>(id);
  }
  if (!c.partitions.empty()) {
    cluster.partitions = tpslurm::sim::split_csv(c.partitions);
    if (cluster.partitions.empty()) return "--partitions: give at least one partition name";
    cluster.default_partition = cluster.partitions.front();
  }
  if (!c.default_partition.empty()) {
    if (!cluster.has_partition(c.default_partition)) {
      return "--default-partition \"" + c.default_partition + "\" is not in --partitions";
    }
    cluster.default_partition = c.default_partition;
  }
  if (!c.nodes.empty()) cluster.nodes = tpslurm::sim::split_csv(c.nodes);
  if (cluster.nodes.empty()) return "--nodes: give at least one node name";
  if (!c.features.empty()) {
    auto list = tpslurm::sim::split_csv(c.features);
    cluster.features = {list.begin(), list.end()};
  }
  cluster.gres = c.gres;
  if (c.cpus_per_node) cluster.cpus_per_node = c.cpus_per_node;
  if (!c.accounts.empty()) {
    auto list = tpslurm::sim::split_csv(c.accounts);
    cluster.accounts = {list.begin(), list.end()};
  }
  if (!c.qos.empty()) {
    auto list = tpslurm::sim::split_csv(c.qos);
    cluster.qos = {list.begin(), list.end()};
  }
  cluster.accounting = !c.no_accounting;
  cluster.whole_hetjob = c.whole_hetjob;
  if (c.max_array_size > 4000001) return "--max-array-size: at most 4000001";
  cluster.max_array_size = c.max_array_size;
  cluster.max_array_tasks = c.max_array_tasks;
  options.private_jobs = c.private_jobs;
  for (const auto& entry : tpslurm::sim::split_csv(c.associations)) {
    const auto equals = entry.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == entry.size()) {
      return "--associations \"" + entry + "\": expected USER=ACCOUNT[:ACCOUNT...]";
    }
    std::vector<std::string>& accounts = cluster.associations[entry.substr(0, equals)];
    for (auto& account : tpslurm::sim::split_csv(std::string_view(entry).substr(equals + 1), ':')) {
      accounts.push_back(std::move(account));
    }
  }
  std::string cwd = c.cwd;
  if (cwd.empty()) {
    char buf[4096];
    cwd = getcwd(buf, sizeof buf) ? buf : "/";
  }
  options.default_cwd = cwd;
  return std::nullopt;
}

// Listens, writes the port files, and serves until SIGINT or SIGTERM.
int serve(const SimOptions& options, const CommandLine& c) {
  // SIGINT/SIGTERM are taken by a waiting thread, which stops the server cleanly.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  tpslurm::sim::Simulator simulator(options);
  tpslurm::sim::Server server(simulator);
  if (auto st = server.listen(options.listen_host, options.port); !st) return fail(st.error().message());
  if (!c.control_listen.empty()) {
    std::string host;
    std::uint16_t control_port = 0;
    if (auto st = tpslurm::sim::parse_listen(c.control_listen, host, control_port); !st) {
      return fail(st.error().message());
    }
    if (auto st = server.listen_control(host, control_port); !st) return fail(st.error().message());
  }
  if (!c.port_file.empty() && !write_port_file(c.port_file, server.port())) {
    return fail("--port-file " + c.port_file + ": cannot write it");
  }
  if (!c.control_port_file.empty() && !write_port_file(c.control_port_file, server.control_port())) {
    return fail("--control-port-file " + c.control_port_file + ": cannot write it");
  }
  std::cout << "listening on " << options.listen_host << ":" << server.port() << std::endl;
  if (server.control_port()) {
    std::cout << "control on " << c.control_listen.substr(0, c.control_listen.rfind(':')) << ":"
              << server.control_port() << std::endl;
  }

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

int run(int argc, char** argv) {
  CLI::App app{"slurmrestd-sim: a fault-injecting slurmrestd simulator"};
  CommandLine c;
  add_options(app, c);
  CLI11_PARSE(app, argc, argv);
  SimOptions options;
  if (auto problem = configure_server(c, options)) return fail(*problem);
  if (auto problem = configure_cluster(c, options)) return fail(*problem);
  return serve(options, c);
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
