// The rendezvous store of cluster runs (runner/src/rendezvous/rendezvous_store.hpp,
// auth_store.hpp):
//   - operations: c10d's Store calls through AuthStore give TCPStore's answers (set, get, add,
//     check, delete, key count, compare-and-set), a GET held until another client sets the key,
//     a WAIT on a missing key timing out with the key named;
//   - glooGroupsMeetThroughIt: two ranks (threads) form a Gloo group over it and all-reduce;
//   - wrongTokenRefused: a client with another token is refused and cannot read anything, and
//     the refusal is logged;
//   - hostilePeers: a silent peer, a wrong proof, random bytes, a 100 MB frame (store_probe),
//     an oversized and an unknown request from a proven client, and a flood of unproven
//     connections (the oldest evicted) are each refused and logged; the data and a rightful
//     client are unharmed;
//   - serverMustProveTheToken: a listener that does not know the token is not trusted;
//   - idleFloodCannotKeepARankOut: 80 idle connections held open before any rank connects (more
//     than the store keeps unproven) do not keep a client with the token out;
//   - reconnectingFloodCannotKeepRanksOut: the same flood, reconnecting whatever the store
//     closes, does not either: two ranks get in and are served while it goes on.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/torch.h>
#ifdef SAILOR_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

#include "rendezvous/auth_store.hpp"
#include "rendezvous/rendezvous_store.hpp"

using namespace sailor::runner;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";

std::vector<uint8_t> bytes(const std::string& s) {
  return {s.begin(), s.end()};
}

struct Logged {
  std::mutex mu;
  std::vector<std::string> lines;
  store::Server::Log sink() {
    return [this](const std::string& l) {
      const std::lock_guard<std::mutex> lock(mu);
      lines.push_back(l);
    };
  }
  bool has(const std::string& part) {
    const std::lock_guard<std::mutex> lock(mu);
    for (const auto& l : lines)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
};

// The probe's verdict line (exit 0: the store behaved).
QString probe(const store::Server& server, const QString& mode, const QString& file = {}) {
  QProcess p;
  QStringList args{QString::fromStdString(server.address()), mode};
  if (!file.isEmpty()) args << file;
  p.start(QStringLiteral(SAILOR_STORE_PROBE), args);
  p.waitForFinished(60000);
  const QString out = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
  return p.exitCode() == 0 ? out : QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(out);
}

}  // namespace

class TestRendezvousStore : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void operations() {
    Logged log;
    store::Server server({"127.0.0.1", 0, 2s}, kToken, log.sink());
    AuthStore a("127.0.0.1", server.port(), kToken, 5s);
    AuthStore b("127.0.0.1", server.port(), kToken, 5s);
    a.set("k", bytes("v"));
    QCOMPARE(b.get("k"), bytes("v"));
    QCOMPARE(a.add("n", 3), int64_t{3});
    QCOMPARE(b.add("n", -5), int64_t{-2});
    QCOMPARE(a.get("n"), bytes("-2"));  // counters read as decimal text, as TCPStore's
    QVERIFY(a.check({"k", "n"}));
    QVERIFY(!a.check({"k", "missing"}));
    QCOMPARE(a.getNumKeys(), int64_t{2});
    // compare-and-set: TCPStore's answers.
    QCOMPARE(a.compareSet("c", {}, bytes("1")), bytes("1"));          // created
    QCOMPARE(a.compareSet("c", bytes("0"), bytes("2")), bytes("1"));  // mismatch: unchanged
    QCOMPARE(a.compareSet("c", bytes("1"), bytes("2")), bytes("2"));  // swapped
    QCOMPARE(a.compareSet("d", bytes("x"), bytes("y")), bytes("x"));  // missing, not created
    QVERIFY(!a.check({"d"}));
    QVERIFY(a.deleteKey("k"));
    QVERIFY(!a.deleteKey("k"));
    a.set("text", bytes("abc"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, a.add("text", 1));  // not an integer
    QCOMPARE(a.get("text"), bytes("abc"));                           // and still there
    // A GET waits for the key that another client sets later.
    std::thread setter([&] {
      std::this_thread::sleep_for(200ms);
      AuthStore c("127.0.0.1", server.port(), kToken, 5s);
      c.set("late", bytes("here"));
    });
    QCOMPARE(b.get("late"), bytes("here"));
    setter.join();
    // A WAIT that times out names the key, and the client goes on afterwards.
    try {
      a.wait({"never"}, 300ms);
      QFAIL("wait on a missing key did not time out");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("never") != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find("timed out") != std::string::npos, e.what());
    }
    QCOMPARE(a.get("late"), bytes("here"));
    QCOMPARE(server.refused(), 0);
  }

  void glooGroupsMeetThroughIt() {
#ifndef SAILOR_WITH_GLOO
    QSKIP("Gloo is not built in (no Gloo headers)");
#else
    store::Server server({"127.0.0.1", 0, 2s}, kToken, [](const std::string&) {});
    std::vector<float> sums(2, 0.0F);
    std::vector<std::string> errors(2);
    auto rank = [&](int r) {
      try {
        auto s = c10::make_intrusive<AuthStore>("127.0.0.1", server.port(), kToken, 20s);
        auto prefixed = c10::make_intrusive<c10d::PrefixStore>("gen/0/world", s);
        auto options = c10d::ProcessGroupGloo::Options::create(20s);
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        auto g = c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, r, 2, options);
        std::vector<at::Tensor> t{torch::full({4}, static_cast<float>(r + 1))};
        g->allreduce(t)->wait();
        sums[static_cast<std::size_t>(r)] = t[0][3].item<float>();
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(r)] = e.what();
      }
    };
    std::thread t0(rank, 0), t1(rank, 1);
    t0.join();
    t1.join();
    QVERIFY2(errors[0].empty() && errors[1].empty(), (errors[0] + errors[1]).c_str());
    QCOMPARE(sums[0], 3.0F);
    QCOMPARE(sums[1], 3.0F);
#endif
  }

  void wrongTokenRefused() {
    Logged log;
    store::Server server({"127.0.0.1", 0, 2s}, kToken, log.sink());
    AuthStore a("127.0.0.1", server.port(), kToken, 5s);
    a.set("secret", bytes("s"));
    try {
      AuthStore intruder("127.0.0.1", server.port(), "another-token-of-another-run", 2s);
      QFAIL("a client with another token was let in");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("closed the connection") != std::string::npos, e.what());
    }
    QCOMPARE(server.refused(), 1);
    QVERIFY(log.has("refused 127.0.0.1:"));
    QVERIFY(log.has("wrong token proof"));
    QCOMPARE(a.get("secret"), bytes("s"));
  }

  void hostilePeers() {
    Logged log;
    store::Server server({"127.0.0.1", 0, 1s}, kToken, log.sink());
    AuthStore a("127.0.0.1", server.port(), kToken, 5s);
    a.set("kept", bytes("yes"));
    QVERIFY(probe(server, "silent").startsWith("ok: silent peer closed"));
    QVERIFY(log.has("no token proof within 1000 ms"));
    QVERIFY(probe(server, "wrong-token").startsWith("ok:"));
    QVERIFY(log.has("wrong token proof"));
    QVERIFY(probe(server, "garbage").startsWith("ok:"));
    QVERIFY(log.has("expected a 64-byte token proof"));
    const QString huge = probe(server, "huge");
    QVERIFY2(huge.startsWith("ok: a 100 MB frame refused"), qPrintable(huge));
    QVERIFY(log.has("a first frame of 100 MiB"));
    QCOMPARE(server.refused(), 4);

    // The right token, through the probe: the check above can tell the two apart.
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("token"));
    std::ofstream(file.toStdString()) << kToken << "\n";
    ::chmod(file.toLocal8Bit().constData(), 0600);
    const QString good = probe(server, "good", file);
    QVERIFY2(good.startsWith("ok: proved the token"), qPrintable(good));
    ::chmod(file.toLocal8Bit().constData(), 0644);  // a token others can read is not used
    QVERIFY(probe(server, "good", file).contains("readable or writable by others"));

    // A proven client that sends an oversized or an unknown request is cut off too.
    rawProvenRequest(server, [](int fd) {
      store::Bytes head;
      store::putU32(head, static_cast<std::uint32_t>(store::kMaxFrame + 1));
      (void)!::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    });
    QVERIFY(log.has("more than 4 MiB"));
    rawProvenRequest(server, [](int fd) {
      const store::Bytes f = store::frame(store::Bytes{200, 1, 2});
      (void)!::send(fd, f.data(), f.size(), MSG_NOSIGNAL);
    });
    QVERIFY(log.has("unknown request 200"));
    rawProvenRequest(server, [](int fd) {  // SET whose key length runs past the frame
      const store::Bytes f = store::frame(store::Bytes{1, 0xff, 0xff, 0xff, 0xf0, 'k'});
      (void)!::send(fd, f.data(), f.size(), MSG_NOSIGNAL);
    });
    QVERIFY(log.has("a malformed request (truncated field)"));

    // A flood of connections that never prove anything: the store keeps at most 64 of them,
    // each new one beyond evicting the oldest.
    std::vector<int> flood;
    for (int i = 0; i < 100; ++i) flood.push_back(rawConnect(server));
    QTRY_VERIFY_WITH_TIMEOUT(log.has("the oldest of 64 connections without a token proof"), 10000);
    for (const int fd : flood) ::close(fd);

    QCOMPARE(a.get("kept"), bytes("yes"));
    AuthStore late("127.0.0.1", server.port(), kToken, 5s);
    QCOMPARE(late.get("kept"), bytes("yes"));
    QCOMPARE(late.getNumKeys(), int64_t{1});
  }

  void idleFloodCannotKeepARankOut() {
    Logged log;
    // A proof timeout beyond the test's life: the flood is closed only to make room.
    store::Server server({"127.0.0.1", 0, 60s}, kToken, log.sink());
    std::vector<int> flood;
    for (int i = 0; i < 80; ++i) flood.push_back(rawConnect(server));
    QVERIFY(std::all_of(flood.begin(), flood.end(), [](int fd) { return fd >= 0; }));
    // The store has seen all 80 (it holds at most kMaxUnproven of them) before the rank comes.
    QTRY_VERIFY_WITH_TIMEOUT(server.refused() >= 80 - store::kMaxUnproven, 10000);
    try {
      AuthStore rank("127.0.0.1", server.port(), kToken, 20s);  // 20 s: a hang bound only
      rank.set("k", bytes("v"));
      QCOMPARE(rank.get("k"), bytes("v"));
    } catch (const std::runtime_error& e) {
      QFAIL(e.what());
    }
    QVERIFY(log.has("the oldest of 64 connections without a token proof"));
    for (const int fd : flood) ::close(fd);
  }

  void reconnectingFloodCannotKeepRanksOut() {
    Logged log;
    store::Server server({"127.0.0.1", 0, 60s}, kToken, log.sink());
    std::atomic<bool> stop{false};
    std::atomic<int> held{0};
    std::thread flooder([&] { holdFlood(server, 80, stop, held); });
    QTRY_VERIFY_WITH_TIMEOUT(held.load() == 80, 10000);
    std::vector<std::string> errors(2);
    auto rank = [&](int r) {
      try {
        AuthStore s("127.0.0.1", server.port(), kToken, 20s);  // 20 s: a hang bound only
        s.set("rank" + std::to_string(r), bytes("here"));
        s.get("rank" + std::to_string(1 - r));
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(r)] = e.what();
      }
    };
    std::thread r0(rank, 0), r1(rank, 1);
    r0.join();
    r1.join();
    stop = true;
    flooder.join();
    QVERIFY2(errors[0].empty() && errors[1].empty(), (errors[0] + errors[1]).c_str());
  }

  void serverMustProveTheToken() {
    // A listener that greets like the store but cannot prove the token.
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    QCOMPARE(::listen(fd, 4), 0);
    socklen_t n = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &n);
    std::thread fake([fd] {
      const int c = ::accept(fd, nullptr, nullptr);
      const store::Bytes hello = store::frame(store::randomBytes(store::kNonceSize));
      (void)!::send(c, hello.data(), hello.size(), MSG_NOSIGNAL);
      char buf[68];
      (void)!::recv(c, buf, sizeof buf, MSG_WAITALL);
      const store::Bytes fake_proof = store::frame(store::randomBytes(store::kProofSize));
      (void)!::send(c, fake_proof.data(), fake_proof.size(), MSG_NOSIGNAL);
      ::close(c);
    });
    try {
      AuthStore s("127.0.0.1", ntohs(addr.sin_port), kToken, 5s);
      QFAIL("a store that does not know the token was trusted");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("does not prove the run's token") != std::string::npos,
               e.what());
    }
    fake.join();
    ::close(fd);
  }

 private:
  // Keeps `n` unproven connections open to `server` until `stop`, reading and dropping what the
  // store sends and reconnecting every connection it closes, every 10 ms; `held` counts the
  // open ones.
  static void holdFlood(const store::Server& server, int n, std::atomic<bool>& stop,
                        std::atomic<int>& held) {
    std::vector<int> fds(static_cast<std::size_t>(n), -1);
    while (!stop) {
      int open = 0;
      for (int& fd : fds) {
        if (fd >= 0) {
          char buf[256];
          const ssize_t r = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
          if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            ::close(fd);
            fd = -1;
          }
        }
        if (fd < 0) fd = rawConnect(server);
        open += fd >= 0 ? 1 : 0;
      }
      held = open;
      std::this_thread::sleep_for(10ms);
    }
    for (const int fd : fds)
      if (fd >= 0) ::close(fd);
  }

  static int rawConnect(const store::Server& server) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(server.port()));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  }

  // Proves the token by hand, then lets `send` misbehave and waits for the server to close.
  template <class Send>
  void rawProvenRequest(const store::Server& server, Send send) {
    const int fd = rawConnect(server);
    QVERIFY(fd >= 0);
    char head[4];
    QCOMPARE(::recv(fd, head, 4, MSG_WAITALL), ssize_t{4});
    store::Bytes nonce(store::kNonceSize);
    QCOMPARE(::recv(fd, nonce.data(), nonce.size(), MSG_WAITALL), ssize_t{32});
    const store::Bytes cn = store::randomBytes(store::kNonceSize);
    store::Bytes hello = store::proof(kToken, store::kClientLabel, nonce, cn);
    hello.insert(hello.end(), cn.begin(), cn.end());
    const store::Bytes f = store::frame(hello);
    QCOMPARE(::send(fd, f.data(), f.size(), MSG_NOSIGNAL), static_cast<ssize_t>(f.size()));
    char answer[36];
    QCOMPARE(::recv(fd, answer, sizeof answer, MSG_WAITALL), ssize_t{36});
    const int before = server.refused();
    send(fd);
    char buf[16];
    QCOMPARE(::recv(fd, buf, sizeof buf, 0), ssize_t{0});  // closed by the server
    QCOMPARE(server.refused(), before + 1);
    ::close(fd);
  }
};

QTEST_GUILESS_MAIN(TestRendezvousStore)
#include "test_rendezvous_store.moc"
