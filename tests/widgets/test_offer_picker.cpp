// The "Add pool from catalogue…" dialog (widgets/offer_picker.hpp): every offer of the sheet is
// shown, cheapest on-demand price first; the GPU type, cloud and text filters leave exactly the
// matching rows and select the first; an offer without a spot price disables the Spot box; the
// count defaults to eight instances until the user edits it; the accessors and the summary say
// what was chosen; OK is disabled when no row is left.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>

#include "offer_picker.hpp"
#include "sailor/model/prices.hpp"

using sailor::studio::OfferPicker;

class TestOfferPicker : public QObject {
  Q_OBJECT

 private:
  static sailor::PriceOffer offer(const char* cloud, const char* region, const char* zone,
                                  const char* instance, const char* gpu_type, int gpus, double usd,
                                  std::optional<double> spot, const char* file,
                                  std::vector<int> lines) {
    sailor::PriceOffer o;
    o.cloud = cloud;
    o.region = region;
    o.zone = zone;
    o.instance_type = instance;
    o.accelerator = gpu_type;
    o.gpu_type = gpu_type;
    o.gpus_per_instance = gpus;
    o.usd_per_gpu_hour = usd;
    o.spot_usd_per_gpu_hour = spot;
    o.source = {file, std::move(lines)};
    return o;
  }

  // Six offers across three clouds, in no particular order; two tie on price (gcp, zones
  // europe-west4-a and us-central1-c); the Lambda one has no zone and no spot price.
  static sailor::PriceSheet sheet() {
    sailor::PriceSheet s;
    s.setOffers({offer("aws", "us-east-1", "us-east-1a", "p5.48xlarge", "H100-80", 8, 12.29, 4.10,
                       "aws/vms.csv", {7}),
                 offer("gcp", "us-central1", "us-central1-c", "a2-ultragpu-1g", "A100-80", 1, 5.07,
                       1.60, "gcp/vms.csv", {18, 41}),
                 offer("gcp", "us-central1", "us-central1-a", "a3-highgpu-8g", "H100-80", 8, 11.06,
                       3.50, "gcp/vms.csv", {12, 40}),
                 offer("lambda", "us-east-1", "", "gpu_8x_h100_sxm5", "H100-80", 8, 2.99,
                       std::nullopt, "lambda/vms.csv", {3}),
                 offer("aws", "us-west-2", "us-west-2b", "p4de.24xlarge", "A100-80", 8, 5.12, 2.05,
                       "aws/vms.csv", {9}),
                 offer("gcp", "europe-west4", "europe-west4-a", "a2-ultragpu-8g", "A100-80", 8,
                       5.07, 1.60, "gcp/vms.csv", {20, 41})},
                "SkyPilot catalogues v7: gcp, aws, lambda", "2026-11-30");
    return s;
  }

  template <typename T>
  static T* child(const OfferPicker& picker, const char* name) {
    T* w = picker.findChild<T*>(QString::fromLatin1(name));
    if (!w) qFatal("no child %s", name);
    return w;
  }

  static QPushButton* okButton(const OfferPicker& picker) {
    return picker.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
  }

  // The instance column, top to bottom.
  static QStringList instances(const OfferPicker& picker) {
    const auto* table = child<QTableWidget>(picker, "offers");
    QStringList out;
    for (int row = 0; row < table->rowCount(); ++row)
      out << table->item(row, OfferPicker::ColInstance)->text();
    return out;
  }

  static int selectedRow(const OfferPicker& picker) {
    const QModelIndexList rows =
        child<QTableWidget>(picker, "offers")->selectionModel()->selectedRows();
    return rows.size() == 1 ? rows.front().row() : -1;
  }

 private slots:
  void showsEveryOfferCheapestFirst() {
    const OfferPicker picker(sheet());
    QCOMPARE(picker.visibleOffers(), 6);
    QCOMPARE(instances(picker), QStringList({"gpu_8x_h100_sxm5", "a2-ultragpu-8g", "a2-ultragpu-1g",
                                             "p4de.24xlarge", "a3-highgpu-8g", "p5.48xlarge"}));
    const auto* table = child<QTableWidget>(picker, "offers");
    QCOMPARE(table->columnCount(), 8);
    QCOMPARE(table->horizontalHeaderItem(OfferPicker::ColOnDemand)->text(),
             QStringLiteral("On-demand $/GPU-h"));
    QCOMPARE(table->item(0, OfferPicker::ColCloud)->text(), QStringLiteral("lambda"));
    QCOMPARE(table->item(0, OfferPicker::ColZone)->text(), QStringLiteral("—"));
    QCOMPARE(table->item(0, OfferPicker::ColSpot)->text(), QStringLiteral("—"));
    QCOMPARE(table->item(4, OfferPicker::ColZone)->text(), QStringLiteral("us-central1-a"));
    QCOMPARE(table->item(4, OfferPicker::ColOnDemand)->text(), QStringLiteral("11.06"));
    QCOMPARE(table->item(4, OfferPicker::ColSpot)->text(), QStringLiteral("3.50"));
    QCOMPARE(table->item(4, OfferPicker::ColGpusPerInstance)->text(), QStringLiteral("8"));
    QVERIFY(!(table->item(0, 0)->flags() & Qt::ItemIsEditable));
    QCOMPARE(child<QLabel>(picker, "catalogue")->text(),
             QStringLiteral("SkyPilot catalogues v7: gcp, aws, lambda, dated 2026-11-30"));
    QCOMPARE(selectedRow(picker), 0);
    QCOMPARE(picker.selectedOffer()->instance_type, std::string("gpu_8x_h100_sxm5"));
    QVERIFY(okButton(picker)->isEnabled());
    QCOMPARE(okButton(picker)->text(), QStringLiteral("Add pool"));
  }

  void filterCombosListTheCatalogue() {
    const OfferPicker picker(sheet());
    const auto* gpu = child<QComboBox>(picker, "gpuFilter");
    const auto* cloud = child<QComboBox>(picker, "cloudFilter");
    QCOMPARE(gpu->count(), 3);
    QCOMPARE(gpu->itemText(0), QStringLiteral("All GPU types"));
    QCOMPARE(gpu->itemText(1), QStringLiteral("A100-80"));
    QCOMPARE(gpu->itemText(2), QStringLiteral("H100-80"));
    QCOMPARE(cloud->count(), 4);
    QCOMPARE(cloud->itemText(0), QStringLiteral("All clouds"));
    QCOMPARE(cloud->itemText(1), QStringLiteral("aws"));
    QCOMPARE(cloud->itemText(2), QStringLiteral("gcp"));
    QCOMPARE(cloud->itemText(3), QStringLiteral("lambda"));
    QCOMPARE(child<QLineEdit>(picker, "placeFilter")->placeholderText(),
             QStringLiteral("Region, zone or instance"));
  }

  void gpuFilterNarrowsTheRows() {
    OfferPicker picker(sheet());
    picker.setFilters("H100-80", "", "");
    QCOMPARE(picker.visibleOffers(), 3);
    QCOMPARE(instances(picker), QStringList({"gpu_8x_h100_sxm5", "a3-highgpu-8g", "p5.48xlarge"}));
    QCOMPARE(child<QComboBox>(picker, "gpuFilter")->currentText(), QStringLiteral("H100-80"));
    // Choosing in the combo box, as a user does, filters too.
    child<QComboBox>(picker, "gpuFilter")->setCurrentIndex(1);  // A100-80
    QCOMPARE(picker.visibleOffers(), 3);
    QCOMPARE(instances(picker), QStringList({"a2-ultragpu-8g", "a2-ultragpu-1g", "p4de.24xlarge"}));
    child<QComboBox>(picker, "gpuFilter")->setCurrentIndex(0);
    QCOMPARE(picker.visibleOffers(), 6);
  }

  void cloudFilterNarrowsTheRows() {
    OfferPicker picker(sheet());
    picker.setFilters("", "gcp", "");
    QCOMPARE(picker.visibleOffers(), 3);
    QCOMPARE(instances(picker), QStringList({"a2-ultragpu-8g", "a2-ultragpu-1g", "a3-highgpu-8g"}));
    picker.setFilters("A100-80", "aws", "");
    QCOMPARE(picker.visibleOffers(), 1);
    QCOMPARE(picker.selectedOffer()->instance_type, std::string("p4de.24xlarge"));
    picker.setFilters("H100-80", "lambda", "");
    QCOMPARE(instances(picker), QStringList({"gpu_8x_h100_sxm5"}));
    // A cloud the catalogue does not have leaves no row.
    picker.setFilters("", "azure", "");
    QCOMPARE(picker.visibleOffers(), 0);
  }

  void textFilterMatchesRegionZoneOrInstance() {
    OfferPicker picker(sheet());
    picker.setFilters("", "", "US-CENTRAL1");  // region and zone, either case
    QCOMPARE(instances(picker), QStringList({"a2-ultragpu-1g", "a3-highgpu-8g"}));
    picker.setFilters("", "", "us-east-1");  // Lambda's region, AWS's region and zone
    QCOMPARE(instances(picker), QStringList({"gpu_8x_h100_sxm5", "p5.48xlarge"}));
    picker.setFilters("", "", "west4-a");  // a zone only
    QCOMPARE(instances(picker), QStringList({"a2-ultragpu-8g"}));
    picker.setFilters("", "", "P4DE");  // an instance type
    QCOMPARE(instances(picker), QStringList({"p4de.24xlarge"}));
    picker.setFilters("H100-80", "", "us-east-1");  // with the GPU filter
    QCOMPARE(picker.visibleOffers(), 2);
    // Typing into the line edit filters as the user types.
    picker.setFilters("", "", "");
    QTest::keyClicks(child<QLineEdit>(picker, "placeFilter"), "ultragpu");
    QCOMPARE(instances(picker), QStringList({"a2-ultragpu-8g", "a2-ultragpu-1g"}));
  }

  void aFilterChangeSelectsTheFirstRow() {
    OfferPicker picker(sheet());
    QVERIFY(picker.selectRow(3));
    QCOMPARE(picker.selectedOffer()->instance_type, std::string("p4de.24xlarge"));
    picker.setFilters("H100-80", "", "");
    QCOMPARE(selectedRow(picker), 0);
    QCOMPARE(picker.selectedOffer()->instance_type, std::string("gpu_8x_h100_sxm5"));
    QVERIFY(!picker.selectRow(3));  // three rows left
    QVERIFY(!picker.selectRow(-1));
    QCOMPARE(picker.selectedOffer()->instance_type, std::string("gpu_8x_h100_sxm5"));
  }

  void anOfferWithoutSpotPriceDisablesSpot() {
    OfferPicker picker(sheet());
    auto* spot = child<QCheckBox>(picker, "spot");
    QVERIFY(picker.selectRow(0));  // Lambda: no spot price
    QVERIFY(!spot->isEnabled());
    QVERIFY(!spot->isChecked());
    QVERIFY(!picker.spot());
    QVERIFY(picker.selectRow(4));  // gcp a3-highgpu-8g: has one
    QVERIFY(spot->isEnabled());
    spot->setChecked(true);
    QVERIFY(picker.spot());
    QVERIFY(picker.selectRow(0));  // back to Lambda: the choice is dropped
    QVERIFY(!spot->isEnabled());
    QVERIFY(!spot->isChecked());
    QVERIFY(!picker.spot());
  }

  void countDefaultsToEightInstancesUntilEdited() {
    OfferPicker picker(sheet());
    auto* count = child<QSpinBox>(picker, "count");
    QCOMPARE(count->minimum(), 1);
    QCOMPARE(count->maximum(), 1000000);
    QCOMPARE(picker.count(), 64);  // Lambda, 8 GPUs per instance
    QVERIFY(picker.selectRow(2));  // a2-ultragpu-1g, 1 GPU per instance
    QCOMPARE(picker.count(), 8);
    count->setValue(20);  // the user's count stays from now on
    QVERIFY(picker.selectRow(4));
    QCOMPARE(picker.count(), 20);
    picker.setFilters("", "lambda", "");
    QCOMPARE(picker.count(), 20);
  }

  void accessorsReturnTheChoice() {
    OfferPicker picker(sheet());
    QVERIFY(picker.selectRow(5));
    child<QSpinBox>(picker, "count")->setValue(24);
    child<QCheckBox>(picker, "spot")->setChecked(true);
    const std::optional<sailor::PriceOffer> chosen = picker.selectedOffer();
    QVERIFY(chosen.has_value());
    QCOMPARE(chosen->cloud, std::string("aws"));
    QCOMPARE(chosen->zone, std::string("us-east-1a"));
    QCOMPARE(chosen->instance_type, std::string("p5.48xlarge"));
    QCOMPARE(chosen->usd_per_gpu_hour, 12.29);
    QCOMPARE(*chosen->spot_usd_per_gpu_hour, 4.10);
    QCOMPARE(chosen->source.lines, std::vector<int>({7}));
    QCOMPARE(picker.count(), 24);
    QVERIFY(picker.spot());
    okButton(picker)->click();
    QCOMPARE(picker.result(), int(QDialog::Accepted));
  }

  void summaryNamesCountGpuZoneAndPrice() {
    OfferPicker picker(sheet());
    auto* summary = child<QLabel>(picker, "summary");
    QVERIFY(picker.selectRow(4));
    QCOMPARE(summary->text(), QStringLiteral("64 H100-80 in us-central1-a at 11.06 $/GPU-hour "
                                             "(a3-highgpu-8g, gcp/vms.csv:12,40)"));
    child<QSpinBox>(picker, "count")->setValue(16);
    child<QCheckBox>(picker, "spot")->setChecked(true);
    QCOMPARE(summary->text(), QStringLiteral("16 H100-80 in us-central1-a at 3.50 $/GPU-hour spot "
                                             "(a3-highgpu-8g, gcp/vms.csv:12,40)"));
    QVERIFY(picker.selectRow(0));  // Lambda: no zone, so its region
    QCOMPARE(summary->text(), QStringLiteral("16 H100-80 in us-east-1 at 2.99 $/GPU-hour "
                                             "(gpu_8x_h100_sxm5, lambda/vms.csv:3)"));
  }

  void okIsDisabledWhenNoRowIsLeft() {
    OfferPicker picker(sheet());
    QVERIFY(okButton(picker)->isEnabled());
    picker.setFilters("A100-80", "lambda", "");
    QCOMPARE(picker.visibleOffers(), 0);
    QCOMPARE(child<QTableWidget>(picker, "offers")->rowCount(), 0);
    QVERIFY(!picker.selectedOffer().has_value());
    QVERIFY(!okButton(picker)->isEnabled());
    QVERIFY(!child<QCheckBox>(picker, "spot")->isEnabled());
    QVERIFY(!picker.selectRow(0));
    picker.setFilters("", "", "nowhere");
    QVERIFY(!okButton(picker)->isEnabled());
    picker.setFilters("", "", "");
    QCOMPARE(picker.visibleOffers(), 6);
    QVERIFY(okButton(picker)->isEnabled());
    QCOMPARE(selectedRow(picker), 0);
  }

  void anEmptySheetHasNoRows() {
    const OfferPicker picker{sailor::PriceSheet()};
    QCOMPARE(picker.visibleOffers(), 0);
    QVERIFY(!okButton(picker)->isEnabled());
    QCOMPARE(child<QComboBox>(picker, "gpuFilter")->count(), 1);
  }
};

QTEST_MAIN(TestOfferPicker)
#include "test_offer_picker.moc"
