// The Run tab's Resize... dialog: how many GPUs of each (GPU type, zone) an elastic
// run has now, one spin box per place the run's plans and its scenario's pools name, prefilled
// with what the latest plan uses. A view only: the studio asks the run for
// sailor::availabilityOf(chosen()) when the dialog is accepted (widgets never start processes).
#pragma once

#include <cstdint>
#include <vector>

#include <QDialog>
#include <QMetaType>
#include <QString>

#include "sailor/planning/plan.hpp"
#include "sailor/scenario/availability.hpp"
#include "sailor/scenario/scenario.hpp"

class QSpinBox;

namespace sailor::studio {

class ResizeDialog : public QDialog {
  Q_OBJECT

 public:
  // The controller takes up to a million GPUs per place; a spin box that high would only invite
  // typos, and no local run has more than a few processes.
  static constexpr int kMaxGpusPerSite = 1024;

  // sailor::availabilitySites: the places of `plan` and `pools` (plan first, in its order, then
  // the pools not in it), each with the GPUs `plan` uses there (the sum of its replicas' tp
  // degrees).
  static std::vector<sailor::AvailabilitySite> sitesOf(const sailor::Plan& plan,
                                                       const std::vector<sailor::Pool>& pools = {});

  ResizeDialog(std::int64_t run_id, std::vector<sailor::AvailabilitySite> sites,
               QWidget* parent = nullptr);

  // The sites with the counts the spin boxes hold now.
  std::vector<sailor::AvailabilitySite> chosen() const;
  // The spin box of one site (objectName "gpus:TYPE@ZONE"); null when the dialog has none.
  QSpinBox* spinBox(const QString& gpu_type, const QString& zone) const;

 private:
  std::vector<sailor::AvailabilitySite> sites_;
  std::vector<QSpinBox*> boxes_;  // one per site, in order
};

}  // namespace sailor::studio

Q_DECLARE_METATYPE(std::vector<sailor::AvailabilitySite>)
