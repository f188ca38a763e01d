// Reading a listing answer (`{"meta": …, "jobs": [ … ], …}`) one entry at a time (internal to
// src/slurm/ codecs).
//
// A listing of every job is hundreds of megabytes of JSON at 100k jobs; as one tree it takes
// several times that again. ListingParser parses the body as it arrives, in chunks of any
// size, with Boost.JSON's SAX parser, and builds a tree only for one entry of the named
// top-level array at a time: each is handed to `on_entry` and freed before the next is read,
// so neither the body nor its tree is ever held whole. Everything else in the body (meta,
// errors, warnings, other fields) comes back as the top-level object, the listed array in it
// left empty, so the codecs read it as before. An entry lives only during its call, in an arena
// that is emptied after it: a plain copy of it shares that arena, so what is kept must be read
// out of it (or copied with its own storage, boost::json::value(entry, {})).
//
// Numbers: every double is converted from its whole text, correctly rounded, so that its value
// never depends on where the body was cut into chunks or on what follows the number (Boost.JSON
// 1.81's own conversion does); parse_object() reads through this parser too, so a body read
// whole and one read as it arrives hold the same values.
//
// Errors are those of json::parse_object() ("the body is not JSON: …", "… not a JSON object"),
// a second array under the listed key (corrupt: one answer has one list), and whatever
// `on_entry` refuses with, which stops the parse: the first error is kept, later chunks are
// ignored, and finish() returns it. One parser reads one body, on one thread at a time.
#pragma once

#include <boost/json.hpp>
#include <functional>
#include <memory>
#include <string_view>

#include "base/result.h"

namespace tpslurm::slurm::json {

using ListingEntry = std::function<Status(const boost::json::value& entry)>;

class ListingParser {
 public:
  ListingParser(std::string_view list_key, ListingEntry on_entry);
  // No list: the whole body comes back from finish(), its tree in `storage`.
  explicit ListingParser(boost::json::storage_ptr storage);
  ~ListingParser();
  ListingParser(const ListingParser&) = delete;
  ListingParser& operator=(const ListingParser&) = delete;

  // The next bytes of the body; false once the parse has failed (the rest is not read).
  bool write(std::string_view chunk);
  // The end of the body: the rest of the answer, or the first error.
  Result<boost::json::object> finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// A whole body at once.
Result<boost::json::object> parse_listing(std::string_view body, std::string_view list_key,
                                          const ListingEntry& on_entry);

// A whole body, no list taken out: json_reader.h's parse_object().
Result<boost::json::object> parse_body(std::string_view body, boost::json::storage_ptr storage);

}  // namespace tpslurm::slurm::json
