#include "sim.h"

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

namespace tpslurm::soak {
namespace {

// The port the simulator wrote to `file`, waiting at most 20 s; 0 when it never came.
int read_port_file(const std::string& file, Process& process) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline && process.running()) {
    std::ifstream in(file);
    int port = 0;
    if (in >> port && port > 0) return port;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

// 48 random bytes as hex: the cluster's HS256 key, readable by its owner only.
Status write_key(const std::string& path) {
  std::random_device random;
  std::string key;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 48; ++i) key += kHex[random() % 16];
  {
    std::ofstream out(path, std::ios::trunc);
    out << key;
    if (!out) return permanent("cannot write " + path);
  }
  if (chmod(path.c_str(), 0600) != 0) return permanent("cannot chmod " + path);
  return {};
}

}  // namespace

Result<std::unique_ptr<Sim>> Sim::start(const SimConfig& config) {
  std::unique_ptr<Sim> sim(new Sim());
  sim->m_key_file = config.dir + "/jwt_hs256.key";
  if (auto st = write_key(sim->m_key_file); !st.ok()) return st.error();
  const std::string port_file = config.dir + "/sim.port";
  const std::string control_file = config.dir + "/sim.control-port";
  std::string error;
  std::vector<std::string> argv{config.binary,   "--listen",     "127.0.0.1:0",     "--port-file",
                                 port_file,       "--control-listen", "127.0.0.1:0", "--control-port-file",
                                 control_file,    "--key-file",   sim->m_key_file,   "--release",
                                 "26.05.3",       "--timing",     config.timing,     "--min-job-age",
                                 std::to_string(config.min_job_age_s)};
  if (!config.accounting) argv.push_back("--no-accounting");
  sim->m_process = Process::start(argv, {}, config.dir + "/sim.log", error);
  if (!sim->m_process) return permanent(error);
  sim->m_port = read_port_file(port_file, *sim->m_process);
  const int control_port = sim->m_port ? read_port_file(control_file, *sim->m_process) : 0;
  if (sim->m_port == 0 || control_port == 0) {
    return permanent("slurmrestd-sim (" + config.binary + ") did not write its ports within 20 s; see " + config.dir +
                     "/sim.log");
  }
  slurm::CurlTransportOptions options;
  options.url = "http://127.0.0.1:" + std::to_string(control_port);
  options.connect_timeout = std::chrono::seconds(2);
  options.total_timeout = std::chrono::seconds(30);
  auto transport = slurm::CurlTransport::create(options);
  if (!transport.ok()) return transport.error();
  sim->m_control = std::move(transport).value();
  auto health = sim->control(slurm::HttpMethod::get, "/sim/health");
  if (!health.ok()) return health.error();
  return sim;
}

Sim::~Sim() {
  if (m_process && m_process->running()) m_process->signal_and_wait(SIGTERM);
}

Result<boost::json::value> Sim::control(slurm::HttpMethod method, const std::string& path, const std::string& body) {
  slurm::HttpRequest request;
  request.method = method;
  request.target = path;
  if (method != slurm::HttpMethod::get) request.body = body;
  const std::string call = std::string(slurm::to_string(method)) + " " + path;
  const auto exchange = m_control->perform(request);
  if (exchange.delivery != slurm::Delivery::answered) return transient(call + ": " + exchange.detail);
  if (exchange.response.status / 100 != 2) {
    return permanent(call + ": HTTP " + std::to_string(exchange.response.status) + " " + exchange.response.body);
  }
  boost::system::error_code ec;
  auto value = boost::json::parse(exchange.response.body, ec);
  if (ec) return permanent(call + ": the answer is not JSON");
  return value;
}

}  // namespace tpslurm::soak
