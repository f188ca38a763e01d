#include "storage/manifest.h"

#include <algorithm>
#include <boost/json.hpp>

#include "base/file_system.h"

namespace tpslurm::storage {
namespace {

namespace json = boost::json;

constexpr int kFormat = 1;

// Reads fields of a parsed manifest; the first problem makes the whole manifest corrupt.
class Reader {
 public:
  explicit Reader(const std::string& source) : m_source(source) {}

  const json::object* object(const json::value& value, std::string_view what) {
    if (!value.is_object()) fail(std::string(what) + " is not an object");
    return value.if_object();
  }
  std::string text(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    if (value == nullptr || !value->is_string()) {
      fail("\"" + std::string(key) + "\" is missing or not a string");
      return {};
    }
    return std::string(value->get_string());
  }
  std::int64_t integer(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    if (value == nullptr || !value->is_int64()) {
      fail("\"" + std::string(key) + "\" is missing or not an integer");
      return 0;
    }
    return value->get_int64();
  }
  unsigned mode(const json::object& object) {
    const std::string text = this->text(object, "mode");
    if (text.size() != 4 || text.find_first_not_of("01234567") != std::string::npos) {
      fail("\"mode\" " + text + " is not four octal digits");
      return 0;
    }
    return static_cast<unsigned>(std::stoul(text, nullptr, 8));
  }
  const json::array* array(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    if (value == nullptr || !value->is_array()) {
      fail("\"" + std::string(key) + "\" is missing or not a list");
      return nullptr;
    }
    return value->if_array();
  }
  void fail(std::string why) {
    if (m_error.empty()) m_error = std::move(why);
  }
  bool failed() const { return !m_error.empty(); }
  Error error() const { return corrupt(m_source + " is not a complete attempt manifest: " + m_error); }

 private:
  const std::string& m_source;
  std::string m_error;
};

}  // namespace

std::string manifest_json(Manifest manifest) {
  std::sort(manifest.directories.begin(), manifest.directories.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  std::sort(manifest.files.begin(), manifest.files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  json::object root;
  root["format"] = kFormat;
  root["job_id"] = manifest.job_id;
  root["attempt"] = manifest.attempt;
  root["submit_token"] = manifest.submit_token;
  root["image"] = json::object{{"path", manifest.image_path}, {"sha256", manifest.image_sha256}};
  json::array directories;
  for (const auto& dir : manifest.directories) {
    directories.push_back(json::object{{"path", dir.path}, {"mode", mode_text(dir.mode)}});
  }
  root["directories"] = std::move(directories);
  json::array files;
  for (const auto& file : manifest.files) {
    files.push_back(json::object{
        {"path", file.path}, {"mode", mode_text(file.mode)}, {"size", file.size}, {"sha256", file.sha256}});
  }
  root["files"] = std::move(files);
  json::array logs;
  for (const auto& log : manifest.logs) {
    logs.push_back(json::object{
        {"name", log.name}, {"component", log.component}, {"stdout", log.stdout_path}, {"stderr", log.stderr_path}});
  }
  root["logs"] = std::move(logs);
  root["complete"] = true;
  return json::serialize(root) + "\n";
}

Result<Manifest> parse_manifest(std::string_view text, const std::string& source) {
  json::error_code ec;
  json::value parsed = json::parse(text, ec);
  if (ec) return corrupt(source + " is not a complete attempt manifest: " + ec.message());
  Reader reader(source);
  Manifest manifest;
  const json::object* root = reader.object(parsed, "the manifest");
  if (root == nullptr) return reader.error();
  if (reader.integer(*root, "format") != kFormat) reader.fail("unknown format");
  const json::value* complete = root->if_contains("complete");
  if (complete == nullptr || !complete->is_bool() || !complete->get_bool()) reader.fail("not marked complete");
  manifest.job_id = reader.text(*root, "job_id");
  manifest.attempt = static_cast<int>(reader.integer(*root, "attempt"));
  manifest.submit_token = reader.text(*root, "submit_token");
  if (const json::value* image = root->if_contains("image"); image != nullptr && image->is_object()) {
    manifest.image_path = reader.text(image->get_object(), "path");
    manifest.image_sha256 = reader.text(image->get_object(), "sha256");
  } else {
    reader.fail("\"image\" is missing");
  }
  if (const json::array* dirs = reader.array(*root, "directories")) {
    for (const auto& item : *dirs) {
      if (const json::object* dir = reader.object(item, "a directory")) {
        manifest.directories.push_back({reader.text(*dir, "path"), reader.mode(*dir)});
      }
    }
  }
  if (const json::array* files = reader.array(*root, "files")) {
    for (const auto& item : *files) {
      if (const json::object* file = reader.object(item, "a file")) {
        const std::int64_t size = reader.integer(*file, "size");
        manifest.files.push_back({reader.text(*file, "path"), reader.mode(*file),
                                  static_cast<std::uint64_t>(std::max<std::int64_t>(size, 0)),
                                  reader.text(*file, "sha256")});
      }
    }
  }
  if (const json::array* logs = reader.array(*root, "logs")) {
    for (const auto& item : *logs) {
      if (const json::object* log = reader.object(item, "a log")) {
        manifest.logs.push_back({reader.text(*log, "name"), static_cast<int>(reader.integer(*log, "component")),
                                 reader.text(*log, "stdout"), reader.text(*log, "stderr")});
      }
    }
  }
  if (reader.failed()) return reader.error();
  return manifest;
}

}  // namespace tpslurm::storage
