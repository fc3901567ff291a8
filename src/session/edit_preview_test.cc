// The diff an approval question shows: computed as the tools would apply
// the edit, by diff -u against the file as it is.
#include "session/edit_preview.h"

#include <gtest/gtest.h>

#include "testing/tool_runner.h"

namespace ikigai::session {
namespace {

using testing::TempDir;
using testing::WriteFile;

TEST(EditPreview, AWriteOfANewFileIsAllAdditions) {
  TempDir dir;
  const std::string path = dir / "new.txt";
  const std::string diff = EditPreview("file_write", {{"file_path", path}, {"content", "a\nb\n"}});
  EXPECT_NE(diff.find("+++ b/" + path), std::string::npos) << diff;
  EXPECT_NE(diff.find("\n+a\n+b\n"), std::string::npos) << diff;
}

TEST(EditPreview, AnEditShowsTheChangedLinesInContext) {
  TempDir dir;
  const std::string path = dir / "f.c";
  WriteFile(path, "int a;\nint b;\nint c;\n");
  const std::string diff = EditPreview(
      "file_edit", {{"file_path", path}, {"old_string", "int b;"}, {"new_string", "long b;"}});
  EXPECT_NE(diff.find(" int a;\n-int b;\n+long b;\n int c;\n"), std::string::npos) << diff;
}

TEST(EditPreview, ReplaceAllChangesEveryOccurrence) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "x\ny\nx\n");
  const std::string diff = EditPreview(
      "file_edit",
      {{"file_path", path}, {"old_string", "x"}, {"new_string", "z"}, {"replace_all", true}});
  EXPECT_NE(diff.find("\n-x\n+z\n y\n-x\n+z\n"), std::string::npos) << diff;
}

// The tool may still find the text with whitespace normalized: the preview
// shows the two strings against each other rather than nothing.
TEST(EditPreview, TextNotFoundAsWrittenShowsOldAgainstNew) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "\tindented\n");
  const std::string diff = EditPreview(
      "file_edit", {{"file_path", path}, {"old_string", "  indented"}, {"new_string", "  moved"}});
  EXPECT_NE(diff.find("-  indented\n+  moved\n"), std::string::npos) << diff;
}

TEST(EditPreview, NothingForOtherToolsOrWithoutAPathAndNoChangeSaysSo) {
  TempDir dir;
  EXPECT_EQ(EditPreview("bash", {{"command", "ls"}}), "");
  EXPECT_EQ(EditPreview("file_write", {{"content", "x"}}), "");
  WriteFile(dir / "same", "x\n");
  EXPECT_EQ(EditPreview("file_write", {{"file_path", dir / "same"}, {"content", "x\n"}}),
            "(no change)\n");
}

TEST(EditPreview, TheWholeDiffAndItsFirstLines) {
  TempDir dir;
  std::string content;
  for (int i = 0; i < 100; ++i) content += "line " + std::to_string(i) + "\n";
  const std::string diff =
      EditPreview("file_write", {{"file_path", dir / "long"}, {"content", content}});
  EXPECT_NE(diff.find("+line 99\n"), std::string::npos) << "never cut";
  const std::string first = FirstLines(diff, 10);
  EXPECT_EQ(std::count(first.begin(), first.end(), '\n'), 11);
  EXPECT_TRUE(first.ends_with("... (" + std::to_string(100 + 3 - 10) + " more lines)\n")) << first;
  EXPECT_EQ(FirstLines("a\nb\n", 10), "a\nb\n");
}

}  // namespace
}  // namespace ikigai::session
