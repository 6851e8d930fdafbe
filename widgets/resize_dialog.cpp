#include "resize_dialog.hpp"

#include <algorithm>
#include <utility>

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace sailor::studio {

std::vector<GpuSite> ResizeDialog::sitesOf(const sailor::Plan& plan,
                                           const std::vector<sailor::Pool>& pools) {
  std::vector<GpuSite> sites;
  auto find = [&](const std::string& gpu_type, const std::string& zone) -> GpuSite& {
    const QString type = QString::fromStdString(gpu_type);
    const QString where = QString::fromStdString(zone);
    const auto it = std::find_if(sites.begin(), sites.end(), [&](const GpuSite& s) {
      return s.gpu_type == type && s.zone == where;
    });
    if (it != sites.end()) return *it;
    sites.push_back({type, where, 0, 0});
    return sites.back();
  };
  for (const sailor::Stage& stage : plan.stages)
    for (const sailor::Replica& r : stage.replicas) find(r.gpu_type, r.zone).count += r.tp;
  for (const sailor::Pool& p : pools) find(p.gpu_type, p.zone).pool += p.count;
  return sites;
}

ResizeDialog::ResizeDialog(std::int64_t run_id, std::vector<GpuSite> sites, QWidget* parent)
    : QDialog(parent), sites_(std::move(sites)) {
  setObjectName(QStringLiteral("resizeDialog"));
  setWindowTitle(tr("Resize run %1").arg(run_id));
  auto* intro = new QLabel(tr("The GPUs the run has now in each zone. The run re-plans on them "
                              "and goes on without restarting the workers that stay."),
                           this);
  intro->setWordWrap(true);
  auto* form = new QFormLayout;
  for (const GpuSite& site : sites_) {
    auto* box = new QSpinBox(this);
    box->setObjectName(QStringLiteral("gpus:%1@%2").arg(site.gpu_type, site.zone));
    // A pool's size bounds what the user can say the run has there; more than it would be
    // refused by nothing, but cannot be true of the scenario the run was planned on.
    box->setRange(0, site.pool > 0 ? std::max(site.pool, site.count) : kMaxGpusPerSite);
    box->setValue(site.count);
    box->setToolTip(site.pool > 0 ? tr("%1 in the scenario's pool").arg(site.pool) : QString());
    form->addRow(tr("%1 in %2:").arg(site.gpu_type, site.zone), box);
    boxes_.push_back(box);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("&Resize"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(buttons);
}

std::vector<GpuSite> ResizeDialog::chosen() const {
  std::vector<GpuSite> out = sites_;
  for (std::size_t i = 0; i < out.size(); ++i) out[i].count = boxes_[i]->value();
  return out;
}

QSpinBox* ResizeDialog::spinBox(const QString& gpu_type, const QString& zone) const {
  for (std::size_t i = 0; i < sites_.size(); ++i)
    if (sites_[i].gpu_type == gpu_type && sites_[i].zone == zone) return boxes_[i];
  return nullptr;
}

}  // namespace sailor::studio
