#include "search/glob_pattern.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "base/utf8.h"

namespace ikigai::search {
namespace {

using Token = GlobPattern::Token;

// Decodes the character at s[i]; invalid bytes decode as themselves.
std::pair<char32_t, std::size_t> Decode(std::string_view s, std::size_t i) {
  const std::size_t n = utf8::ValidSequenceLength(s.substr(i));
  const auto c0 = static_cast<unsigned char>(s[i]);
  if (n <= 1) return {c0, 1};
  char32_t cp = c0 & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return {cp, n};
}

struct NamedClass {
  std::string_view name;
  int (*test)(int);
};
constexpr NamedClass kNamedClasses[] = {
    {"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank}, {"cntrl", iscntrl},
    {"digit", isdigit}, {"graph", isgraph}, {"lower", islower}, {"print", isprint},
    {"punct", ispunct}, {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit}};

// Parses a bracket expression starting at text[i] == '['. Named classes
// ([:alpha:]) expand to ASCII ranges.
Result<Token, std::string> ParseClass(std::string_view text, std::size_t& i) {
  const std::size_t start = i++;
  Token token{Token::Kind::kClass, {}, {}, false};
  if (i < text.size() && (text[i] == '!' || text[i] == '^')) {
    token.negated = true;
    ++i;
  }
  bool first = true;
  for (;;) {
    if (i >= text.size()) {
      return Err("unclosed '[' at position " + std::to_string(start + 1));
    }
    if (text[i] == ']' && !first) {
      ++i;
      return token;
    }
    first = false;
    if (text.substr(i).starts_with("[:")) {
      const std::size_t close = text.find(":]", i + 2);
      if (close == std::string_view::npos)
        return Err("unclosed '[:' at position " + std::to_string(i + 1));
      const std::string_view name = text.substr(i + 2, close - i - 2);
      bool known = false;
      for (const auto& c : kNamedClasses) {
        if (c.name != name) continue;
        known = true;
        for (int ch = 0; ch < 128; ++ch) {
          if (c.test(ch)) token.ranges.emplace_back(ch, ch);
        }
      }
      if (!known) return Err("unknown character class '[:" + std::string(name) + ":]'");
      i = close + 2;
      continue;
    }
    if (text[i] == '\\') {
      if (++i >= text.size()) return Err("pattern ends with an unfinished escape '\\'");
    }
    auto [lo, n] = Decode(text, i);
    i += n;
    char32_t hi = lo;
    if (i + 1 < text.size() && text[i] == '-' && text[i + 1] != ']') {
      ++i;
      if (text[i] == '\\' && ++i >= text.size()) {
        return Err("pattern ends with an unfinished escape '\\'");
      }
      auto [h, hn] = Decode(text, i);
      i += hn;
      hi = h;
      if (hi < lo) return Err("invalid range in '[' at position " + std::to_string(start + 1));
    }
    token.ranges.emplace_back(lo, hi);
  }
}

Result<std::vector<Token>, std::string> Tokenize(std::string_view text) {
  std::vector<Token> tokens;
  auto literal = [&tokens](std::string_view bytes) {
    if (tokens.empty() || tokens.back().kind != Token::Kind::kLiteral) {
      tokens.push_back({Token::Kind::kLiteral, {}, {}, false});
    }
    tokens.back().literal += bytes;
  };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '*') {
      // Consecutive stars are one star.
      if (tokens.empty() || tokens.back().kind != Token::Kind::kStar) {
        tokens.push_back({Token::Kind::kStar, {}, {}, false});
      }
      ++i;
    } else if (c == '?') {
      tokens.push_back({Token::Kind::kAnyChar, {}, {}, false});
      ++i;
    } else if (c == '[') {
      auto cls = ParseClass(text, i);
      if (!cls) return Err(std::move(cls.error()));
      tokens.push_back(std::move(*cls));
    } else if (c == '\\') {
      if (i + 1 >= text.size())
        return Err(std::string("pattern ends with an unfinished escape '\\'"));
      literal(text.substr(i + 1, 1));
      i += 2;
    } else {
      literal(text.substr(i, 1));
      ++i;
    }
  }
  return tokens;
}

bool ClassMatches(const Token& token, char32_t cp) {
  bool in = false;
  for (const auto& [lo, hi] : token.ranges) {
    if (cp >= lo && cp <= hi) {
      in = true;
      break;
    }
  }
  return in != token.negated;
}

std::size_t CharLength(std::string_view s, std::size_t i) {
  return std::max<std::size_t>(1, utf8::ValidSequenceLength(s.substr(i)));
}

// The classic single-star backtracking matcher: on a mismatch, the last star
// takes one more character. Linear in practice, O(n*m) at worst.
bool MatchTokens(const std::vector<Token>& tokens, std::string_view name) {
  std::size_t ti = 0, ni = 0;
  std::size_t star_ti = std::string_view::npos, star_ni = 0;
  while (ni < name.size()) {
    if (ti < tokens.size()) {
      const Token& t = tokens[ti];
      switch (t.kind) {
        case Token::Kind::kLiteral:
          if (name.substr(ni).starts_with(t.literal)) {
            ni += t.literal.size();
            ++ti;
            continue;
          }
          break;
        case Token::Kind::kAnyChar:
          ni += CharLength(name, ni);
          ++ti;
          continue;
        case Token::Kind::kClass: {
          auto [cp, n] = Decode(name, ni);
          if (ClassMatches(t, cp)) {
            ni += n;
            ++ti;
            continue;
          }
          break;
        }
        case Token::Kind::kStar:
          star_ti = ti++;
          star_ni = ni;
          continue;
      }
    }
    if (star_ti == std::string_view::npos) return false;
    ti = star_ti + 1;
    star_ni += CharLength(name, star_ni);
    ni = star_ni;
  }
  while (ti < tokens.size() && tokens[ti].kind == Token::Kind::kStar) ++ti;
  return ti == tokens.size();
}

void SplitPath(std::string_view path, std::vector<std::string_view>& parts) {
  parts.clear();
  while (!path.empty()) {
    const auto slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  SplitPath(path, parts);
  return parts;
}

}  // namespace

Result<GlobPattern, std::string> GlobPattern::Compile(std::string_view pattern, Options options) {
  if (pattern.empty()) return Err(std::string("the pattern is empty"));
  GlobPattern glob;
  glob.options_ = options;
  for (std::string_view part : SplitPath(pattern)) {
    Segment segment;
    if (part == "**") {
      segment.globstar = true;
      // "**/**" is the same as "**".
      if (!glob.segments_.empty() && glob.segments_.back().globstar) continue;
    } else {
      auto tokens = Tokenize(part);
      if (!tokens) return Err(std::move(tokens.error()));
      segment.tokens = std::move(*tokens);
    }
    glob.segments_.push_back(std::move(segment));
  }
  if (glob.segments_.empty()) return Err(std::string("the pattern has no path segment"));
  return glob;
}

bool GlobPattern::SegmentMatches(const Segment& segment, std::string_view name) const {
  if (Hidden(name)) {
    // A wildcard never matches the leading dot: the pattern must spell it.
    const auto& first = segment.tokens.front();
    if (first.kind != Token::Kind::kLiteral || first.literal[0] != '.') return false;
  }
  return MatchTokens(segment.tokens, name);
}

// The pattern runs as an NFA over the path's parts: state s means segments
// s.. are still to match, and segments_.size() that all have matched. A
// set of states is checked per part, so a pattern with several `**` costs
// parts x segments, where trying each split in turn (backtracking) grew
// exponentially with the number of `**` (found by fuzz/glob_pattern_fuzz.cc).
void GlobPattern::Add(std::span<char> states, std::size_t s) const {
  while (s <= segments_.size() && !states[s]) {
    states[s] = 1;
    // A leading or middle `**` may match zero parts.
    if (s == segments_.size() || !segments_[s].globstar || s + 1 == segments_.size()) return;
    ++s;
  }
}

bool GlobPattern::Step(std::span<const char> states, std::span<char> next,
                       std::string_view part) const {
  std::fill(next.begin(), next.end(), 0);
  bool any = false;
  for (std::size_t s = 0; s < segments_.size(); ++s) {
    if (!states[s]) continue;
    if (segments_[s].globstar) {
      // `**` takes parts one by one (never a hidden one when dots are
      // special); a trailing `**` must take at least one.
      if (Hidden(part)) continue;
      Add(next, s);
      Add(next, s + 1);
      any = true;
    } else if (SegmentMatches(segments_[s], part)) {
      Add(next, s + 1);
      any = true;
    }
  }
  return any;
}

// Runs the NFA over the parts of `path`; returns the states left (empty
// when none is), in `small` when it is large enough (no allocation for the
// patterns people write: this runs for every entry of a walk).
std::span<const char> GlobPattern::Run(std::string_view path, std::span<char> small,
                                       std::vector<char>& large) const {
  const std::size_t n = segments_.size() + 1;
  std::span<char> buffer = small;
  if (2 * n > small.size()) {
    large.resize(2 * n);
    buffer = large;
  }
  std::span<char> states = buffer.subspan(0, n), next = buffer.subspan(n, n);
  std::fill(states.begin(), states.end(), 0);
  Add(states, 0);
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
    if (part.empty()) continue;
    if (!Step(states, next, part)) return {};
    std::swap(states, next);
  }
  return states;
}

bool GlobPattern::Matches(std::string_view path) const {
  std::array<char, 64> small;
  std::vector<char> large;
  const std::span<const char> states = Run(path, small, large);
  return !states.empty() && states.back() != 0;
}

bool GlobPattern::CouldMatchBelow(std::string_view dir) const {
  // Anything left of the pattern after the directory's parts could match an
  // entry below.
  std::array<char, 64> small;
  std::vector<char> large;
  const std::span<const char> states = Run(dir, small, large);
  return !states.empty() && std::find(states.begin(), states.end() - 1, 1) != states.end() - 1;
}

}  // namespace ikigai::search
