#include "sandbox/host.h"

#include <sys/prctl.h>

#include <cerrno>

namespace ikigai::sandbox {

int HideHostFromTools() { return ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : errno; }

}  // namespace ikigai::sandbox
