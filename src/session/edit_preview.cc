#include "session/edit_preview.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/bounded_file.h"
#include "spawning/environment.h"
#include "spawning/run_many.h"

namespace ikigai::session {
namespace {

constexpr std::size_t kMaxPreviewFile = 4 * 1024 * 1024;

std::string StringArg(const nlohmann::json& arguments, const char* name) {
  if (!arguments.is_object()) return "";
  auto it = arguments.find(name);
  return it != arguments.end() && it->is_string() ? it->get<std::string>() : "";
}

// `diff -u` of two texts; labels name the file.
std::string Diff(const std::string& before, const std::string& after, const std::string& label) {
  std::error_code error;
  std::string dir =
      (std::filesystem::temp_directory_path(error) / "ikigai-preview-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) return "";
  const std::string a = dir + "/a", b = dir + "/b";
  std::ofstream(a, std::ios::binary) << before;
  std::ofstream(b, std::ios::binary) << after;
  spawning::Job job;
  job.spawn.path = "/usr/bin/diff";
  job.spawn.argv = {"diff", "-u", "--label", "a/" + label, "--label", "b/" + label, a, b};
  job.spawn.env = spawning::ToolEnvironment({{"LC_ALL", "C"}}, {});
  job.spawn.pipe_stdin = false;
  job.stdout_limit = 1024 * 1024;
  job.timeout = std::chrono::seconds(10);
  const auto outcome = spawning::RunAll({job}).front();
  std::filesystem::remove_all(dir, error);
  return outcome.end == spawning::JobEnd::kExited ? outcome.out : "";
}

}  // namespace

std::string FirstLines(const std::string& text, std::size_t max_lines) {
  std::istringstream in(text);
  std::string line, out;
  std::size_t kept = 0, total = 0;
  while (std::getline(in, line)) {
    if (++total <= max_lines) {
      out += line + "\n";
      ++kept;
    }
  }
  if (total > kept) out += "... (" + std::to_string(total - kept) + " more lines)\n";
  return out;
}

std::string EditPreview(const std::string& tool, const nlohmann::json& arguments) {
  if (tool != "file_write" && tool != "file_edit") return "";
  const std::string path = StringArg(arguments, "file_path");
  if (path.empty()) return "";
  auto file = ReadBoundedFile(path, {.max_bytes = kMaxPreviewFile, .confine_to = ""});
  const std::string before = file && file->exists && !file->truncated ? file->text : "";
  if (file && file->truncated) return "(" + path + " is too large to preview)\n";
  std::string after;
  if (tool == "file_write") {
    after = StringArg(arguments, "content");
  } else {
    const std::string old_string = StringArg(arguments, "old_string");
    const std::string new_string = StringArg(arguments, "new_string");
    const bool all = arguments.is_object() && arguments.value("replace_all", false);
    const std::size_t at = old_string.empty() ? std::string::npos : before.find(old_string);
    if (at == std::string::npos) {
      return Diff(old_string + "\n", new_string + "\n", path);
    }
    after = before;
    for (std::size_t pos = at; pos != std::string::npos;
         pos = all ? after.find(old_string, pos + new_string.size()) : std::string::npos) {
      after.replace(pos, old_string.size(), new_string);
    }
  }
  const std::string diff = Diff(before, after, path);
  return diff.empty() ? "(no change)\n" : diff;
}

}  // namespace ikigai::session
