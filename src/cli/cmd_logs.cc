// tuneplane-slurm logs JOB [--attempt N] [--component K] [--stderr] [--offset BYTES] [--json]
//
// The scheduler logs of one attempt (default: the newest), read from its directory on the
// shared filesystem with the limits of storage/log_tail.h: per file the tail, or with
// --offset one page from that byte (the same offset for each file selected). Text output: per
// file a header, the text, and a marker wherever something is left out, saying how much and
// how to see it. A job without attempts, or an attempt without its directory, is reported,
// not an error (exit 0); an unknown job, attempt or component is (exit 2), as is a file that
// cannot be read (its kind's exit code, after every file was shown).
#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "journal/journal.h"
#include "storage/attempt_logs.h"
#include "storage/layout.h"

namespace tpslurm::cli {
namespace {

namespace json = boost::json;

struct LogsOptions {
  std::string job;
  int attempt = 0;
  int component = 0;
  bool stderr_stream = false;
  std::uint64_t offset = 0;
  bool json = false;
  CLI::Option* attempt_option = nullptr;
  CLI::Option* component_option = nullptr;
  CLI::Option* offset_option = nullptr;
};

// 1234567 -> "1,234,567".
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

std::string amount(std::uint64_t bytes, const std::optional<std::uint64_t>& lines) {
  std::string out = grouped(bytes) + (bytes == 1 ? " byte" : " bytes");
  if (lines) out += " (" + grouped(*lines) + (*lines == 1 ? " line)" : " lines)");
  return out;
}

std::string_view state_name(storage::LogFileState state) {
  switch (state) {
    case storage::LogFileState::present: return "present";
    case storage::LogFileState::empty: return "empty";
    case storage::LogFileState::missing: return "missing";
  }
  return "missing";
}

void print_file(std::ostream& out, const storage::AttemptLogFile& file, bool paged) {
  out << "==> " << file.name << " " << storage::to_string(file.stream) << ": " << file.path;
  if (!file.content.ok()) {
    out << " <==\n(unreadable: " << file.content.error().message() << ")\n";
    return;
  }
  const storage::LogTail& log = *file.content;
  if (log.state == storage::LogFileState::missing) {
    out << " <==\n(missing: the job has not written it yet)\n";
    return;
  }
  if (log.state == storage::LogFileState::empty) {
    out << " (0 bytes) <==\n(empty)\n";
    return;
  }
  out << " (" << amount(log.file_size, std::nullopt) << ", ";
  if (log.begin == log.end) {
    out << "nothing shown from byte " << grouped(log.begin);
  } else {
    out << "showing bytes " << grouped(log.begin) << " to " << grouped(log.end);
  }
  out << ") <==\n";
  if (log.bytes_before > 0) {
    out << "[... " << amount(log.bytes_before, log.lines_before) << " before this "
        << (log.bytes_before == 1 ? "is" : "are") << " not shown";
    if (log.starts_mid_line) out << " (the first line shown is cut: it starts among them)";
    out << (paged ? "; this page starts at --offset " + std::to_string(log.begin)
                  : std::string("; --offset 0 pages from the start"))
        << " ...]\n";
  }
  out << log.text;
  if (log.ends_mid_line) out << "\n";
  if (log.bytes_after > 0) {
    out << "[... " << amount(log.bytes_after, log.lines_after) << " after this "
        << (log.bytes_after == 1 ? "is" : "are") << " not shown"
        << (log.partial_line_held ? ": the last line has no newline yet" : "") << "; next page: --offset "
        << log.next_offset << " ...]\n";
  }
}

json::value optional_number(const std::optional<std::uint64_t>& n) {
  return n ? json::value(*n) : json::value(nullptr);
}

json::object to_json(const storage::AttemptLogFile& file) {
  json::object out{{"name", file.name},
                   {"component", file.component},
                   {"stream", storage::to_string(file.stream)},
                   {"path", file.path}};
  if (!file.content.ok()) {
    out["state"] = "unreadable";
    out["error"] = file.content.error().message();
    return out;
  }
  const storage::LogTail& log = *file.content;
  out["state"] = state_name(log.state);
  out["size"] = log.file_size;
  out["begin"] = log.begin;
  out["end"] = log.end;
  out["next_offset"] = log.next_offset;
  out["bytes_before"] = log.bytes_before;
  out["lines_before"] = optional_number(log.lines_before);
  out["bytes_after"] = log.bytes_after;
  out["lines_after"] = optional_number(log.lines_after);
  out["starts_mid_line"] = log.starts_mid_line;
  out["ends_mid_line"] = log.ends_mid_line;
  out["partial_line_held"] = log.partial_line_held;
  out["text"] = storage::valid_utf8(log.text);  // JSON must be UTF-8: invalid bytes become U+FFFD
  return out;
}

std::string numbers(const std::vector<journal::AttemptRecord>& attempts) {
  std::string out;
  for (const auto& a : attempts) out += (out.empty() ? "" : ", ") + std::to_string(a.number);
  return out;
}

Result<const journal::AttemptRecord*> pick_attempt(const std::vector<journal::AttemptRecord>& attempts,
                                                   const LogsOptions& options) {
  if (options.attempt_option->count() == 0) return attempts.empty() ? nullptr : &attempts.back();
  for (const auto& a : attempts) {
    if (a.number == options.attempt) return &a;
  }
  if (attempts.empty()) {
    return not_found("job " + options.job + " has no attempt " + std::to_string(options.attempt) +
                     ": it has no attempts yet");
  }
  return not_found("job " + options.job + " has no attempt " + std::to_string(options.attempt) + "; its attempts are " +
                   numbers(attempts) + " (without --attempt: the newest, " + std::to_string(attempts.back().number) +
                   ")");
}

int run_logs(Context& context, const LogsOptions& options) {
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::read, exit_code);
  if (!journal) return exit_code;
  auto job = journal->job(options.job);
  if (!job.ok()) return context.fail(job.error());
  if (!job->has_value()) return context.fail(not_found("no job " + options.job + " in " + journal->path()));
  auto attempts = journal->attempts(options.job);
  if (!attempts.ok()) return context.fail(attempts.error());
  auto picked = pick_attempt(*attempts, options);
  if (!picked.ok()) return context.fail(picked.error());
  json::object report{{"job_id", options.job}};
  if (*picked == nullptr) {
    if (options.json) {
      report["attempt"] = nullptr;
      report["logs"] = json::array();
      context.out() << json::serialize(report) << "\n";
    } else {
      context.out() << "job " << options.job << " has no attempt yet (" << model::to_string((*job)->phase)
                    << "): nothing has written a log\n";
    }
    return kExitOk;
  }
  const journal::AttemptRecord& attempt = **picked;
  const std::string dir = attempt.attempt_dir.empty()
                              ? storage::attempt_dir(context.settings()->storage_root, options.job, attempt.number)
                              : attempt.attempt_dir;
  storage::LogSelection selection;
  if (options.component_option->count() > 0) selection.component = options.component;
  selection.stream = options.stderr_stream ? storage::LogStream::err : storage::LogStream::out;
  if (options.offset_option->count() > 0) selection.offset = options.offset;
  selection.growing = model::is_final(attempt.state) ? storage::Growing::no : storage::Growing::yes;
  auto files = storage::read_attempt_logs(dir, selection);
  const std::string subject = "job " + options.job + " attempt " + std::to_string(attempt.number);
  const bool no_directory = !files.ok() && files.error().kind() == ErrorKind::not_found;
  if (!files.ok() && !no_directory) {
    Error error = files.error().with_context(subject);
    if (error.kind() == ErrorKind::invalid_argument && selection.component) {
      error = invalid_argument(error.message() + "; pick one with --component, or leave it out for every log");
    }
    return context.fail(error);
  }
  report["attempt"] = attempt.number;
  report["attempt_state"] = model::to_string(attempt.state);
  report["attempt_dir"] = dir;
  report["directory_written"] = !no_directory;
  json::array list;
  if (!options.json) {
    context.out() << subject << " (" << model::to_string(attempt.state) << ") in " << dir << "\n";
    if (no_directory) context.out() << files.error().message() << "\n";
  }
  const Error* failure = nullptr;
  if (files.ok()) {
    for (const auto& file : *files) {
      if (!file.content.ok() && failure == nullptr) failure = &file.content.error();
      if (options.json) {
        list.push_back(to_json(file));
      } else {
        context.out() << "\n";
        print_file(context.out(), file, selection.offset.has_value());
      }
    }
  }
  if (options.json) {
    report["logs"] = std::move(list);
    context.out() << json::serialize(report) << "\n";
  }
  return failure == nullptr ? kExitOk : context.fail(failure->with_context(subject));
}

}  // namespace

void add_logs_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<LogsOptions>();
  CLI::App* command = app.add_subcommand(
      "logs",
      "An attempt's scheduler logs from its directory: per file the last 64 KiB and at most 2,000 lines, "
      "cut on line and UTF-8 boundaries, with a marker naming what is left out");
  add_version_flag(*command);
  command->add_option("JOB", options->job, "A job id")->required();
  options->attempt_option =
      command->add_option("--attempt", options->attempt, "The attempt number (default: the newest)")->type_name("N");
  options->component_option =
      command
          ->add_option("--component", options->component,
                       "Only the logs of heterogeneous component K (-1: the job's own batch log); default: every log")
          ->type_name("K");
  command->add_flag("--stderr", options->stderr_stream, "The stderr files instead of stdout");
  options->offset_option =
      command
          ->add_option("--offset", options->offset,
                       "Page forward from this byte instead of showing the tail; applied to each file selected, so "
                       "it makes most sense with --component (each page names the next offset)")
          ->type_name("BYTES");
  command->add_flag("--json", options->json, "Print as JSON (invalid UTF-8 in the text becomes U+FFFD)");
  command->callback([&context, &exit_code, options] { exit_code = run_logs(context, *options); });
}

}  // namespace tpslurm::cli
