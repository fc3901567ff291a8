#include "output_capture.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ikigai::bash_tool {

OutputCapture::OutputCapture(std::string spill_directory, std::uint64_t spill_cap)
    : spill_directory_(std::move(spill_directory)), spill_cap_(spill_cap) {}

void OutputCapture::Append(std::string_view bytes) {
  total_bytes_ += bytes.size();
  total_newlines_ += static_cast<std::uint64_t>(std::count(bytes.begin(), bytes.end(), '\n'));
  if (!spilled_) {
    const std::size_t room = kHeadBytes - head_.size();
    head_.append(bytes.substr(0, room));
    if (bytes.size() <= room) return;
    bytes.remove_prefix(room);
    spilled_ = true;
    StartFile();
    WriteToFile(head_);
    tail_.assign(
        std::string_view(head_).substr(head_.size() - std::min(head_.size(), kTailWindow)));
  }
  WriteToFile(bytes);
  tail_.append(bytes);
  // Trim in bulk, not on every append: amortized linear, at most twice the
  // window (plus one read) in memory.
  if (tail_.size() > 2 * kTailWindow) tail_.erase(0, tail_.size() - kTailWindow);
}

std::string_view OutputCapture::tail() const {
  if (!spilled_) return head_;
  return tail_;
}

const SavedOutput& OutputCapture::Save() {
  if (!file_started_) {
    StartFile();
    WriteToFile(head_);
  }
  return saved_;
}

void OutputCapture::StartFile() {
  file_started_ = true;
  std::string path = spill_directory_ + "/ikigai-bash-XXXXXX.log";
  // mkostemps creates the file with mode 0600: the output may hold secrets.
  const int fd = ::mkostemps(path.data(), 4, O_CLOEXEC);
  if (fd < 0) {
    saved_.problem = "cannot create a file in " + spill_directory_ + ": " + std::strerror(errno);
    return;
  }
  file_.Reset(fd);
  saved_.path = std::move(path);
}

void OutputCapture::WriteToFile(std::string_view bytes) {
  if (!file_.valid()) return;
  if (saved_.bytes + bytes.size() > spill_cap_) {
    bytes = bytes.substr(0, static_cast<std::size_t>(spill_cap_ - saved_.bytes));
    saved_.problem = "size cap of " + std::to_string(spill_cap_ >> 20) + " MiB reached";
  }
  while (!bytes.empty()) {
    const ssize_t n = ::write(file_.get(), bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      saved_.problem = std::string("writing it failed: ") + std::strerror(errno);
      break;
    }
    saved_.bytes += static_cast<std::uint64_t>(n);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  // The file stops where the first problem arose: it must be an exact
  // prefix of the output, never have a hole.
  if (!saved_.problem.empty()) file_.Reset();
}

std::string DefaultSpillDirectory() {
  // The session's own directory, which the host removes when the session
  // ends; spill files of up to 64 MiB must not pile up in /tmp.
  if (const char* session = std::getenv("IKIGAI_SESSION_DIR"); session != nullptr && *session) {
    struct stat st {};
    if (::stat(session, &st) == 0 && S_ISDIR(st.st_mode)) return session;
  }
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir != nullptr && *tmpdir != '\0') return tmpdir;
  return "/tmp";
}

}  // namespace ikigai::bash_tool
