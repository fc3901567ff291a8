#include "blocklist.h"

#include <gtest/gtest.h>

#include "base/shell_words.h"

namespace ikigai::bash_tool {
namespace {

using shell::SplitCommands;

std::string ReasonFor(std::string_view command) {
  auto blocked = CheckCommand(command, "/home/ann");
  return blocked ? blocked->reason : "";
}

void ExpectBlocked(std::string_view command, std::string_view reason_part) {
  const std::string reason = ReasonFor(command);
  EXPECT_NE(reason.find(reason_part), std::string::npos)
      << "command: " << command << "\nreason: " << reason;
}

void ExpectAllowed(std::string_view command) {
  EXPECT_EQ(ReasonFor(command), "") << "command: " << command;
}

TEST(Blocklist, ForkBombs) {
  ExpectBlocked(":(){ :|:& };:", "fork bomb");
  ExpectBlocked(":(){:|:&};:", "fork bomb");
  ExpectBlocked(":()  {  :  |  :  &  }  ;  :", "fork bomb");
  ExpectBlocked(":(){ :|:&; };:", "fork bomb");
  ExpectBlocked("bomb() { bomb | bomb & }; bomb", "fork bomb");
  ExpectBlocked("function f { f|f& }; f", "fork bomb");
  ExpectBlocked("bash -c ':(){ :|:& };:'", "fork bomb");
  // Decided: the shape is refused even inside quotes (see blocklist.h).
  ExpectBlocked("echo ':(){ :|:& };:' > notes.txt", "fork bomb");
}

TEST(Blocklist, ForkBombLookalikesRun) {
  ExpectAllowed("f() { echo hi; }; f");
  ExpectAllowed("f() { g | h & }; f");
  ExpectAllowed("a | b & c");
}

TEST(Blocklist, RecursiveRmOfRoot) {
  for (std::string_view command : {"rm -rf /",
                                   "rm -fr /",
                                   "rm -r -f /",
                                   "rm -Rf /",
                                   "rm --recursive --force /",
                                   "sudo rm -rf --no-preserve-root /",
                                   "rm -rf /*",
                                   "rm   -rf    /",
                                   "rm -rf //",
                                   "rm -rf /.",
                                   "rm -rf /tmp/..",
                                   "rm -rf '/'",
                                   "rm -rf \"/\"*",
                                   "/bin/rm -rf /",
                                   "cd /tmp && rm -rf /",
                                   "true; rm -rf /",
                                   "false || rm -rf /",
                                   "echo x | rm -rf /",
                                   "sleep 1 & rm -rf /",
                                   "echo a\nrm -rf /",
                                   "(rm -rf /)",
                                   "{ rm -rf /; }",
                                   "x=$(rm -rf /)",
                                   "echo `rm -rf /`",
                                   "echo \"$(rm -rf /)\"",
                                   "echo \"`rm -rf /`\"",
                                   "cat <<EOF\n$(rm -rf /)\nEOF",
                                   "sudo -u root rm -rf /",
                                   "env A=1 rm -rf /",
                                   "LANG=C rm -rf /",
                                   "nohup rm -rf / &",
                                   "timeout 5 rm -rf /",
                                   "nice -n 5 rm -rf /",
                                   "sh -c 'rm -rf /'",
                                   "bash -ec \"rm -rf /\"",
                                   "eval rm -rf /",
                                   "su -c 'rm -rf /'",
                                   "rm -rf -- /",
                                   "rm -rf ./build /"}) {
    ExpectBlocked(command, "whole filesystem");
  }
}

TEST(Blocklist, RecursiveRmOfHome) {
  for (std::string_view command :
       {"rm -rf ~", "rm -rf ~/", "rm -rf ~/*", "rm -rf $HOME", "rm -rf \"$HOME\"",
        "rm -rf ${HOME}/", "rm -rf $HOME/*", "rm -rf /home/ann", "rm -rf /home/ann/"}) {
    ExpectBlocked(command, "home directory");
  }
  ExpectBlocked("rm -rf ~/..", "above the home directory");
}

TEST(Blocklist, OrdinaryRmRuns) {
  for (std::string_view command :
       {"rm -rf ./build", "rm -rf /tmp/x", "rm -rf build/", "rm -rf ~/project/build",
        "rm -rf $HOME/.cache/foo", "rm -f /", "rm /tmp/file", "rm -rf *", "rm -rf .",
        "echo rm -rf /", "echo 'rm -rf /'", "grep -r 'rm -rf /' .", "ls /", "rm -rf /home/ann/tmp",
        "rm -rf /home/bob"}) {
    ExpectAllowed(command);
  }
}

TEST(Blocklist, Mkfs) {
  ExpectBlocked("mkfs.ext4 /dev/sdb1", "erase");
  ExpectBlocked("sudo mkfs -t ext4 /dev/nvme0n1p1", "erase");
  ExpectBlocked("mke2fs /dev/vda", "erase");
  ExpectAllowed("mkfs.ext4 ./disk.img");
  ExpectAllowed("man mkfs");
}

TEST(Blocklist, DdOntoADisk) {
  for (std::string_view device : {"sda", "sdb1", "nvme0n1", "vda", "hda", "mmcblk0", "xvda"}) {
    ExpectBlocked("dd if=/dev/zero of=/dev/" + std::string(device) + " bs=1M", "block device");
  }
  ExpectBlocked("sudo dd if=img of=/dev/sda status=progress", "block device");
  ExpectAllowed("dd if=/dev/zero of=./img bs=1M count=1");
  ExpectAllowed("dd if=/dev/sda of=./backup.img");
  ExpectAllowed("dd if=/dev/zero of=/dev/null count=1");
}

TEST(Blocklist, RedirectionOntoADisk) {
  ExpectBlocked("echo hi > /dev/sda", "block device");
  ExpectBlocked("cat img >/dev/sda", "block device");
  ExpectBlocked("cat img >> /dev/nvme0n1", "block device");
  ExpectBlocked("cat img 1>/dev/sda", "block device");
  ExpectBlocked("cat img &> /dev/sdb", "block device");
  ExpectBlocked("cat img | sudo tee /dev/sda", "block device");
  ExpectAllowed("ls /dev/sda");
  ExpectAllowed("cat /dev/sda > img");
  ExpectAllowed("echo hi > /dev/null");
  ExpectAllowed("echo hi >&2");
  ExpectAllowed("echo hi > '/dev/sda.txt'x");
  ExpectAllowed("echo '> /dev/sda'");
}

TEST(Blocklist, HereDocumentBodiesAreData) {
  ExpectAllowed("cat > notes.md <<EOF\nrm -rf /\necho hi > /dev/sda\nEOF\necho done");
  ExpectAllowed("cat <<-'END'\n\trm -rf /\n\tEND");
  ExpectBlocked("cat <<EOF\nx\nEOF\nrm -rf /", "whole filesystem");
}

TEST(Blocklist, CommentsAreNotCommands) {
  ExpectAllowed("ls # rm -rf /");
  ExpectBlocked("ls #x\nrm -rf /", "whole filesystem");
}

TEST(Blocklist, MessageSaysWhatToDoInstead) {
  auto blocked = CheckCommand("rm -rf /");
  ASSERT_TRUE(blocked);
  EXPECT_EQ(BlockedMessage(*blocked),
            "Command blocked: rm -r on '/' would delete the whole filesystem. Name the specific "
            "files or directories to delete (for example rm -rf ./build).");
}

TEST(BlocklistShellWords, SplitsOnOperatorsAndKeepsQuotedWords) {
  const auto commands = SplitCommands("a 'b c' \"d\\\"e\" f\\ g; h&&i||j|k&l\nm 2>err >out <in");
  ASSERT_EQ(commands.size(), 7u);
  EXPECT_EQ(commands[0].words, (std::vector<std::string>{"a", "b c", "d\"e", "f g"}));
  EXPECT_EQ(commands[1].words, (std::vector<std::string>{"h"}));
  EXPECT_EQ(commands[5].words, (std::vector<std::string>{"l"}));
  EXPECT_EQ(commands[6].words, (std::vector<std::string>{"m"}));
  EXPECT_EQ(commands[6].output_files, (std::vector<std::string>{"err", "out"}));
}

TEST(BlocklistShellWords, EmptyAndBlankLinesGiveNoCommands) {
  EXPECT_TRUE(SplitCommands("").empty());
  EXPECT_TRUE(SplitCommands(" \n ; ;; \t").empty());
  EXPECT_TRUE(SplitCommands("# only a comment").empty());
}

}  // namespace
}  // namespace ikigai::bash_tool
