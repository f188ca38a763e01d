// The Slurm token file (slurm/jwt_source.h FileTokenSource) and the JWT readers under it
// (slurm/jwt.h). The input is written to a token file in a private temporary directory and
// read by a fresh source: either credentials whose token has no byte an HTTP header cannot
// carry, or a `permanent` error that never quotes the file's content. The readers run on the
// raw input too, and base64url decoding must undo encoding.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/clock.h"
#include "fuzz_support.h"
#include "slurm/jwt.h"
#include "slurm/jwt_source.h"
#include "slurm/transport.h"

using namespace tpslurm;

namespace {

// A private directory for the token file, removed at exit.
const std::string& token_path() {
  static const std::string path = [] {
    std::string dir = (std::filesystem::temp_directory_path() / "tp-fuzz-jwt-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) fuzz::fail("mkdtemp failed");
    static const std::string kept = dir;
    std::atexit([] { std::filesystem::remove_all(kept); });
    return dir + "/jwt";
  }();
  return path;
}

void write_token_file(std::string_view content) {
  const std::string& path = token_path();
  std::filesystem::remove(path);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  }
  ::chmod(path.c_str(), 0600);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  (void)slurm::read_claims(text);
  (void)slurm::token_shape_problem(text);
  (void)slurm::verify_hs256(text, "a key of thirty-two bytes, or so!");
  if (auto decoded = slurm::base64url_decode(text)) {
    if (slurm::base64url_decode(slurm::base64url_encode(*decoded)) != decoded) fuzz::fail("base64url round trip");
  }

  write_token_file(text);
  const ManualClock clock(from_unix_seconds(1'700'000'000));
  slurm::FileTokenSource source("alice", token_path(), clock, std::chrono::seconds(30));
  auto credentials = source.credentials();
  if (credentials.ok()) {
    if (credentials->token.empty()) fuzz::fail("an empty token");
    if (auto problem = slurm::header_value_problem(credentials->token)) fuzz::fail("a token unfit for a header");
    return 0;
  }
  if (credentials.error().kind() != ErrorKind::permanent) fuzz::fail("not permanent", credentials.error().message());
  // A token is one word; the messages' own words are short, but for the file's name.
  const std::string_view start = text.substr(0, std::min<std::size_t>(text.size(), 64));
  const bool token_like = start.size() >= 20 && start.find_first_of(" \t\n") == std::string_view::npos &&
                          token_path().find(start) == std::string::npos;
  if (token_like && credentials.error().message().find(start) != std::string::npos) {
    fuzz::fail("an error quotes the token file", credentials.error().message());
  }
  return 0;
}
