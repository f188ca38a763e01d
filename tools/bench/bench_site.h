// bench_site: the files every bench that runs the reconciler starts from — a temporary
// directory with a runtime registry of one runtime (`custom-bench`, its image at
// storage/runtimes/bench.sqsh with the registry's sha256), an empty GPU series catalog, and a
// CPU-only LaunchRequest for that runtime. Helpers die (bench_support's die()) when they
// cannot go on.
#pragma once

#include <filesystem>
#include <string>

namespace tpslurm::bench {

// Writes `text` to `path` (mode 0600), creating its parent directories.
void write_file(const std::filesystem::path& path, const std::string& text);

// A new directory $TMPDIR/<name>.XXXXXX (/tmp without TMPDIR) holding storage/runtimes/bench.sqsh,
// registry.json and gpu-series.json: the state and storage of the run go on that filesystem.
std::filesystem::path make_bench_site(const std::string& name);

// A CPU-only request for `custom-bench` under `job_id` running `command_json` (a JSON array),
// with `time_limit_minutes`, and an ingest token of its own.
std::string bench_request(const std::string& job_id, const std::string& command_json = R"(["python", "train.py"])",
                          int time_limit_minutes = 600);

}  // namespace tpslurm::bench
