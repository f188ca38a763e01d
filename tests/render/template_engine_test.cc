#include "render/template_engine.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "support/temp_dir.h"

namespace tpslurm::render {
namespace {

TemplateSet make_set(std::map<std::string, std::string, std::less<>> texts) {
  auto set = TemplateSet::from_texts(std::move(texts));
  if (!set.ok()) ADD_FAILURE() << set.error().message();
  return set.ok() ? *set : TemplateSet();
}

std::string build_error(std::map<std::string, std::string, std::less<>> texts) {
  auto set = TemplateSet::from_texts(std::move(texts));
  return set.ok() ? "" : set.error().message();
}

std::string render_error(const TemplateSet& set, const TemplateValue& data) {
  auto out = render_template(set, "t", data);
  return out.ok() ? "" : out.error().message();
}

TEST(TemplateEngineTest, EveryValueBecomesOneBashWord) {
  const TemplateSet set = make_set({{"t", "run {{arg}} {{plain}} {{empty}}\n"}});
  TemplateValue data;
  data.set("arg", "a b'$c");
  data.set("plain", "--lr=3e-4");
  data.set("empty", "");
  auto out = render_template(set, "t", data);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(*out, "run 'a b'\\''$c' --lr=3e-4 ''\n");
}

TEST(TemplateEngineTest, ListsOfTextRenderEachItemQuoted) {
  const TemplateSet set = make_set({{"t", "cmd=({{#args}} {{.}}{{/args}} )\n"}});
  TemplateValue data;
  data.set("args", TemplateValue::list({"python", "a b", ""}));
  auto out = render_template(set, "t", data);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(*out, "cmd=( python 'a b' '' )\n");
}

TEST(TemplateEngineTest, RawOutputIsForRendererBuiltShellText) {
  const TemplateSet set = make_set({{"t", "{{{shell_lines}}}\n"}});
  TemplateValue data;
  data.set("shell_lines", "#SBATCH --nodes=2\n#SBATCH --no-requeue");
  auto out = render_template(set, "t", data);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "#SBATCH --nodes=2\n#SBATCH --no-requeue\n");
}

TEST(TemplateEngineTest, ANameTheDataLacksIsAnErrorNotAnEmptyString) {
  const TemplateSet set = make_set({{"t", "srun --nodes={{nodes}} {{nodse}}\n"}});
  TemplateValue data;
  data.set("nodes", "2");
  EXPECT_EQ(render_error(set, data), "template t: {{nodse}} is not in the data");
}

TEST(TemplateEngineTest, ATypoInsideASectionIsAnError) {
  const TemplateSet set = make_set({{"t", "{{#components}}--het-group={{idnex}}\n{{/components}}"}});
  TemplateValue component;
  component.set("index", "0");
  TemplateValue data;
  data.set("components", TemplateValue::list({component}));
  EXPECT_EQ(render_error(set, data), "template t: {{idnex}} is not in the data");
}

TEST(TemplateEngineTest, AMissingSectionNameIsAnError) {
  const TemplateSet set = make_set({{"t", "{{#gpu}}--nv{{/gpu}}{{^gpu}}cpu{{/gpu}}\n"}});
  EXPECT_EQ(render_error(set, TemplateValue()), "template t: {{gpu}} is not in the data");
}

TEST(TemplateEngineTest, AValueTagOnAFlagIsAnError) {
  const TemplateSet set = make_set({{"t", "{{gpu}}\n"}});
  TemplateValue data;
  data.set("gpu", true);
  EXPECT_EQ(render_error(set, data), "template t: {{gpu}} is not text");
}

TEST(TemplateEngineTest, ASectionOverTextIsAnError) {
  const TemplateSet set = make_set({{"t", "{{#name}}x{{/name}}\n"}});
  TemplateValue data;
  data.set("name", "text");
  EXPECT_EQ(render_error(set, data), "template t: {{#name}} is text, not a flag, list or object");
}

TEST(TemplateEngineTest, RefusesRawOutputOfUserValues) {
  EXPECT_EQ(build_error({{"t", "{{{arg}}}"}}),
            "template t: {{{arg}}}: raw output is only for renderer-built text named shell_…");
  EXPECT_EQ(build_error({{"t", "{{& arg}}"}}),
            "template t: {{& arg}}: raw output is only for renderer-built text named shell_…");
}

TEST(TemplateEngineTest, RefusesEscapingRendererBuiltText) {
  EXPECT_EQ(build_error({{"t", "{{shell_lines}}"}}),
            "template t: {{shell_lines}}: shell_… text is built by the renderer; use {{{shell_lines}}}");
}

TEST(TemplateEngineTest, RefusesSetDelimiterTags) {
  EXPECT_EQ(build_error({{"t", "{{=<% %>=}}"}}), "template t: {{=<% %>=}}: set-delimiter tags are not allowed");
}

TEST(TemplateEngineTest, RefusesAMissingPartial) {
  EXPECT_EQ(build_error({{"t", "{{> nope}}"}}), "partial {{> nope}} does not exist");
}

TEST(TemplateEngineTest, RefusesANameUsedAsValueAndSection) {
  EXPECT_EQ(build_error({{"t", "{{gpu}}{{#gpu}}x{{/gpu}}"}}),
            "{{gpu}} is used both as a value and as a section; give them distinct names");
}

TEST(TemplateEngineTest, RefusesBrokenMustache) { EXPECT_NE(build_error({{"t", "{{#a}}never closed"}}), ""); }

TEST(TemplateEngineTest, PartialsShareTheDataAndDropTheirFinalNewline) {
  const TemplateSet set = make_set({{"t", "{{> head}}\nbody {{x}}\n"}, {"head", "#!/bin/bash\necho {{x}}\n"}});
  TemplateValue data;
  data.set("x", "$x");
  auto out = render_template(set, "t", data);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(*out, "#!/bin/bash\necho '$x'\nbody '$x'\n");
}

TEST(TemplateEngineTest, PartialsNestAndRenderInsideSections) {
  const TemplateSet set =
      make_set({{"t", "{{#items}}[{{> item}}]{{/items}}\n"}, {"item", "<{{> inner}}>\n"}, {"inner", "{{name}}\n"}});
  TemplateValue data;
  TemplateValue first;
  first.set("name", "a b");
  TemplateValue second;
  second.set("name", "c");
  data.set("items", TemplateValue::list({first, second}));
  auto out = render_template(set, "t", data);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(*out, "[<'a b'>][<c>]\n");
}

TEST(TemplateEngineTest, RefusesAPartialThatIncludesItself) {
  EXPECT_EQ(build_error({{"t", "{{> a}}\n"}, {"a", "x {{> b}}\n"}, {"b", "{{> a}}\n"}}),
            "partial {{> a}} includes itself (a > b > a)");
  EXPECT_EQ(build_error({{"t", "{{> t}}\n"}}), "partial {{> t}} includes itself (t > t)");
}

TEST(TemplateEngineTest, ARenderLeavesTheSetAsItWas) {
  const TemplateSet set = make_set({{"t", "{{> head}} {{x}}\n"}, {"head", "{{y}}"}});
  TemplateValue bad;
  bad.set("x", "1");
  EXPECT_EQ(render_error(set, bad), "template t: {{y}} is not in the data");
  TemplateValue good;
  good.set("x", "1");
  good.set("y", "2");
  auto out = render_template(set, "t", good);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(*out, "2 1\n");
}

// A thread renders its own copy of each template: sets that name their templates alike, one
// made after another was destroyed (perhaps at its address), render their own text each.
TEST(TemplateEngineTest, EachSetRendersItsOwnTemplatesOnOneThread) {
  TemplateValue data;
  data.set("x", "1");
  const auto text = [&](const TemplateSet& set) {
    auto out = render_template(set, "t", data);
    return out.ok() ? *out : out.error().message();
  };
  auto first = std::make_unique<TemplateSet>(make_set({{"t", "first {{x}}\n"}}));
  const TemplateSet second = make_set({{"t", "second {{x}}\n"}});
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(text(*first), "first 1\n");
    EXPECT_EQ(text(second), "second 1\n");
  }
  first.reset();
  const TemplateSet third = make_set({{"t", "third {{x}}\n"}});
  EXPECT_EQ(text(third), "third 1\n");
  EXPECT_EQ(text(second), "second 1\n");
}

TEST(TemplateEngineTest, RefusesValuesWithNul) {
  const TemplateSet set = make_set({{"t", "{{x}}\n"}});
  TemplateValue data;
  data.set("x", std::string("a\0b", 3));
  EXPECT_EQ(render_error(set, data), "template t: a value contains a NUL byte");
}

TEST(TemplateEngineTest, TracesTheNamesItLooksUp) {
  const TemplateSet set = make_set({{"t", "{{a}}{{#b}}{{c}}{{/b}}\n"}});
  TemplateValue data;
  data.set("a", "1");
  data.set("b", false);
  data.set("c", "3");
  RenderTrace trace;
  ASSERT_TRUE(render_template(set, "t", data, &trace).ok());
  EXPECT_EQ(trace.names_looked_up, (std::set<std::string>{"a", "b"}));
}

TEST(TemplateEngineTest, BuiltinSetHoldsTheTemplatesDirectoryByteForByte) {
  const auto& texts = TemplateSet::builtin().texts();
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TP_SOURCE_DIR) + "/templates")) {
    if (entry.path().extension() != ".mustache") continue;
    ++files;
    const std::string name = entry.path().stem().string();
    ASSERT_TRUE(texts.contains(name)) << name;
    EXPECT_EQ(texts.find(name)->second, tpslurm::testing::read_test_file(entry.path().string())) << name;
  }
  EXPECT_EQ(files, texts.size());
  EXPECT_GE(files, 4u);
}

}  // namespace
}  // namespace tpslurm::render
