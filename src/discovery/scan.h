// Listing one tool directory: which files are tools, which look like tools
// but cannot be (and why), the rest ignored (discovery.h has the rules).
#pragma once

#include <string>
#include <vector>

#include "registry/registry.h"

namespace ikigai::discovery {

struct Candidate {
  std::string name;  // file-read-tool -> file_read
  std::string path;  // directory + "/" + file name; a symlink stays as it is
};

struct Scan {
  std::vector<Candidate> tools;                      // sorted by file name
  std::vector<registry::DiscoveryFailure> failures;  // "not executable", "broken symbolic link"...
};

// A missing directory gives an empty Scan; one that cannot be read gives a
// failure with an empty name: "cannot read directory: Permission denied".
Scan ScanDirectory(const std::string& dir);

}  // namespace ikigai::discovery
