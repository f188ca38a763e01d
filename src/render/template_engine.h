// TemplateSet and render_template(): strict Mustache rendering of shell text.
//
// The set holds named templates (`templates/<name>.mustache`, without the extension); any of
// them can be rendered or included as a partial (`{{> name}}`). Rendering is stricter than
// Mustache, because a typo must never quietly print nothing into a batch script:
//   - the default escape is shell_quote(): every `{{name}}` becomes one bash word;
//   - raw output (`{{{name}}}` or `{{& name}}`) is allowed only for names starting with
//     `shell_`: text the renderer built itself; such names may not be escaped either;
//   - a name (or partial) the data does not provide is an error, not an empty string;
//   - `{{name}}` of something that is not text, or a section over text, is an error;
//   - a name may not be used both as a value and as a section; set-delimiter tags are refused.
// The first three rules about tag shapes are checked when the set is built (all templates),
// the others while rendering. Output is a pure function of template and data.
//
// Each template is parsed once, when the set is built, with its partials' text put in place of
// their tags (a partial that includes itself, directly or not, is refused); each thread renders
// its own copy of the parsed tree, made at its first render of that template.
//
// The builtin set is compiled into the binary from templates/ (so a deployed binary renders
// exactly what it was tested with). A TemplateSet is immutable; safe to share between threads.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "base/result.h"
#include "render/template_value.h"

namespace tpslurm::render {

class TemplateSet {
 public:
  // name -> template text. Fails when a template breaks the tag rules above.
  static Result<TemplateSet> from_texts(std::map<std::string, std::string, std::less<>> texts);
  // The templates compiled in from templates/.
  static const TemplateSet& builtin();

  const std::map<std::string, std::string, std::less<>>& texts() const { return m_texts; }
  // Every name used as `{{name}}` / `{{{name}}}` and every section name, over all templates.
  const std::set<std::string, std::less<>>& value_names() const { return m_value_names; }
  const std::set<std::string, std::less<>>& section_names() const { return m_section_names; }

  struct Parsed;  // name -> the parsed template, partials in place
  const Parsed* parsed() const { return m_parsed.get(); }

 private:
  std::map<std::string, std::string, std::less<>> m_texts;
  std::set<std::string, std::less<>> m_value_names;
  std::set<std::string, std::less<>> m_section_names;
  std::shared_ptr<const Parsed> m_parsed;
};

struct RenderTrace {
  std::set<std::string> names_looked_up;  // every data name a render asked for (for coverage tests)
};

// Renders template `name` with `data` (an object). invalid_argument names the template and
// every missing or misused name.
Result<std::string> render_template(const TemplateSet& set, std::string_view name, const TemplateValue& data,
                                    RenderTrace* trace = nullptr);

}  // namespace tpslurm::render
