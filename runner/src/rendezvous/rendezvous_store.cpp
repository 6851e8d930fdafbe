// The rendezvous store's protocol helpers and its server (rendezvous_store.hpp; NOTE
// [Rendezvous store protocol]). In this file: readTokenFile, proof/sameProof/randomBytes
// (OpenSSL's HMAC and RAND), the field encoders and Reader, interfaceAddress/resolveHost, and
// Server: loop (poll), accept, readFrom (frames, limits before any byte of a body is kept),
// handleFrame (the token proof, then requests), serve (in order, GET and WAIT held until their
// keys exist), refuse (close and log), evictOldestUnproven (room for a new connection at the
// limit of unproven ones, NOTE [Room for the run's ranks]).
#include "rendezvous_store.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <stdexcept>

namespace sailor::runner::store {

std::string readTokenFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw std::runtime_error("token file " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw std::runtime_error("token file " + path + ": not a file");
  if ((st.st_mode & 077) != 0)
    throw std::runtime_error("token file " + path +
                             ": readable or writable by others (mode must be 0600 or 0400)");
  std::ifstream in(path);
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.size() < 16)
    throw std::runtime_error("token file " + path + ": a token of " + std::to_string(token.size()) +
                             " bytes, expected at least 16");
  return token;
}

Bytes proof(const std::string& token, const char* label, const Bytes& server_nonce,
            const Bytes& client_nonce) {
  Bytes msg(label, label + std::strlen(label));
  msg.insert(msg.end(), server_nonce.begin(), server_nonce.end());
  msg.insert(msg.end(), client_nonce.begin(), client_nonce.end());
  Bytes out(EVP_MAX_MD_SIZE);
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()), msg.data(), msg.size(),
            out.data(), &n))
    throw std::runtime_error("HMAC-SHA256 failed");
  out.resize(n);
  return out;
}

bool sameProof(const Bytes& a, const Bytes& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Bytes randomBytes(std::size_t n) {
  Bytes b(n);
  if (RAND_bytes(b.data(), static_cast<int>(n)) != 1)
    throw std::runtime_error("no random bytes (OpenSSL RAND_bytes)");
  return b;
}

void putU32(Bytes& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}
void putI64(Bytes& out, std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  for (int s = 56; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(u >> s));
}
void putBytes(Bytes& out, const Bytes& b) {
  putU32(out, static_cast<std::uint32_t>(b.size()));
  out.insert(out.end(), b.begin(), b.end());
}
void putString(Bytes& out, const std::string& s) {
  putU32(out, static_cast<std::uint32_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}
Bytes frame(const Bytes& payload) {
  Bytes out;
  out.reserve(4 + payload.size());
  putU32(out, static_cast<std::uint32_t>(payload.size()));
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

std::uint8_t Reader::u8() {
  if (pos_ + 1 > b_.size()) throw std::runtime_error("truncated field");
  return b_[pos_++];
}
std::uint32_t Reader::u32() {
  if (pos_ + 4 > b_.size()) throw std::runtime_error("truncated field");
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | b_[pos_++];
  return v;
}
std::int64_t Reader::i64() {
  if (pos_ + 8 > b_.size()) throw std::runtime_error("truncated field");
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | b_[pos_++];
  return static_cast<std::int64_t>(v);
}
Bytes Reader::bytes() {
  const std::uint32_t n = u32();
  if (n > b_.size() - pos_) throw std::runtime_error("truncated field");
  Bytes v(b_.begin() + static_cast<std::ptrdiff_t>(pos_),
          b_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
  pos_ += n;
  return v;
}
std::string Reader::string() {
  const Bytes b = bytes();
  return {b.begin(), b.end()};
}

std::string interfaceAddress(const std::string& name) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0)
    throw std::runtime_error(std::string("getifaddrs: ") + std::strerror(errno));
  std::string found;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || name != a->ifa_name) continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) {
      found = text;
      break;
    }
  }
  ::freeifaddrs(list);
  if (found.empty())
    throw std::runtime_error("network interface " + name + " has no IPv4 address on this node");
  return found;
}

std::string resolveHost(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0 || !res)
    throw std::runtime_error("cannot resolve " + host + ": " + ::gai_strerror(rc));
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(res->ai_addr)->sin_addr, text,
              sizeof text);
  ::freeaddrinfo(res);
  return text;
}

namespace {

using Clock = std::chrono::steady_clock;

std::string peerOf(int fd) {
  sockaddr_in a{};
  socklen_t n = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &n) != 0 || a.sin_family != AF_INET)
    return "an unknown peer";
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
  return std::string(text) + ":" + std::to_string(ntohs(a.sin_port));
}

std::string sizeText(std::uint32_t n) {
  if (n >= (1u << 20)) return std::to_string(n >> 20) + " MiB";
  return std::to_string(n) + " bytes";
}

}  // namespace

struct Server::Connection {
  int fd = -1;
  std::string peer;
  bool proven = false, dead = false;
  Clock::time_point accepted;
  Bytes server_nonce, in, out;
  std::deque<Bytes> requests;  // proven requests not answered yet, in arrival order
};

Server::Server(Options options, std::string token, Log log)
    : options_(std::move(options)), token_(std::move(token)), log_(std::move(log)) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(options_.port));
  if (::inet_pton(AF_INET, options_.bind_address.c_str(), &addr.sin_addr) != 1)
    throw std::runtime_error("rendezvous store: bind address " + options_.bind_address +
                             " is not an IPv4 address");
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 128) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listen_fd_);
    throw std::runtime_error("rendezvous store: cannot listen on " + options_.bind_address + ":" +
                             std::to_string(options_.port) + ": " + why);
  }
  socklen_t n = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &n);
  port_ = ntohs(addr.sin_port);
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  thread_ = std::thread([this] { loop(); });
}

Server::~Server() {
  stop_ = true;
  const char c = 0;
  (void)!::write(wake_[1], &c, 1);
  if (thread_.joinable()) thread_.join();
  for (auto& [fd, c2] : conns_) ::close(fd);
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void Server::refuse(Connection& c, const std::string& why) {
  const int n = ++refused_;
  // A flood is logged, but not line by line: the first 20, then every 100th.
  if (n <= 20 || n % 100 == 0)
    log_("rendezvous store: refused " + c.peer + ": " + why +
         (n > 20 ? " (" + std::to_string(n) + " refused in all)" : ""));
  c.dead = true;
}

void Server::accept() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a connection reset before it was accepted
    // NOTE [Room for the run's ranks]: at the limit, the oldest unproven connection makes room
    // for the new one. Refusing the new one instead would let anyone holding kMaxUnproven idle
    // connections keep every rank out; this way a peer that proves the token within the time
    // kMaxUnproven newer connections take to arrive gets in, and its client retries when not.
    while (unproven() >= kMaxUnproven) evictOldestUnproven();
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    c->peer = peerOf(fd);
    c->accepted = Clock::now();
    c->server_nonce = randomBytes(kNonceSize);
    c->out = frame(c->server_nonce);
    sendSome(*c);  // the greeting at once: the client's proof may come before the next poll
    conns_[fd] = std::move(c);
  }
}

long Server::unproven() const {
  return std::count_if(conns_.begin(), conns_.end(),
                       [](const auto& kv) { return !kv.second->proven && !kv.second->dead; });
}

void Server::evictOldestUnproven() {
  Connection* oldest = nullptr;
  for (auto& [fd, c] : conns_)
    if (!c->proven && !c->dead && (!oldest || c->accepted < oldest->accepted)) oldest = c.get();
  if (!oldest) return;
  Connection& c = *oldest;
  // Whatever it sent first: a proof already here makes it a peer, not a candidate.
  if (!readFrom(c)) c.dead = true;
  if (!c.dead && !c.proven) {
    const Bytes evicted = frame({});  // "evicted, try again" (NOTE [Rendezvous store protocol])
    c.out.insert(c.out.end(), evicted.begin(), evicted.end());
    sendSome(c);
    refuse(c, "evicted without a token proof after " +
                  std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     Clock::now() - c.accepted)
                                     .count()) +
                  " ms, the oldest of " + std::to_string(kMaxUnproven) +
                  " connections without a token proof");
  }
  if (c.dead) {  // closed now: its descriptor number may come back from the next accept
    const int fd = c.fd;
    ::close(fd);
    conns_.erase(fd);
  }
}

void Server::sendSome(Connection& c) {
  if (c.dead || c.out.empty()) return;
  const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
  if (n > 0) c.out.erase(c.out.begin(), c.out.begin() + n);
  else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) c.dead = true;
}

bool Server::readFrom(Connection& c) {
  std::uint8_t buf[65536];
  for (;;) {
    const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n == 0) return false;  // closed by the peer
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.in.insert(c.in.end(), buf, buf + n);
    // Frames as they complete; a length is judged before its body is kept.
    while (c.in.size() >= 4 && !c.dead) {
      const std::uint32_t len = (std::uint32_t{c.in[0]} << 24) | (std::uint32_t{c.in[1]} << 16) |
                                (std::uint32_t{c.in[2]} << 8) | std::uint32_t{c.in[3]};
      if (!c.proven && len != kProofSize + kNonceSize) {
        refuse(c, "a first frame of " + sizeText(len) + ", expected a " +
                      std::to_string(kProofSize + kNonceSize) + "-byte token proof");
        return false;
      }
      if (len > kMaxFrame) {
        refuse(c, "a frame of " + sizeText(len) + ", more than " + sizeText(kMaxFrame));
        return false;
      }
      if (c.in.size() < 4 + std::size_t{len}) break;
      Bytes payload(c.in.begin() + 4, c.in.begin() + 4 + len);
      c.in.erase(c.in.begin(), c.in.begin() + 4 + len);
      if (!handleFrame(c, payload)) return false;
    }
    if (c.dead) return false;
  }
}

bool Server::handleFrame(Connection& c, const Bytes& payload) {
  if (!c.proven) {
    const Bytes given(payload.begin(), payload.begin() + kProofSize);
    const Bytes client_nonce(payload.begin() + kProofSize, payload.end());
    if (!sameProof(given, proof(token_, kClientLabel, c.server_nonce, client_nonce))) {
      refuse(c, "wrong token proof");
      return false;
    }
    c.proven = true;
    const Bytes answer = frame(proof(token_, kServerLabel, c.server_nonce, client_nonce));
    c.out.insert(c.out.end(), answer.begin(), answer.end());
    return true;
  }
  if (c.requests.size() >= 1024) {
    refuse(c, "more than 1024 requests queued");
    return false;
  }
  c.requests.push_back(payload);
  return serve(c);
}

namespace {

Bytes ok() {
  return Bytes{static_cast<std::uint8_t>(Status::Ok)};
}

Bytes error(const std::string& what) {
  Bytes b{static_cast<std::uint8_t>(Status::Error)};
  putString(b, what);
  return b;
}

}  // namespace

bool Server::serve(Connection& c) {
  bool changed = false;
  while (!c.requests.empty()) {
    const Bytes& req = c.requests.front();
    Bytes resp;
    try {
      Reader r(req);
      const auto op = static_cast<Op>(r.u8());
      auto all_present = [&](const std::vector<std::string>& keys) {
        return std::all_of(keys.begin(), keys.end(),
                           [&](const std::string& k) { return data_.count(k) > 0; });
      };
      auto key_list = [&] {
        const std::uint32_t n = r.u32();
        if (n > req.size()) throw std::runtime_error("a key count beyond the frame");
        std::vector<std::string> keys;
        for (std::uint32_t i = 0; i < n; ++i) keys.push_back(r.string());
        return keys;
      };
      switch (op) {
        case Op::Set: {
          std::string key = r.string();
          data_[std::move(key)] = r.bytes();
          changed = true;
          resp = ok();
          break;
        }
        case Op::Get: {
          const std::string key = r.string();
          const auto it = data_.find(key);
          if (it == data_.end()) return true;  // held until the key is set
          resp = ok();
          putBytes(resp, it->second);
          break;
        }
        case Op::Add: {
          const std::string key = r.string();
          const std::int64_t delta = r.i64();
          std::int64_t value = delta;
          auto it = data_.find(key);
          if (it != data_.end()) {
            const std::string old(it->second.begin(), it->second.end());
            char* end = nullptr;
            errno = 0;
            const long long v = std::strtoll(old.c_str(), &end, 10);
            if (old.empty() || *end != '\0' || errno != 0) {
              resp = error("add: key " + key + " holds a value that is not an integer");
              break;
            }
            value = v + delta;
          }
          const std::string text = std::to_string(value);
          data_[key] = Bytes(text.begin(), text.end());
          changed = true;
          resp = ok();
          putI64(resp, value);
          break;
        }
        case Op::Check: {
          const auto keys = key_list();
          resp = ok();
          resp.push_back(all_present(keys) ? 1 : 0);
          break;
        }
        case Op::Delete: {
          const bool erased = data_.erase(r.string()) > 0;
          resp = ok();
          resp.push_back(erased ? 1 : 0);
          break;
        }
        case Op::NumKeys:
          resp = ok();
          putI64(resp, static_cast<std::int64_t>(data_.size()));
          break;
        case Op::Wait: {
          if (!all_present(key_list())) return true;  // held until they are all set
          resp = ok();
          break;
        }
        case Op::CompareSet: {
          const std::string key = r.string();
          const Bytes expected = r.bytes();
          Bytes desired = r.bytes();
          auto it = data_.find(key);
          // c10d's TCPStore: a missing key is created only when nothing was expected; the answer
          // is the value the key holds afterwards (or `expected` when it stays missing).
          if (it == data_.end()) {
            if (expected.empty()) {
              data_[key] = desired;
              changed = true;
              resp = ok();
              putBytes(resp, desired);
            } else {
              resp = ok();
              putBytes(resp, expected);
            }
          } else if (it->second == expected) {
            it->second = std::move(desired);
            changed = true;
            resp = ok();
            putBytes(resp, it->second);
          } else {
            resp = ok();
            putBytes(resp, it->second);
          }
          break;
        }
        default: refuse(c, "unknown request " + std::to_string(static_cast<int>(op))); return false;
      }
    } catch (const std::exception& e) {
      refuse(c, std::string("a malformed request (") + e.what() + ")");
      return false;
    }
    c.requests.pop_front();
    const Bytes f = frame(resp);
    c.out.insert(c.out.end(), f.begin(), f.end());
  }
  if (changed) wakeWaiters();
  return true;
}

void Server::wakeWaiters() {
  for (auto& [fd, c] : conns_)
    if (!c->dead && c->proven && !c->requests.empty() && !serve(*c)) c->dead = true;
}

void Server::loop() {
  std::vector<pollfd> fds;
  while (!stop_) {
    fds.clear();
    fds.push_back({wake_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    auto timeout = std::chrono::milliseconds(1000);
    const auto now = Clock::now();
    for (auto& [fd, c] : conns_) {
      fds.push_back({fd, static_cast<short>(POLLIN | (c->out.empty() ? 0 : POLLOUT)), 0});
      if (!c->proven)
        timeout = std::min(timeout, std::max(std::chrono::milliseconds(0),
                                             std::chrono::duration_cast<std::chrono::milliseconds>(
                                                 c->accepted + options_.proof_timeout - now)));
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()) + 1) < 0 && errno != EINTR)
      break;
    if (stop_) break;
    // The connections first, new ones after: a proof that arrived is read before any eviction.
    for (std::size_t i = 2; i < fds.size(); ++i) {
      auto it = conns_.find(fds[i].fd);
      if (it == conns_.end()) continue;
      Connection& c = *it->second;
      if (!c.dead && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && !readFrom(c)) c.dead = true;
      sendSome(c);
    }
    if (fds[1].revents & POLLIN) accept();
    const auto later = Clock::now();
    for (auto it = conns_.begin(); it != conns_.end();) {
      Connection& c = *it->second;
      if (!c.dead && !c.proven && later - c.accepted >= options_.proof_timeout)
        refuse(c, "no token proof within " +
                      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         options_.proof_timeout)
                                         .count()) +
                      " ms");
      if (c.dead) {
        ::close(c.fd);
        it = conns_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

}  // namespace sailor::runner::store
