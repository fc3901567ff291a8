// Finding tools (seeds/001, seeds/002, DECISIONS §1-§3).
//
// Three directories, in increasing precedence: system (<binary
// dir>/../libexec/ikigai, else the compiled-in PREFIX/libexec/ikigai), user
// (~/.ikigai/tools), project (./.ikigai/tools). A tool is an executable
// regular file (a symlink to one counts) whose name ends in "-tool"; its name
// is the file name without "-tool", hyphens turned to underscores. Every
// "--schema" process is started at once and collected in one poll() loop
// (spawning/run_many.h), each within its time and size limits; a tool that
// fails is left out and reported with its reason, the rest load.
//
// Under load: never more --schema processes at once than about twice the
// machine's cores (on 2 cores, 40 tools started at once would each wait for
// a CPU and miss their second); each deadline counts from the tool's own
// start, and a tool that timed out is asked once more with thrice the time,
// fewer at once. With a schema cache (schema_cache.h), a tool whose file is
// unchanged is not asked at all.
//
// Reasons (registry::DiscoveryFailure): "timeout", "exit code N", "killed by
// signal N", "schema larger than 8 KB", "invalid JSON: ...", "invalid
// schema: ...", "cannot start: ...", and, found while scanning, "not
// executable", "broken symbolic link", "not a regular file", "same name as
// F in this directory". A directory that cannot be read is a failure with
// an empty name and the directory as path ("cannot read directory:
// Permission denied"); a missing one is no failure. Hidden files are never
// tools. Only the winner of a name is asked for its schema: one that fails
// does not bring back the tool it overrides.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "registry/registry.h"
#include "sandbox/sandbox.h"

namespace ikigai::discovery {

struct Directories {
  std::string system;   // an empty path is not scanned
  std::string user;     // may not exist
  std::string project;  // may not exist
};

// The default three: system from the running binary's location (or the
// compiled-in prefix), user from $HOME, project from the working directory.
Directories DefaultDirectories();

struct DiscoveryOptions {
  std::chrono::milliseconds schema_timeout{1000};
  std::size_t schema_limit = 8 * 1024;
  // Null: --schema runs unconfined; else under its read-only profile.
  std::shared_ptr<sandbox::Sandbox> sandbox = nullptr;
  // --schema processes at once; 0: twice the cores (at least 4).
  std::size_t max_concurrent = 0;
  // The schema cache's file (schema_cache.h); empty: no cache, every tool
  // is asked.
  std::string cache_path = {};
};

// Scans the directories and asks every tool for its schema (those the cache
// does not answer).
registry::Registry Discover(const Directories& dirs, const DiscoveryOptions& options = {});

// "file-read-tool" -> "file_read"; empty if the name does not end in "-tool".
std::string ToolNameFromFile(std::string_view file_name);

}  // namespace ikigai::discovery
