// tp-explore: seeded fault schedules against the real `serve` and the simulator (explore_run.h
// runs one; explore_schedule.h draws it). `--seed N` runs one schedule, `--seeds A..B` (or
// N,M,...) several, `--minutes M` seeds from --seed on until the time is up, `--list` prints the
// schedules and runs nothing, `--only K,...` draws those kinds alone (every other one is
// `--without`). Prints each schedule first, the command that replays a failing one, then per
// fault kind how often it was applied, the operator's escapes and the verdict line. Exit status: 0 when every schedule is clean (with --plant: when each counts
// exactly what was planted), 1 otherwise, 2 when one could not be set up or bad options.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <random>
#include <set>
#include <vector>

#include "explore_summary.h"

namespace {

std::string make_base(const std::string& given) {
  if (!given.empty()) {
    std::filesystem::create_directories(given);
    return given;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tp-explore.XXXXXX";
  return mkdtemp(pattern.data()) ? pattern : std::string();
}

// "A..B" or "N,M,..." (entries may be ranges); false when it is neither.
bool parse_seeds(const std::string& text, std::vector<std::uint64_t>& out) {
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const auto dots = item.find("..");
    try {
      const std::uint64_t first = std::stoull(item.substr(0, dots));
      const std::uint64_t last = dots == std::string::npos ? first : std::stoull(item.substr(dots + 2));
      if (last < first || last - first > 1000000) return false;
      for (std::uint64_t s = first; s <= last; ++s) out.push_back(s);
    } catch (const std::exception&) {
      return false;
    }
    at = comma + 1;
  }
  return !out.empty();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tpslurm::soak;
  ExploreOptions o;
  o.daemon_binary = TP_BINARY;
  o.sim_binary = SIM_BINARY;
  std::uint64_t seed = 0;
  std::string seeds;
  int minutes = 0;
  std::string work_dir;
  bool keep = false;
  bool list = false;
  std::string without;
  std::string only;
  CLI::App app{"tp-explore: seeded fault schedules against tuneplane-slurm serve and the simulator"};
  app.add_option("--seed", seed, "the (first) schedule's seed (default: random, printed)");
  app.add_option("--seeds", seeds, "A..B: every seed from A to B; or N,M,... (ranges allowed)");
  app.add_option("--minutes", minutes, "run seeds from --seed on until this many minutes have passed");
  app.add_option("--seconds", o.schedule.seconds, "each schedule's timeline, seconds")->capture_default_str();
  app.add_option("--jobs", o.schedule.jobs, "jobs fed per schedule")->capture_default_str();
  app.add_option("--min-faults", o.schedule.min_faults, "fewest faults per schedule")->capture_default_str();
  app.add_option("--max-faults", o.schedule.max_faults, "most faults per schedule")->capture_default_str();
  app.add_option("--without", without, "fault kinds never drawn, comma-separated (e.g. forget_jobs,sigkill)");
  app.add_option("--only", only, "the only fault kinds drawn, comma-separated (e.g. hostile_files)");
  app.add_option("--drain-seconds", o.drain_seconds, "bound on each drain")->capture_default_str();
  app.add_option("--grace", o.grace_s, "seconds serve has to answer SIGTERM")->capture_default_str();
  app.add_option("--daemon", o.daemon_binary, "the tuneplane-slurm binary")->capture_default_str();
  app.add_option("--sim", o.sim_binary, "the slurmrestd-sim binary")->capture_default_str();
  app.add_option("--work-dir", work_dir, "where the schedules keep their files (default: new under $TMPDIR)");
  app.add_flag("--keep", keep, "keep every schedule's directory, also the clean ones");
  app.add_flag("--list", list, "print the schedules the seeds draw, run nothing");
  app.add_flag("--plant", o.plant, "plant one case of each invariant around each drain (tools/soak/README.md)");
  CLI11_PARSE(app, argc, argv);
  std::set<FaultKind> only_kinds;
  std::string error;
  if (!parse_kinds(without, o.schedule.without, error) || !parse_kinds(only, only_kinds, error)) {
    std::fprintf(stderr, "tp-explore: --without/--only: %s\n", error.c_str());
    return 2;
  }
  if (!only_kinds.empty()) {
    for (const auto kind : all_but(only_kinds)) o.schedule.without.insert(kind);
  }
  std::vector<std::uint64_t> list_of_seeds;
  if (!seeds.empty() && !parse_seeds(seeds, list_of_seeds)) {
    std::fprintf(stderr, "tp-explore: --seeds wants A..B or N,M,... (A <= B)\n");
    return 2;
  }
  if (list_of_seeds.empty()) list_of_seeds.push_back(seed != 0 ? seed : std::random_device()() % 1000000 + 1);
  if (list) {
    for (const auto s : list_of_seeds) {
      for (const auto& line : describe(draw_schedule(s, o.schedule))) std::printf("%s\n", line.c_str());
    }
    return 0;
  }
  const std::string base = make_base(work_dir);
  if (base.empty() || o.schedule.seconds < 10 || o.schedule.jobs < 1 || o.schedule.min_faults < 0 ||
      o.schedule.max_faults < o.schedule.min_faults) {
    std::fprintf(stderr, "tp-explore: --seconds at least 10, --jobs positive, faults min <= max, a work directory\n");
    return 2;
  }
  Summary summary(o, argv[0], base, keep);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(minutes);
  try {
    if (minutes > 0) {
      for (std::uint64_t s = list_of_seeds.front(); std::chrono::steady_clock::now() < deadline; ++s) summary.run(s);
    } else {
      for (const auto s : list_of_seeds) summary.run(s);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tp-explore: %s\n", e.what());
    return 2;
  }
  return summary.finish();
}
