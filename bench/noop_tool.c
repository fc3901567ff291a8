/* noop-tool: the cheapest possible ikigai tool, for bench/agent.sh: its
 * round trip is the tools' own time, subtracted from the host's. With
 * NOOP_OUTPUT_BYTES=N it answers {"output": N bytes} instead of {}, so that
 * a long session's conversation grows as a real one would
 * (bench/long-session.sh). */
#include <stdlib.h>
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
  const char* size = getenv("NOOP_OUTPUT_BYTES");
  const long n = size != NULL ? atol(size) : 0;
  if (n <= 0 || n > 60000) return write(1, "{}", 2) == 2 ? 0 : 1;
  memcpy(buf, "{\"output\": \"", 12);
  memset(buf + 12, 'x', (size_t)n);
  memcpy(buf + 12 + n, "\"}", 2);
  return write(1, buf, (size_t)n + 14) == n + 14 ? 0 : 1;
}
