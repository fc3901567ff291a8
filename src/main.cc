// ikigai: the host. Until the host's discovery and agent land, it says where
// its tools are and how to call one by hand.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

std::string ToolDirectory(const char* argv0) {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string path(self, static_cast<std::size_t>(n));
    const std::string dir = path.substr(0, path.rfind('/'));
    const std::string candidate = dir + "/../libexec/ikigai";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  (void)argv0;
  return IKIGAI_INSTALL_LIBEXEC;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "-V") == 0)) {
    std::printf("ikigai %s\n", IKIGAI_VERSION);
    return 0;
  }
  const std::string tools = ToolDirectory(argv[0]);
  std::printf(
      "ikigai %s: a terminal coding agent whose every tool is an external executable.\n"
      "The agent host is not built yet; the core tools are in %s.\n"
      "Call one by hand with JSON on stdin, for example:\n"
      "  echo '{\"command\": \"ls\"}' | %s/bash-tool\n"
      "  %s/file-read-tool --schema\n",
      IKIGAI_VERSION, tools.c_str(), tools.c_str(), tools.c_str());
  return 0;
}
