// Links planted in an attempt's logs/ and the tree outside the storage root they point at.
// OutsideTree makes a directory outside the storage tree with a file and a subdirectory (known
// modes and content) and records every entry under it; changes() names each difference from that
// record (a mode, a size, content, an entry added or gone), so a daemon that followed a link
// while sealing, cleaning or reading is caught. plant_links() puts into `logs_dir`: `exit.json`
// as a FIFO (unless an exit.json is there), `evil` -> the outside file and `evildir` -> the
// outside directory. Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/result.h"

namespace tpslurm::soak {

class OutsideTree {
 public:
  // Creates `dir` with `secret.txt` (0640) and `dir/inside.txt` (0600) and records them.
  static Result<OutsideTree> create(const std::string& dir);
  std::string file() const { return m_dir + "/secret.txt"; }
  std::string directory() const { return m_dir + "/dir"; }
  // Each difference from the record, in words; empty when nothing changed.
  std::vector<std::string> changes() const;

 private:
  std::map<std::string, std::string> snapshot() const;  // path -> "mode size content"
  std::string m_dir;
  std::map<std::string, std::string> m_recorded;
};

// What was planted, in words; an error when `logs_dir` is not a directory or a link could not
// be made.
Result<std::string> plant_links(const std::string& logs_dir, const OutsideTree& outside);

}  // namespace tpslurm::soak
