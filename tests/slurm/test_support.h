// Helpers shared by the slurm tests: fixture files, 22.05 transcript parsing, a fixed token.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "slurm/jwt_source.h"

namespace tpslurm::slurm::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "<missing file " + path + ">";
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

inline std::string fixture(const std::string& relative) {
  return read_file(std::string(TP_SOURCE_DIR) + "/tests/fixtures/slurm/" + relative);
}

// An answer recorded from a real slurmrestd (tests/slurm/recorded/).
inline std::string recorded(const std::string& name) {
  return read_file(std::string(TP_SOURCE_DIR) + "/tests/slurm/recorded/" + name);
}

inline std::string golden_path(const std::string& name) {
  return std::string(TP_SOURCE_DIR) + "/tests/slurm/golden/" + name;
}

// One 22.05.8 transcript (samples-v0.0.38/*.txt): request line, optional body, status, body.
struct Transcript {
  std::string method;
  std::string target;
  std::string request_body;
  int status = 0;
  std::string response_body;
};

inline Transcript transcript_v0038(const std::string& name) {
  const std::string text = fixture("samples-v0.0.38/" + name + ".txt");
  Transcript transcript;
  const auto request = text.find("REQUEST: ");
  if (request != std::string::npos) {
    const auto end = text.find('\n', request);
    std::istringstream line(text.substr(request + 9, end - request - 9));
    line >> transcript.method >> transcript.target;
  }
  const auto body = text.find("Body:\n");
  const auto response = text.find("RESPONSE: HTTP ");
  if (body != std::string::npos && response != std::string::npos && body < response) {
    transcript.request_body = text.substr(body + 6, response - body - 6);
  }
  if (response != std::string::npos) {
    transcript.status = std::stoi(text.substr(response + 15, 3));
    const auto end = text.find('\n', response);
    transcript.response_body = end == std::string::npos ? std::string() : text.substr(end + 1);
  }
  return transcript;
}

// 26.05.3 transcripts: <name>.response.json and "HTTP <status>" first in <name>.status.txt.
inline std::string response_v0045(const std::string& name) { return fixture("samples-v0.0.45/" + name + ".response.json"); }
inline int status_v0045(const std::string& name) {
  return std::stoi(fixture("samples-v0.0.45/" + name + ".status.txt").substr(5, 3));
}

class StaticTokenSource final : public TokenSource {
 public:
  explicit StaticTokenSource(std::string token = "eyJhbGciOiJIUzI1NiJ9.eyJzdW4iOiJhbGljZSJ9.c2VjcmV0LXNpZ25hdHVyZQ")
      : m_token(std::move(token)) {}
  Result<Credentials> credentials() override { return Credentials{"alice", m_token, std::nullopt}; }
  std::string describe() const override { return "a fixed test token"; }
  const std::string& token() const { return m_token; }

 private:
  std::string m_token;
};

}  // namespace tpslurm::slurm::testing

#include "model/submit_description.h"

namespace tpslurm::slurm::testing {

// A two-component heterogeneous job as render/ would describe it.
inline model::SubmitDescription hetjob_description() {
  model::SubmitDescription description;
  description.tag = model::JobTag{"tp-prod-train-7-1", "tuneplane:0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69",
                                  "/shared/tuneplane/jobs/train-7/attempts/1"};
  description.script = "#!/bin/bash\nset -euo pipefail\nsrun --het-group=0,1 true\n";
  description.standard_output = "/shared/tuneplane/jobs/train-7/attempts/1/logs/slurm-%j.out";
  description.standard_error = "/shared/tuneplane/jobs/train-7/attempts/1/logs/slurm-%j.err";
  description.environment = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"LANG", "C.UTF-8"}};
  description.account = "ml";
  description.qos = "normal";
  description.time_limit_minutes = 120;
  description.signal = model::WarningSignal{"USR1", 300, true};
  description.components = {
      model::SubmitComponent{"gpu", "h100", 2, 8, 12, 1024000, "gpu:8"},
      model::SubmitComponent{"gpu", "a100&80g", 1, 4, 8, 512000, "gpu:a100:4"},
  };
  return description;
}

// One CPU-only component with nothing optional set.
inline model::SubmitDescription cpu_description() {
  model::SubmitDescription description;
  description.tag = model::JobTag{"tp-prod-etl-3-2", "tuneplane:7a1d2c3b-0000-4000-8000-000000000002",
                                  "/shared/tuneplane/jobs/etl-3/attempts/2"};
  description.script = "#!/bin/bash\necho hello\n";
  description.environment = {{"PATH", "/usr/bin:/bin"}};
  description.components = {model::SubmitComponent{"cpu", "", 1, 1, 4, 8192, ""}};
  return description;
}

}  // namespace tpslurm::slurm::testing
