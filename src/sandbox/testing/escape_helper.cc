// Escape attempts the shell cannot make, for the sandbox's escape battery.
// Each writes its name to RESULT_FILE only if the kernel let it through.
//
//   escape_helper io_uring RESULT_FILE
//   escape_helper ptrace PID RESULT_FILE          (PTRACE_ATTACH, then detach)
//   escape_helper process_vm PID RESULT_FILE      (process_vm_readv)
//   escape_helper proc_mem PID ADDR RESULT_FILE   (4 bytes of /proc/PID/mem at
//                                                  ADDR, hex; "-": where the
//                                                  executable is mapped)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static void Record(const char* file, const char* what) {
  FILE* f = fopen(file, "a");
  if (f == NULL) return;
  fprintf(f, "%s\n", what);
  fclose(f);
}

/* Where the executable's ELF header of `pid` is mapped: its first mapping at
 * file offset 0 (not simply the first line: AddressSanitizer's shadow
 * memory is mapped below the executable). */
static unsigned long ExecutableMapping(const char* pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%s/exe", pid);
  char exe[4096];
  const ssize_t n = readlink(path, exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  snprintf(path, sizeof path, "/proc/%s/maps", pid);
  FILE* f = fopen(path, "r");
  unsigned long found = 0x400000;
  if (f == NULL) return found;
  char line[4608];
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long start = 0;
    unsigned long offset = 1;
    char file[4096] = "";
    if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %4095s", &start, &offset, file) >= 2 && offset == 0 &&
        exe[0] != '\0' && strcmp(file, exe) == 0) {
      found = start;
      break;
    }
  }
  fclose(f);
  return found;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "io_uring") == 0) {
    unsigned char params[120];
    memset(params, 0, sizeof params);
    long fd = syscall(SYS_io_uring_setup, 4, params);
    if (fd >= 0) Record(argv[2], "io_uring");
    printf("io_uring_setup: %s\n", fd >= 0 ? "ok" : strerror(errno));
    return fd >= 0 ? 0 : 1;
  }
  if (argc == 4 && strcmp(argv[1], "ptrace") == 0) {
    pid_t pid = static_cast<pid_t>(atoi(argv[2]));
    if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) != 0) {
      printf("ptrace: %s\n", strerror(errno));
      return 1;
    }
    waitpid(pid, NULL, __WALL);
    ptrace(PTRACE_DETACH, pid, NULL, NULL);
    Record(argv[3], "ptrace");
    printf("ptrace: ok\n");
    return 0;
  }
  if (argc == 4 && strcmp(argv[1], "process_vm") == 0) {
    pid_t pid = static_cast<pid_t>(atoi(argv[2]));
    char buf[16];
    struct iovec local = {buf, sizeof buf};
    struct iovec remote = {reinterpret_cast<void*>(ExecutableMapping(argv[2])), sizeof buf};
    if (process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0) {
      printf("process_vm_readv: %s\n", strerror(errno));
      return 1;
    }
    Record(argv[3], "process_vm");
    printf("process_vm_readv: ok\n");
    return 0;
  }
  if (argc == 5 && strcmp(argv[1], "proc_mem") == 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/mem", argv[2]);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      printf("open %s: %s\n", path, strerror(errno));
      return 1;
    }
    const unsigned long addr =
        strcmp(argv[3], "-") == 0 ? ExecutableMapping(argv[2]) : strtoul(argv[3], NULL, 16);
    unsigned char bytes[4];
    if (pread(fd, bytes, sizeof bytes, static_cast<off_t>(addr)) != sizeof bytes) {
      printf("read %s at %lx: %s\n", path, addr, strerror(errno));
      close(fd);
      return 1;
    }
    close(fd);
    char hex[16];
    snprintf(hex, sizeof hex, "%02x%02x%02x%02x", bytes[0], bytes[1], bytes[2], bytes[3]);
    Record(argv[4], hex);
    printf("proc_mem: %s\n", hex);
    return 0;
  }
  fprintf(stderr,
          "usage: escape_helper io_uring FILE | ptrace PID FILE | process_vm PID FILE | "
          "proc_mem PID ADDR FILE\n");
  return 2;
}
