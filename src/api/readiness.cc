#include "api/readiness.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>

#include "base/file_system.h"

namespace tpslurm::api {
namespace {

ReadinessCheck journal_check(journal::Journal& journal, const std::string& path) {
  if (Status probe = journal.probe_write(); !probe.ok()) return {"journal", false, probe.error().message()};
  struct statvfs fs {};
  const std::string directory = parent_directory(path);
  if (::statvfs(directory.c_str(), &fs) != 0) {
    return {"journal", false, "cannot read the free space of " + directory + ": " + std::strerror(errno)};
  }
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes < Readiness::kLeastFreeBytes) {
    return {"journal", false,
            "the journal's filesystem (" + directory + ") has " + std::to_string(free_bytes) +
                " bytes free; it needs at least 1 MiB"};
  }
  return {"journal", true, "writable, " + std::to_string(free_bytes >> 20) + " MiB free"};
}

ReadinessCheck paused_check(journal::Journal& journal) {
  auto paused = journal.control("paused");
  if (!paused.ok()) return {"paused", false, "cannot read the pause control: " + paused.error().message()};
  if (!*paused) return {"paused", true, "submitting"};
  const journal::ControlRecord& control = **paused;
  return {"paused", false, "paused by " + control.set_by + " since " + control.set_at + ": " + control.reason};
}

}  // namespace

Readiness::Readiness(journal::Journal& journal, std::string journal_path, slurm::SlurmClient* slurm)
    : m_journal(journal), m_journal_path(std::move(journal_path)), m_slurm(slurm) {}

slurm::CallResult Readiness::preflight() {
  std::lock_guard lock(m_mutex);
  const auto now = std::chrono::steady_clock::now();
  if (!m_answer || now - m_answered_at >= kReuseFor) {
    m_answer = m_slurm->preflight();
    m_answered_at = std::chrono::steady_clock::now();
  }
  return *m_answer;
}

std::vector<ReadinessCheck> Readiness::check() {
  std::vector<ReadinessCheck> checks;
  checks.push_back(journal_check(m_journal, m_journal_path));
  if (m_slurm == nullptr) {
    checks.push_back({"slurmrestd", false, "this API has no Slurm client"});
    checks.push_back({"token", false, "not checked: no Slurm client"});
  } else {
    const slurm::CallResult answer = preflight();
    const bool answered = answer.outcome == slurm::Outcome::ok || answer.outcome == slurm::Outcome::auth;
    const std::string words = answer.message.empty() ? std::string(slurm::to_string(answer.outcome)) : answer.message;
    checks.push_back({"slurmrestd", answered, answered ? "answered (" + answer.dialect + ")" : words});
    if (!answered) {
      checks.push_back({"token", false, "not checked: slurmrestd did not answer"});
    } else {
      checks.push_back({"token", answer.ok(), answer.ok() ? "accepted" : words});
    }
  }
  checks.push_back(paused_check(m_journal));
  return checks;
}

Reply Readiness::reply() {
  boost::json::array list;
  std::string failing;
  for (const ReadinessCheck& c : check()) {
    list.push_back(boost::json::object{{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}});
    if (!c.ok) failing += (failing.empty() ? "" : "; ") + c.name + ": " + c.detail;
  }
  if (failing.empty()) return json_reply(200, boost::json::object{{"status", "ready"}, {"checks", std::move(list)}});
  Reply reply = json_reply(503, boost::json::object{{"status", "not_ready"},
                                                    {"checks", std::move(list)},
                                                    {"error", "not_ready"},
                                                    {"message", "not ready: " + failing},
                                                    {"problems", boost::json::array{}}});
  reply.headers.emplace_back("Retry-After", "5");
  return reply;
}

}  // namespace tpslurm::api
