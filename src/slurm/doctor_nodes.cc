#include "slurm/doctor_nodes.h"

#include <algorithm>
#include <boost/algorithm/string/join.hpp>
#include <charconv>

#include "model/deploy_guide.h"

namespace tpslurm::slurm {
namespace {

using boost::algorithm::join;

std::vector<std::string> split(std::string_view text, std::string_view separators) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find_first_of(separators, start), text.size());
    if (end > start) words.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

// "a100*2" -> "a100".
std::string feature_name(std::string word) {
  if (const auto star = word.find('*'); star != std::string::npos) word.erase(star);
  return word;
}

// The alternatives of a plain constraint, each the features a node must all have; a grouped
// expression gives one alternative of every feature it names (each checked on its own).
struct Constraint {
  std::vector<std::vector<std::string>> alternatives;
  bool grouped = false;
};

Constraint parse_constraint(std::string_view expression) {
  Constraint parsed;
  parsed.grouped = expression.find_first_of("[]()") != std::string_view::npos;
  if (parsed.grouped) {
    std::vector<std::string> all;
    for (auto& word : split(expression, "[]()&|,")) all.push_back(feature_name(word));
    parsed.alternatives.push_back(std::move(all));
    return parsed;
  }
  for (const auto& alternative : split(expression, "|")) {
    std::vector<std::string> features;
    for (auto& word : split(alternative, "&,")) features.push_back(feature_name(word));
    parsed.alternatives.push_back(std::move(features));
  }
  return parsed;
}

bool has_feature(const NodeResources& node, const std::string& feature) {
  return std::find(node.features.begin(), node.features.end(), feature) != node.features.end();
}

bool has_all(const NodeResources& node, const std::vector<std::string>& features) {
  return std::all_of(features.begin(), features.end(), [&](const auto& f) { return has_feature(node, f); });
}

// How many of `wanted` ("gpu" or "gpu:h100") the node offers: "gpu:h100:8(S:0-1),gpu:a100:2".
long gres_count(const NodeResources& node, const std::string& wanted) {
  std::string text;
  int depth = 0;
  for (const char c : node.gres) {  // socket bindings "(S:0,1)" dropped
    if (c == '(') ++depth;
    if (depth == 0) text += c;
    if (c == ')' && depth > 0) --depth;
  }
  const auto want = split(wanted, ":");
  if (want.empty()) return 0;
  long total = 0;
  for (const auto& entry : split(text, ",")) {
    auto parts = split(entry, ":");
    if (parts.empty() || parts.front() != want.front()) continue;
    long count = 1;
    if (parts.size() >= 2 && std::from_chars(parts.back().data(), parts.back().data() + parts.back().size(), count).ec ==
                                 std::errc()) {
      parts.pop_back();
    }
    const std::string type = parts.size() >= 2 ? parts[1] : std::string();
    if (want.size() >= 2 && type != want[1]) continue;
    total += count;
  }
  return total;
}

// What keeps the series from running on this cluster, or nothing.
std::optional<std::string> series_problem(const model::GpuSeries& series, const std::vector<NodeResources>& nodes) {
  const Constraint constraint = parse_constraint(*series.slurm_constraint);
  std::vector<const NodeResources*> matching;
  for (const auto& node : nodes) {
    const bool match = constraint.grouped
                           ? true
                           : std::any_of(constraint.alternatives.begin(), constraint.alternatives.end(),
                                         [&](const auto& features) { return has_all(node, features); });
    if (match) matching.push_back(&node);
  }
  if (constraint.grouped) {
    std::vector<std::string> missing;
    for (const auto& feature : constraint.alternatives.front()) {
      if (std::none_of(nodes.begin(), nodes.end(), [&](const auto& node) { return has_feature(node, feature); })) {
        missing.push_back(feature);
      }
    }
    if (!missing.empty()) return series.name + ": no node has the feature " + join(missing, ", ");
  } else if (matching.empty()) {
    return series.name + ": no node has the features " + *series.slurm_constraint;
  }
  const long per_node = std::max(series.gpus_per_node, 1);
  std::vector<std::string> names;
  for (const NodeResources* node : matching) {
    if (gres_count(*node, series.gres) >= per_node) return std::nullopt;
    names.push_back(node->name);
  }
  return series.name + ": no node with " + *series.slurm_constraint + " (" + join(names, ", ") + ") offers GRES " +
         series.gres + ":" + std::to_string(per_node);
}

}  // namespace

DoctorCheck check_gpu_series(const NodesResult& nodes, const model::GpuSeriesCatalog& catalog) {
  constexpr const char* kName = "GPU series";
  const std::string fix = model::fix_with_step(
      "give the series' nodes its features (Features= in slurm.conf) and GRES (Gres= and gres.conf), or correct "
      "the GPU series catalog",
      model::DeployStep::gpu_series);
  if (!nodes.ok()) {
    return {kName, true, "the nodes could not be read (" + nodes.message + "): the series are not checked",
            model::fix_with_step("check each series' feature and GRES with sinfo -o \"%N %f %G\"",
                                 model::DeployStep::gpu_series),
            true};
  }
  std::vector<std::string> problems;
  std::vector<std::string> fine;
  for (const auto& [name, series] : catalog.all()) {
    if (!series.slurm_constraint) continue;
    if (auto problem = series_problem(series, nodes.nodes)) {
      problems.push_back(std::move(*problem));
    } else {
      fine.push_back(name);
    }
  }
  const std::string counted = std::to_string(nodes.nodes.size()) + " node(s)";
  if (!problems.empty()) {
    return {kName, true,
            join(problems, "; ") + " (of " + counted + "); Slurm refuses or never starts jobs of such a series", fix,
            true};
  }
  if (fine.empty()) return {kName, true, "no series has a slurm_constraint: none can run on Slurm", "", false};
  return {kName, true, join(fine, ", ") + ": each has a node with its features and GRES (" + counted + ")", "", false};
}

}  // namespace tpslurm::slurm
