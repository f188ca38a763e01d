// NodeResources: what one node offers a job's constraint and GRES request (`nodes[]` of
// GET /slurm/vX/nodes), as the dialects decode it and RestClient::nodes() reports it.
#pragma once

#include <string>
#include <vector>

namespace tpslurm::slurm {

struct NodeResources {
  std::string name;
  std::vector<std::string> features;  // the node's available features (slurm.conf Features=)
  std::string gres;                   // as Slurm prints it: "gpu:h100:8(S:0-1),gpu:a100:2"; empty: none
  bool operator==(const NodeResources&) const = default;
};

}  // namespace tpslurm::slurm
