#include "bench_site.h"

#include <unistd.h>

#include <fstream>

#include "base/digest.h"
#include "bench_support.h"

namespace tpslurm::bench {

namespace fs = std::filesystem;

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) die("cannot write " + path.string());
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
}

fs::path make_bench_site(const std::string& name) {
  std::string pattern = (fs::temp_directory_path() / (name + ".XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) die("mkdtemp failed");
  const fs::path dir = pattern;
  const std::string image = "image bytes of the bench runtime\n";
  write_file(dir / "storage/runtimes/bench.sqsh", image);
  write_file(dir / "registry.json", R"({"runtimes": {"custom-bench": {"framework": "custom", "launcher": "srun",
      "sqsh": {"path": "runtimes/bench.sqsh", "sha256": ")" +
                                        sha256_hex(image) + R"("}}}})");
  write_file(dir / "gpu-series.json", R"({"series": {}})");
  return dir;
}

std::string bench_request(const std::string& job_id, const std::string& command_json, int time_limit_minutes) {
  return R"({"job_id": ")" + job_id + R"(", "type": "custom", "spec": {
      "framework": {"name": "custom", "runtime_id": "custom-bench"}, "command": )" +
         command_json + R"(,
      "pools": [{"name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 1, "memory_gb": 1}],
      "time_limit_minutes": )" +
         std::to_string(time_limit_minutes) + R"(}, "credentials": {"ingest_token": "ingest-)" + job_id + R"("}})";
}

}  // namespace tpslurm::bench
