#include "mcpclient/names.h"

#include <openssl/sha.h>

#include <map>

namespace ikigai::mcpclient {

std::string SafePart(std::string_view raw) {
  std::string out(raw);
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

std::string NameHash(std::string_view server, std::string_view tool) {
  std::string raw(server);
  raw.push_back('\0');
  raw.append(tool);
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(raw.data()), raw.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (int i = 0; i < 6; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

std::vector<std::string> ToolNames(const std::vector<RawToolName>& tools) {
  std::vector<std::string> names;
  std::map<std::string, int> uses;
  for (const RawToolName& t : tools) {
    names.push_back("mcp__" + SafePart(t.server) + "__" + SafePart(t.tool));
    ++uses[names.back()];
  }
  for (std::size_t i = 0; i < tools.size(); ++i) {
    if (names[i].size() <= kMaxToolName && uses[names[i]] == 1) continue;
    const std::string hash = NameHash(tools[i].server, tools[i].tool);
    const std::size_t keep = std::min(names[i].size(), kMaxToolName - hash.size() - 1);
    names[i] = names[i].substr(0, keep) + "_" + hash;
  }
  return names;
}

}  // namespace ikigai::mcpclient
