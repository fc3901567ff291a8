// What the kernel offers the sandbox: the Landlock ABI and whether user
// namespaces work (Ubuntu 24.04's AppArmor, for one, refuses them unless a
// profile allows it).
#pragma once

#include <string>

namespace ikigai::sandbox {

struct Support {
  int landlock_abi = 0;  // 0: no Landlock
  bool user_namespaces = false;
  std::string no_userns_reason;  // when !user_namespaces
};

// Asks the kernel once (a child tries the namespaces tier 2 uses). Test-only
// switches in the environment, read at every call:
// IKIGAI_TEST_LANDLOCK_ABI=N caps the ABI (0 = no Landlock);
// IKIGAI_TEST_NO_USERNS=1 pretends user namespaces are unavailable.
Support Probe();

}  // namespace ikigai::sandbox
