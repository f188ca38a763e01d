#include "cli/context.h"

#include <ostream>

#include "cli/deployment.h"
#include "cli/exit_codes.h"
#include "journal/journal.h"

namespace tpslurm::cli {

Context::Context(std::ostream& out, std::ostream& err, config::Environment environment, config::LoadOptions options)
    : m_out(out), m_err(err), m_environment(std::move(environment)), m_options(std::move(options)) {}

Context::~Context() = default;

const model::Settings* Context::settings() {
  if (m_loaded) return &m_loaded->settings;
  if (m_load_failed) return nullptr;
  auto loaded = config::load_settings(m_environment, config_file, m_options);
  if (!loaded.ok()) {
    m_load_failed = true;
    m_err << "tuneplane-slurm: the configuration has problems:\n" << loaded.error().to_text();
    return nullptr;
  }
  for (const auto& warning : loaded->warnings) m_err << "tuneplane-slurm: warning: " << warning << "\n";
  m_loaded = std::move(*loaded);
  if (!m_loaded->given.contains("TUNEPLANE_INSTANCE")) {
    if (auto recorded = journal_instance(m_loaded->settings.journal_path, m_clock)) {
      m_loaded->settings.instance = *recorded;
      m_loaded->sources["TUNEPLANE_INSTANCE"] = "journal";
    }
  }
  return &m_loaded->settings;
}

const config::LoadedSettings* Context::loaded_settings() {
  return settings() == nullptr ? nullptr : &*m_loaded;
}

std::string Context::host_instance() const { return config::instance_from_host(m_options.host_name); }

std::unique_ptr<journal::Journal> Context::open_journal(Access access, int& exit_code) {
  const model::Settings* s = settings();
  if (s == nullptr) {
    exit_code = kExitBadInput;
    return nullptr;
  }
  journal::OpenOptions options;
  options.mode = access == Access::write ? journal::OpenOptions::Mode::read_write
                                         : journal::OpenOptions::Mode::read_only;
  auto opened = journal::Journal::open(s->journal_path, m_clock, options);
  if (!opened.ok()) {
    exit_code = fail(opened.error());
    return nullptr;
  }
  return std::move(*opened);
}

int Context::fail(const Error& error) {
  m_err << "tuneplane-slurm: " << error.message() << "\n";
  return exit_code_for(error);
}

int Context::fail(const model::Problems& problems, std::string_view subject) {
  if (!subject.empty()) {
    m_err << subject << ": " << problems.size() << (problems.size() == 1 ? " problem" : " problems") << ":\n";
  }
  m_err << problems.to_text();
  return kExitBadInput;
}

}  // namespace tpslurm::cli
