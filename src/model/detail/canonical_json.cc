#include "model/detail/canonical_json.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <vector>

namespace tpslurm::model::detail {
namespace json = boost::json;
namespace {

void write(const json::value& value, std::string& out) {
  switch (value.kind()) {
    case json::kind::object: {
      const auto& object = value.get_object();
      std::vector<const json::key_value_pair*> entries;
      entries.reserve(object.size());
      for (const auto& entry : object) entries.push_back(&entry);
      std::sort(entries.begin(), entries.end(),
                [](const json::key_value_pair* a, const json::key_value_pair* b) { return a->key() < b->key(); });
      out += '{';
      for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i != 0) out += ',';
        out += json::serialize(json::string(entries[i]->key()));
        out += ':';
        write(entries[i]->value(), out);
      }
      out += '}';
      return;
    }
    case json::kind::array: {
      const auto& array = value.get_array();
      out += '[';
      for (std::size_t i = 0; i < array.size(); ++i) {
        if (i != 0) out += ',';
        write(array[i], out);
      }
      out += ']';
      return;
    }
    default:
      out += json::serialize(value);
  }
}

}  // namespace

std::string canonical_json(const json::value& value) {
  std::string out;
  write(value, out);
  return out;
}

}  // namespace tpslurm::model::detail
