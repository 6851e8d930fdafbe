// The "Add pool from catalogue…" dialog (offer_picker.hpp): a filtered, price-ordered table of
// the price sheet's catalogue offers, a GPU count and a spot price choice.
#include "offer_picker.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sailor::studio {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QString price(double usd) {
  return QString::number(usd, 'f', 2);
}

// A cell that can be selected but not edited; numbers are right-aligned.
QTableWidgetItem* cell(const QString& text, bool numeric = false) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  if (numeric) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

// Where the offer is: its zone, or its region where the catalogue has no zones (Lambda).
QString place(const sailor::PriceOffer& offer) {
  return q(offer.zone.empty() ? offer.region : offer.zone);
}

// The offer's catalogue file and lines: "gcp/vms.csv:12,40".
QString sourceText(const sailor::OfferSource& source) {
  QStringList lines;
  for (int line : source.lines) lines << QString::number(line);
  if (lines.isEmpty()) return q(source.file);
  return q(source.file) + QLatin1Char(':') + lines.join(QLatin1Char(','));
}

// Fills `box` with "all" (no filter, empty data) and then `values`, each its own data.
void fillFilter(QComboBox* box, const QString& all, const std::set<std::string>& values) {
  box->addItem(all, QString());
  for (const std::string& v : values) box->addItem(q(v), q(v));
}

// The value a filter combo box asks for: empty for "all"; nullopt when nothing is chosen.
std::optional<QString> filterValue(const QComboBox* box) {
  if (box->currentIndex() < 0) return std::nullopt;
  return box->currentData().toString();
}

// Chooses `value` in a filter combo box (empty: "all"; a value it lacks: nothing).
void chooseFilter(QComboBox* box, const QString& value) {
  box->setCurrentIndex(value.isEmpty() ? 0 : box->findData(value));
}

}  // namespace

OfferPicker::OfferPicker(const sailor::PriceSheet& sheet, QWidget* parent)
    : QDialog(parent), offers_(sheet.offers()) {
  setObjectName(QStringLiteral("offerPicker"));
  setWindowTitle(tr("Add pool from catalogue"));
  std::stable_sort(
      offers_.begin(), offers_.end(), [](const sailor::PriceOffer& a, const sailor::PriceOffer& b) {
        return std::tie(a.usd_per_gpu_hour, a.cloud, a.zone, a.region, a.instance_type) <
               std::tie(b.usd_per_gpu_hour, b.cloud, b.zone, b.region, b.instance_type);
      });

  catalogue_ = new QLabel(this);
  catalogue_->setObjectName(QStringLiteral("catalogue"));
  catalogue_->setWordWrap(true);
  catalogue_->setText(
      sheet.catalogSource().empty()
          ? tr("The price sheet has no catalogue offers.")
          : tr("%1, dated %2").arg(q(sheet.catalogSource()), q(sheet.catalogDate())));
  auto* filters = new QWidget(this);
  buildFilters(filters);
  buildTable();
  buildChoice();

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  ok_ = buttons->button(QDialogButtonBox::Ok);
  ok_->setText(tr("Add pool"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* choice = new QFormLayout;
  choice->addRow(tr("GPUs:"), count_);
  choice->addRow(QString(), spot_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(catalogue_);
  layout->addWidget(filters);
  layout->addWidget(table_, 1);
  layout->addLayout(choice);
  layout->addWidget(summary_);
  layout->addWidget(buttons);
  resize(900, 520);
  refilter();
}

void OfferPicker::buildFilters(QWidget* parent) {
  std::set<std::string> gpu_types, clouds;
  for (const sailor::PriceOffer& offer : offers_) {
    gpu_types.insert(offer.gpu_type);
    clouds.insert(offer.cloud);
  }
  gpu_filter_ = new QComboBox(parent);
  gpu_filter_->setObjectName(QStringLiteral("gpuFilter"));
  fillFilter(gpu_filter_, tr("All GPU types"), gpu_types);
  cloud_filter_ = new QComboBox(parent);
  cloud_filter_->setObjectName(QStringLiteral("cloudFilter"));
  fillFilter(cloud_filter_, tr("All clouds"), clouds);
  place_filter_ = new QLineEdit(parent);
  place_filter_->setObjectName(QStringLiteral("placeFilter"));
  place_filter_->setPlaceholderText(tr("Region, zone or instance"));
  place_filter_->setClearButtonEnabled(true);

  auto* row = new QHBoxLayout(parent);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(gpu_filter_);
  row->addWidget(cloud_filter_);
  row->addWidget(place_filter_, 1);
  connect(gpu_filter_, &QComboBox::currentIndexChanged, this, &OfferPicker::refilter);
  connect(cloud_filter_, &QComboBox::currentIndexChanged, this, &OfferPicker::refilter);
  connect(place_filter_, &QLineEdit::textChanged, this, &OfferPicker::refilter);
}

void OfferPicker::buildTable() {
  table_ = new QTableWidget(this);
  table_->setObjectName(QStringLiteral("offers"));
  table_->setColumnCount(ColumnCount);
  table_->setHorizontalHeaderLabels({tr("Cloud"), tr("Region"), tr("Zone"), tr("Instance"),
                                     tr("GPU type"), tr("GPUs per instance"),
                                     tr("On-demand $/GPU-h"), tr("Spot $/GPU-h")});
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setAlternatingRowColors(true);
  table_->horizontalHeader()->setStretchLastSection(true);
  connect(table_, &QTableWidget::itemSelectionChanged, this, &OfferPicker::onSelectionChanged);
  // A double-click on a row chooses it, as OK does.
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this] {
    if (current()) accept();
  });
}

void OfferPicker::buildChoice() {
  count_ = new QSpinBox(this);
  count_->setObjectName(QStringLiteral("count"));
  count_->setRange(1, kMaxGpus);
  count_->setValue(8);
  count_->setToolTip(tr("The GPUs of the new pool"));
  connect(count_, &QSpinBox::valueChanged, this, [this] {
    if (!setting_count_) count_edited_ = true;
    updateSummary();
  });
  spot_ = new QCheckBox(tr("Spot price"), this);
  spot_->setObjectName(QStringLiteral("spot"));
  spot_->setToolTip(tr("Price the pool at the offer's spot price (preemptible instances)"));
  connect(spot_, &QCheckBox::toggled, this, &OfferPicker::updateSummary);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
}

bool OfferPicker::passes(const sailor::PriceOffer& offer) const {
  const std::optional<QString> gpu_type = filterValue(gpu_filter_);
  const std::optional<QString> cloud = filterValue(cloud_filter_);
  if (!gpu_type || !cloud) return false;
  if (!gpu_type->isEmpty() && q(offer.gpu_type) != *gpu_type) return false;
  if (!cloud->isEmpty() && q(offer.cloud) != *cloud) return false;
  const QString text = place_filter_->text().trimmed();
  if (text.isEmpty()) return true;
  for (const std::string* field : {&offer.region, &offer.zone, &offer.instance_type})
    if (q(*field).contains(text, Qt::CaseInsensitive)) return true;
  return false;
}

void OfferPicker::refilter() {
  shown_.clear();
  for (std::size_t i = 0; i < offers_.size(); ++i)
    if (passes(offers_[i])) shown_.push_back(i);
  {
    const QSignalBlocker blocker(table_);
    table_->clearSelection();
    table_->setRowCount(0);
    table_->setRowCount(static_cast<int>(shown_.size()));
    const QString none = tr("—", "no zone, or no spot price");
    for (int row = 0; row < table_->rowCount(); ++row) {
      const sailor::PriceOffer& offer = offers_[shown_[static_cast<std::size_t>(row)]];
      table_->setItem(row, ColCloud, cell(q(offer.cloud)));
      table_->setItem(row, ColRegion, cell(q(offer.region)));
      table_->setItem(row, ColZone, cell(offer.zone.empty() ? none : q(offer.zone)));
      table_->setItem(row, ColInstance, cell(q(offer.instance_type)));
      table_->setItem(row, ColGpuType, cell(q(offer.gpu_type)));
      table_->setItem(row, ColGpusPerInstance,
                      cell(QString::number(offer.gpus_per_instance), true));
      table_->setItem(row, ColOnDemand, cell(price(offer.usd_per_gpu_hour), true));
      table_->setItem(
          row, ColSpot,
          cell(offer.spot_usd_per_gpu_hour ? price(*offer.spot_usd_per_gpu_hour) : none, true));
    }
    if (!shown_.empty()) table_->selectRow(0);
  }
  table_->resizeColumnsToContents();
  onSelectionChanged();
}

const sailor::PriceOffer* OfferPicker::current() const {
  const QModelIndexList rows = table_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return nullptr;
  const int row = rows.front().row();
  if (row < 0 || row >= static_cast<int>(shown_.size())) return nullptr;
  return &offers_[shown_[static_cast<std::size_t>(row)]];
}

void OfferPicker::onSelectionChanged() {
  const sailor::PriceOffer* offer = current();
  ok_->setEnabled(offer != nullptr);
  if (offer && !count_edited_) {
    setting_count_ = true;
    count_->setValue(std::clamp(8 * offer->gpus_per_instance, 1, kMaxGpus));
    setting_count_ = false;
  }
  const bool has_spot = offer && offer->spot_usd_per_gpu_hour.has_value();
  if (!has_spot) spot_->setChecked(false);
  spot_->setEnabled(has_spot);
  updateSummary();
}

void OfferPicker::updateSummary() {
  const sailor::PriceOffer* offer = current();
  if (!offer) {
    summary_->setText(shown_.empty() ? tr("No offer matches the filters.")
                                     : tr("Choose an offer."));
    return;
  }
  const QString n = QString::number(count_->value());
  const QString gpu_type = q(offer->gpu_type);
  const QString instance = q(offer->instance_type);
  const QString source = sourceText(offer->source);
  if (spot())
    summary_->setText(tr("%1 %2 in %3 at %4 $/GPU-hour spot (%5, %6)")
                          .arg(n, gpu_type, place(*offer), price(*offer->spot_usd_per_gpu_hour),
                               instance, source));
  else
    summary_->setText(
        tr("%1 %2 in %3 at %4 $/GPU-hour (%5, %6)")
            .arg(n, gpu_type, place(*offer), price(offer->usd_per_gpu_hour), instance, source));
}

std::optional<sailor::PriceOffer> OfferPicker::selectedOffer() const {
  const sailor::PriceOffer* offer = current();
  if (!offer) return std::nullopt;
  return *offer;
}

int OfferPicker::count() const {
  return count_->value();
}

bool OfferPicker::spot() const {
  const sailor::PriceOffer* offer = current();
  return offer && offer->spot_usd_per_gpu_hour.has_value() && spot_->isChecked();
}

int OfferPicker::visibleOffers() const {
  return static_cast<int>(shown_.size());
}

void OfferPicker::setFilters(const QString& gpu_type, const QString& cloud, const QString& text) {
  {
    const QSignalBlocker gpu_blocker(gpu_filter_);
    const QSignalBlocker cloud_blocker(cloud_filter_);
    const QSignalBlocker place_blocker(place_filter_);
    chooseFilter(gpu_filter_, gpu_type);
    chooseFilter(cloud_filter_, cloud);
    place_filter_->setText(text);
  }
  refilter();
}

bool OfferPicker::selectRow(int row) {
  if (row < 0 || row >= table_->rowCount()) return false;
  table_->selectRow(row);
  return true;
}

}  // namespace sailor::studio
