// The rendezvous store of a cluster run: a key-value store over TCP, in the shape c10d's
// TCPStore has (set, get, add, check, wait, delete, compare-and-set), that lets in only peers
// proving the run's token. Rank 0 hosts it on the first node (bound to the cluster's interface),
// every rank reaches it through AuthStore (auth_store.hpp, the c10d side). libtorch's own
// TCPStore has no authentication and (1.13) listens on every interface; a local run needs no
// store socket at all (a FileStore in a 0700 directory, in the run's private network).
//
// NOTE [Rendezvous store protocol]: frames are a 4-byte big-endian length and that many bytes.
//   1. server -> client: a frame of 32 random bytes (the server's nonce, fresh per connection);
//   2. client -> server: a frame of 64 bytes: HMAC-SHA256(token, "sailor-store-v1 client" ||
//      server nonce || client nonce) then the client's nonce (32 random bytes);
//   3. server -> client: a frame of 32 bytes: HMAC-SHA256(token, "sailor-store-v1 server" ||
//      server nonce || client nonce): the client knows it reached the run's store.
// The token itself never crosses the wire and a recorded exchange cannot be replayed (both
// nonces are fresh). Before the proof, any frame other than 64 bytes or a connection silent for
// kProofTimeout is refused: closed, logged, nothing kept. A new connection beyond kMaxUnproven
// unproven ones evicts the oldest of them instead (NOTE [Room for the run's ranks]): the server
// sends it an empty frame (where the nonce or the server's proof would be) and closes it, and
// logs it as refused; a client told so, or closed before it sent its proof, tries again. After it,
// requests are frames of at most kMaxFrame bytes: one op byte then its fields (strings and byte
// strings as a 4-byte length and the bytes, integers as 8 bytes big-endian); an unknown op, a
// truncated field or a larger frame closes the connection and is logged. Nothing received is ever
// executed or interpreted beyond these fields.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace sailor::runner::store {

inline constexpr std::size_t kNonceSize = 32;
inline constexpr std::size_t kProofSize = 32;
inline constexpr std::size_t kMaxFrame = 4u << 20;  // c10d's values are addresses and ids: bytes
inline constexpr int kMaxUnproven = 64;
inline constexpr std::chrono::seconds kProofTimeout{5};  // a client answers in milliseconds

enum class Op : std::uint8_t {
  Set = 1,
  Get = 2,  // waits until the key exists
  Add = 3,
  Check = 4,
  Delete = 5,
  NumKeys = 6,
  Wait = 7,  // waits until every key exists
  CompareSet = 8,
};

enum class Status : std::uint8_t { Ok = 0, Error = 1 };

using Bytes = std::vector<std::uint8_t>;

// The token of a run: the first line of `path`, which must be a regular file that only its
// owner can read or write (like ssh's keys); throws std::runtime_error naming the file and why.
std::string readTokenFile(const std::string& path);

// HMAC-SHA256(token, label || server_nonce || client_nonce).
Bytes proof(const std::string& token, const char* label, const Bytes& server_nonce,
            const Bytes& client_nonce);
inline constexpr const char* kClientLabel = "sailor-store-v1 client";
inline constexpr const char* kServerLabel = "sailor-store-v1 server";
// Equal in time independent of where they differ.
bool sameProof(const Bytes& a, const Bytes& b);
Bytes randomBytes(std::size_t n);

// Request and response encoding (NOTE [Rendezvous store protocol]).
void putU32(Bytes& out, std::uint32_t v);
void putI64(Bytes& out, std::int64_t v);
void putBytes(Bytes& out, const Bytes& b);
void putString(Bytes& out, const std::string& s);
Bytes frame(const Bytes& payload);  // the 4-byte length, then the payload

// Reads fields of a payload in order; any read past the end throws std::runtime_error.
class Reader {
 public:
  explicit Reader(const Bytes& b) : b_(b) {}
  std::uint8_t u8();
  std::uint32_t u32();
  std::int64_t i64();
  Bytes bytes();
  std::string string();
  bool done() const { return pos_ == b_.size(); }

 private:
  const Bytes& b_;
  std::size_t pos_ = 0;
};

// The interface's IPv4 address ("eth0" -> "192.0.2.2"); throws when it has none.
std::string interfaceAddress(const std::string& name);
// `host` resolved to one IPv4 address (numeric hosts are returned as they are).
std::string resolveHost(const std::string& host);

// The server: one thread polling the listening socket and every connection (non-blocking).
class Server {
 public:
  using Log = std::function<void(const std::string&)>;
  struct Options {
    std::string bind_address = "127.0.0.1";  // an IPv4 address of this machine
    int port = 0;                            // 0: the kernel picks one (port())
    std::chrono::milliseconds proof_timeout = kProofTimeout;
  };
  // Binds and starts serving; throws std::runtime_error (bind/listen failures, with the address).
  Server(Options options, std::string token, Log log);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const { return port_; }
  std::string address() const { return options_.bind_address + ":" + std::to_string(port_); }
  // Connections refused so far (no proof, wrong proof, garbage, oversized or malformed frames).
  int refused() const { return refused_.load(); }

 private:
  struct Connection;
  void loop();
  void accept();
  long unproven() const;         // connections open and not proven yet
  void evictOldestUnproven();    // closes the oldest unless its proof is already here
  void sendSome(Connection& c);  // what of c.out the socket takes now
  bool readFrom(Connection& c);  // false: close it
  bool handleFrame(Connection& c, const Bytes& payload);
  bool serve(Connection& c);  // answers c's queued requests in order while none must wait
  void refuse(Connection& c, const std::string& why);
  void wakeWaiters();

  Options options_;
  std::string token_;
  Log log_;
  int listen_fd_ = -1, wake_[2] = {-1, -1}, port_ = 0;
  std::atomic<int> refused_{0};
  std::atomic<bool> stop_{false};
  std::map<std::string, Bytes> data_;
  std::map<int, std::unique_ptr<Connection>> conns_;
  std::thread thread_;
};

}  // namespace sailor::runner::store
