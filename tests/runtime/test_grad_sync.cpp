// The data-parallel gradient sum (runner/src/training/grad_sync.hpp) between two replicas, each a
// thread of this process with its own Gloo group over one in-process store. Each replica runs two
// microbatches of a small model of five parameters whose first, w0, the backward never reaches.
// Buckets of at most 128 elements in the reverse order of the parameters (200, 32, 32, 64, 16
// elements): {w4} (larger than a bucket: alone), {w3, w2, w1}, {w0}.
//  - without overlap no bucket starts before finish(); with overlap the two buckets before the
//    one holding w0 start from the hooks during the last backward, and the one holding w0 (no
//    gradient in that backward) starts in finish();
//  - either way every gradient is the sum over both replicas of both microbatches' gradients;
//  - reduce-scattered (the distributed optimizer), each replica holds the sum of its half of
//    every bucket, and gathering the halves gives every replica the same sums.
#include <thread>
#include <vector>

#include <QTest>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#ifdef SAILOR_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

#include "training/grad_sync.hpp"

using sailor::runner::GroupPtr;
using sailor::runner::Param;
using sailor::runner::ReplicaGradientSum;

namespace {

// What one replica saw: its gradients after finish() and the buckets started by the hooks.
struct ReplicaResult {
  std::vector<torch::Tensor> grads;
  int started_during_backward = -1;
  std::size_t buckets = 0;
  std::string error;
};

// Parameter k of replica r's microbatch u: its loss is sum(w_k * coefficient(k, r, u)), so that
// its gradient is the coefficient itself.
torch::Tensor coefficient(int k, int r, int u, std::int64_t n) {
  return torch::arange(n, torch::kFloat64) * (k + 1) + 100.0 * r + 10.0 * u;
}

const std::vector<std::int64_t> kSizes{16, 64, 32, 32, 200};  // w0 .. w4

ReplicaResult runReplica(const c10::intrusive_ptr<c10d::Store>& store, int rank, bool overlap,
                         bool scatter) {
  ReplicaResult out;
  try {
#ifdef SAILOR_WITH_GLOO
    auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(60));
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    GroupPtr group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, 2, options);
#else
    GroupPtr group;
#endif
    std::vector<Param> params;
    for (std::size_t k = 0; k < kSizes.size(); ++k) {
      Param p;
      p.name = "w" + std::to_string(k);
      p.value = torch::ones({kSizes[k]}, torch::kFloat64).requires_grad_(true);
      p.full_shape = {kSizes[k]};
      params.push_back(std::move(p));
    }
    ReplicaGradientSum::Options sum_options;
    sum_options.dp = group;
    sum_options.bucket_elements = 128;
    sum_options.overlap = overlap;
    sum_options.scatter = scatter;
    ReplicaGradientSum sum(params, sum_options);
    for (int u = 0; u < 2; ++u) {
      if (u == 1) sum.armForLastBackward();
      torch::Tensor loss = torch::zeros({}, torch::kFloat64);
      for (std::size_t k = 1; k < kSizes.size(); ++k)  // w0 unused
        loss =
            loss + (params[k].value * coefficient(static_cast<int>(k), rank, u, kSizes[k])).sum();
      loss.backward();
    }
    params.front().value.mutable_grad() = torch::zeros_like(params.front().value);
    sum.finish();
    out.started_during_backward = sum.startedDuringBackward();
    out.buckets = sum.bucketCount();
    if (!scatter) {
      for (Param& p : params) out.grads.push_back(p.value.grad().clone());
    } else {
      std::vector<torch::Tensor> shares;
      for (std::size_t b = 0; b < sum.bucketCount(); ++b) {
        if (sum.shareGradient(b).numel() != sum.shareElements(b))
          throw std::runtime_error("share of bucket " + std::to_string(b) + " has " +
                                   std::to_string(sum.shareGradient(b).numel()) + " elements");
        shares.push_back(sum.shareGradient(b));
      }
      out.grads.resize(params.size());
      sum.gather(shares, [&](std::size_t k, const torch::Tensor& t) { out.grads[k] = t.clone(); });
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace

class TestGradSync : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void replicasSumWithAndWithoutOverlap_data() {
    QTest::addColumn<bool>("overlap");
    QTest::addColumn<bool>("scatter");
    QTest::newRow("after the backward") << false << false;
    QTest::newRow("overlapped") << true << false;
    QTest::newRow("reduce-scattered after the backward") << false << true;
    QTest::newRow("reduce-scattered, overlapped") << true << true;
  }
  void replicasSumWithAndWithoutOverlap() {
#ifndef SAILOR_WITH_GLOO
    QSKIP("libtorch without Gloo");
#endif
    QFETCH(bool, overlap);
    QFETCH(bool, scatter);
    auto store = c10::make_intrusive<c10d::HashStore>();
    ReplicaResult results[2];
    std::thread other([&] { results[1] = runReplica(store, 1, overlap, scatter); });
    results[0] = runReplica(store, 0, overlap, scatter);
    other.join();
    for (const ReplicaResult& r : results) {
      QVERIFY2(r.error.empty(), r.error.c_str());
      QCOMPARE(r.buckets, std::size_t{3});
      QCOMPARE(r.started_during_backward, overlap ? 2 : 0);
    }
    for (std::size_t k = 0; k < kSizes.size(); ++k) {
      torch::Tensor want = torch::zeros({kSizes[k]}, torch::kFloat64);
      if (k > 0)
        for (int r = 0; r < 2; ++r)
          for (int u = 0; u < 2; ++u) want += coefficient(static_cast<int>(k), r, u, kSizes[k]);
      for (const ReplicaResult& r : results)
        QVERIFY2(torch::equal(r.grads[k], want), qPrintable(QString("w%1").arg(k)));
    }
  }
};

QTEST_GUILESS_MAIN(TestGradSync)
#include "test_grad_sync.moc"
