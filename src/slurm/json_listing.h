// Reading a listing answer (`{"meta": …, "jobs": [ … ], …}`) one entry at a time (internal to
// src/slurm/ codecs).
//
// A listing of every job is tens of megabytes of JSON at 100k jobs; as one tree it takes
// several times that again. parse_listing() parses the body once, with Boost.JSON's SAX
// parser, and builds a tree only for one entry of the named top-level array at a time: each
// is handed to `on_entry` and freed before the next is read. Everything else in the body (meta,
// errors, warnings, other fields) comes back as the top-level object, the listed array in it
// left empty, so the codecs read it as before. An entry lives only during its call, in an arena
// that is emptied after it: a plain copy of it shares that arena, so what is kept must be read
// out of it (or copied with its own storage, boost::json::value(entry, {})).
//
// Errors are those of json::parse_object() ("the body is not JSON: …", "… not a JSON object"),
// a second array under the listed key (corrupt: one answer has one list), and whatever
// `on_entry` refuses with, which stops the parse. Pure; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <functional>
#include <string_view>

#include "base/result.h"

namespace tpslurm::slurm::json {

using ListingEntry = std::function<Status(const boost::json::value& entry)>;

Result<boost::json::object> parse_listing(std::string_view body, std::string_view list_key,
                                          const ListingEntry& on_entry);

}  // namespace tpslurm::slurm::json
