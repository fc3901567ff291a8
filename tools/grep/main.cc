// grep-tool: search file contents with a regular expression (seeds/000,
// DECISIONS §4). The pipeline is ripgrep's: the walker (tools/search)
// hands files to worker threads, each worker searches with the shared
// LineMatcher and keeps its results, and the printer sorts them by path and
// cuts the output to the budget, so the answer does not depend on the
// schedule.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "base/utf8.h"
#include "base/visible_text.h"
#include "grep/file_search.h"
#include "search/glob_pattern.h"
#include "search/line_matcher.h"
#include "search/walker.h"
#include "toolkit/budget.h"
#include "toolkit/error_codes.h"
#include "toolkit/file_errors.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::grep_tool::FileResult;
using ikigai::grep_tool::FileSearcher;
using ikigai::grep_tool::OutputMode;
using ikigai::search::Entry;
using ikigai::search::EntryType;
using ikigai::search::GlobPattern;
using ikigai::search::LineMatcher;
using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;
namespace code = ikigai::toolkit::code;

constexpr std::string_view kSchema = R"json({
  "name": "grep",
  "description": "Search for pattern in files using regular expressions. Searches recursively from path (default: current directory), skipping hidden files, binary files and what .gitignore/.ignore exclude (no_ignore: true includes ignored files). The pattern is POSIX extended regex plus \\d \\w \\s \\b and (?i), matched line by line in linear time. Output is 'path:line: text' per matching line, sorted by path and line (control characters in paths shown escaped: \\n, \\t, \\x1b); lines over 500 bytes are cut. Returns: {output, count, truncated?, ignored_files?}.",
  "parameters": {
    "type": "object",
    "properties": {
      "pattern": {
        "type": "string",
        "description": "Regular expression pattern (POSIX extended)"
      },
      "glob": {
        "type": "string",
        "description": "Glob pattern to filter files (e.g., '*.c'); without '/' it matches the file name, with '/' the path"
      },
      "path": {
        "type": "string",
        "description": "Directory to search in (default: current directory), or a single file"
      },
      "ignore_case": {
        "type": "boolean",
        "description": "Match letters in either case (default: false)"
      },
      "output_mode": {
        "type": "string",
        "enum": ["content", "files_with_matches", "count"],
        "description": "content: matching lines (default); files_with_matches: the paths of matching files; count: 'path:N' matching lines per file"
      },
      "head_limit": {
        "type": "integer",
        "description": "Show at most this many output lines (default: no limit; count still reports all)"
      },
      "context": {
        "type": "integer",
        "description": "Lines of context around each match, shown as 'path-line- text', groups separated by '--' (default: 0)"
      },
      "no_ignore": {
        "type": "boolean",
        "description": "Also search files that .gitignore, .ignore and .git/info/exclude exclude (default: false)"
      }
    },
    "required": ["pattern"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false}
})json";

constexpr std::size_t kMaxContext = 100;
// Rendered text kept in memory across all files while searching; past it,
// files keep only their counts and are rendered again if the output needs them.
constexpr std::size_t kRenderedMemoryCap = 16 << 20;

struct Found {
  std::string path;     // as opened
  std::string display;  // as printed
  FileResult result;
};

struct WorkerState {
  std::vector<Found> found;
  std::size_t ignored = 0;
};

// "path/rel" as the output shows it: relative paths stay plain for ".".
std::string Display(const std::string& root, std::string_view rel) {
  if (root == ".") return std::string(rel);
  if (!root.empty() && root.back() == '/') return root + std::string(rel);
  return root + "/" + std::string(rel);
}

Json InvalidArg(std::string message) {
  return ToolError{code::kInvalidArg, std::move(message)}.ToJson();
}

Json Run(const Args& args, const CallContext&) {
  const std::string& pattern = args.String("pattern");
  const std::string root = args.OptionalString("path").value_or(".").empty()
                               ? "."
                               : args.OptionalString("path").value_or(".");
  const std::string mode_name = args.OptionalString("output_mode").value_or("content");
  OutputMode mode;
  if (mode_name == "content") {
    mode = OutputMode::kContent;
  } else if (mode_name == "files_with_matches") {
    mode = OutputMode::kFilesWithMatches;
  } else if (mode_name == "count") {
    mode = OutputMode::kCount;
  } else {
    return InvalidArg(
        "Parameter 'output_mode' must be one of content, files_with_matches, count; got '" +
        mode_name + "'.");
  }
  const std::int64_t head_limit = args.OptionalInt("head_limit").value_or(0);
  if (head_limit < 0) return InvalidArg("Parameter 'head_limit' must be 0 (no limit) or more.");
  const std::int64_t context = args.OptionalInt("context").value_or(0);
  if (context < 0 || context > static_cast<std::int64_t>(kMaxContext)) {
    return InvalidArg("Parameter 'context' must be between 0 and " + std::to_string(kMaxContext) +
                      ".");
  }

  auto matcher = LineMatcher::Compile(pattern, {.ignore_case = args.Bool("ignore_case", false)});
  if (!matcher) {
    return ToolError{
        code::kInvalidPattern,
        "Invalid pattern: " + matcher.error() +
            ". The syntax is POSIX extended regex (escape literal ( [ { . * + ? | with \\)."}
        .ToJson();
  }
  std::optional<GlobPattern> filter;
  if (auto glob = args.OptionalString("glob"); glob && !glob->empty()) {
    auto compiled = GlobPattern::Compile(*glob);
    if (!compiled) {
      return ToolError{code::kInvalidPattern, "Invalid glob pattern: " + compiled.error() + "."}
          .ToJson();
    }
    filter = std::move(*compiled);
  }

  const ikigai::grep_tool::SearchOptions search_options{mode, static_cast<std::size_t>(context),
                                                        ikigai::toolkit::kOutputBudget * 2};
  std::vector<Found> found;
  std::size_t ignored = 0;

  struct stat st {};
  if (::stat(root.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      return ToolError{
          code::kFileNotFound,
          "Path not found: " + root + ". Check the path, or use glob to find the directory."}
          .ToJson();
    }
    return ikigai::toolkit::FileError(err, root, ikigai::toolkit::FileOp::kOpen).ToJson();
  }
  if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
    return ToolError{code::kInvalidArg,
                     "Not a file or directory: " + root +
                         " (a device, FIFO or socket cannot be searched). Give a file or a "
                         "directory as path."}
        .ToJson();
  }
  if (!S_ISDIR(st.st_mode)) {
    // A single file: searched whatever its name, as grep does.
    FileSearcher searcher(*matcher, search_options);
    const std::string display = ikigai::VisibleText(root, ikigai::Layout::kOneLine);
    FileResult result = searcher.Search(root, display, true);
    if (result.matches > 0) found.push_back({root, display, std::move(result)});
  } else {
    ikigai::search::WalkOptions walk;
    walk.root = root;
    walk.use_ignore_files = !args.Bool("no_ignore", false);
    walk.include_hidden = false;
    if (filter && !filter->IsBaseNameOnly()) {
      walk.descend = [&filter](std::string_view dir) { return filter->CouldMatchBelow(dir); };
    }
    std::vector<WorkerState> workers(ikigai::search::WorkerCount(walk));
    std::vector<std::unique_ptr<FileSearcher>> searchers;
    for (std::size_t i = 0; i < workers.size(); ++i) {
      searchers.push_back(std::make_unique<FileSearcher>(*matcher, search_options));
    }
    std::atomic<std::size_t> rendered_bytes{0};
    auto passes_filter = [&filter](const Entry& e) {
      return !filter || filter->Matches(filter->IsBaseNameOnly() ? e.name : e.path);
    };
    auto walked = ikigai::search::Walk(walk, [&](const Entry& entry, unsigned worker) {
      WorkerState& state = workers[worker];
      if (entry.ignored) {
        if (entry.type == EntryType::kDirectory || passes_filter(entry)) ++state.ignored;
        return;
      }
      if (entry.type != EntryType::kFile || !passes_filter(entry)) return;
      std::string path = Display(root, entry.path);
      // A name with a newline would forge output lines: controls shown escaped.
      std::string display = ikigai::VisibleText(path, ikigai::Layout::kOneLine);
      const bool render = rendered_bytes.load(std::memory_order_relaxed) < kRenderedMemoryCap;
      FileResult result = searchers[worker]->Search(path, display, render);
      if (result.matches == 0) return;
      rendered_bytes.fetch_add(result.rendered.size(), std::memory_order_relaxed);
      if (!render) result.rendered_complete = false;
      state.found.push_back({std::move(path), std::move(display), std::move(result)});
    });
    if (!walked) {
      return ikigai::toolkit::FileError(walked.error(), root, ikigai::toolkit::FileOp::kOpen)
          .ToJson();
    }
    for (auto& w : workers) {
      ignored += w.ignored;
      std::move(w.found.begin(), w.found.end(), std::back_inserter(found));
    }
  }
  std::sort(found.begin(), found.end(),
            [](const Found& a, const Found& b) { return a.display < b.display; });

  // The printer: files in path order, each file's lines, until head_limit
  // lines or the budget.
  std::string output;
  std::size_t lines = 0, total = 0;
  bool truncated = false;
  const std::size_t line_limit = head_limit > 0 ? static_cast<std::size_t>(head_limit) : SIZE_MAX;
  std::size_t used = 0;
  FileSearcher rerender(*matcher, search_options);
  auto append_line = [&](std::string_view line) {  // line without '\n'
    if (truncated) return;
    const std::size_t size = ikigai::toolkit::JsonEscapedSize(line) + 2;
    if (lines >= line_limit || used + size > ikigai::toolkit::kTextBudget) {
      truncated = true;
      return;
    }
    if (!output.empty()) output += '\n';
    output += line;
    used += size;
    ++lines;
  };
  for (Found& f : found) {
    total += mode == OutputMode::kFilesWithMatches ? 1 : f.result.matches;
    if (truncated) continue;
    switch (mode) {
      case OutputMode::kFilesWithMatches:
        append_line(f.display);
        break;
      case OutputMode::kCount:
        append_line(f.display + ":" + std::to_string(f.result.matches));
        break;
      case OutputMode::kContent: {
        if (!f.result.rendered_complete) f.result = rerender.Search(f.path, f.display, true);
        if (context > 0 && !output.empty()) append_line("--");
        std::string_view rendered = f.result.rendered;
        while (!rendered.empty() && !truncated) {
          const std::size_t nl = rendered.find('\n');
          append_line(rendered.substr(0, nl));
          rendered.remove_prefix(nl == std::string_view::npos ? rendered.size() : nl + 1);
        }
        if (!f.result.rendered_complete) truncated = true;  // capped even after re-rendering
        break;
      }
    }
  }
  Json answer = {{"output", output}, {"count", total}};
  if (truncated) answer["truncated"] = true;
  if (total == 0 && ignored > 0) {
    answer["ignored_files"] = ignored;
    answer["hint"] = std::to_string(ignored) +
                     " files or directories were skipped by .gitignore/.ignore rules; pass "
                     "no_ignore: true to search them too.";
  }
  return answer;
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
