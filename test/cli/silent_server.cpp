// SPDX-License-Identifier: MIT
// A "server" that accepts TCP connections and never answers (issue 22 item 1's test): listens on a
// free port of 127.0.0.1, prints the port on stdout, accepts every connection and holds it open
// without a word, until stdin closes (or 10 minutes pass).
//   rocmtpl_cli_silent_server
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

int main() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 64) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    std::perror("silent_server: listen on 127.0.0.1");
    return 1;
  }
  std::printf("%d\n", ntohs(a.sin_port));
  std::fflush(stdout);
  std::vector<int> held;
  for (int waited_ms = 0; waited_ms < 600000;) {
    pollfd p[2] = {{fd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    if (::poll(p, 2, 1000) == 0) waited_ms += 1000;
    if ((p[1].revents & (POLLIN | POLLHUP)) != 0) {
      char c = 0;
      if (::read(STDIN_FILENO, &c, 1) <= 0) break;  // stdin closed: the test is done
    }
    if ((p[0].revents & POLLIN) != 0) {
      const int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) held.push_back(c);  // never read, never written
    }
  }
  for (const int c : held) ::close(c);
  ::close(fd);
  return 0;
}
