// Ignore rules (tools/search/ignore_rules.h): the input is an ignore file,
// read for the anchor and for a subdirectory, and checked against paths
// made from its own lines (as written, and with wildcards filled in), alone
// and in a chain of .ignore, .gitignore and info/exclude.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "search/ignore_rules.h"

using ikigai::search::IgnoreChain;
using ikigai::search::IgnoreFile;
using ikigai::search::IgnoreVerdict;

namespace {

// `text` as a relative path the walker could give ("" if nothing is left).
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

std::string Filled(std::string_view line) {
  std::string out;
  for (char c : line) {
    if (c == '*') {
      out += "x";
    } else if (c == '?') {
      out += 'q';
    } else if (c != '\\' && c != '!' && c != '\r') {
      out += c;
    }
  }
  return out;
}

// A name git would take literally: the rule's line is exactly that name.
bool IsPlainName(std::string_view line) {
  if (line.empty() || line[0] == '#' || line == "." || line == "..") return false;
  for (unsigned char c : line) {
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = ikigai::fuzz::AsText(data, size);
  const IgnoreFile top = IgnoreFile::Parse("", text);
  const IgnoreFile sub = IgnoreFile::Parse("sub", text);

  std::vector<std::string> paths = {"a", "a/b", ".git", "sub/a"};
  std::string_view last_line;
  for (std::string_view line : ikigai::fuzz::SplitAll(text, '\n')) {
    for (const std::string& path : {AsPath(line), AsPath(Filled(line))}) {
      if (path.empty()) continue;
      paths.push_back(path);
      paths.push_back("d/" + path);
      paths.push_back("sub/" + path);
    }
    if (!line.empty()) last_line = line;
  }

  IgnoreChain::Files root_files;
  root_files.gitignore = top;
  root_files.git_exclude = top;
  root_files.repository_top = true;
  const auto root = IgnoreChain::Push(nullptr, std::move(root_files));
  IgnoreChain::Files sub_files;
  sub_files.ignore = sub;
  sub_files.gitignore = sub;
  const auto chain = IgnoreChain::Push(root, std::move(sub_files));
  FUZZ_CHECK(chain->in_work_tree());
  FUZZ_CHECK(chain->has_rules() == !top.empty());

  for (const std::string& path : paths) {
    for (const bool is_dir : {false, true}) {
      const IgnoreVerdict verdict = top.Check(path, is_dir);
      FUZZ_CHECK(root->IsIgnored(path, is_dir) == (verdict == IgnoreVerdict::kIgnore));
      if (path.starts_with("sub/")) {
        (void)sub.Check(path, is_dir);
        (void)chain->IsIgnored(path, is_dir);
      }
    }
  }

  // The last rule wins: a plain name on the last line ignores that name at
  // any depth.
  if (IsPlainName(last_line)) {
    const std::string name(last_line);
    FUZZ_CHECK(top.Check(name, false) == IgnoreVerdict::kIgnore);
    FUZZ_CHECK(top.Check("d/" + name, true) == IgnoreVerdict::kIgnore);
    FUZZ_CHECK(sub.Check("sub/" + name, false) == IgnoreVerdict::kIgnore);
  }
  return 0;
}
