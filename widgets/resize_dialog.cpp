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

std::vector<sailor::AvailabilitySite> ResizeDialog::sitesOf(
    const sailor::Plan& plan, const std::vector<sailor::Pool>& pools) {
  return sailor::availabilitySites(plan, pools);
}

ResizeDialog::ResizeDialog(std::int64_t run_id, std::vector<sailor::AvailabilitySite> sites,
                           QWidget* parent)
    : QDialog(parent), sites_(std::move(sites)) {
  setObjectName(QStringLiteral("resizeDialog"));
  setWindowTitle(tr("Resize run %1").arg(run_id));
  auto* intro = new QLabel(tr("The GPUs the run has now in each zone. The run re-plans on them "
                              "and goes on without restarting the workers that stay."),
                           this);
  intro->setWordWrap(true);
  auto* form = new QFormLayout;
  for (const sailor::AvailabilitySite& site : sites_) {
    const QString gpu_type = QString::fromStdString(site.gpu_type);
    const QString zone = QString::fromStdString(site.zone);
    auto* box = new QSpinBox(this);
    box->setObjectName(QStringLiteral("gpus:%1@%2").arg(gpu_type, zone));
    // A pool's size bounds what the user can say the run has there; more than it would be
    // refused by nothing, but cannot be true of the scenario the run was planned on.
    box->setRange(0, site.pool > 0 ? std::max(site.pool, site.count) : kMaxGpusPerSite);
    box->setValue(site.count);
    box->setToolTip(site.pool > 0 ? tr("%1 in the scenario's pool").arg(site.pool) : QString());
    form->addRow(tr("%1 in %2:").arg(gpu_type, zone), box);
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

std::vector<sailor::AvailabilitySite> ResizeDialog::chosen() const {
  std::vector<sailor::AvailabilitySite> out = sites_;
  for (std::size_t i = 0; i < out.size(); ++i) out[i].count = boxes_[i]->value();
  return out;
}

QSpinBox* ResizeDialog::spinBox(const QString& gpu_type, const QString& zone) const {
  for (std::size_t i = 0; i < sites_.size(); ++i)
    if (QString::fromStdString(sites_[i].gpu_type) == gpu_type &&
        QString::fromStdString(sites_[i].zone) == zone)
      return boxes_[i];
  return nullptr;
}

}  // namespace sailor::studio
