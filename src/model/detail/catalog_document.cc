#include "model/detail/catalog_document.h"

#include "model/detail/json_input.h"

namespace tpslurm::model::detail {

namespace json = boost::json;

namespace {

constexpr JsonLimits kCatalogLimits{4 << 20, 16, 4096};

}  // namespace

Problems parse_catalog(std::string_view text, std::string_view source, std::string_view top_key,
                       const std::function<void(const std::string& name, Fields& fields)>& entry) {
  auto parsed = parse_untrusted_json(text, kCatalogLimits, source);
  if (!parsed.ok()) return parsed.error();
  Problems problems;
  const std::string root(source);
  if (!parsed->is_object()) {
    problems.add(root, "must be a JSON object with a \"" + std::string(top_key) + "\" object");
    return problems;
  }
  Fields top(parsed->get_object(), root, problems);
  if (const json::object* entries = top.object(top_key, Need::required)) {
    for (const auto& item : *entries) {
      const std::string name(item.key().data(), item.key().size());
      const std::string path = child_path(top.path_of(top_key), name);
      if (!item.value().is_object()) {
        problems.add(path, show(item.value()), "must be an object");
        continue;
      }
      Fields fields(item.value().get_object(), path, problems);
      entry(name, fields);
      fields.reject_unknown();
    }
  }
  top.reject_unknown();
  return problems;
}

}  // namespace tpslurm::model::detail
