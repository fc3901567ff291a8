/* repl_startup: the time from starting `ikigai` in a pseudo-terminal to its
 * interactive prompt ("> "), for bench/repl.sh.
 *
 *   repl_startup RUNS IKIGAI [ARGS...]
 *
 * Each run: forkpty, exec, read the terminal until "> " appears (the clock
 * stops there), then Ctrl+D and wait for the exit. Prints one time per run,
 * in milliseconds, one a line. The environment and working directory are
 * the caller's. */
#define _GNU_SOURCE
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reads from the terminal until `needle` has been seen or it closes;
 * returns 1 when seen. */
static int read_until(int fd, const char* needle, int timeout_ms) {
  char seen[65536];
  size_t used = 0;
  double deadline = now_ms() + timeout_ms;
  for (;;) {
    int left = (int)(deadline - now_ms());
    if (left <= 0) return 0;
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, left) <= 0) continue;
    ssize_t n = read(fd, seen + used, sizeof seen - 1 - used);
    if (n <= 0) return 0;
    used += (size_t)n;
    seen[used] = '\0';
    if (strstr(seen, needle) != NULL) return 1;
    if (used > sizeof seen / 2) { /* keep the tail */
      memmove(seen, seen + used - 64, 64);
      used = 64;
    }
  }
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s RUNS IKIGAI [ARGS...]\n", argv[0]);
    return 2;
  }
  int runs = atoi(argv[1]);
  struct winsize size = {40, 120, 0, 0};
  for (int run = 0; run < runs; ++run) {
    int master;
    double start = now_ms();
    pid_t pid = forkpty(&master, NULL, NULL, &size);
    if (pid < 0) {
      perror("forkpty");
      return 1;
    }
    if (pid == 0) {
      execv(argv[2], argv + 2);
      perror(argv[2]);
      _exit(127);
    }
    if (!read_until(master, "> ", 10000)) {
      fprintf(stderr, "run %d: no prompt\n", run + 1);
      kill(pid, SIGKILL);
      waitpid(pid, NULL, 0);
      return 1;
    }
    double elapsed = now_ms() - start;
    if (write(master, "\004", 1) != 1) perror("write");
    /* Drain until the terminal closes, then reap. */
    char sink[4096];
    struct pollfd p = {master, POLLIN, 0};
    while (poll(&p, 1, 5000) > 0 && read(master, sink, sizeof sink) > 0) {
    }
    int status = 0;
    waitpid(pid, &status, 0);
    close(master);
    printf("%.3f\n", elapsed);
    fflush(stdout);
  }
  return 0;
}
