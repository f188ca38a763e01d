// TmpfsMount: a size-limited tmpfs mounted over a test's directory, to make a filesystem fill
// up, turn read-only or vanish on demand (tests run as root here and in CI).
//
// mount() returns the reason when the kernel refuses (the caller's test fails with it; it never
// skips). The destructor unmounts whatever is still mounted, lazily (MNT_DETACH), so a failed
// test never leaves a mount behind. Not thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace tpslurm::testing {

class TmpfsMount {
 public:
  explicit TmpfsMount(std::string dir) : m_dir(std::move(dir)) {}
  ~TmpfsMount();
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  // Creates the directory if needed and mounts a tmpfs of `bytes` there; "" or the reason.
  std::string mount(std::size_t bytes);
  // Remounts read-only (`read_only`) or read-write; "" or the reason.
  std::string remount(bool read_only);
  // Unmounts (lazily: open files keep the old tree); "" or the reason.
  std::string unmount();
  // Fills the free space with one file, `name` in the mount's root; returns its size.
  std::size_t fill(const std::string& name);

  const std::string& dir() const { return m_dir; }
  bool mounted() const { return m_mounted; }

 private:
  std::string m_dir;
  std::size_t m_bytes = 0;
  bool m_mounted = false;
};

}  // namespace tpslurm::testing
