// The catalogs the LaunchRequest and rendering targets validate against: the same shapes as
// the tests' (tests/render/render_fixtures.cc): two GPU series with a Slurm constraint and
// one without, an srun and a Ray runtime of framework custom and a verl one. Parsed once;
// abort() when they do not parse (that is a fault of this file, not of an input).
#pragma once

#include "model/gpu_series.h"
#include "model/runtime_registry.h"
#include "model/settings.h"

namespace tpslurm::fuzz {

const model::GpuSeriesCatalog& gpu_series();
const model::RuntimeRegistry& runtimes();
// Settings for rendering under `profile` (instance, partitions, storage root).
model::Settings render_settings(model::RuntimeProfile profile);

}  // namespace tpslurm::fuzz
