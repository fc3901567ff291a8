/* floor: the cheapest possible tool. Reads stdin to EOF, writes {}. The
 * round trip of this program is the floor a real tool is measured against. */
#include <unistd.h>

int main(void) {
  char buf[65536];
  while (read(0, buf, sizeof buf) > 0) {
  }
  return write(1, "{}", 2) == 2 ? 0 : 1;
}
