// store_probe: a hostile (or, with "good", a rightful) peer of a run's rendezvous store, for the
// tests that attack a running run (test_slurm_security.sh, test_rendezvous_store).
//   store_probe HOST:PORT silent       connects, takes the greeting, sends nothing
//   store_probe HOST:PORT wrong-token  answers the greeting with a proof of another token
//   store_probe HOST:PORT garbage      sends 4 KiB of random bytes
//   store_probe HOST:PORT huge         announces a 100 MB frame and streams it
//   store_probe HOST:PORT good FILE    proves the token in FILE and counts the store's keys
//   store_probe HOST:PORT flood N      holds N connections that never prove anything, reading and
//                                      dropping what the store sends and reconnecting every one
//                                      it closes (every 10 ms), until SIGTERM or SIGINT
// HOST:PORT may be @FILE: the address is read from FILE, waiting (every 2 ms, up to 10 minutes)
// until it holds one, as rank 0 publishes rendezvous.address.
// Exit 0 when the store behaved: the first four refused (closed the connection; "huge" before
// the 100 MB were through), "good" answered; "flood": it held N connections at once. Exit 1
// otherwise, 2 on bad usage. One line on stdout says what happened ("flood" prints a line when
// it first holds N, and one when it stops).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "rendezvous/rendezvous_store.hpp"

using namespace sailor::runner::store;
using Clock = std::chrono::steady_clock;

namespace {

int connectTo(const std::string& address) {
  const auto colon = address.rfind(':');
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(std::stoi(address.substr(colon + 1))));
  if (::inet_pton(AF_INET, resolveHost(address.substr(0, colon)).c_str(), &a.sin_addr) != 1)
    return -1;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads exactly n bytes, waiting at most `ms`; false when the peer closed or time ran out.
bool readExactly(int fd, Bytes& out, std::size_t n, int ms) {
  out.resize(n);
  std::size_t got = 0;
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  while (got < n) {
    pollfd p{fd, POLLIN, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) != 1) return false;
    const ssize_t r = ::recv(fd, out.data() + got, n - got, 0);
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

// Whether the server closes the connection within `ms` (anything it sends meanwhile is read).
bool closedWithin(int fd, int ms) {
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  char buf[4096];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) != 1) return false;
    const ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r <= 0) return true;
  }
}

bool sendAll(int fd, const Bytes& b) {
  std::size_t sent = 0;
  while (sent < b.size()) {
    const ssize_t n = ::send(fd, b.data() + sent, b.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

int result(bool ok, const std::string& line) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", line.c_str());
  return ok ? 0 : 1;
}

volatile std::sig_atomic_t g_stop = 0;
void onStop(int) {
  g_stop = 1;
}

// "@FILE": the first line of FILE once it has one (polled every 2 ms, up to 10 minutes); else
// `arg` itself.
std::string addressOf(const std::string& arg) {
  if (arg.empty() || arg[0] != '@') return arg;
  const auto end = Clock::now() + std::chrono::minutes(10);
  while (Clock::now() < end && !g_stop) {
    std::ifstream in(arg.substr(1));
    std::string line;
    if (in && std::getline(in, line) && !line.empty()) return line;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return {};
}

// The "flood" mode: n unproven connections held until SIGTERM or SIGINT.
int flood(const std::string& address, int n) {
  std::vector<int> fds(static_cast<std::size_t>(n), -1);
  long long opened = 0, closed_by_store = 0;
  bool full = false;
  const auto t0 = Clock::now();
  while (!g_stop) {
    int open = 0;
    for (int& fd : fds) {
      if (fd >= 0) {
        char buf[256];
        const ssize_t r = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          ::close(fd);
          fd = -1;
          ++closed_by_store;
        }
      }
      if (fd < 0 && (fd = connectTo(address)) >= 0) ++opened;
      open += fd >= 0 ? 1 : 0;
    }
    if (open == n && !full) {
      full = true;
      std::printf("holding %d connections to %s\n", n, address.c_str());
      std::fflush(stdout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (const int fd : fds)
    if (fd >= 0) ::close(fd);
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - t0).count();
  return result(full, "held " + std::to_string(n) + " connections for " + std::to_string(s) +
                          " s: " + std::to_string(opened) + " opened, " +
                          std::to_string(closed_by_store) + " closed by the store");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: store_probe HOST:PORT|@FILE silent|wrong-token|garbage|huge|good FILE|"
                 "flood N\n");
    return 2;
  }
  std::signal(SIGTERM, onStop);
  std::signal(SIGINT, onStop);
  const std::string address = addressOf(argv[1]), mode = argv[2];
  if (address.empty()) return result(false, std::string("no address in ") + (argv[1] + 1));
  try {
    if (mode == "flood") {
      const int n = argc > 3 ? std::atoi(argv[3]) : 0;
      if (n <= 0) {
        std::fprintf(stderr, "store_probe: flood N: N must be a positive count\n");
        return 2;
      }
      return flood(address, n);
    }
    const int fd = connectTo(address);
    if (fd < 0) return result(false, "cannot connect to " + address);
    Bytes greeting;
    if (mode != "garbage" && mode != "huge" &&
        (!readExactly(fd, greeting, 4 + kNonceSize, 5000) || greeting[3] != kNonceSize))
      return result(false, "no 32-byte greeting from " + address);
    const Bytes nonce(greeting.begin() + (greeting.empty() ? 0 : 4), greeting.end());
    if (mode == "silent") {
      const auto t0 = Clock::now();
      const bool closed = closedWithin(fd, 30000);
      const auto ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
      return result(closed, "silent peer " + std::string(closed ? "closed" : "still open") +
                                " after " + std::to_string(ms) + " ms");
    }
    if (mode == "wrong-token" || mode == "good") {
      std::string token = "not-the-token-of-this-run-0123456789abcdef";
      if (mode == "good") {
        if (argc < 4) return result(false, "good needs the token file");
        token = readTokenFile(argv[3]);
      }
      const Bytes client_nonce = randomBytes(kNonceSize);
      Bytes hello = proof(token, kClientLabel, nonce, client_nonce);
      hello.insert(hello.end(), client_nonce.begin(), client_nonce.end());
      if (!sendAll(fd, frame(hello))) return result(mode != "good", "send failed");
      if (mode == "wrong-token")
        return result(closedWithin(fd, 10000), "wrong token proof refused");
      Bytes answer;
      if (!readExactly(fd, answer, 4 + kProofSize, 5000))
        return result(false, "no proof from the server");
      if (!sameProof(Bytes(answer.begin() + 4, answer.end()),
                     proof(token, kServerLabel, nonce, client_nonce)))
        return result(false, "the server's proof is wrong");
      if (!sendAll(fd, frame(Bytes{static_cast<std::uint8_t>(Op::NumKeys)})))
        return result(false, "request not sent");
      Bytes head, body;
      if (!readExactly(fd, head, 4, 5000)) return result(false, "no answer");
      const std::size_t len = (std::size_t{head[2]} << 8) | head[3];
      if (!readExactly(fd, body, len, 5000) || body.empty() || body[0] != 0)
        return result(false, "bad answer");
      Reader r(body);
      r.u8();
      return result(true, "proved the token; the store holds " + std::to_string(r.i64()) + " keys");
    }
    if (mode == "garbage") {
      sendAll(fd, randomBytes(4096));
      return result(closedWithin(fd, 10000), "4 KiB of random bytes refused");
    }
    if (mode == "huge") {
      constexpr std::size_t kHuge = 100u << 20;
      Bytes head;
      putU32(head, static_cast<std::uint32_t>(kHuge));
      sendAll(fd, head);
      const Bytes chunk(1 << 20, 0x41);
      std::size_t sent = 0;
      while (sent < kHuge && sendAll(fd, chunk)) sent += chunk.size();
      const bool refused = sent < kHuge || closedWithin(fd, 10000);
      return result(
          refused, "a 100 MB frame refused after " + std::to_string(sent >> 20) + " MiB were sent");
    }
    return result(false, "unknown mode " + mode);
  } catch (const std::exception& e) {
    return result(false, e.what());
  }
}
