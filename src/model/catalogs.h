// Catalogs: the two files every rendering needs, as loaded from the settings' paths
// (TUNEPLANE_GPU_SERIES_FILE, TUNEPLANE_RUNTIME_REGISTRY_FILE). Plain values.
#pragma once

#include "model/gpu_series.h"
#include "model/runtime_registry.h"

namespace tpslurm::model {

struct Catalogs {
  GpuSeriesCatalog gpu_series;
  RuntimeRegistry runtimes;
};

}  // namespace tpslurm::model
