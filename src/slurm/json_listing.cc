#include "slurm/json_listing.h"

#include <boost/json/basic_parser_impl.hpp>
#include <charconv>
#include <memory>
#include <optional>
#include <string>

namespace tpslurm::slurm::json {
namespace {

namespace bj = boost::json;
using boost::system::error_code;

// An entry's tree is built in this arena and the arena emptied after it: a Slurm job record
// is a few kilobytes of JSON, so most entries never leave the first block.
constexpr std::size_t kEntryArenaBytes = std::size_t{64} << 10;
// Open containers at the level of an entry: the top-level object and the listed array.
constexpr int kEntryDepth = 2;

// The double a JSON number's text denotes, correctly rounded (std::from_chars). Past double's
// range from_chars gives no value; the parser's own (an infinity or a zero) stands.
double exact_double(std::string_view text, double parsed) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : parsed;
}

// SAX events in, two value_stacks out: one for the top-level object (the listed array kept
// empty), one for the entry being read. Every event while inside the list goes to the entry.
class ListingHandler {
 public:
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

  // No `list_key`: the whole body is the top-level object, in `top_storage`.
  ListingHandler(std::optional<std::string_view> list_key, ListingEntry on_entry, bj::storage_ptr top_storage)
      : m_list_key(list_key.value_or("")),
        m_listing(list_key.has_value()),
        m_on_entry(std::move(on_entry)),
        m_buffer(std::make_unique_for_overwrite<unsigned char[]>(kEntryArenaBytes)),
        m_arena(m_buffer.get(), kEntryArenaBytes) {
    m_top.reset(std::move(top_storage));
    m_entry.reset(bj::storage_ptr(&m_arena));
  }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }

  bool on_object_begin(error_code&) {
    ++m_depth;
    return true;
  }
  bool on_object_end(std::size_t n, error_code& ec) {
    --m_depth;
    if (!m_in_list) {
      m_top.push_object(n);
      return true;
    }
    m_entry.push_object(n);
    return ended(ec);
  }

  bool on_array_begin(error_code& ec) {
    if (!m_in_list && m_depth == 1 && m_at_list_key) {
      if (m_list_seen) return stop(corrupt("the answer holds two \"" + m_list_key + "\" lists"), ec);
      m_in_list = m_list_seen = true;
    }
    ++m_depth;
    return true;
  }
  bool on_array_end(std::size_t n, error_code& ec) {
    --m_depth;
    if (m_in_list && m_depth == kEntryDepth - 1) {
      m_in_list = false;
      m_top.push_array(0);
      return true;
    }
    if (!m_in_list) {
      m_top.push_array(n);
      return true;
    }
    m_entry.push_array(n);
    return ended(ec);
  }

  bool on_key_part(bj::string_view s, std::size_t, error_code&) {
    stack().push_chars(s);
    if (top_level_key()) m_key.append(s.data(), s.size());
    return true;
  }
  bool on_key(bj::string_view s, std::size_t, error_code&) {
    stack().push_key(s);
    if (top_level_key()) {
      m_key.append(s.data(), s.size());
      m_at_list_key = m_listing && m_key == m_list_key;
      m_key.clear();
    }
    return true;
  }

  bool on_string_part(bj::string_view s, std::size_t, error_code&) {
    stack().push_chars(s);
    return true;
  }
  bool on_string(bj::string_view s, std::size_t, error_code& ec) {
    stack().push_string(s);
    return ended(ec);
  }
  // Boost.JSON 1.81 converts a double on one of several paths, chosen by whether the number
  // arrived in pieces and by how many bytes follow it in the buffer, and they can round a long
  // mantissa differently: the same answer read whole, in pieces, or with other bytes after a
  // number gave values one unit in the last place apart. So every double is converted here from
  // its whole text, correctly rounded, and its value depends on its text alone.
  bool on_number_part(bj::string_view s, error_code&) {
    m_number.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, bj::string_view, error_code& ec) {
    m_number.clear();
    stack().push_int64(i);
    return ended(ec);
  }
  bool on_uint64(std::uint64_t u, bj::string_view, error_code& ec) {
    m_number.clear();
    stack().push_uint64(u);
    return ended(ec);
  }
  bool on_double(double d, bj::string_view s, error_code& ec) {
    m_number.append(s.data(), s.size());
    stack().push_double(exact_double(m_number, d));
    m_number.clear();
    return ended(ec);
  }
  bool on_bool(bool b, error_code& ec) {
    stack().push_bool(b);
    return ended(ec);
  }
  bool on_null(error_code& ec) {
    stack().push_null();
    return ended(ec);
  }
  bool on_comment_part(bj::string_view, error_code&) { return true; }
  bool on_comment(bj::string_view, error_code&) { return true; }

  bj::value release_top() { return m_top.release(); }
  const std::optional<Error>& stopped() const { return m_stopped; }

 private:
  bj::value_stack& stack() { return m_in_list ? m_entry : m_top; }
  bool top_level_key() const { return !m_in_list && m_depth == 1; }

  // After a value: if it completed an entry, the entry is handed over and its arena emptied.
  bool ended(error_code& ec) {
    if (!m_in_list || m_depth != kEntryDepth) return true;
    Status taken = ok_status();
    {
      const bj::value entry = m_entry.release();
      taken = m_on_entry(entry);
    }
    m_arena.release();
    m_entry.reset(bj::storage_ptr(&m_arena));
    return taken.ok() ? true : stop(taken.error(), ec);
  }

  bool stop(Error error, error_code& ec) {
    m_stopped = std::move(error);
    ec = boost::system::errc::make_error_code(boost::system::errc::operation_canceled);
    return false;
  }

  std::string m_list_key;
  bool m_listing;
  ListingEntry m_on_entry;
  std::unique_ptr<unsigned char[]> m_buffer;
  bj::monotonic_resource m_arena;
  bj::value_stack m_top;
  bj::value_stack m_entry;
  int m_depth = 0;
  bool m_in_list = false;
  bool m_list_seen = false;
  bool m_at_list_key = false;
  std::string m_key;
  std::string m_number;  // the text so far of the number being read
  std::optional<Error> m_stopped;
};

}  // namespace

struct ListingParser::Impl {
  Impl(std::optional<std::string_view> list_key, ListingEntry on_entry, bj::storage_ptr top_storage = {})
      : parser(bj::parse_options{}, list_key, std::move(on_entry), std::move(top_storage)) {}

  // The parse's first error, once there is one.
  std::optional<Error> failure(const error_code& ec) const {
    if (const auto& stopped = parser.handler().stopped()) return *stopped;
    if (ec) return corrupt("the body is not JSON: " + ec.message());
    return std::nullopt;
  }

  bj::basic_parser<ListingHandler> parser;
  std::optional<Error> failed;
};

ListingParser::ListingParser(std::string_view list_key, ListingEntry on_entry)
    : m_impl(std::make_unique<Impl>(list_key, std::move(on_entry))) {}

ListingParser::ListingParser(bj::storage_ptr storage)
    : m_impl(std::make_unique<Impl>(std::nullopt, ListingEntry(), std::move(storage))) {}

ListingParser::~ListingParser() = default;

bool ListingParser::write(std::string_view chunk) {
  Impl& s = *m_impl;
  if (s.failed) return false;
  if (chunk.empty()) return true;
  error_code ec;
  if (s.parser.done()) {
    // After a complete document only white space may follow, as in one piece.
    if (chunk.find_first_not_of(" \t\r\n") != std::string_view::npos) ec = bj::error::extra_data;
  } else if (s.parser.write_some(true, chunk.data(), chunk.size(), ec) < chunk.size() && !ec) {
    ec = bj::error::extra_data;
  }
  s.failed = s.failure(ec);
  return !s.failed;
}

Result<bj::object> ListingParser::finish() {
  Impl& s = *m_impl;
  if (s.failed) return *s.failed;
  error_code ec;
  if (!s.parser.done()) s.parser.write_some(false, nullptr, 0, ec);
  if (auto failure = s.failure(ec)) return *failure;
  bj::value top = s.parser.handler().release_top();
  if (!top.is_object()) return corrupt("the body is not a JSON object");
  return std::move(top.as_object());
}

Result<bj::object> parse_listing(std::string_view body, std::string_view list_key, const ListingEntry& on_entry) {
  ListingParser parser(list_key, on_entry);
  parser.write(body);
  return parser.finish();
}

Result<bj::object> parse_body(std::string_view body, bj::storage_ptr storage) {
  ListingParser parser(std::move(storage));
  parser.write(body);
  return parser.finish();
}

}  // namespace tpslurm::slurm::json
