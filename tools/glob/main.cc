// glob-tool: find files whose paths match a glob pattern (seeds/000,
// DECISIONS §4), with the search pipeline's walker: .gitignore/.ignore
// honoured, `.git` never entered, directories the pattern cannot reach
// never read.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "base/utf8.h"
#include "base/visible_text.h"
#include "search/glob_pattern.h"
#include "search/walker.h"
#include "toolkit/budget.h"
#include "toolkit/error_codes.h"
#include "toolkit/file_errors.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::search::Entry;
using ikigai::search::EntryType;
using ikigai::search::GlobPattern;
using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;
namespace code = ikigai::toolkit::code;

constexpr std::string_view kSchema = R"json({
  "name": "glob",
  "description": "Find files matching a glob pattern. '*', '?' and '[...]' match within one path segment, '**' any number of directories ('src/**/*.c'); wildcards do not match a leading dot, so hidden files are found only when the pattern spells the dot ('.github/**/*.yml'). Files that .gitignore/.ignore exclude are skipped (no_ignore: true includes them); '.git' is never searched. Paths are sorted, one per line; control characters in names are shown escaped (\\n, \\t, \\x1b). Returns: {output, count, truncated?, ignored_files?}.",
  "parameters": {
    "type": "object",
    "properties": {
      "pattern": {
        "type": "string",
        "description": "Glob pattern (e.g., '*.txt', 'src/**/*.c')"
      },
      "path": {
        "type": "string",
        "description": "Directory to search in (default: current directory)"
      },
      "no_ignore": {
        "type": "boolean",
        "description": "Also list files that .gitignore, .ignore and .git/info/exclude exclude (default: false)"
      }
    },
    "required": ["pattern"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false}
})json";

bool HasWildcard(std::string_view segment) {
  return segment.find_first_of("*?[\\") != std::string_view::npos;
}

std::string Join(const std::string& dir, std::string_view rel) {
  if (dir.empty()) return std::string(rel);
  if (dir.back() == '/') return dir + std::string(rel);
  return dir + "/" + std::string(rel);
}

struct WorkerState {
  std::vector<std::string> paths;
  std::size_t ignored = 0;
};

Json Run(const Args& args, const CallContext&) {
  std::string pattern = args.String("pattern");
  if (pattern.empty()) {
    return ToolError{code::kInvalidArg,
                     "Parameter 'pattern' cannot be empty; use '*' for everything."}
        .ToJson();
  }
  // The directory the walk starts from, as printed: the path parameter
  // ("" for the current directory), then any leading wildcard-free segments
  // of the pattern, which need no matching ("src/lib/**/*.c" walks src/lib).
  std::string display_root = args.OptionalString("path").value_or("");
  if (display_root == ".") display_root.clear();
  if (pattern.front() == '/') {
    display_root = "/";
    pattern.erase(0, pattern.find_first_not_of('/'));
  }
  for (;;) {
    const auto slash = pattern.find('/');
    if (slash == std::string::npos) break;
    const std::string_view head(pattern.data(), slash);
    if (HasWildcard(head)) break;
    // Like the walker, never look inside .git, even when the pattern names it.
    if (head == ".git") return Json{{"output", ""}, {"count", 0}};
    if (!head.empty()) display_root = Join(display_root, head);
    pattern.erase(0, slash + 1);
  }
  if (pattern.empty()) pattern = "*";  // "src/" lists src's entries
  auto glob = GlobPattern::Compile(pattern);
  if (!glob) {
    return ToolError{code::kInvalidPattern,
                     "Invalid glob pattern: " + glob.error() +
                         ". Use *, ?, [abc], [!abc] and ** (any depth); escape a literal with \\."}
        .ToJson();
  }

  const std::string walk_root = display_root.empty() ? "." : display_root;
  struct stat st {};
  if (::stat(walk_root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    const int err = errno;
    const std::string given = args.OptionalString("path").value_or(".");
    if (::stat(given.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      // The path parameter itself is wrong: say so, never an empty success.
      if (::stat(given.c_str(), &st) == 0) {
        return ToolError{code::kInvalidArg,
                         "Not a directory: " + given + ". Give the directory to search in as path."}
            .ToJson();
      }
      if (errno == EACCES) {
        return ikigai::toolkit::FileError(EACCES, given, ikigai::toolkit::FileOp::kOpen).ToJson();
      }
      return ToolError{
          code::kFileNotFound,
          "Directory not found: " + given + ". Check the path, or search from a parent directory."}
          .ToJson();
    }
    // The pattern names a directory that does not exist: no matches.
    if (err != EACCES) {
      return Json{{"output", ""}, {"count", 0}, {"hint", "No directory " + walk_root + "."}};
    }
  }

  ikigai::search::WalkOptions walk;
  walk.root = walk_root;
  walk.use_ignore_files = !args.Bool("no_ignore", false);
  walk.include_hidden = true;  // the pattern's own dot rule decides
  walk.descend = [&glob](std::string_view dir) { return glob->CouldMatchBelow(dir); };
  std::vector<WorkerState> workers(ikigai::search::WorkerCount(walk));
  auto walked = ikigai::search::Walk(walk, [&](const Entry& entry, unsigned worker) {
    WorkerState& state = workers[worker];
    const bool matches = glob->Matches(entry.path);
    if (entry.ignored) {
      if (matches || (entry.type == EntryType::kDirectory && glob->CouldMatchBelow(entry.path))) {
        ++state.ignored;
      }
      return;
    }
    // A name with a newline would forge output lines: controls shown escaped.
    if (matches) {
      state.paths.push_back(
          ikigai::VisibleText(Join(display_root, entry.path), ikigai::Layout::kOneLine));
    }
  });
  if (!walked) {
    return ikigai::toolkit::FileError(walked.error(), walk_root, ikigai::toolkit::FileOp::kOpen)
        .ToJson();
  }

  std::vector<std::string> paths;
  std::size_t ignored = 0;
  for (auto& w : workers) {
    ignored += w.ignored;
    std::move(w.paths.begin(), w.paths.end(), std::back_inserter(paths));
  }
  std::sort(paths.begin(), paths.end());
  std::string joined;
  for (const auto& p : paths) {
    if (!joined.empty()) joined += '\n';
    joined += p;
  }
  joined = ikigai::utf8::Repair(joined);
  Json answer = {{"output", ""}, {"count", paths.size()}};
  const std::string_view kept = ikigai::toolkit::KeepHead(joined, ikigai::toolkit::kTextBudget);
  if (kept.size() < joined.size()) {
    std::string_view shown = kept;
    if (!shown.empty() && shown.back() == '\n') shown.remove_suffix(1);
    answer["output"] = shown;
    answer["truncated"] = true;
    answer["hint"] =
        "Showing the first paths only; narrow the pattern or the path to see the rest.";
  } else {
    answer["output"] = joined;
  }
  if (walked->unreadable_directories > 0) {
    answer["unreadable_directories"] = walked->unreadable_directories;
  }
  if (paths.empty() && ignored > 0) {
    answer["ignored_files"] = ignored;
    answer["hint"] = std::to_string(ignored) +
                     " matching files or directories were skipped by .gitignore/.ignore rules; "
                     "pass no_ignore: true to include them.";
  }
  return answer;
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
