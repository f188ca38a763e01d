// Context: what every command shares -- the output streams, the global `--config` option,
// the settings (loaded once, on first use, with their warnings printed), the clock, and the
// helpers that turn errors into messages and exit codes. Commands receive it by reference;
// it lives for the whole run. Single-threaded.
//
// Without TUNEPLANE_INSTANCE the settings carry the instance the journal recorded with its
// deployment, its source "journal" (cli/deployment.h); the host's name gives it only to a
// journal that has recorded none, so every command names jobs as the journal's have been.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/error.h"
#include "config/settings_loader.h"
#include "model/problems.h"
#include "model/settings.h"

namespace tpslurm::journal {
class Journal;
}

namespace tpslurm::cli {

class Context {
 public:
  Context(std::ostream& out, std::ostream& err, config::Environment environment, config::LoadOptions options);
  ~Context();

  std::ostream& out() { return m_out; }
  std::ostream& err() { return m_err; }
  const Clock& clock() const { return m_clock; }

  std::optional<std::string> config_file;  // set by the global --config option

  // The settings, or nullptr after printing every problem (the command then exits 2).
  const model::Settings* settings();
  // The same, with where each value came from; nullptr as above.
  const config::LoadedSettings* loaded_settings();
  // The instance this host's name gives (the default for a journal that has recorded none).
  std::string host_instance() const;

  // Opens the journal the settings name, for reading or writing. On failure prints the
  // error and returns nullptr; `exit_code` then holds the code to return.
  enum class Access { read, write };
  std::unique_ptr<journal::Journal> open_journal(Access access, int& exit_code);

  // Prints "tuneplane-slurm: <message>" and returns the exit code for the error's kind.
  int fail(const Error& error);
  // Prints each problem on its own line and returns 2; with a subject (the request's file)
  // first a line "<subject>: N problem(s):".
  int fail(const model::Problems& problems, std::string_view subject = {});

 private:
  std::ostream& m_out;
  std::ostream& m_err;
  config::Environment m_environment;
  config::LoadOptions m_options;
  SystemClock m_clock;
  std::optional<config::LoadedSettings> m_loaded;
  bool m_load_failed = false;
};

}  // namespace tpslurm::cli
