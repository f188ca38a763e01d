// The slurmrestd-sim program itself: arguments, the "listening on" line, the port file,
// clean exit on SIGTERM, and errors for bad arguments.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim_harness.h"
#include "transcripts.h"

namespace tpslurm::sim::test {
namespace {

struct Child {
  pid_t pid = -1;
  FILE* out = nullptr;
};

Child spawn(const std::vector<std::string>& args) {
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fd[1], 1);
    dup2(pipe_fd[1], 2);
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    std::vector<char*> argv;
    std::string binary = SIM_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(pipe_fd[1]);
  return {pid, fdopen(pipe_fd[0], "r")};
}

std::string read_line(FILE* f) {
  char buf[512];
  if (!fgets(buf, sizeof buf, f)) return "";
  std::string s(buf);
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

std::filesystem::path temp_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("sim-binary-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(Binary, ListensReportsItsPortAndStopsOnSigterm) {
  auto dir = temp_dir();
  std::string key_file = (dir / "jwt.key").string();
  std::ofstream(key_file) << kTestKey;
  std::string port_file = (dir / "port").string();
  Child child = spawn({"--listen", "127.0.0.1:0", "--port-file", port_file, "--key-file", key_file, "--release",
                       "22.05.8", "--manual-clock", "--timing", "manual"});
  ASSERT_GT(child.pid, 0);
  std::string line = read_line(child.out);
  ASSERT_EQ(line.rfind("listening on 127.0.0.1:", 0), 0u) << line;
  std::string port = line.substr(std::string("listening on 127.0.0.1:").size());
  EXPECT_EQ(read_file(port_file), port + "\n");

  SimOptions options = test_options(Release::r22_05_8);
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options);
  HttpResult ping = client.request("GET", "http://127.0.0.1:" + port + "/slurm/v0.0.38/ping", req);
  EXPECT_EQ(ping.status, 200);
  EXPECT_EQ(ping.json().at("meta").at("Slurm").at("release"), "22.05.8");

  kill(child.pid, SIGTERM);
  EXPECT_EQ(wait_exit(child.pid), 0);
  fclose(child.out);
  std::filesystem::remove_all(dir);
}

TEST(Binary, RefusesToStartWithoutAKeyOrWithABadRelease) {
  Child no_key = spawn({"--listen", "127.0.0.1:0"});
  EXPECT_EQ(read_line(no_key.out), "slurmrestd-sim: --key-file is required (or --no-auth for benchmarks)");
  EXPECT_EQ(wait_exit(no_key.pid), 2);
  fclose(no_key.out);
  Child bad_release = spawn({"--no-auth", "--release", "23.02"});
  EXPECT_EQ(read_line(bad_release.out),
            "slurmrestd-sim: --release \"23.02\": use 26.05.3, 25.11.7, 25.05.0, 24.11.7, 24.05.8, 23.11.11, 23.11.4 or "
            "22.05.8");
  EXPECT_EQ(wait_exit(bad_release.pid), 2);
  fclose(bad_release.out);
  Child bad_timing = spawn({"--no-auth", "--timing", "pending=soon"});
  EXPECT_EQ(read_line(bad_timing.out),
            "slurmrestd-sim: --timing pending: duration \"soon\": expected a number with a unit (500ms, 2s, 1m) or inf");
  EXPECT_EQ(wait_exit(bad_timing.pid), 2);
  fclose(bad_timing.out);
}

}  // namespace
}  // namespace tpslurm::sim::test
