/* launch_timer: prints the wall clock (CLOCK_REALTIME, seconds) on stderr,
 * then execs its arguments, so that a server can time a program from the
 * moment it starts (bench/agent.sh). */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  fprintf(stderr, "%ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
  execv(argv[1], argv + 1);
  perror(argv[1]);
  return 127;
}
