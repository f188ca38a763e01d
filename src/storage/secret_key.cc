#include "storage/secret_key.h"

#include <openssl/rand.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "base/file_system.h"
#include "storage/atomic_file.h"

namespace tpslurm::storage {
namespace {

constexpr std::size_t kKeyBytes = 32;

Result<std::string> load(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return system_error("stat", path, errno);
  if ((info.st_mode & 077) != 0) {
    return invalid_argument(path + " is accessible by group or others (mode " + mode_text(info.st_mode) +
                            "); run: chmod 600 " + path);
  }
  auto key = read_file(path, 4096);
  if (!key.ok()) return key.error();
  if (key->size() != kKeyBytes) return corrupt(path + " does not hold a " + std::to_string(kKeyBytes) + "-byte key");
  return key;
}

}  // namespace

Result<std::string> load_or_create_secret_key(const std::string& path) {
  auto existing = load(path);
  if (existing.ok() || existing.error().kind() != ErrorKind::not_found) return existing;
  std::string key(kKeyBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), static_cast<int>(key.size())) != 1) {
    return transient("no random bytes available for " + path);
  }
  Status written = write_file_atomically(path, key, 0600, Overwrite::no);
  // Someone else created it first: theirs is the key.
  if (!written.ok() && written.error().kind() != ErrorKind::invalid_argument) return written.error();
  return load(path);
}

Result<std::string> load_state_key(const std::string& state_dir) {
  if (Status made = make_directories(state_dir, 0700); !made.ok()) return made.error();
  return load_or_create_secret_key(state_dir + "/hmac.key");
}

}  // namespace tpslurm::storage
