// AuthStore (the c10d side of the rendezvous store) and connectRendezvous (auth_store.hpp).
// In this file: connect (retries while nothing listens, or while the store evicts the connection
// before the proof, with pauses growing to 1 s), openSocket, greet (the token proof both ways),
// request/sendAll/readFrame (one request at a time, with deadlines), the Store methods, and
// connectRendezvous (rank 0 serves and publishes its address; the others find it).
#include "auth_store.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>

#include "sailor/core/json_util.hpp"

namespace sailor::runner {

using Clock = std::chrono::steady_clock;
using store::Bytes;
using store::Op;

namespace {

int msLeft(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

// The pauses between attempts at the greeting (NOTE [Room for the run's ranks]): from 50 ms,
// doubled up to 1 s, each a random part of that between half and all of it, so that ranks
// evicted together do not come back together.
constexpr std::chrono::milliseconds kFirstPause{50};
constexpr std::chrono::milliseconds kLongestPause{1000};
std::chrono::milliseconds jittered(std::chrono::milliseconds pause) {
  thread_local std::mt19937 random{std::random_device{}()};
  std::uniform_int_distribution<long long> part(pause.count() / 2, pause.count());
  return std::chrono::milliseconds(part(random));
}

constexpr const char* kEvicted =
    "it evicted the connection (more connections without a token proof than it keeps)";

// The store closed the connection (`reset`: reset it, as a socket closed with a frame unread).
struct ClosedError : std::runtime_error {
  explicit ClosedError(bool was_reset)
      : std::runtime_error(was_reset ? "reset the connection" : "closed the connection"),
        reset(was_reset) {}
  bool reset;
};
// An attempt at the greeting worth repeating: the store evicted the connection, or closed it
// before it read the token proof (NOTE [Room for the run's ranks]).
struct RetryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

std::pair<std::string, int> parseHostPort(const std::string& v) {
  const auto colon = v.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == v.size())
    throw std::runtime_error("rendezvous address '" + v + "': expected HOST:PORT");
  char* end = nullptr;
  const long port = std::strtol(v.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port < 0 || port > 65535)
    throw std::runtime_error("rendezvous address '" + v + "': port must be 0 to 65535");
  return {v.substr(0, colon), static_cast<int>(port)};
}

AuthStore::AuthStore(std::string host, int port, std::string token,
                     std::chrono::milliseconds timeout)
    : c10d::Store(timeout), host_(std::move(host)), port_(port), token_(std::move(token)) {
  const std::lock_guard<std::mutex> lock(mu_);
  connect();
}

AuthStore::~AuthStore() {
  drop();
}

void AuthStore::drop() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void AuthStore::connect() {
  const auto deadline = Clock::now() + timeout_;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port_));
  if (::inet_pton(AF_INET, store::resolveHost(host_).c_str(), &addr.sin_addr) != 1)
    throw std::runtime_error("rendezvous store " + where() + ": not an IPv4 address");
  std::string last = "nobody listens";
  auto pause = kFirstPause;
  int attempts = 0;
  for (;;) {
    ++attempts;
    if (!openSocket(addr, deadline, last)) {
      std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
          std::chrono::milliseconds(50), std::chrono::milliseconds(msLeft(deadline))));
    } else {
      try {
        greet(deadline);
        return;
      } catch (const RetryError& e) {  // evicted, or closed before it read the proof
        drop();
        last = e.what();
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
            jittered(pause), std::chrono::milliseconds(msLeft(deadline))));
        pause = std::min(pause * 2, kLongestPause);
      } catch (const std::exception& e) {
        drop();
        throw std::runtime_error("rendezvous store " + where() + ": " + e.what());
      }
    }
    if (Clock::now() >= deadline)
      throw std::runtime_error("rendezvous store " + where() + ": cannot connect (" + last +
                               ") within " + std::to_string(timeout_.count()) + " ms, " +
                               std::to_string(attempts) + " attempts");
  }
}

bool AuthStore::openSocket(const sockaddr_in& addr, Clock::time_point deadline, std::string& why) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  int rc = ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd_, POLLOUT, 0};
    rc = ::poll(&p, 1, msLeft(deadline)) == 1 ? 0 : -1;
    int err = rc == 0 ? 0 : ETIMEDOUT;
    socklen_t n = sizeof err;
    if (rc == 0) ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &n);
    errno = err;
    rc = err == 0 ? 0 : -1;
  }
  if (rc != 0) {
    why = std::strerror(errno);
    drop();
    return false;
  }
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return true;
}

void AuthStore::greet(Clock::time_point deadline) {
  Bytes server_nonce;
  try {
    server_nonce = readFrame(deadline, store::kNonceSize);
  } catch (const ClosedError& e) {
    throw RetryError(std::string("it ") + e.what() + " before the greeting");
  }
  if (server_nonce.empty()) throw RetryError(kEvicted);
  if (server_nonce.size() != store::kNonceSize)
    throw std::runtime_error("its greeting is not a " + std::to_string(store::kNonceSize) +
                             "-byte nonce");
  const Bytes client_nonce = store::randomBytes(store::kNonceSize);
  Bytes hello = store::proof(token_, store::kClientLabel, server_nonce, client_nonce);
  hello.insert(hello.end(), client_nonce.begin(), client_nonce.end());
  try {
    sendAll(store::frame(hello), deadline);
  } catch (const ClosedError& e) {
    throw RetryError(std::string("it ") + e.what() + " before it read the token proof");
  }
  Bytes answer;
  try {
    answer = readFrame(deadline, store::kProofSize);
  } catch (const ClosedError& e) {
    // A reset: the proof reached a connection the store had closed (evicted) already. A plain
    // close after the proof is the store's refusal of it.
    if (!e.reset)
      throw std::runtime_error("closed the connection (a refused token proof, or it stopped)");
    throw RetryError(std::string("it ") + e.what() + " before it read the token proof");
  }
  if (answer.empty()) throw RetryError(kEvicted);
  if (!store::sameProof(answer,
                        store::proof(token_, store::kServerLabel, server_nonce, client_nonce)))
    throw std::runtime_error("it does not prove the run's token");
}

void AuthStore::sendAll(const Bytes& bytes, Clock::time_point deadline) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) throw ClosedError(true);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      throw std::runtime_error(std::string("send: ") + std::strerror(errno));
    pollfd p{fd_, POLLOUT, 0};
    if (::poll(&p, 1, msLeft(deadline)) == 0) throw std::runtime_error("send timed out");
  }
}

Bytes AuthStore::readFrame(Clock::time_point deadline, std::size_t limit) {
  Bytes buf;
  std::size_t want = 4;
  bool header = true;
  while (buf.size() < want) {
    std::uint8_t chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, std::min(sizeof chunk, want - buf.size()), 0);
    if (n > 0) {
      buf.insert(buf.end(), chunk, chunk + n);
    } else if (n == 0) {
      throw ClosedError(false);
    } else if (errno == ECONNRESET) {
      throw ClosedError(true);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, msLeft(deadline)) == 0) throw std::runtime_error("timed out");
      continue;
    } else {
      throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
    }
    if (header && buf.size() == 4) {
      const std::uint32_t len = (std::uint32_t{buf[0]} << 24) | (std::uint32_t{buf[1]} << 16) |
                                (std::uint32_t{buf[2]} << 8) | std::uint32_t{buf[3]};
      if (len > limit)
        throw std::runtime_error("an answer of " + std::to_string(len) + " bytes, more than " +
                                 std::to_string(limit));
      header = false;
      buf.clear();
      want = len;
    }
  }
  return buf;
}

Bytes AuthStore::request(const Bytes& payload, std::chrono::milliseconds timeout,
                         const std::string& what) {
  const std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0) connect();  // after a timeout the old connection was dropped
  const auto deadline = Clock::now() + timeout;
  Bytes answer;
  try {
    sendAll(store::frame(payload), deadline);
    answer = readFrame(deadline, store::kMaxFrame);
  } catch (const std::exception& e) {
    drop();  // the server forgets a held request when its connection closes
    throw std::runtime_error("rendezvous store " + where() + ": " + what + ": " + e.what() +
                             (std::string(e.what()) == "timed out"
                                  ? " after " + std::to_string(timeout.count()) + " ms"
                                  : ""));
  }
  if (answer.empty()) throw std::runtime_error("rendezvous store " + where() + ": empty answer");
  if (answer[0] != static_cast<std::uint8_t>(store::Status::Ok)) {
    store::Reader r(answer);
    r.u8();
    throw std::runtime_error("rendezvous store " + where() + ": " + r.string());
  }
  return Bytes(answer.begin() + 1, answer.end());
}

namespace {

Bytes op(Op o) {
  return Bytes{static_cast<std::uint8_t>(o)};
}

Bytes keysRequest(Op o, const std::vector<std::string>& keys) {
  Bytes b = op(o);
  store::putU32(b, static_cast<std::uint32_t>(keys.size()));
  for (const auto& k : keys) store::putString(b, k);
  return b;
}

}  // namespace

void AuthStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  Bytes b = op(Op::Set);
  store::putString(b, key);
  store::putBytes(b, value);
  request(b, timeout_, "set " + key);
}

std::vector<uint8_t> AuthStore::compareSet(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  Bytes b = op(Op::CompareSet);
  store::putString(b, key);
  store::putBytes(b, expected);
  store::putBytes(b, desired);
  const Bytes a = request(b, timeout_, "compare-set " + key);
  store::Reader r(a);
  return r.bytes();
}

std::vector<uint8_t> AuthStore::get(const std::string& key) {
  Bytes b = op(Op::Get);
  store::putString(b, key);
  const Bytes a = request(b, timeout_, "waiting for key " + key);
  store::Reader r(a);
  return r.bytes();
}

int64_t AuthStore::add(const std::string& key, int64_t value) {
  Bytes b = op(Op::Add);
  store::putString(b, key);
  store::putI64(b, value);
  const Bytes a = request(b, timeout_, "add " + key);
  store::Reader r(a);
  return r.i64();
}

bool AuthStore::deleteKey(const std::string& key) {
  Bytes b = op(Op::Delete);
  store::putString(b, key);
  const Bytes a = request(b, timeout_, "delete " + key);
  return !a.empty() && a[0] == 1;
}

bool AuthStore::check(const std::vector<std::string>& keys) {
  const Bytes a = request(keysRequest(Op::Check, keys), timeout_, "check");
  return !a.empty() && a[0] == 1;
}

int64_t AuthStore::getNumKeys() {
  const Bytes a = request(op(Op::NumKeys), timeout_, "count keys");
  store::Reader r(a);
  return r.i64();
}

void AuthStore::wait(const std::vector<std::string>& keys) {
  wait(keys, timeout_);
}

void AuthStore::wait(const std::vector<std::string>& keys,
                     const std::chrono::milliseconds& timeout) {
  std::string names;
  for (const auto& k : keys) names += (names.empty() ? "" : ", ") + k;
  request(keysRequest(Op::Wait, keys), timeout, "waiting for keys " + names);
}

namespace {

std::string awaitAddress(const std::string& path, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    std::ifstream in(path);
    std::string line;
    if (in && std::getline(in, line) && !line.empty()) return line;
    if (Clock::now() >= deadline)
      throw std::runtime_error("rendezvous store: rank 0 published no address in " + path +
                               " within " + std::to_string(timeout.count()) + " ms");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

Rendezvous connectRendezvous(const std::string& host, int port, const std::string& address_file,
                             const std::string& interface, int rank,
                             std::chrono::milliseconds timeout, const store::Server::Log& log) {
  const std::string host_port = host + ":" + std::to_string(port);
  const char* token_file = std::getenv("SAILOR_RUN_TOKEN_FILE");
  if (!token_file || !*token_file)
    throw std::runtime_error(
        "--store HOST:PORT needs the run's token: set SAILOR_RUN_TOKEN_FILE to its file");
  const std::string token = store::readTokenFile(token_file);
  if (port == 0 && address_file.empty())
    throw std::runtime_error("--store " + host_port +
                             ": port 0 needs --store-address FILE (where rank 0 publishes it)");
  Rendezvous r;
  if (rank == 0) {
    store::Server::Options o;
    o.bind_address =
        interface.empty() ? store::resolveHost(host) : store::interfaceAddress(interface);
    o.port = port;
    r.server = std::make_unique<store::Server>(o, token, log);
    r.address = r.server->address();
    // Written next to itself and renamed: the other ranks read the whole address or none.
    if (!address_file.empty()) json_util::writeFileAtomically(address_file, r.address + "\n");
  } else {
    r.address = address_file.empty() ? host_port : awaitAddress(address_file, timeout);
  }
  const auto [h, p] = parseHostPort(r.address);
  r.store = c10::make_intrusive<AuthStore>(h, p, token, timeout);
  return r;
}

}  // namespace sailor::runner
