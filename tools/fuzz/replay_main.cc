// The fuzz targets' main() in the normal build: runs every file of the directories (or the
// files) named on the command line through LLVMFuzzerTestOneInput once, in name order, so
// that CI replays each committed corpus under gcc, ASan and UBSan without libFuzzer. A
// target reports a fault by aborting; this program fails (exit 1) when there is nothing to
// replay, so a missing or empty corpus is never a silent pass.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& where) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(where)) {
    for (const auto& entry : std::filesystem::directory_iterator(where)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
  } else if (std::filesystem::is_regular_file(where)) {
    files.push_back(where);
  }
  return files;
}

std::string read_whole(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    for (const auto& file : inputs_of(argv[i])) {
      const std::string bytes = read_whole(file);
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "no input to replay: name corpus directories or files\n");
    return 1;
  }
  std::printf("replayed %zu inputs\n", replayed);
  return 0;
}
