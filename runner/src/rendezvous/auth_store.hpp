// AuthStore: c10d's Store over the run's rendezvous store (rendezvous_store.hpp): every
// connection proves the run's token first (NOTE [Rendezvous store protocol]) and checks the
// server's proof in return. connectRendezvous is how a worker of a cluster run gets its store:
// rank 0 hosts the server on the first node, bound to the cluster's interface.
#pragma once

#include <netinet/in.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "rendezvous_store.hpp"

namespace sailor::runner {

class AuthStore : public c10d::Store {
 public:
  // Connects (retrying while nobody listens yet, or the store evicts the connection before the
  // proof, up to `timeout`) and proves the token; throws std::runtime_error naming the address
  // and why.
  AuthStore(std::string host, int port, std::string token, std::chrono::milliseconds timeout);
  ~AuthStore() override;

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  // Connects and proves the token, trying again (pauses from 50 ms doubling to 1 s) while
  // nobody listens or the store evicts the connection or closes it before reading the proof,
  // up to timeout_ (NOTE [Room for the run's ranks], rendezvous_store.cpp).
  void connect();
  // A connection to `addr` in fd_; false (fd_ closed, `why` set) when none could be made.
  bool openSocket(const sockaddr_in& addr, std::chrono::steady_clock::time_point deadline,
                  std::string& why);
  // The token proof both ways on fd_ (NOTE [Rendezvous store protocol]).
  void greet(std::chrono::steady_clock::time_point deadline);
  // Sends one request and returns the answer's fields after the status byte; `wait`: the
  // answer may be held by the server until keys exist, up to `timeout`.
  store::Bytes request(const store::Bytes& payload, std::chrono::milliseconds timeout,
                       const std::string& what);
  void sendAll(const store::Bytes& bytes, std::chrono::steady_clock::time_point deadline);
  store::Bytes readFrame(std::chrono::steady_clock::time_point deadline, std::size_t limit);
  void drop();
  std::string where() const { return host_ + ":" + std::to_string(port_); }

  std::string host_;
  int port_;
  std::string token_;
  std::mutex mu_;
  int fd_ = -1;
};

// "HOST:PORT" split, the port 0 to 65535; throws std::runtime_error naming the value otherwise.
std::pair<std::string, int> parseHostPort(const std::string& host_port);

// Where a worker finds the rendezvous store of a cluster run at HOST:PORT; rank 0 serves on it (on
// the address of `interface` when given, else HOST's address) and, when `address_file` is given,
// writes the address it serves on there (PORT 0: the kernel picks the port; the others read the
// file, waiting for it up to `timeout`). The token comes from the file SAILOR_RUN_TOKEN_FILE names.
// `log` receives the server's refusals.
struct Rendezvous {
  std::unique_ptr<store::Server> server;  // rank 0 only
  c10::intrusive_ptr<c10d::Store> store;
  std::string address;  // what the workers connect to
};
Rendezvous connectRendezvous(const std::string& host, int port, const std::string& address_file,
                             const std::string& interface, int rank,
                             std::chrono::milliseconds timeout, const store::Server::Log& log);

}  // namespace sailor::runner
