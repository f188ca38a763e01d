#include "render/template_engine.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <kainjow/mustache.hpp>
#include <sstream>
#include <vector>

#include "render/shell_quote.h"

namespace tpslurm::render {
namespace detail {
const std::map<std::string, std::string, std::less<>>& builtin_template_texts();  // generated
}  // namespace detail
namespace {

namespace mstch = kainjow::mustache;

constexpr std::string_view kRawPrefix = "shell_";

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

struct TagScan {
  std::set<std::string, std::less<>> values;
  std::set<std::string, std::less<>> sections;
  std::set<std::string, std::less<>> partials;
};

// Checks the tag rules of one template and collects its names. Mustache syntax itself
// (balanced sections, closed tags) is left to the library's parser.
Status scan_tags(std::string_view name, std::string_view text, TagScan& scan) {
  std::size_t pos = 0;
  while ((pos = text.find("{{", pos)) != std::string_view::npos) {
    const bool triple = text.substr(pos, 3) == "{{{";
    const std::string_view close = triple ? "}}}" : "}}";
    const std::size_t open = pos + (triple ? 3 : 2);
    const std::size_t end = text.find(close, open);
    if (end == std::string_view::npos) return invalid_argument("template " + std::string(name) + ": unclosed tag");
    std::string tag = trim(text.substr(open, end - open));
    pos = end + close.size();
    const auto where = [&] { return "template " + std::string(name) + ": {{" + std::string(triple ? "{" : "") + tag; };
    if (triple) {
      if (tag.rfind(kRawPrefix, 0) != 0) {
        return invalid_argument(where() + "}}}: raw output is only for renderer-built text named shell_…");
      }
      scan.values.insert(tag);
      continue;
    }
    if (tag.empty()) return invalid_argument(where() + "}}: empty tag");
    const char kind = tag.front();
    const std::string rest = trim(std::string_view(tag).substr(1));
    switch (kind) {
      case '!': break;
      case '=': return invalid_argument(where() + "}}: set-delimiter tags are not allowed");
      case '#':
      case '^': scan.sections.insert(rest); break;
      case '/': break;
      case '>': scan.partials.insert(rest); break;
      case '&':
        if (rest.rfind(kRawPrefix, 0) != 0) {
          return invalid_argument(where() + "}}: raw output is only for renderer-built text named shell_…");
        }
        scan.values.insert(rest);
        break;
      default:
        if (tag.rfind(kRawPrefix, 0) == 0) {
          return invalid_argument(where() + "}}: shell_… text is built by the renderer; use {{{" + tag + "}}}");
        }
        scan.values.insert(tag);
    }
  }
  return ok_status();
}

mstch::data to_mustache(const TemplateValue& value) {
  switch (value.kind()) {
    case TemplateValue::Kind::text: return mstch::data(value.text());
    case TemplateValue::Kind::flag:
      return mstch::data(value.flag() ? mstch::data::type::bool_true : mstch::data::type::bool_false);
    case TemplateValue::Kind::list: {
      mstch::data list(mstch::data::type::list);
      for (const auto& item : value.items()) list.push_back(to_mustache(item));
      return list;
    }
    case TemplateValue::Kind::object: break;
  }
  mstch::data object(mstch::data::type::object);
  for (const auto& [field, item] : value.fields()) object.set(field, to_mustache(item));
  return object;
}

bool has_nul(const TemplateValue& value) {
  switch (value.kind()) {
    case TemplateValue::Kind::text: return value.text().find('\0') != std::string::npos;
    case TemplateValue::Kind::flag: return false;
    case TemplateValue::Kind::list:
      for (const auto& item : value.items()) {
        if (has_nul(item)) return true;
      }
      return false;
    case TemplateValue::Kind::object: break;
  }
  for (const auto& [field, item] : value.fields()) {
    if (has_nul(item)) return true;
  }
  return false;
}

// The library renders a name it cannot find as nothing. This context delegates lookups to
// the standard one and records every name that is missing or of the wrong kind, so the
// render can be refused afterwards. Partials come from the TemplateSet, not from the data.
class StrictContext final : public mstch::basic_context<std::string> {
 public:
  StrictContext(const mstch::data* root, const TemplateSet& set, RenderTrace* trace)
      : m_inner(root), m_set(set), m_trace(trace) {}

  void push(const mstch::data* data) override { m_inner.push(data); }
  void pop() override { m_inner.pop(); }

  const mstch::data* get(const std::string& name) const override {
    const mstch::data* found = m_inner.get(name);
    if (m_trace != nullptr && name != ".") m_trace->names_looked_up.insert(name);
    if (found == nullptr) {
      m_errors.insert("{{" + name + "}} is not in the data");
    } else if (m_set.value_names().contains(name) && !found->is_string()) {
      m_errors.insert("{{" + name + "}} is not text");
    } else if (m_set.section_names().contains(name) && found->is_string()) {
      m_errors.insert("{{#" + name + "}} is text, not a flag, list or object");
    }
    return found;
  }

  // Partials are put in place when the set is built, so the parsed templates have no partial tags.
  const mstch::data* get_partial(const std::string&) const override { return nullptr; }

  const std::set<std::string>& errors() const { return m_errors; }

 private:
  mstch::context<std::string> m_inner;
  const TemplateSet& m_set;
  RenderTrace* m_trace;
  mutable std::set<std::string> m_errors;
};

using Texts = std::map<std::string, std::string, std::less<>>;

// The text of chain.back() with each `{{> partial}}` replaced by the partial's own text, its
// partials in place in turn and its final newline dropped: the library renders a partial in
// the same context and line as its tag, so the output is the same. scan_tags() has checked that
// every tag is closed and from_texts() that every partial exists.
Result<std::string> inline_partials(const Texts& texts, std::vector<std::string>& chain) {
  const std::string& text = texts.find(chain.back())->second;
  std::string out;
  std::size_t pos = 0;
  std::size_t open = 0;
  while ((open = text.find("{{", pos)) != std::string::npos) {
    const std::size_t close = text.find("}}", open + 2);
    const std::string tag = trim(std::string_view(text).substr(open + 2, close - open - 2));
    if (tag.empty() || tag.front() != '>') {
      out.append(text, pos, close + 2 - pos);
      pos = close + 2;
      continue;
    }
    out.append(text, pos, open - pos);
    pos = close + 2;
    const std::string partial = trim(std::string_view(tag).substr(1));
    if (std::find(chain.begin(), chain.end(), partial) != chain.end()) {
      std::string path;
      for (const auto& step : chain) path += step + " > ";
      return invalid_argument("partial {{> " + partial + "}} includes itself (" + path + partial + ")");
    }
    chain.push_back(partial);
    auto body = inline_partials(texts, chain);
    chain.pop_back();
    if (!body.ok()) return body.error();
    if (!body->empty() && body->back() == '\n') body->pop_back();
    out += *body;
  }
  out.append(text, pos);
  return out;
}

}  // namespace

struct TemplateSet::Parsed {
  // Tells sets apart for the threads' copies below (an address can be reused, a number not).
  std::uint64_t id = next_id();
  std::map<std::string, mstch::mustache, std::less<>> templates;

  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }

  const mstch::mustache* find(std::string_view name) const {
    auto it = templates.find(name);
    return it == templates.end() ? nullptr : &it->second;
  }
};

Result<TemplateSet> TemplateSet::from_texts(std::map<std::string, std::string, std::less<>> texts) {
  TemplateSet set;
  TagScan scan;
  for (const auto& [name, text] : texts) {
    if (Status scanned = scan_tags(name, text, scan); !scanned.ok()) return scanned.error();
    // Parsed alone first, so that an error names the template whose own text is broken rather
    // than the first one that includes it.
    mstch::mustache parsed(text);
    if (!parsed.is_valid()) return invalid_argument("template " + name + ": " + parsed.error_message());
  }
  for (const auto& partial : scan.partials) {
    if (!texts.contains(partial)) return invalid_argument("partial {{> " + partial + "}} does not exist");
  }
  for (const auto& value : scan.values) {
    if (scan.sections.contains(value)) {
      return invalid_argument("{{" + value + "}} is used both as a value and as a section; give them distinct names");
    }
  }
  auto parsed = std::make_shared<Parsed>();
  for (const auto& [name, text] : texts) {
    std::vector<std::string> chain{name};
    auto whole = inline_partials(texts, chain);
    if (!whole.ok()) return whole.error();
    mstch::mustache tmpl(*whole);
    if (!tmpl.is_valid()) return invalid_argument("template " + name + ": " + tmpl.error_message());
    tmpl.set_custom_escape([](const std::string& value) { return shell_quote(value); });
    parsed->templates.emplace(name, std::move(tmpl));
  }
  set.m_parsed = std::move(parsed);
  set.m_texts = std::move(texts);
  set.m_value_names = std::move(scan.values);
  set.m_section_names = std::move(scan.sections);
  return set;
}

const TemplateSet& TemplateSet::builtin() {
  static const TemplateSet set = [] {
    auto built = from_texts(detail::builtin_template_texts());
    // The templates are part of the program; a broken one is a build defect that every
    // render test catches, not a runtime condition.
    if (!built.ok()) {
      std::fprintf(stderr, "tuneplane-slurm: built-in templates are invalid: %s\n", built.error().message().c_str());
      std::abort();
    }
    return std::move(*built);
  }();
  return set;
}

namespace {

// A render may record its error in the template it walks, and changes nothing else there: so
// each thread renders its own copy of a parsed template, made at its first render and kept
// until a render fails. A thread keeps the copies of one set at a time.
class ThreadCopies {
 public:
  mstch::mustache& of(const TemplateSet::Parsed& set, std::string_view name, const mstch::mustache& parsed) {
    if (m_set != set.id) {
      m_copies.clear();
      m_set = set.id;
    }
    auto it = m_copies.find(name);
    if (it == m_copies.end()) it = m_copies.emplace(std::string(name), parsed).first;
    return it->second;
  }
  void forget(std::string_view name) {
    if (auto it = m_copies.find(name); it != m_copies.end()) m_copies.erase(it);
  }

 private:
  std::uint64_t m_set = 0;
  std::map<std::string, mstch::mustache, std::less<>> m_copies;
};

thread_local ThreadCopies t_copies;

}  // namespace

Result<std::string> render_template(const TemplateSet& set, std::string_view name, const TemplateValue& data,
                                    RenderTrace* trace) {
  const mstch::mustache* parsed = set.parsed() == nullptr ? nullptr : set.parsed()->find(name);
  if (parsed == nullptr) return invalid_argument("template " + std::string(name) + " does not exist");
  if (data.kind() != TemplateValue::Kind::object) {
    return invalid_argument("template " + std::string(name) + ": the data must be an object");
  }
  if (has_nul(data)) return invalid_argument("template " + std::string(name) + ": a value contains a NUL byte");
  const mstch::data root = to_mustache(data);
  mstch::mustache& tmpl = t_copies.of(*set.parsed(), name, *parsed);
  StrictContext context(&root, set, trace);
  std::ostringstream out;
  tmpl.render(context, out);
  if (!tmpl.is_valid()) {
    std::string message = "template " + std::string(name) + ": " + tmpl.error_message();
    t_copies.forget(name);
    return invalid_argument(message);
  }
  if (!context.errors().empty()) {
    std::string message = "template " + std::string(name) + ":";
    for (const auto& error : context.errors()) message += " " + error + ";";
    message.pop_back();
    return invalid_argument(message);
  }
  return out.str();
}

}  // namespace tpslurm::render
