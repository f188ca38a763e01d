#include "model/gpu_series.h"

#include "model/detail/json_fields.h"
#include "model/detail/catalog_document.h"

namespace tpslurm::model {
using detail::Fields;
using detail::Need;

namespace {

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
  GpuSeriesCatalog catalog;
  Problems problems = detail::parse_catalog(text, source, "series", [&](const std::string& name, Fields& fields) {
    Problems& found = fields.problems();
    GpuSeries gpu;
    gpu.name = name;
    if (auto constraint = fields.string("slurm_constraint", Need::optional)) {
      if (is_feature_expression(*constraint)) {
        gpu.slurm_constraint = std::move(*constraint);
      } else {
        found.add(fields.path_of("slurm_constraint"), quote_value(*constraint),
                  "is not a Slurm feature expression (names joined by & | ,)");
      }
    }
    if (auto gres = fields.string("gres", Need::optional)) {
      if (is_gres(*gres)) {
        gpu.gres = std::move(*gres);
      } else {
        found.add(fields.path_of("gres"), quote_value(*gres), "must be a GRES name such as \"gpu\" or \"gpu:h100\"");
      }
    }
    if (auto count = fields.integer("gpus_per_node", Need::required, 1, 64)) gpu.gpus_per_node = static_cast<int>(*count);
    catalog.m_series.emplace(name, std::move(gpu));
  });
  if (!problems.empty()) return problems;
  return catalog;
}

const GpuSeries* GpuSeriesCatalog::find(std::string_view name) const {
  const auto it = m_series.find(name);
  return it == m_series.end() ? nullptr : &it->second;
}

}  // namespace tpslurm::model
