// Workspace trust (DECISIONS §6): a repository's ./.ikigai/ (tools, config,
// later skills, hooks and MCP servers) is code and settings written by
// whoever wrote the repository, so it loads only in a trusted folder. Not
// even a tool's --schema runs before that. AGENTS.md is text and is read
// either way (base/bounded_file.h keeps that safe).
//
// Trusted means: --trust for this run, or `ikigai trust` (or the REPL's
// question) recorded it in ~/.ikigai/projects.json.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "session/project_store.h"

namespace ikigai::session {

// What a folder's .ikigai/ holds that would run or take effect.
struct ProjectContents {
  int tools = 0;             // entries of .ikigai/tools/ named *-tool
  bool config = false;       // .ikigai/config.json
  bool other_files = false;  // anything else in .ikigai/ (later: skills, hooks)
  bool mcp_json = false;     // ./.mcp.json: MCP servers to start (Claude Code's format)
  int skills = 0;            // folders with a SKILL.md in .ikigai/skills/ and .agents/skills/
  bool empty() const { return tools == 0 && !config && !other_files && !mcp_json && skills == 0; }
  std::string Describe() const;  // "2 tools, a config file"
};

ProjectContents InspectProject(const std::string& dir);

struct TrustState {
  std::string dir;  // the folder (the working directory)
  ProjectContents contents;
  std::optional<bool> recorded;  // the answer kept in the store, if any
  bool trusted = false;          // what this run does
  bool trust_once = false;       // --trust was given
  std::string store_problem;     // the store could not be read (then untrusted)
  // Trusted once, but the project's hooks changed since: undecided again
  // (the REPL asks; elsewhere the folder is skipped until trusted again).
  bool hooks_changed = false;
};

// `trust_once`: --trust. A folder with nothing in .ikigai/ needs no trust.
TrustState DecideTrust(const std::string& dir, bool trust_once, const ProjectStore& store);

// The one line an untrusted run prints: what was skipped and how to trust.
std::string SkippedMessage(const TrustState& state);

// The REPL's question: "Trust this folder? It contains: 2 tools, a config file ..."
std::string TrustQuestion(const TrustState& state);

// `ikigai trust [DIR]` (trusted = true) and `ikigai untrust [DIR]`: records
// the answer and says what it means; exit 0, or 1 with the reason on `err`.
int RecordTrust(const std::string& dir, bool trusted, const ProjectStore& store, std::ostream& out,
                std::ostream& err);

}  // namespace ikigai::session
