// Every subcommand registers itself on the application through one of these functions,
// each defined in its own cmd_<name>.cc. The callback stores the command's exit code in
// `exit_code`.
#pragma once

namespace CLI {
class App;
}

namespace tpslurm::cli {

class Context;

void add_config_command(CLI::App& app, Context& context, int& exit_code);
void add_validate_command(CLI::App& app, Context& context, int& exit_code);
void add_migrate_command(CLI::App& app, Context& context, int& exit_code);
void add_journal_command(CLI::App& app, Context& context, int& exit_code);
void add_submit_command(CLI::App& app, Context& context, int& exit_code);
void add_status_command(CLI::App& app, Context& context, int& exit_code);
void add_audit_command(CLI::App& app, Context& context, int& exit_code);
void add_logs_command(CLI::App& app, Context& context, int& exit_code);
void add_doctor_command(CLI::App& app, Context& context, int& exit_code);
void add_render_command(CLI::App& app, Context& context, int& exit_code);
void add_serve_command(CLI::App& app, Context& context, int& exit_code);
void add_cancel_command(CLI::App& app, Context& context, int& exit_code);
void add_cleanup_command(CLI::App& app, Context& context, int& exit_code);
void add_resolve_command(CLI::App& app, Context& context, int& exit_code);
void add_control_commands(CLI::App& app, Context& context, int& exit_code);  // pause, resume

// Adds --version to a (sub)command, so `tuneplane-slurm COMMAND --version` works too.
void add_version_flag(CLI::App& command);

}  // namespace tpslurm::cli
