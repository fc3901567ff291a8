// The schema cache alone (what it keeps, what it refuses to trust) and
// through discovery (an unchanged tool is never started again).
#include "discovery/schema_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "discovery/discovery.h"
#include "testing/tool_runner.h"

namespace ikigai::discovery {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

std::string Schema(const std::string& name) {
  return R"({"name": ")" + name +
         R"(", "description": "d", "parameters": {"type": "object", "properties": {}}})";
}

class SchemaCacheTest : public ::testing::Test {
 protected:
  SchemaCacheTest() { ::mkdir((dir_ / "tools").c_str(), 0755); }

  // A tool that appends a line to `runs` each time it is asked.
  void WriteCountingTool(const std::string& name) {
    WriteFile(
        dir_ / ("tools/" + name + "-tool"),
        "#!/bin/sh\necho " + name + " >> " + runs() + "\ncat <<'EOF'\n" + Schema(name) + "\nEOF\n",
        0755);
  }
  std::string runs() const { return dir_ / "runs"; }
  // The tools asked, one line each, in name order (they run side by side).
  std::string Runs() const {
    if (::access(runs().c_str(), F_OK) != 0) return "";
    std::istringstream in(ReadFile(runs()));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    std::string sorted;
    for (const auto& line : lines) sorted += line + "\n";
    return sorted;
  }
  std::string cache_path() const { return dir_ / "cache/ikigai/schemas.json"; }

  registry::Registry Discover() const {
    return discovery::Discover(
        {"", "", dir_ / "tools"},
        {.schema_timeout = std::chrono::milliseconds(5000), .cache_path = cache_path()});
  }

  // Changes a file's modification time without changing its contents.
  static void Touch(const std::string& path) {
    // The clock the file system reads may not have moved since the write.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  }

  TempDir dir_;
};

TEST_F(SchemaCacheTest, KeepsAnAnswerForTheFileVersionItWasGivenFor) {
  WriteFile(dir_ / "t", "x", 0755);
  const auto version = VersionOf(dir_ / "t");
  ASSERT_TRUE(version);
  SchemaCache cache = SchemaCache::Load(cache_path());
  EXPECT_EQ(cache.Find(dir_ / "t", *version), std::nullopt);
  cache.Put(dir_ / "t", *version, Schema("t"));
  ASSERT_TRUE(cache.Save());

  SchemaCache again = SchemaCache::Load(cache_path());
  EXPECT_EQ(again.Find(dir_ / "t", *version), Schema("t"));
  FileVersion other = *version;
  other.mtime_ns += 1;
  EXPECT_EQ(again.Find(dir_ / "t", other), std::nullopt);
  // Nothing changed: nothing written.
  EXPECT_EQ(again.Save().value(), false);
  struct stat st {};
  ASSERT_EQ(::stat(cache_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((dir_ / "cache/ikigai").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(SchemaCacheTest, AChangedOrMissingFileIsNotAnsweredAndIsDroppedOnSave) {
  WriteFile(dir_ / "kept", "x", 0755);
  WriteFile(dir_ / "gone", "x", 0755);
  SchemaCache cache = SchemaCache::Load(cache_path());
  cache.Put(dir_ / "kept", *VersionOf(dir_ / "kept"), Schema("kept"));
  cache.Put(dir_ / "gone", *VersionOf(dir_ / "gone"), Schema("gone"));
  ::unlink((dir_ / "gone").c_str());
  ASSERT_TRUE(cache.Save());
  EXPECT_EQ(SchemaCache::Load(cache_path()).size(), 1u);
  EXPECT_EQ(ReadFile(cache_path()).find("gone"), std::string::npos);
}

// What is read is checked: garbage, another format, entries of the wrong
// shape, or a file another user could have written are never used, and the
// next save replaces them.
TEST_F(SchemaCacheTest, ACorruptOrForeignCacheIsIgnoredAndRewritten) {
  WriteFile(dir_ / "t", "x", 0755);
  const FileVersion version = *VersionOf(dir_ / "t");
  std::filesystem::create_directories(dir_ / "cache/ikigai");
  const std::string entry =
      R"({"device": )" + std::to_string(version.device) + R"(, "inode": )" +
      std::to_string(version.inode) + R"(, "size": )" + std::to_string(version.size) +
      R"(, "mtime_ns": )" + std::to_string(version.mtime_ns) + R"(, "ctime_ns": )" +
      std::to_string(version.ctime_ns) + R"(, "schema": "{\"planted\": true}"})";
  const std::string tools = "{\"" + dir_ / "t" + "\": " + entry + "}";
  for (const std::string& text :
       {std::string("\x01\x02 not json"), std::string("[1, 2]"),
        R"({"format": "something-else", "version": 1, "tools": )" + tools + "}",
        R"({"format": "ikigai-schema-cache", "version": 99, "tools": )" + tools + "}",
        R"({"format": "ikigai-schema-cache", "version": 1, "tools": {"relative": )" + entry + "}}",
        R"({"format": "ikigai-schema-cache", "version": 1, "tools": {")" + dir_ / "t" +
            R"(": {"device": "one"}}})"}) {
    WriteFile(cache_path(), text);
    SchemaCache cache_read = SchemaCache::Load(cache_path());
    EXPECT_EQ(cache_read.Find(dir_ / "t", version), std::nullopt) << text;
    ASSERT_TRUE(cache_read.Save()) << text;
    EXPECT_NE(ReadFile(cache_path()), text) << "rewritten";
    EXPECT_TRUE(nlohmann::json::parse(ReadFile(cache_path()))["format"] == "ikigai-schema-cache");
  }
  // The same valid text is trusted only in a file of this user.
  const std::string valid =
      R"({"format": "ikigai-schema-cache", "version": 1, "tools": )" + tools + "}";
  WriteFile(cache_path(), valid);
  EXPECT_EQ(SchemaCache::Load(cache_path()).Find(dir_ / "t", version), "{\"planted\": true}");
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(cache_path().c_str(), 65534, 65534), 0);
    EXPECT_EQ(SchemaCache::Load(cache_path()).Find(dir_ / "t", version), std::nullopt);
  }
}

TEST_F(SchemaCacheTest, AStartWithNothingChangedRunsNoTool) {
  WriteCountingTool("alpha");
  WriteCountingTool("beta");
  auto first = Discover();
  EXPECT_EQ(first.tools().size(), 2u);
  EXPECT_EQ(Runs(), "alpha\nbeta\n");

  auto second = Discover();
  ASSERT_EQ(second.tools().size(), 2u);
  EXPECT_EQ(second.tools()[0].schema.name, "alpha");
  EXPECT_EQ(Runs(), "alpha\nbeta\n") << "a tool ran though nothing changed";
}

TEST_F(SchemaCacheTest, OnlyAChangedOrAddedToolIsAskedAndARemovedOneIsGone) {
  WriteCountingTool("alpha");
  WriteCountingTool("beta");
  Discover();
  ::unlink(runs().c_str());
  Touch(dir_ / "tools/alpha-tool");
  WriteCountingTool("gamma");
  ::unlink((dir_ / "tools/beta-tool").c_str());
  auto again = Discover();
  EXPECT_EQ(Runs(), "alpha\ngamma\n");
  std::vector<std::string> names;
  for (const auto& tool : again.tools()) names.push_back(tool.name);
  EXPECT_EQ(names, (std::vector<std::string>{"alpha", "gamma"}));
}

// A tool replaced by another file of the same size and time (a symlink
// pointed elsewhere, a copy with its time kept) is another inode: asked.
TEST_F(SchemaCacheTest, ALinkPointedAtAnotherFileIsAskedAgain) {
  WriteFile(dir_ / "one", "#!/bin/sh\necho one >> " + runs() + "\necho '" + Schema("x") + "'\n",
            0755);
  WriteFile(dir_ / "two", "#!/bin/sh\necho two >> " + runs() + "\necho '" + Schema("x") + "'\n",
            0755);
  std::filesystem::create_symlink(dir_ / "one", dir_ / "tools/x-tool");
  Discover();
  std::filesystem::remove(dir_ / "tools/x-tool");
  std::filesystem::create_symlink(dir_ / "two", dir_ / "tools/x-tool");
  Discover();
  EXPECT_EQ(Runs(), "one\ntwo\n");
}

// A failure is not remembered: a tool that timed out on a busy machine is
// asked again at the next start.
TEST_F(SchemaCacheTest, AFailedToolIsAskedAgainNextTime) {
  WriteFile(dir_ / "tools/flaky-tool",
            "#!/bin/sh\necho run >> " + runs() + "\n[ -f " + dir_ / "ok" + " ] || exit 3\necho '" +
                Schema("flaky") + "'\n",
            0755);
  EXPECT_EQ(Discover().tools().size(), 0u);
  WriteFile(dir_ / "ok", "");
  EXPECT_EQ(Discover().tools().size(), 1u);
  EXPECT_EQ(Discover().tools().size(), 1u);
  EXPECT_EQ(Runs(), "run\nrun\n");
}

TEST_F(SchemaCacheTest, ACorruptCacheCostsOnlyTime) {
  WriteCountingTool("alpha");
  Discover();
  WriteFile(cache_path(), "{\"format\": \"ikigai-schema-cache\", \"version\": 1, \"tools\": 7}");
  EXPECT_EQ(Discover().tools().size(), 1u);
  EXPECT_EQ(Runs(), "alpha\nalpha\n");
  EXPECT_EQ(Discover().tools().size(), 1u);
  EXPECT_EQ(Runs(), "alpha\nalpha\n") << "rewritten and used again";
}

TEST(SchemaCachePath, FollowsXdgCacheHomeThenHome) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved_xdg = xdg ? xdg : "";
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  EXPECT_EQ(DefaultSchemaCachePath(), "/x/cache/ikigai/schemas.json");
  ::setenv("XDG_CACHE_HOME", "relative", 1);  // the spec says: ignored
  const char* home = std::getenv("HOME");
  EXPECT_EQ(DefaultSchemaCachePath(),
            std::string(home ? home : "") + "/.cache/ikigai/schemas.json");
  if (xdg) {
    ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
}

}  // namespace
}  // namespace ikigai::discovery
