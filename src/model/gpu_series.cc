#include "model/gpu_series.h"

#include "model/detail/json_fields.h"
#include "model/detail/json_input.h"

namespace tpslurm::model {
namespace json = boost::json;
using detail::Fields;
using detail::Need;

namespace {

constexpr detail::JsonLimits kCatalogLimits{4 << 20, 16, 4096};

// Slurm feature expressions: names joined by & | , with brackets, counts and parentheses.
bool is_feature_expression(std::string_view text) {
  return !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                 "_-.&|,()[]*:") == std::string_view::npos;
}

bool is_gres(std::string_view text) {
  return !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:") ==
                              std::string_view::npos &&
         text.front() != ':' && text.back() != ':';
}

}  // namespace

Result<GpuSeriesCatalog, Problems> GpuSeriesCatalog::parse(std::string_view text, std::string_view source) {
  auto parsed = detail::parse_untrusted_json(text, kCatalogLimits, source);
  if (!parsed.ok()) return parsed.error();
  Problems problems;
  GpuSeriesCatalog catalog;
  const std::string root(source);
  if (!parsed->is_object()) {
    problems.add(root, "must be a JSON object with a \"series\" object");
    return problems;
  }
  Fields top(parsed->get_object(), root, problems);
  if (const json::object* series = top.object("series", Need::required)) {
    for (const auto& entry : *series) {
      const std::string name(entry.key().data(), entry.key().size());
      const std::string path = detail::child_path(top.path_of("series"), name);
      if (!entry.value().is_object()) {
        problems.add(path, detail::show(entry.value()), "must be an object");
        continue;
      }
      Fields fields(entry.value().get_object(), path, problems);
      GpuSeries gpu;
      gpu.name = name;
      if (auto constraint = fields.string("slurm_constraint", Need::optional)) {
        if (is_feature_expression(*constraint)) {
          gpu.slurm_constraint = std::move(*constraint);
        } else {
          problems.add(fields.path_of("slurm_constraint"), quote_value(*constraint),
                       "is not a Slurm feature expression (names joined by & | ,)");
        }
      }
      if (auto gres = fields.string("gres", Need::optional)) {
        if (is_gres(*gres)) {
          gpu.gres = std::move(*gres);
        } else {
          problems.add(fields.path_of("gres"), quote_value(*gres), "must be a GRES name such as \"gpu\" or \"gpu:h100\"");
        }
      }
      if (auto count = fields.integer("gpus_per_node", Need::required, 1, 64)) gpu.gpus_per_node = static_cast<int>(*count);
      fields.reject_unknown();
      catalog.m_series.emplace(name, std::move(gpu));
    }
  }
  top.reject_unknown();
  if (!problems.empty()) return problems;
  return catalog;
}

const GpuSeries* GpuSeriesCatalog::find(std::string_view name) const {
  const auto it = m_series.find(name);
  return it == m_series.end() ? nullptr : &it->second;
}

}  // namespace tpslurm::model
