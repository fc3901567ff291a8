/* noop-tool: the cheapest possible ikigai tool, for bench/agent.sh: its
 * round trip is the tools' own time, subtracted from the host's. */
#include <string.h>
#include <unistd.h>

static const char kSchema[] =
    "{\"name\":\"noop\",\"description\":\"Does nothing.\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{}}}";

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--schema") == 0) {
    return write(1, kSchema, sizeof kSchema - 1) > 0 ? 0 : 1;
  }
  char buf[65536];
  while (read(0, buf, sizeof buf) > 0) {
  }
  return write(1, "{}", 2) == 2 ? 0 : 1;
}
