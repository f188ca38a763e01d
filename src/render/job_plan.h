// JobPlan: the decisions render_attempt() makes before any text is produced — which shape
// and components the job has, where the image and mounts are on the cluster, which
// environment the job gets — with every reason the request cannot be rendered faithfully.
// Internal to render/; pure and thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "model/gpu_series.h"
#include "model/launch_request.h"
#include "model/problems.h"
#include "model/runtime_registry.h"
#include "model/settings.h"
#include "model/submit_description.h"
#include "render/renderer.h"

namespace tpslurm::render {

struct PlannedComponent {
  int index = 0;
  model::SubmitComponent submit;
  int rank_offset = 0;  // nodes of the components before this one
};

struct JobPlan {
  model::RuntimeProfile profile = model::RuntimeProfile::enroot_pyxis;
  bool ray = false;  // launcher ray (never for CPU-only jobs)
  bool gpu = false;
  std::vector<PlannedComponent> components;
  int total_nodes = 0;
  model::AttemptImage image;
  std::string cluster_attempt_dir;
  std::string bind_list;                                         // "src:dst[:ro],..." for --container-mounts / --bind
  std::string cluster_storage_root;                              // the storage root as the nodes see it
  std::vector<std::string> mount_sources;                        // spec.mounts[i].source as bound, relative to it
  std::vector<std::pair<std::string, std::string>> environment;  // the env file: platform's, then the job's
  model::SubmitDescription submit;                               // everything but the script
};

Result<JobPlan, model::Problems> plan_job(const model::LaunchRequest& request, const model::Runtime& runtime,
                                          const model::GpuSeriesCatalog& gpu_series, const model::Settings& settings,
                                          const AttemptInputs& inputs);

// The cluster-side path of `relative` inside the attempt directory.
std::string attempt_path(const std::string& cluster_attempt_dir, std::string_view relative);

}  // namespace tpslurm::render
