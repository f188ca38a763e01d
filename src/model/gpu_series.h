// The GPU series catalog (TUNEPLANE_GPU_SERIES_FILE): which Slurm constraint and GRES
// each GPU series maps to.
//
//   { "series": { "h100-80g": { "slurm_constraint": "h100", "gres": "gpu", "gpus_per_node": 8 } } }
//
// A series without `slurm_constraint` may be listed, but no request may use it on Slurm
// (fail closed: a component must never land on arbitrary GPU nodes); the LaunchRequest
// validator enforces that. parse() collects every problem of the document. Immutable after
// parsing; safe to share between threads.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "model/problems.h"

namespace tpslurm::model {

struct GpuSeries {
  std::string name;
  std::optional<std::string> slurm_constraint;  // a Slurm feature expression, e.g. "a100&80g"
  std::string gres = "gpu";                     // GRES name, optionally with type: "gpu" or "gpu:h100"
  int gpus_per_node = 0;                        // GPUs one node of this series has
};

class GpuSeriesCatalog {
 public:
  // `source` names the document in messages (usually the file path).
  static Result<GpuSeriesCatalog, Problems> parse(std::string_view json, std::string_view source);

  const GpuSeries* find(std::string_view name) const;
  const std::map<std::string, GpuSeries, std::less<>>& all() const { return m_series; }

 private:
  std::map<std::string, GpuSeries, std::less<>> m_series;
};

}  // namespace tpslurm::model
