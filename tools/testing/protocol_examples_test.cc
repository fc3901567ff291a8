// The example tools of docs/tool-protocol.md keep the protocol they teach.
#include <gtest/gtest.h>

#include "testing/tool_runner.h"

namespace ikigai::testing {
namespace {

const std::string kExamples = IKIGAI_EXAMPLES_DIR;

// Every example answers --schema with a JSON Schema under its file's name,
// and any input, even garbage, with one JSON object and exit 0.
void ExpectProtocolKept(const std::string& file, const std::string& name) {
  const std::string path = kExamples + "/" + file;
  ToolRun schema = RunExecutable(path, "", {.argv_extra = {"--schema"}});
  ASSERT_EQ(schema.exit_code, 0) << schema.err;
  ASSERT_TRUE(schema.json.is_object()) << schema.out;
  EXPECT_EQ(schema.json["name"], name);
  EXPECT_EQ(schema.json["parameters"]["type"], "object");
  EXPECT_TRUE(schema.json["parameters"]["properties"].is_object());
  EXPECT_LT(schema.out.size(), 8u * 1024);
  for (const std::string bad : {"not json", "[1]", "{\"path\": 3, \"file_path\": 3}"}) {
    ToolRun run = RunExecutable(path, bad);
    EXPECT_EQ(run.exit_code, 0) << bad << ": " << run.err;
    ASSERT_TRUE(run.json.is_object()) << bad << ": " << run.out;
    EXPECT_EQ(run.json["error_code"], "INVALID_ARG") << bad;
  }
}

TEST(ProtocolExamples, PythonWordCountKeepsTheProtocol) {
  ExpectProtocolKept("word-count-tool", "word_count");
}

TEST(ProtocolExamples, PythonWordCountCounts) {
  TempDir dir;
  WriteFile(dir / "f.txt", "one two\nthree\n");
  ToolRun run =
      RunExecutable(kExamples + "/word-count-tool", Json{{"file_path", dir / "f.txt"}}.dump());
  EXPECT_EQ(run.json["lines"], 2);
  EXPECT_EQ(run.json["words"], 3);
  EXPECT_EQ(run.json["bytes"], 14);
  run = RunExecutable(kExamples + "/word-count-tool", Json{{"file_path", dir / "nope"}}.dump());
  EXPECT_EQ(run.json["error_code"], "FILE_NOT_FOUND");
}

TEST(ProtocolExamples, ShellDiskUsageKeepsTheProtocol) {
  ExpectProtocolKept("disk-usage-tool", "disk_usage");
}

TEST(ProtocolExamples, ShellDiskUsageMeasures) {
  TempDir dir;
  WriteFile(dir / "blob", std::string(64 * 1024, 'x'));
  ToolRun run = RunExecutable(kExamples + "/disk-usage-tool", Json{{"path", dir.path()}}.dump());
  ASSERT_TRUE(run.json.is_object()) << run.out << run.err;
  EXPECT_GE(run.json["kilobytes"].get<int>(), 64);
  run = RunExecutable(kExamples + "/disk-usage-tool", Json{{"path", dir / "missing"}}.dump());
  EXPECT_EQ(run.json["error_code"], "FILE_NOT_FOUND");
}

TEST(ProtocolExamples, HostChannelExamplesKeepTheProtocol) {
  ExpectProtocolKept("checksum-tool", "checksum");
  ExpectProtocolKept("choose-tool", "choose");
}

TEST(ProtocolExamples, ShellChecksumWorksWithoutAHostChannel) {
  TempDir dir;
  WriteFile(dir / "f.txt", "abc");
  ToolRun run =
      RunExecutable(kExamples + "/checksum-tool", Json{{"paths", {dir / "f.txt"}}}.dump());
  ASSERT_TRUE(run.json.is_object()) << run.out << run.err;
  EXPECT_EQ(run.json["checksums"][dir / "f.txt"],
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace ikigai::testing
