// hash_bench: what artifact hashing costs on this machine.
//
// Writes a test file (2 GiB by default), then measures, each several times:
//   - our streamed SHA-256 (storage/artifact_hash.h) against `openssl dgst -sha256` on the
//     same file, with the page cache dropped for the file (cold: posix_fadvise DONTNEED after
//     an fsync, checked with mincore) and with it fully cached (warm), as GiB/s and as a
//     ratio (goal: ours / openssl >= 0.9);
//   - the cached re-check through the HashCache seam (an unchanged image is not read again).
// Prints, never asserts.
//
//   hash_bench [--size-mib N] [--dir DIR] [--runs N] [--keep]
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "storage/artifact_hash.h"
#include "storage/memory_hash_cache.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "hash_bench: %s\n", message.c_str());
  std::exit(1);
}

void write_test_file(const std::string& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) die("create " + path + ": " + std::strerror(errno));
  std::vector<std::uint64_t> block((std::size_t{4} << 20) / sizeof(std::uint64_t));
  std::mt19937_64 random(42);
  for (std::uint64_t written = 0; written < bytes;) {
    for (auto& word : block) word = random();
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(block.size() * 8, bytes - written));
    if (::write(fd, block.data(), chunk) != static_cast<ssize_t>(chunk)) die("write " + path);
    written += chunk;
  }
  if (::fsync(fd) != 0) die("fsync " + path);
  ::close(fd);
}

// Share of the file's pages in the page cache, 0..1.
double resident_fraction(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat info {};
  ::fstat(fd, &info);
  const auto size = static_cast<std::size_t>(info.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return -1;
  const long page = ::sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> pages((size + static_cast<std::size_t>(page) - 1) / static_cast<std::size_t>(page));
  double fraction = -1;
  if (::mincore(map, size, pages.data()) == 0) {
    const auto resident = std::count_if(pages.begin(), pages.end(), [](unsigned char p) { return (p & 1) != 0; });
    fraction = static_cast<double>(resident) / static_cast<double>(pages.size());
  }
  ::munmap(map, size);
  return fraction;
}

// Drops the file's clean pages from the page cache: no root needed, unlike drop_caches.
void make_cold(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

void make_warm(const std::string& path) {
  if (!tpslurm::storage::sha256_file(path).ok()) die("cannot read " + path);
}

struct Run {
  double seconds = 0;
  std::string sha256;
};

Run run_ours(const std::string& path) {
  const auto start = Clock::now();
  auto hashed = tpslurm::storage::sha256_file(path);
  const auto end = Clock::now();
  if (!hashed.ok()) die(hashed.error().message());
  return {std::chrono::duration<double>(end - start).count(), *hashed};
}

Run run_openssl(const std::string& path) {
  int out[2];
  if (::pipe(out) != 0) die("pipe");
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    ::execlp("openssl", "openssl", "dgst", "-sha256", "-r", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(out[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const auto end = Clock::now();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("openssl dgst failed (is openssl installed?)");
  return {std::chrono::duration<double>(end - start).count(), text.substr(0, text.find(' '))};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t size_mib = 2048;
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  int runs = 3;
  bool keep = false;
  CLI::App app{"hash_bench: SHA-256 of an image, streamed against reading it", "hash_bench"};
  app.add_option("--size-mib", size_mib, "size of the test file in MiB")->check(CLI::Range(1, 1 << 20));
  app.add_option("--dir", dir, "where the test file is written");
  app.add_option("--runs", runs, "runs of each")->check(CLI::Range(1, 1 << 30));
  app.add_flag("--keep", keep, "keep the test file");
  CLI11_PARSE(app, argc, argv);
  const std::string path = dir + "/hash_bench-" + std::to_string(::getpid()) + ".img";
  const std::uint64_t bytes = size_mib << 20;
  const double gib = static_cast<double>(bytes) / double(1u << 30);
  std::printf("hash_bench: %.2f GiB test file %s, %d runs each, median shown\n", gib, path.c_str(), runs);
  write_test_file(path, bytes);

  std::printf("\n%-6s %-10s %10s %10s %10s\n", "cache", "hasher", "seconds", "GiB/s", "resident");
  double ratio[2] = {0, 0};
  std::string ours_hash;
  std::string openssl_hash;
  for (int warm = 0; warm < 2; ++warm) {
    std::vector<double> ours;
    std::vector<double> theirs;
    double resident_ours = 0;
    double resident_theirs = 0;
    // Alternate the two hashers so neither profits from the other's leftovers.
    for (int r = 0; r < runs; ++r) {
      warm ? make_warm(path) : make_cold(path);
      resident_ours = resident_fraction(path);
      const Run a = run_ours(path);
      ours.push_back(a.seconds);
      ours_hash = a.sha256;
      warm ? make_warm(path) : make_cold(path);
      resident_theirs = resident_fraction(path);
      const Run b = run_openssl(path);
      theirs.push_back(b.seconds);
      openssl_hash = b.sha256;
    }
    const char* cache = warm ? "warm" : "cold";
    const double ours_s = median(ours);
    const double theirs_s = median(theirs);
    std::printf("%-6s %-10s %10.3f %10.3f %9.0f%%\n", cache, "ours", ours_s, gib / ours_s, resident_ours * 100);
    std::printf("%-6s %-10s %10.3f %10.3f %9.0f%%\n", cache, "openssl", theirs_s, gib / theirs_s,
                resident_theirs * 100);
    ratio[warm] = theirs_s / ours_s;
  }
  std::printf("\nratio ours/openssl (throughput): cold %.2f, warm %.2f (goal >= 0.90)\n", ratio[0], ratio[1]);
  std::printf("same digest as openssl: %s\n",
              ours_hash == openssl_hash ? "yes" : ("NO: " + ours_hash + " vs " + openssl_hash).c_str());

  tpslurm::storage::MemoryHashCache cache;
  tpslurm::storage::ArtifactHasher hasher(cache);
  const auto first_start = Clock::now();
  if (!hasher.sha256(path).ok()) die("hash through the cache failed");
  const auto first_end = Clock::now();
  std::vector<double> rechecks;
  for (int r = 0; r < 1000; ++r) {
    const auto start = Clock::now();
    if (!hasher.sha256(path).ok()) die("cached re-check failed");
    rechecks.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::printf(
      "\ncached re-check (stat + HashCache lookup, in-memory cache): median %.1f us over 1000, "
      "first (uncached, warm) %.3f s; %llu bytes read in all\n",
      median(rechecks), std::chrono::duration<double>(first_end - first_start).count(),
      static_cast<unsigned long long>(hasher.stats().bytes_read));
  if (!keep) ::unlink(path.c_str());
  return 0;
}
