// Loaders for the real slurmrestd transcripts in tests/fixtures/slurm.
//
// samples-v0.0.45/NN_name.{request.json,response.json,status.txt}: the request (method,
// URL, headers, JSON body), the exact response bytes and the status line plus headers.
// samples-v0.0.38/name.txt: "REQUEST: METHOD PATH", "Headers: ...", an optional "Body:",
// then "RESPONSE: HTTP NNN" and the body. Loading failures fail the calling test.
#pragma once

#include <map>
#include <string>

namespace tpslurm::sim::test {

struct Transcript {
  std::string name;
  std::string method;
  std::string path;         // path and query, without scheme and host
  std::string user_header;  // X-SLURM-USER-NAME ("" if none)
  bool has_token = false;   // X-SLURM-USER-TOKEN present
  bool bearer = false;      // Authorization: Bearer
  std::string request_body;
  int status = 0;
  std::map<std::string, std::string> response_headers;  // lower-case names (v0.0.45 only)
  std::string response_body;
};

std::string fixture_dir();  // <source>/tests/fixtures/slurm
Transcript load_v45(const std::string& relative_name);  // "04_submit_single" or "two_node/01_submit_hetjob"
Transcript load_v38(const std::string& name);           // "submit"
std::string read_file(const std::string& path);

}  // namespace tpslurm::sim::test
