/* roundtrip: times one tool call the way a host makes it.
 *
 *   roundtrip N INPUT_FILE PROGRAM [ARGS...]
 *
 * Runs PROGRAM N times; each time it spawns the program with pipes, writes
 * INPUT_FILE's bytes to its stdin, closes it, reads stdout to EOF and reaps
 * the process (spawn, JSON in, JSON out, exit, waitpid). Prints the median,
 * the 10th and 90th percentiles in milliseconds, and the largest peak
 * resident memory seen (KB), as one line of JSON. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: roundtrip N INPUT_FILE PROGRAM [ARGS...]\n");
    return 2;
  }
  int n = atoi(argv[1]);
  FILE* f = fopen(argv[2], "rb");
  if (!f) { perror(argv[2]); return 2; }
  static char input[1 << 20];
  size_t input_len = fread(input, 1, sizeof input, f);
  fclose(f);
  double* times = calloc((size_t)n, sizeof(double));
  long max_rss = 0;
  static char out[1 << 17];
  for (int i = 0; i < n; i++) {
    int in_pipe[2], out_pipe[2];
    if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC)) { perror("pipe"); return 1; }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    double t0 = now_ms();
    pid_t pid;
    if (posix_spawn(&pid, argv[3], &fa, NULL, argv + 3, environ) != 0) { perror("spawn"); return 1; }
    posix_spawn_file_actions_destroy(&fa);
    close(in_pipe[0]);
    close(out_pipe[1]);
    if (write(in_pipe[1], input, input_len) != (ssize_t)input_len) { perror("write"); return 1; }
    close(in_pipe[1]);
    size_t got = 0;
    ssize_t r;
    while ((r = read(out_pipe[0], out + got, sizeof out - got - 1)) > 0) got += (size_t)r;
    close(out_pipe[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    times[i] = now_ms() - t0;
    if (ru.ru_maxrss > max_rss) max_rss = ru.ru_maxrss;
    if (i == 0 && getenv("ROUNDTRIP_SHOW")) { out[got] = 0; fprintf(stderr, "%.300s\n", out); }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got == 0) {
      fprintf(stderr, "call %d failed (status %d, %zu bytes)\n", i, status, got);
      return 1;
    }
  }
  qsort(times, (size_t)n, sizeof(double), cmp);
  printf("{\"median_ms\": %.4f, \"p10_ms\": %.4f, \"p90_ms\": %.4f, \"max_rss_kb\": %ld}\n",
         times[n / 2], times[n / 10], times[n * 9 / 10], max_rss);
  free(times);
  return 0;
}
