// The Edit menu's "Add pool from catalogue…" dialog: the offers of the price sheet's cloud
// catalogue (one per instance type and zone), cheapest on-demand price first, narrowed by GPU
// type, cloud and a region, zone or instance text. The user picks one offer, a GPU count and
// whether to pay the spot price. A view only: the caller reads selectedOffer(), count() and
// spot() when the dialog is accepted and adds the pool.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <QDialog>
#include <QString>

#include "sailor/model/prices.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace sailor::studio {

class OfferPicker : public QDialog {
  Q_OBJECT

 public:
  // The most GPUs the count box takes.
  static constexpr int kMaxGpus = 1000000;
  // The columns of the offers table (objectName "offers").
  enum Column {
    ColCloud,
    ColRegion,
    ColZone,
    ColInstance,
    ColGpuType,
    ColGpusPerInstance,
    ColOnDemand,
    ColSpot,
    ColumnCount
  };

  // Copies the sheet's offers; the first one (the cheapest) is selected.
  explicit OfferPicker(const sailor::PriceSheet& sheet, QWidget* parent = nullptr);

  // The offer of the selected row; nothing when no row is selected.
  std::optional<sailor::PriceOffer> selectedOffer() const;
  // The GPUs the pool gets (the "count" spin box).
  int count() const;
  // True when the spot price is chosen (only possible for an offer with one).
  bool spot() const;
  // The rows the filters leave.
  int visibleOffers() const;
  // Sets the GPU type and cloud combo boxes and the text filter as a user would; an empty string
  // is no filter. A GPU type or cloud the catalogue does not have leaves no row.
  void setFilters(const QString& gpu_type, const QString& cloud, const QString& text);
  // Selects row `row` of the table as shown; false (and nothing changes) when there is no such row.
  bool selectRow(int row);

 private:
  void buildFilters(QWidget* parent);
  void buildTable();
  void buildChoice();
  bool passes(const sailor::PriceOffer& offer) const;
  void refilter();            // refills the table and selects its first row
  void onSelectionChanged();  // the count's default, the spot box, OK and the summary
  void updateSummary();
  const sailor::PriceOffer* current() const;  // the selected offer, or null

  std::vector<sailor::PriceOffer> offers_;  // the sheet's offers, in the table's order
  std::vector<std::size_t> shown_;          // the offers_ index of each table row
  bool count_edited_ = false;               // the user changed the count
  bool setting_count_ = false;              // the dialog itself sets the count

  QLabel* catalogue_ = nullptr;
  QComboBox* gpu_filter_ = nullptr;
  QComboBox* cloud_filter_ = nullptr;
  QLineEdit* place_filter_ = nullptr;
  QTableWidget* table_ = nullptr;
  QSpinBox* count_ = nullptr;
  QCheckBox* spot_ = nullptr;
  QLabel* summary_ = nullptr;
  QPushButton* ok_ = nullptr;
};

}  // namespace sailor::studio
