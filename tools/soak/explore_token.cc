#include "explore_token.h"

#include <stdio.h>
#include <sys/stat.h>

#include <fstream>
#include <random>
#include <sstream>

#include "slurm/jwt.h"

namespace tpslurm::soak {

Status TokenFile::good() {
  std::ifstream in(m_key_file, std::ios::binary);
  std::stringstream key;
  key << in.rdbuf();
  if (!in) return permanent("cannot read the simulator's key " + m_key_file);
  return write(key.str());
}

Status TokenFile::bad() {
  std::random_device random;
  std::string key;
  for (int i = 0; i < 48; ++i) key += "0123456789abcdef"[random() % 16];
  return write(key);
}

Status TokenFile::write(const std::string& key) {
  const std::string token = slurm::mint_hs256(key, m_user, std::chrono::system_clock::now(), std::chrono::hours(24));
  const std::string temporary = m_path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << "SLURM_JWT=" << token << "\n";
    if (!out) return permanent("cannot write " + temporary);
  }
  if (chmod(temporary.c_str(), 0600) != 0 || rename(temporary.c_str(), m_path.c_str()) != 0) {
    return permanent("cannot put the token in place at " + m_path);
  }
  return {};
}

}  // namespace tpslurm::soak
