// Hostile spellings of a path, for the tests that hold every path a container runtime parses
// (mount sources and targets, the working directory, the registry's image paths, the storage
// root as the nodes see it, the attempt directory) to model/runtime_path.h's rule: one case per
// shell or runtime metacharacter class, and one per spelling that is not the path's normal form.
// A case's value is a base path ("/data", "datasets") followed by its suffix; the normal form
// of every `not_normal` case is the base followed by "/in".
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace tpslurm::testing {

enum class PathFault {
  alphabet,    // a byte outside [A-Za-z0-9._/-]
  not_normal,  // "//", a "." component or a trailing '/'
  parent,      // a ".." component
};

struct HostilePath {
  const char* name;         // the test's name
  std::string_view suffix;  // appended to the base; a string_view, so that it may hold a NUL
  PathFault fault;

  std::string value(std::string_view base) const { return std::string(base) + std::string(suffix); }
  bool has_nul() const { return suffix.find('\0') != std::string_view::npos; }
};

inline void PrintTo(const HostilePath& path, std::ostream* out) { *out << path.name; }

inline constexpr HostilePath kHostilePaths[] = {
    // Shell expansions.
    {"Dollar", "/in$x", PathFault::alphabet},
    {"Backquote", "/in`id`", PathFault::alphabet},
    {"CommandSubstitution", "/in$(id)", PathFault::alphabet},
    {"ParameterExpansion", "/in${IFS}x", PathFault::alphabet},
    // Quotes.
    {"DoubleQuote", "/in\"x", PathFault::alphabet},
    {"SingleQuote", "/in'x", PathFault::alphabet},
    // Separators.
    {"Semicolon", "/in;x", PathFault::alphabet},
    {"Ampersand", "/in&x", PathFault::alphabet},
    {"Pipe", "/in|x", PathFault::alphabet},
    {"Newline", "/in\nx", PathFault::alphabet},
    {"CarriageReturn", "/in\rx", PathFault::alphabet},
    {"Tab", "/in\tx", PathFault::alphabet},
    {"Space", "/in x", PathFault::alphabet},
    // Redirections.
    {"Less", "/in<x", PathFault::alphabet},
    {"Greater", "/in>x", PathFault::alphabet},
    // Globs.
    {"Star", "/in*", PathFault::alphabet},
    {"Question", "/in?", PathFault::alphabet},
    {"Bracket", "/in[x]", PathFault::alphabet},
    {"Braces", "/in{x}", PathFault::alphabet},
    // Characters a shell, a bind list or an fstab line gives a meaning.
    {"Tilde", "/~in", PathFault::alphabet},
    {"Hash", "/in#x", PathFault::alphabet},
    {"Bang", "/in!x", PathFault::alphabet},
    {"Backslash", "/in\\x", PathFault::alphabet},
    {"Comma", "/in,x", PathFault::alphabet},
    {"Colon", "/in:x", PathFault::alphabet},
    {"Equals", "/in=x", PathFault::alphabet},
    {"Plus", "/in+x", PathFault::alphabet},
    {"Percent", "/in%x", PathFault::alphabet},
    {"At", "/in@x", PathFault::alphabet},
    // Bytes beyond printable ASCII.
    {"NonAsciiUtf8", "/in\xc3\xbc", PathFault::alphabet},
    {"ControlByte", "/in\x01x", PathFault::alphabet},
    {"Delete", "/in\x7fx", PathFault::alphabet},
    {"Nul", std::string_view("/in\0x", 5), PathFault::alphabet},
    // Spellings other than the normal form.
    {"EmptyComponent", "//in", PathFault::not_normal},
    {"DotComponent", "/./in", PathFault::not_normal},
    {"TrailingSlash", "/in/", PathFault::not_normal},
    {"FinalDot", "/in/.", PathFault::not_normal},
    {"ParentComponent", "/../in", PathFault::parent},
    {"FinalParent", "/in/..", PathFault::parent},
};

// What model/runtime_path.h refuses a path with whose normal form is `normal`.
inline std::string normal_form_words(std::string_view normal) {
  return "must be written in normal form, without \"//\", \".\" components or a trailing '/' (paths are compared "
         "as written); write it as \"" +
         std::string(normal) + "\"";
}

// What model/runtime_path.h refuses each fault with, for a path under `base` (the normal form
// of a `not_normal` case is base + "/in"); `relative`: a path relative to the storage root.
inline std::string refusal_words(const HostilePath& path, std::string_view base, bool relative) {
  switch (path.fault) {
    case PathFault::alphabet:
      return "may hold only ASCII letters, digits, '.', '_', '-' and '/' (the container runtimes parse it on the "
             "nodes, Enroot in a shell); rename the path";
    case PathFault::not_normal: return normal_form_words(std::string(base) + "/in");
    case PathFault::parent:
      return relative ? "must stay inside the storage root; remove the \"..\" components"
                      : "must not contain \"..\" components; write the path without them";
  }
  return {};
}

// The reproducer: with Pyxis 0.24 and Enroot 4.1.2 this target ran `touch` on the node.
inline constexpr std::string_view kCommandInTarget = "/data$(touch${IFS}/tmp/x)";

}  // namespace tpslurm::testing
