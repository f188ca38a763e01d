// doctor's check of the GPU series catalog against the cluster's nodes (`tuneplane-slurm
// doctor`, "GPU series"; docs/deploy.md, step 5).
//
// A series' `slurm_constraint` goes into each of its jobs' `--constraint`, its `gres` and
// `gpus_per_node` into `--gres`: when no node has the series' features, or none of the nodes
// that have them offers the GRES (of that type, as many per node), Slurm refuses or never
// starts a job of the series. check_gpu_series() reads the nodes' features and GRES as
// slurmrestd reports them (RestClient::nodes()) and names each such series. A constraint of
// plain features joined by '&' (or ',') and '|' is matched node by node; one with brackets or
// parentheses only by whether each feature it names is on some node. A series without a
// constraint is skipped (no request may use it). Findings are a warning, not a failure: a
// catalog may list series a cluster does not have yet, and the other series run. Nodes that
// cannot be read are a warning too. Pure: no call, no print.
#pragma once

#include "model/gpu_series.h"
#include "slurm/doctor.h"
#include "slurm/rest_client.h"

namespace tpslurm::slurm {

DoctorCheck check_gpu_series(const NodesResult& nodes, const model::GpuSeriesCatalog& catalog);

}  // namespace tpslurm::slurm
