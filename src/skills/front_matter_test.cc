#include "skills/front_matter.h"

#include <gtest/gtest.h>

namespace ikigai::skills {
namespace {

SkillDocument Parsed(std::string_view text) {
  auto document = ParseSkillDocument(text);
  EXPECT_TRUE(document) << document.error();
  return document ? *document : SkillDocument{};
}

std::string Error(std::string_view text) {
  auto document = ParseSkillDocument(text);
  EXPECT_FALSE(document) << "parsed: " << document->name;
  return document ? "" : document.error();
}

TEST(FrontMatterTest, PlainValuesAndTheBody) {
  const SkillDocument document = Parsed(
      "---\nname: pdf-tools\ndescription: Extract text from PDF files. Use it for PDFs.\n---\n\n"
      "# PDF tools\nRun scripts/extract.py.\n");
  EXPECT_EQ(document.name, "pdf-tools");
  EXPECT_EQ(document.description, "Extract text from PDF files. Use it for PDFs.");
  EXPECT_EQ(document.body, "# PDF tools\nRun scripts/extract.py.\n");
}

TEST(FrontMatterTest, QuotedValuesWithEscapesAndColons) {
  const SkillDocument document = Parsed(
      "---\nname: \"quoted\"\ndescription: 'It''s for: \"this\" # not a comment'\n---\nbody");
  EXPECT_EQ(document.name, "quoted");
  EXPECT_EQ(document.description, "It's for: \"this\" # not a comment");
  const SkillDocument escaped =
      Parsed("---\nname: e\ndescription: \"tab\\there, quote \\\" and \\u00e9\"\n---\n");
  EXPECT_EQ(escaped.description, "tab\there, quote \" and \xC3\xA9");
}

TEST(FrontMatterTest, FoldedAndLiteralBlocks) {
  const SkillDocument folded = Parsed(
      "---\nname: folded\ndescription: >\n  First line\n  goes on.\n\n  Second paragraph.\n"
      "license: MIT\n---\n");
  EXPECT_EQ(folded.description, "First line goes on.\nSecond paragraph.");
  const SkillDocument literal =
      Parsed("---\ndescription: |-\n    one\n    two\nname: literal\n---\n");
  EXPECT_EQ(literal.description, "one\ntwo");
  EXPECT_EQ(literal.name, "literal");
}

TEST(FrontMatterTest, PlainValuesGoOnOverIndentedLines) {
  const SkillDocument document = Parsed(
      "---\nname: wrapped\ndescription: A long description\n  that wraps # a comment\n"
      "  over lines.\n---\n");
  EXPECT_EQ(document.description, "A long description that wraps over lines.");
  const SkillDocument quoted =
      Parsed("---\nname: q\ndescription: \"starts here\n  and ends here\"\n---\n");
  EXPECT_EQ(quoted.description, "starts here and ends here");
}

TEST(FrontMatterTest, OtherKeysListsAndMappingsAreSkipped) {
  const SkillDocument document = Parsed(
      "\xEF\xBB\xBF---\r\n# a comment\r\nlicense: Apache-2.0\r\nallowed-tools:\r\n  - bash\r\n"
      "  - file_read\r\nmetadata:\r\n  name: not-this\r\n  version: 2\r\nname: real\r\n"
      "description: Real one.\r\n---\r\nBody\r\n");
  EXPECT_EQ(document.name, "real");
  EXPECT_EQ(document.description, "Real one.");
  EXPECT_EQ(document.body, "Body\r\n");
}

TEST(FrontMatterTest, BrokenFilesSayWhatIsMissing) {
  EXPECT_EQ(Error("# Just markdown\n"), "no front matter (SKILL.md must start with a line ---)");
  EXPECT_EQ(Error(""), "no front matter (SKILL.md must start with a line ---)");
  EXPECT_EQ(Error("---\nname: x\ndescription: y\n"),
            "the front matter does not end (no closing --- line)");
  EXPECT_EQ(Error("---\ndescription: y\n---\n"), "no name in the front matter");
  EXPECT_EQ(Error("---\nname: x\n---\n"), "no description in the front matter");
  EXPECT_EQ(Error("---\nname: x\ndescription:\n  - a list\n---\n"),
            "no description in the front matter");
  EXPECT_EQ(Error("---\nname: x\ndescription: \"open\n---\n"),
            "line 3 of SKILL.md (description): a quoted value does not end");
}

}  // namespace
}  // namespace ikigai::skills
