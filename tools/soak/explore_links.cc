#include "explore_links.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tpslurm::soak {
namespace {

namespace fs = std::filesystem;

bool write_file(const std::string& path, const std::string& text, mode_t mode) {
  {
    std::ofstream out(path, std::ios::trunc);
    out << text;
    if (!out) return false;
  }
  return chmod(path.c_str(), mode) == 0;
}

std::string describe_entry(const fs::path& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return "gone";
  std::ostringstream out;
  out << std::oct << (st.st_mode & 07777) << std::dec << " " << st.st_size << " uid " << st.st_uid;
  if (S_ISREG(st.st_mode)) {
    std::ifstream in(path, std::ios::binary);
    out << " " << in.rdbuf();
  }
  return out.str();
}

}  // namespace

Result<OutsideTree> OutsideTree::create(const std::string& dir) {
  OutsideTree tree;
  tree.m_dir = dir;
  std::error_code ec;
  fs::create_directories(tree.directory(), ec);
  if (ec || chmod(tree.directory().c_str(), 0750) != 0 ||
      !write_file(tree.file(), "outside the storage tree: never to be changed\n", 0640) ||
      !write_file(tree.directory() + "/inside.txt", "in a directory outside the storage tree\n", 0600)) {
    return permanent("cannot make the outside tree " + dir);
  }
  tree.m_recorded = tree.snapshot();
  return tree;
}

std::map<std::string, std::string> OutsideTree::snapshot() const {
  std::map<std::string, std::string> out;
  out[m_dir] = describe_entry(m_dir);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(m_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    out[it->path().string()] = describe_entry(it->path());
  }
  return out;
}

std::vector<std::string> OutsideTree::changes() const {
  std::vector<std::string> out;
  const auto now = snapshot();
  for (const auto& [path, was] : m_recorded) {
    const auto found = now.find(path);
    if (found == now.end()) out.push_back(path + " is gone");
    else if (found->second != was) out.push_back(path + " changed (mode, size or content)");
  }
  for (const auto& [path, is] : now) {
    if (m_recorded.count(path) == 0) out.push_back(path + " appeared");
  }
  return out;
}

Result<std::string> plant_links(const std::string& logs_dir, const OutsideTree& outside) {
  struct stat st {};
  if (lstat(logs_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return not_found(logs_dir + " is not a directory");
  std::string planted;
  const std::string exit_json = logs_dir + "/exit.json";
  if (lstat(exit_json.c_str(), &st) != 0) {
    if (mkfifo(exit_json.c_str(), 0660) != 0) return permanent("mkfifo " + exit_json + " failed");
    planted = "a FIFO exit.json, ";
  }
  if (symlink(outside.file().c_str(), (logs_dir + "/evil").c_str()) != 0 ||
      symlink(outside.directory().c_str(), (logs_dir + "/evildir").c_str()) != 0) {
    return permanent("cannot plant the links in " + logs_dir);
  }
  return planted + "evil -> " + outside.file() + ", evildir -> " + outside.directory() + " in " + logs_dir;
}

}  // namespace tpslurm::soak
