// Glob patterns (tools/search/glob_pattern.h): a pattern from the input's
// first line, matched against the paths of the following lines and paths
// made from the pattern itself. A path that matches must not be pruned:
// CouldMatchBelow holds for each of its directories.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "search/glob_pattern.h"

using ikigai::search::GlobPattern;

namespace {

// `text` as a relative path the walker could give: '/'-separated names,
// none empty, "." or "..", no NUL. Empty when nothing is left.
std::string AsPath(std::string_view text) {
  std::string path;
  for (std::string_view name : ikigai::fuzz::SplitAll(text, '/')) {
    if (name.empty() || name == "." || name == ".." || name.find('\0') != std::string::npos) {
      continue;
    }
    if (!path.empty()) path += '/';
    path += name;
  }
  return path;
}

// The pattern with its wildcards filled in: a path it may well match.
std::string Filled(std::string_view pattern) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '*') {
      out += (i + 1 < pattern.size() && pattern[i + 1] == '*') ? "d/e" : "x";
      while (i + 1 < pattern.size() && pattern[i + 1] == '*') ++i;
    } else if (c == '?') {
      out += 'q';
    } else if (c == '\\' && i + 1 < pattern.size()) {
      out += pattern[++i];
    } else {
      out += c;
    }
  }
  return out;
}

bool IsLiteral(std::string_view pattern) {
  return pattern.find_first_of("*?[\\") == std::string_view::npos;
}

void Check(const GlobPattern& glob, const std::string& path) {
  if (path.empty()) return;
  const bool matches = glob.Matches(path);
  if (!matches) {
    (void)glob.CouldMatchBelow(path);
    return;
  }
  FUZZ_CHECK(glob.CouldMatchBelow(""));
  for (std::size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    FUZZ_CHECK(glob.CouldMatchBelow(path.substr(0, slash)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string_view> lines =
      ikigai::fuzz::SplitAll(ikigai::fuzz::AsText(data, size), '\n');
  const std::string_view pattern = lines[0];
  const std::string filled = AsPath(Filled(pattern));
  std::vector<std::string> paths = {filled, AsPath(pattern)};
  if (!filled.empty()) paths.push_back("a/" + filled);
  for (std::size_t i = 1; i < lines.size(); ++i) paths.push_back(AsPath(lines[i]));

  for (const bool dot_is_special : {true, false}) {
    auto glob = GlobPattern::Compile(pattern, {.dot_is_special = dot_is_special});
    if (!glob) {
      FUZZ_CHECK(!glob.error().empty());
      continue;
    }
    for (const std::string& path : paths) Check(*glob, path);
    // A pattern without wildcards names exactly one path.
    if (IsLiteral(pattern) && !pattern.empty() && AsPath(pattern) == pattern) {
      FUZZ_CHECK(glob->Matches(pattern));
    }
  }
  return 0;
}
