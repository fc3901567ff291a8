#include "executor/call_order.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ikigai::executor {
namespace {

using Waves = std::vector<std::size_t>;

CallAccess Reads(std::optional<std::string> path = std::nullopt) { return {false, path}; }
CallAccess Writes(std::optional<std::string> path = std::nullopt) { return {true, path}; }

TEST(CallOrder, ReadersRunTogether) {
  EXPECT_EQ(AssignWaves({Reads(), Reads("/a"), Reads()}), (Waves{0, 0, 0}));
}

TEST(CallOrder, WritersOfOnePathRunOneAfterAnotherInTheModelsOrder) {
  EXPECT_EQ(AssignWaves({Writes("/a"), Writes("/a"), Writes("/a")}), (Waves{0, 1, 2}));
}

TEST(CallOrder, WritersOfDifferentPathsRunTogether) {
  EXPECT_EQ(AssignWaves({Writes("/a"), Writes("/b"), Writes("/ab")}), (Waves{0, 0, 0}));
}

TEST(CallOrder, AReaderOfAWrittenPathKeepsItsPlace) {
  // Read before the edit, edit, read after: the reads see before and after.
  EXPECT_EQ(AssignWaves({Reads("/a"), Writes("/a"), Reads("/a"), Reads("/b")}),
            (Waves{0, 1, 2, 0}));
}

TEST(CallOrder, ADirectoryOverlapsWhatIsBelowIt) {
  EXPECT_EQ(AssignWaves({Reads("/src"), Writes("/src/x.cc"), Writes("/srcx")}), (Waves{0, 1, 0}));
  EXPECT_EQ(AssignWaves({Writes("/"), Reads("/etc")}), (Waves{0, 1}));
}

TEST(CallOrder, AWriterThatNamesNoPathRunsAlone) {
  EXPECT_EQ(AssignWaves({Reads("/a"), Writes(), Reads("/b"), Writes("/c")}), (Waves{0, 1, 2, 2}));
  // A reader that names no path may read what any writer writes.
  EXPECT_EQ(AssignWaves({Writes("/a"), Reads(), Writes("/b")}), (Waves{0, 1, 2}));
}

TEST(CallOrder, ALaterCallNeverOvertakesAnEarlierOneItConflictsWith) {
  // The third call conflicts only with the second, which waits for the
  // first: it must wait for the second.
  EXPECT_EQ(AssignWaves({Writes("/a"), Writes("/a"), Reads("/a"), Writes("/b")}),
            (Waves{0, 1, 2, 0}));
}

TEST(CallOrder, TwoNamesOfOneHardLinkedFileAreOneFile) {
  CallAccess first = Writes("/a/h0"), second = Writes("/b/h1"), other = Writes("/c");
  first.file_identity = second.file_identity = "1:2";
  EXPECT_EQ(AssignWaves({first, second, other}), (Waves{0, 1, 0}));
}

TEST(CallOrder, HardLinkedFilesHaveAnIdentity) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("call-order-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "h0") << "x";
  std::ofstream(dir / "single") << "x";
  std::filesystem::create_hard_link(dir / "h0", dir / "h1");
  EXPECT_TRUE(HardLinkedIdentity(dir / "h0").has_value());
  EXPECT_EQ(HardLinkedIdentity(dir / "h0"), HardLinkedIdentity(dir / "h1"));
  EXPECT_EQ(HardLinkedIdentity(dir / "single"), std::nullopt);
  EXPECT_EQ(HardLinkedIdentity(dir / "missing"), std::nullopt);
  std::filesystem::remove_all(dir);
}

TEST(CallOrder, NamedPathsAreAbsoluteAndNormal) {
  EXPECT_EQ(NamedPath("nonexistent-x/../nonexistent-y.txt"),
            (std::filesystem::current_path() / "nonexistent-y.txt").string());
  EXPECT_EQ(NamedPath("/nonexistent/a/./b/"), "/nonexistent/a/b");
  EXPECT_EQ(NamedPath(""), std::nullopt);
}

}  // namespace
}  // namespace ikigai::executor
