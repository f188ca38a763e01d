// How slurmrestd reads the `signal` query parameter of `DELETE job/{id}`.
//
// Both generations read a name with sig_name2num() (src/common/proc_args.c): a whole number
// (strtol, trailing white space allowed), else after optional white space and a "SIG" prefix
// (any case) a name of its table. 22.05.8's table: HUP INT QUIT ABRT KILL ALRM TERM USR1 USR2
// URG CONT STOP TSTP TTIN TTOU XCPU; 23.11 already has CHLD and PIPE (so 23.11-26.05 have 18).
// Anything else is 0. Numbers are Linux's. Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "release.h"

namespace tpslurm::sim {

int sig_name2num(std::string_view text, Release release);

// What the query parser makes of a parameter's text before the handler sees it.
struct QueryValue {
  enum class Kind { text, number, other } kind = Kind::text;
  long long number = 0;  // for Kind::number
};
// v0.0.38 (22.05.8's url-encoded serializer converts every value, data.c's YAML 1.1 patterns):
// an empty value, a boolean (y, yes, t, true, on, n, no, f, false, off in their case variants)
// or a decimal fraction ("1.5", ".") is `other`; ^[+-]?[0-9]+$ is a number; the rest text.
// v0.0.4x (the SIGNAL parser converts to an integer itself, _convert_data_int at 26.05.3):
// digits only is a number, the rest text.
QueryValue read_query_value(std::string_view text, Dialect dialect);

// glibc's strsignal() text ("Killed", "Terminated", "User defined signal 1").
std::string signal_description(int signal);

}  // namespace tpslurm::sim
