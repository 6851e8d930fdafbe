// SkyPilot's GPU price catalogues read into price offers (sailor/model/skypilot_catalog.hpp,
// sailor/core/csv.hpp, sailor/model/prices.hpp; docs/prices.md): the strict CSV reader, case by
// case; small catalogues written here (GCP's host + accelerator rule, the n1 host rule, skips,
// duplicates); malformed catalogues refused naming file, line and column with the output sheet
// left as it was; the sheet written and read back; the shipped sheet without offers. With the
// reference extracts beside the project (../shared/reference/skypilot/catalogs/v7), also their
// counts and prices checked against rows picked by hand.
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <QTemporaryDir>
#include <QTest>

#include "sailor/core/csv.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/model/skypilot_catalog.hpp"
#include "sailor/scenario/offer_pools.hpp"
#include "sailor/scenario/scenario.hpp"
#include "test_support.hpp"

using namespace sailor;
namespace fs = std::filesystem;

namespace {

const char* const kAwsHeader =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n";
const char* const kGcpHeader =
    "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
    "AvailabilityZone,Price,SpotPrice\n";
const char* const kP5Row =
    "p5.48xlarge,H100,8.0,192.0,2048.0,\"{'Gpus': [{'Name': 'H100', 'Count': 8}]}\",98.32,"
    "30.684600,us-east-1,use1-az1\n";

void writeFile(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const PriceOffer* findOffer(const std::vector<PriceOffer>& offers, const std::string& zone,
                            const std::string& instance_type) {
  for (const auto& o : offers)
    if ((o.zone == zone || (o.zone.empty() && o.region == zone)) &&
        o.instance_type == instance_type)
      return &o;
  return nullptr;
}

const SkippedCatalogRow* findSkip(const SkyPilotImport& imp, const std::string& file, int line) {
  for (const auto& s : imp.skipped)
    if (s.file == file && s.line == line) return &s;
  return nullptr;
}

std::string referenceDir() {
  return test::sharedDir() + "/reference/skypilot/catalogs/v7";
}

}  // namespace

class TestSkyPilotImport : public QObject {
  Q_OBJECT

 private slots:
  // RFC 4180: quoted commas, doubled quotes, a quoted line break, CRLF, no final line ending.
  void csvReadsQuotedFieldsAndLineEndings() {
    const CsvTable t = parseCsv(
        "a,b,c\r\n1,\"x, y\",\"say \"\"hi\"\"\"\r\n2,\"two\nlines\",\xC3\xA9\n3,,", "t.csv");
    QCOMPARE(t.header, (std::vector<std::string>{"a", "b", "c"}));
    QCOMPARE(t.rows.size(), size_t{3});
    QCOMPARE(t.rows[0].fields, (std::vector<std::string>{"1", "x, y", "say \"hi\""}));
    QCOMPARE(t.rows[1].fields, (std::vector<std::string>{"2", "two\nlines", "\xC3\xA9"}));
    QCOMPARE(t.rows[1].line, 3);
    QCOMPARE(t.rows[2].line, 5);  // the quoted line break counts as a line
    QCOMPARE(t.rows[2].fields, (std::vector<std::string>{"3", "", ""}));
    QCOMPARE(t.column("c"), 2);
    QCOMPARE(t.column("d"), -1);
  }

  void csvRefusesMalformedText_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty file") << QByteArray("") << "t.csv:1:1"
                                << "a header line";
    QTest::newRow("empty column name") << QByteArray("a,,c\n") << "t.csv:1:2"
                                       << "non-empty";
    QTest::newRow("column twice") << QByteArray("a,b,a\n") << "t.csv:1:3"
                                  << "distinct";
    QTest::newRow("too few fields") << QByteArray("a,b,c\n1,2,3\n4,5\n") << "t.csv:3:3 (c)"
                                    << "3 fields, as the header has (a,b,c)";
    QTest::newRow("too many fields") << QByteArray("a,b\n1,2,3\n") << "t.csv:2:3"
                                     << "2 fields";
    QTest::newRow("empty line") << QByteArray("a,b\n1,2\n\n3,4\n") << "t.csv:3:2 (b)"
                                << "2 fields";
    QTest::newRow("unterminated quote") << QByteArray("a,b\n1,\"open\n2,3\n") << "t.csv:2:2 (b)"
                                        << "a closing quote";
    QTest::newRow("quote inside a field") << QByteArray("a,b\n1,x\"y\n") << "t.csv:2:2 (b)"
                                          << "quoted whole";
    QTest::newRow("text after a closing quote") << QByteArray("a,b\n\"1\"x,2\n") << "t.csv:2:1 (a)"
                                                << "a comma or the end of the line";
    QTest::newRow("lone carriage return") << QByteArray("a,b\n1,2\r3,4\n") << "t.csv:2:2 (b)"
                                          << "LF or CRLF";
    QTest::newRow("not UTF-8") << QByteArray("a,b\n1,\xFF\n") << "t.csv:2:2 (b)"
                               << "UTF-8 text";
    QTest::newRow("not UTF-8, quoted") << QByteArray("a,b\n\"\xC3(\",1\n") << "t.csv:2:1 (a)"
                                       << "UTF-8 text";
  }

  void csvRefusesMalformedText() {
    QFETCH(QByteArray, text);
    QFETCH(QString, field);
    QFETCH(QString, expected);
    const QString m = test::inputErrorOf(
        [&] { parseCsv(std::string_view(text.constData(), size_t(text.size())), "t.csv"); });
    SAILOR_VERIFY_MESSAGE(m, (QStringList{field + ": got ", expected}));
  }

  // GCP: host row + accelerator row of the same zone and count; the n1 rule; skips.
  void gcpAddsHostAndAcceleratorRows() {
    QTemporaryDir dir;
    writeFile(dir.path().toStdString() + "/gcp/vms.csv",
              std::string(kGcpHeader) +
                  "a2-highgpu-8g,96.0,680.0,,,,us-central1,us-central1-a,5.91582,2.36604\n"  // 2
                  "a2-highgpu-8g,96.0,680.0,,,,us-central1,us-central1-b,5.91582,\n"         // 3
                  "a3-ultragpu-8g,224.0,2952.0,,,,us-central1,us-central1-a,80.0,\n"         // 4
                  "n1-standard-4,4.0,15.0,,,,us-central1,us-central1-a,0.19,0.042\n"         // 5
                  "n1-standard-8,8.0,30.0,,,,us-central1,us-central1-a,0.38,0.08399\n"       // 6
                  "n1-highmem-8,8.0,52.0,,,,us-central1,us-central1-a,0.47321,0.10399\n"     // 7
                  "e2-standard-4,4.0,16.0,,,,us-central1,us-central1-a,0.13,0.04\n"          // 8
                  ",,,A100,8,{},us-central1,us-central1-a,23.47126,9.1776\n"                 // 9
                  ",,,A100,8,{},us-central1,us-central1-b,23.47126,9.1776\n"                 // 10
                  ",,,A100,4,{},us-central1,us-central1-a,11.73563,4.5888\n"                 // 11
                  ",,,T4,1,{},us-central1,us-central1-a,0.35,0.14\n"                         // 12
                  ",,,V100,1,{},us-central1,us-central1-a,2.48,0.9466\n"                     // 13
                  ",,,V100,8,{},us-central1,us-central1-a,19.84,7.5728\n"                    // 14
                  ",,,P100,1,{},us-central1,us-central1-a,1.46,0.43\n");                     // 15
    const SkyPilotImport imp = importSkyPilotCatalogs(dir.path().toStdString(), "2026-12-01");
    QCOMPARE(imp.date, std::string("2026-12-01"));
    QCOMPARE(imp.offers.size(), size_t{4});
    // a2-highgpu-8g in us-central1-a: (5.91582 + 23.47126) / 8 on demand, (2.36604 + 9.1776) / 8
    // spot (lines 2 and 9).
    const PriceOffer* a2 = findOffer(imp.offers, "us-central1-a", "a2-highgpu-8g");
    QVERIFY(a2);
    QCOMPARE(a2->gpu_type, std::string("A100-40"));
    QCOMPARE(a2->gpus_per_instance, 8);
    SAILOR_COMPARE_REL(a2->usd_per_gpu_hour, (5.91582 + 23.47126) / 8, 1e-12);
    SAILOR_COMPARE_REL(*a2->spot_usd_per_gpu_hour, (2.36604 + 9.1776) / 8, 1e-12);
    QCOMPARE(a2->source.lines, (std::vector<int>{2, 9}));
    // us-central1-b: the host has no spot price, so the offer has none.
    const PriceOffer* a2b = findOffer(imp.offers, "us-central1-b", "a2-highgpu-8g");
    QVERIFY(a2b && !a2b->spot_usd_per_gpu_hour);
    // One T4: SkyPilot asks 4 vCPUs and 16 GiB; n1-standard-4 has 15 GiB, so n1-standard-8.
    // One V100: 8 vCPUs and 32 GiB: n1-highmem-8 (n1-standard-8 has 30 GiB).
    std::map<std::string, const PriceOffer*> n1;
    for (const auto& o : imp.offers)
      if (o.instance_type.rfind("n1-", 0) == 0) n1[o.accelerator] = &o;
    QCOMPARE(n1.size(), size_t{2});
    QCOMPARE(n1.at("T4")->instance_type, std::string("n1-standard-8"));
    SAILOR_COMPARE_REL(n1.at("T4")->usd_per_gpu_hour, 0.38 + 0.35, 1e-12);
    QCOMPARE(n1.at("V100")->instance_type, std::string("n1-highmem-8"));
    QCOMPARE(n1.at("V100")->gpu_type, std::string("V100-16"));
    SAILOR_COMPARE_REL(n1.at("V100")->usd_per_gpu_hour, 0.47321 + 2.48, 1e-12);
    QCOMPARE(n1.at("V100")->source.lines, (std::vector<int>{7, 13}));
    // Every other row is skipped with its reason.
    const std::map<int, QString> reasons = {
        {4, "without its accelerator row (8 x H200"},
        {5, "an n1 host VM"},
        {8, "pairs with no accelerator (e2-standard-4)"},
        {11, "no host row of its zone pairs with (4 x A100"},
        {14, "no priced n1 host in us-central1-a with at least 64 vCPUs"},
        {15, "accelerator P100: no GPU type"},
    };
    QCOMPARE(imp.skipped.size(), reasons.size());
    for (const auto& [line, reason] : reasons) {
      const SkippedCatalogRow* s = findSkip(imp, "gcp/vms.csv", line);
      QVERIFY2(s, qPrintable(QString("line %1 not skipped").arg(line)));
      SAILOR_VERIFY_MESSAGE(QString::fromStdString(s->reason), QStringList{reason});
    }
  }

  // The mapping table: H100-MEGA is the catalogue's H100-80 (its node list names a3-megagpu-8g);
  // names without a catalogue type map to nothing; every mapped type is in the catalogue.
  void acceleratorNamesMapToCatalogueTypes() {
    QCOMPARE(skyPilotGpuType("gcp", "H100-MEGA"), std::string("H100-80"));
    QCOMPARE(skyPilotGpuType("aws", "A100"), std::string("A100-40"));
    QCOMPARE(skyPilotGpuType("lambda", "A100-80GB"), std::string("A100-80"));
    QCOMPARE(skyPilotGpuType("aws", "V100-32GB"), std::string("V100-32"));
    QCOMPARE(skyPilotGpuType("lambda", "GH200"), std::string("GH-96"));
    QCOMPARE(skyPilotGpuType("aws", "L40S"), std::string());
    QCOMPARE(skyPilotGpuType("gcp", "P100"), std::string());
    const Catalog cat = Catalog::load(test::resources());
    for (const char* name : {"A100", "A100-80GB", "H100", "H100-MEGA", "H200", "GH200", "V100",
                             "V100-32GB", "L4", "A10G", "T4"})
      QVERIFY2(cat.findGpu(skyPilotGpuType("gcp", name)), name);
  }

  // AWS: one row, one instance; duplicates of one zone and instance type are skipped, a row
  // repeated byte for byte is an error.
  void awsRowsAndDuplicates() {
    QTemporaryDir dir;
    const std::string p4de =
        "p4de.24xlarge,A100-80GB,8.0,96.0,1152.0,\"{'Name': 'A100'}\",40.96575,5.8171,"
        "us-east-1,use1-az4\n"
        "p4de.24xlarge,A100-80GB,8.0,96.0,1152.0,\"{'Name': 'A100-80GB'}\",40.96575,,"
        "us-east-1,use1-az4\n";
    writeFile(dir.path().toStdString() + "/aws/vms.csv",
              std::string(kAwsHeader) + kP5Row + p4de +
                  "p5e.48xlarge,H200,8.0,192.0,2048.0,{},,,us-east-2,use2-az3\n"
                  "m5.large,,,2.0,8.0,,0.096,0.03,us-east-1,use1-az1\n");
    const SkyPilotImport imp = importSkyPilotCatalogs(dir.path().toStdString());
    QCOMPARE(imp.offers.size(), size_t{1});
    const PriceOffer& p5 = imp.offers[0];
    QCOMPARE(p5.zone, std::string("use1-az1"));
    SAILOR_COMPARE_REL(p5.usd_per_gpu_hour, 98.32 / 8, 1e-12);
    SAILOR_COMPARE_REL(*p5.spot_usd_per_gpu_hour, 30.6846 / 8, 1e-12);
    QCOMPARE(imp.skipped.size(), size_t{4});
    SAILOR_VERIFY_MESSAGE(QString::fromStdString(findSkip(imp, "aws/vms.csv", 3)->reason),
                          (QStringList{"duplicate offer: line 4", "GpuInfo, SpotPrice"}));
    SAILOR_VERIFY_MESSAGE(QString::fromStdString(findSkip(imp, "aws/vms.csv", 4)->reason),
                          (QStringList{"duplicate offer: line 3", "neither is taken"}));
    SAILOR_VERIFY_MESSAGE(QString::fromStdString(findSkip(imp, "aws/vms.csv", 5)->reason),
                          QStringList{"Price is empty"});
    SAILOR_VERIFY_MESSAGE(QString::fromStdString(findSkip(imp, "aws/vms.csv", 6)->reason),
                          QStringList{"CPU-only"});
    // The file's modification time is the catalogue's date.
    QVERIFY(imp.date.size() == 20 && imp.date.back() == 'Z');
    QCOMPARE(imp.files.size(), size_t{1});
    QCOMPARE(imp.files[0].rows, 5);
  }

  // Malformed catalogues: an error naming file, line and column; the sheet is not written.
  void malformedCataloguesLeaveTheSheet_data() {
    QTest::addColumn<QByteArray>("aws");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    const QByteArray header(kAwsHeader);
    const QByteArray row(kP5Row);
    QTest::newRow("missing column")
        << QByteArray(
               "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\n"
               "p5.48xlarge,H100,8.0,98.32,us-east-1\n")
        << "aws/vms.csv:1:6"
        << "a column named SpotPrice";
    QTest::newRow("missing field") << header +
                                          "p5.48xlarge,H100,8.0,192.0,2048.0,{},98.32,30.6,"
                                          "us-east-1\n"
                                   << "aws/vms.csv:2:10 (AvailabilityZone)"
                                   << "10 fields";
    QTest::newRow("decimal comma")
        << header + row + "p5.48xlarge,H100,8.0,192.0,2048.0,{},98,32,1.0,us-east-1,use1-az2\n"
        << "aws/vms.csv:3:11"
        << "10 fields";
    QTest::newRow("word for a price")
        << header + row + "p5.48xlarge,H100,8.0,192.0,2048.0,{},ninety,1.0,us-east-1,use1-az2\n"
        << "aws/vms.csv:3:7 (Price)"
        << "a number of USD per hour >= 0";
    QTest::newRow("negative price")
        << header + "p5.48xlarge,H100,8.0,192.0,2048.0,{},-98.32,1.0,us-east-1,use1-az2\n"
        << "aws/vms.csv:2:7 (Price)"
        << "a number of USD per hour >= 0";
    QTest::newRow("spaced price")
        << header + "p5.48xlarge,H100,8.0,192.0,2048.0,{}, 98.32,,us-east-1,use1-az2\n"
        << "aws/vms.csv:2:7 (Price)"
        << "a number of USD per hour >= 0";
    QTest::newRow("exponent without digits")
        << header + "p5.48xlarge,H100,8.0,192.0,2048.0,{},98.32,1e,us-east-1,use1-az2\n"
        << "aws/vms.csv:2:8 (SpotPrice)"
        << "a number of USD per hour >= 0";
    QTest::newRow("nan spot price")
        << header + "p5.48xlarge,H100,8.0,192.0,2048.0,{},98.32,nan,us-east-1,use1-az2\n"
        << "aws/vms.csv:2:8 (SpotPrice)"
        << "a number of USD per hour >= 0";
    QTest::newRow("non-number count")
        << header + "p5.48xlarge,H100,eight,192.0,2048.0,{},98.32,,us-east-1,use1-az2\n"
        << "aws/vms.csv:2:3 (AcceleratorCount)"
        << "a GPU count";
    QTest::newRow("repeated row") << header + row + row << "aws/vms.csv:3"
                                  << "each row once";
    QTest::newRow("not UTF-8") << header + row + "p5.48xlarge\xC0\xAF,H100,8.0\n"
                               << "aws/vms.csv:3:1 (InstanceType)"
                               << "UTF-8 text";
    QTest::newRow("unterminated quote")
        << header + "p5.48xlarge,H100,8.0,192.0,2048.0,\"{'Gpus': 8,98.32,,us-east-1,use1-az1\n"
        << "aws/vms.csv:2:6 (GpuInfo)"
        << "a closing quote";
  }

  void malformedCataloguesLeaveTheSheet() {
    QFETCH(QByteArray, aws);
    QFETCH(QString, field);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    writeFile(root + "/cat/aws/vms.csv", aws.toStdString());
    const std::string sheet = root + "/out/sheet.json";
    const std::string fresh = root + "/out/new.json";
    writeFile(sheet, "{\"gpu_prices\": []}\n");
    for (const std::string& target : {sheet, fresh}) {
      const QString m = test::inputErrorOf(
          [&] { importSkyPilotPriceSheet(root + "/cat", target, "2026-12-01"); });
      SAILOR_VERIFY_MESSAGE(m, (QStringList{field + ": got ", expected}));
    }
    QCOMPARE(readWhole(sheet), std::string("{\"gpu_prices\": []}\n"));
    QVERIFY(!fs::exists(fresh));
    QCOMPARE(std::distance(fs::directory_iterator(root + "/out"), fs::directory_iterator()), 1);
  }

  void directoryWithoutCataloguesIsAnError() {
    QTemporaryDir dir;
    const QString m = test::inputErrorOf([&] { importSkyPilotCatalogs(dir.path().toStdString()); });
    SAILOR_VERIFY_MESSAGE(m, (QStringList{dir.path() + ": got ", "gcp/vms.csv"}));
    QTemporaryDir cat;
    writeFile(cat.path().toStdString() + "/lambda/vms.csv", "InstanceType\n");
    const QString d = test::inputErrorOf(
        [&] { importSkyPilotCatalogs(cat.path().toStdString(), "December 2026"); });
    SAILOR_VERIFY_MESSAGE(d, (QStringList{"December 2026", "YYYY-MM-DD"}));
  }

  // The sheet written (atomically) and read back: every offer field, the catalogue's date and
  // source; the region's price is its cheapest offer.
  void sheetRoundTrip() {
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    writeFile(root + "/cat/aws/vms.csv",
              std::string(kAwsHeader) + kP5Row +
                  "p5.48xlarge,H100,8.0,192.0,2048.0,{},98.32,28.2404,us-east-1,use1-az2\n"
                  "g5.xlarge,A10G,1.0,4.0,16.0,{},1.006,,us-east-1,use1-az1\n");
    writeFile(root + "/cat/lambda/vms.csv",
              "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
              "GpuInfo,SpotPrice\r\n"
              "gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,23.92,us-east-1,\"{'Gpus': []}\",\r\n");
    const std::string path = root + "/sheet.json";
    const SkyPilotImport imp = importSkyPilotPriceSheet(root + "/cat", path, "2026-12-06");
    QCOMPARE(imp.offers.size(), size_t{4});
    const PriceSheet back = PriceSheet::load(path);
    QCOMPARE(back.catalogDate(), std::string("2026-12-06"));
    QCOMPARE(back.catalogSource(), imp.source);
    QCOMPARE(back.offers().size(), imp.offers.size());
    for (size_t i = 0; i < imp.offers.size(); ++i) {
      const PriceOffer& a = imp.offers[i];
      const PriceOffer& b = back.offers()[i];
      QCOMPARE(b.cloud, a.cloud);
      QCOMPARE(b.region, a.region);
      QCOMPARE(b.zone, a.zone);
      QCOMPARE(b.instance_type, a.instance_type);
      QCOMPARE(b.accelerator, a.accelerator);
      QCOMPARE(b.gpu_type, a.gpu_type);
      QCOMPARE(b.gpus_per_instance, a.gpus_per_instance);
      QCOMPARE(b.usd_per_gpu_hour, a.usd_per_gpu_hour);  // exact: JSON keeps every digit
      QCOMPARE(b.spot_usd_per_gpu_hour, a.spot_usd_per_gpu_hour);
      QCOMPARE(b.source.file, a.source.file);
      QCOMPARE(b.source.lines, a.source.lines);
    }
    const PriceOffer* lambda = findOffer(back.offers(), "us-east-1", "gpu_8x_h100_sxm5");
    QVERIFY(lambda && lambda->zone.empty() && !lambda->spot_usd_per_gpu_hour);
    // H100-80 in us-east-1: Lambda's 23.92 / 8 = 2.99 beats AWS's 98.32 / 8.
    SAILOR_COMPARE_REL(*back.usdPerGpuHour("us-east-1", "H100-80"), 2.99, 1e-12);
    QVERIFY(!back.usdPerGpuHour("us-east-1", "T4"));
    // Written again over itself: same text, no temporary file left.
    const std::string first = readWhole(path);
    back.save(path);
    QCOMPARE(readWhole(path), first);
    QCOMPARE(std::distance(fs::directory_iterator(root), fs::directory_iterator()), 2);
    // A directory that does not exist: an error naming the path, nothing created.
    const QString m = test::inputErrorOf([&] { back.save(root + "/missing/sheet.json"); });
    SAILOR_VERIFY_MESSAGE(
        m, (QStringList{QString::fromStdString(root + "/missing/sheet.json: got ")}));
    QVERIFY(!fs::exists(root + "/missing"));
  }

  // The shipped sheet has no offers and keeps its prices; offers are validated on load.
  void sheetsWithoutOffersAndBadOffers() {
    const PriceSheet shipped = PriceSheet::load(test::resources() + "/prices/default.json");
    QVERIFY(shipped.offers().empty());
    QVERIFY(shipped.catalogDate().empty());
    SAILOR_COMPARE_REL(*shipped.usdPerGpuHour("us-central1", "A100-40"), 3.673385, 1e-12);
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/bad.json";
    const std::string offer =
        R"({"cloud": "aws", "region": "us-east-1", "zone": "use1-az1", "instance_type": "p5.48xlarge",
            "accelerator": "H100", "gpu_type": "H100-80", "gpus_per_instance": 8,
            "usd_per_gpu_hour": 12.29, "spot_usd_per_gpu_hour": null,
            "source": {"file": "aws/vms.csv", "lines": [LINE]}})";
    const auto sheet_with = [&](const std::string& line) {
      std::string o = offer;
      o.replace(o.find("LINE"), 4, line);
      return R"({"catalog": {"source": "s", "date": "2026-12-06"}, "offers": [)" + o + "]}";
    };
    writeFile(path, sheet_with("2"));
    QCOMPARE(PriceSheet::load(path).offers().size(), size_t{1});
    writeFile(path, sheet_with("0"));
    SAILOR_VERIFY_MESSAGE(test::inputErrorOf([&] { PriceSheet::load(path); }),
                          (QStringList{"offers[0].source.lines[0]: got 0", "a line number"}));
    writeFile(path, "{\"about\": {}}");
    SAILOR_VERIFY_MESSAGE(test::inputErrorOf([&] { PriceSheet::load(path); }),
                          QStringList{"gpu_prices rows, offers or both"});
  }

  // The reference extracts: counts per cloud, prices of rows picked by hand, skips with reasons.
  // Pools from offers (sailor/scenario/offer_pools.hpp): the cheapest offer of a cloud, place and
  // GPU type at its on-demand or spot price, its region and zone added (Lambda's named apart
  // from AWS's region of the same name), the node from the instance; bad choices refused naming
  // the option and what exists.
  void poolsFromOffers() {
    const Catalog cat = Catalog::load(test::resources());
    auto offer = [](std::string cloud, std::string region, std::string zone, std::string type,
                    std::string gpu, int per_instance, double usd, std::optional<double> spot) {
      PriceOffer o;
      o.cloud = std::move(cloud);
      o.region = std::move(region);
      o.zone = std::move(zone);
      o.instance_type = std::move(type);
      o.gpu_type = std::move(gpu);
      o.gpus_per_instance = per_instance;
      o.usd_per_gpu_hour = usd;
      o.spot_usd_per_gpu_hour = spot;
      o.source = {"x/vms.csv", {7}};
      return o;
    };
    PriceSheet sheet;
    sheet.setOffers(
        {offer("gcp", "us-central1", "us-central1-a", "a3-highgpu-8g", "H100-80", 8, 11.0, 3.5),
         offer("gcp", "us-central1", "us-central1-a", "a3-megagpu-8g", "H100-80", 8, 11.5, 3.0),
         offer("aws", "us-east-1", "use1-az1", "p5.48xlarge", "H100-80", 8, 12.29, 3.84),
         offer("lambda", "us-east-1", "", "gpu_8x_h100_sxm5", "H100-80", 8, 2.99, std::nullopt),
         offer("aws", "eu-west-1", "euw1-az1", "p5.48xlarge", "H100-80", 8, 13.0, 4.0)},
        "test offers", "2026-12-06");
    Scenario s;
    s.default_links = Scenario::builtinDefaultLinks();
    s.default_egress_usd_per_gb = Scenario::builtinDefaultEgress();
    s.name = "offers";
    for (const char* text : {"gcp:us-central1-a:H100-80:512", "aws:use1-az1:H100-80:256:spot",
                             "lambda:us-east-1:H100-80:64", "aws:euw1-az1:H100-80:16"}) {
      const OfferChoice c = OfferChoice::parse(text, "--pool");
      s = addOfferPool(s, chooseOffer(sheet, c, "--pool"), c.count, c.spot, "2026-12-06", cat,
                       "--pool");
    }
    QCOMPARE(s.pools.size(), size_t{4});
    // The cheaper on-demand offer of the zone: a3-highgpu-8g at 11.0.
    QCOMPARE(s.pools[0].usd_per_gpu_hour, 11.0);
    QCOMPARE(s.pools[0].count, 512);
    QVERIFY(!s.pools[0].spot);
    QCOMPARE(s.pools[1].usd_per_gpu_hour, 3.84);
    QVERIFY(s.pools[1].spot);
    QCOMPARE(s.pools[2].zone, std::string("lambda-us-east-1"));
    std::map<std::string, std::string> continent;
    for (const auto& r : s.regions) continent[r.name] = r.continent;
    QCOMPARE(continent["us-central1"], std::string("north-america"));
    QCOMPARE(continent["us-east-1"], std::string("north-america"));
    QCOMPARE(continent["lambda-us-east-1"], std::string("north-america"));
    QCOMPARE(continent["eu-west-1"], std::string("europe"));
    QCOMPARE(continentOfCloudRegion("ap-southeast-2"), std::string("oceania"));
    QCOMPARE(continentOfCloudRegion("asia-east1"), std::string("asia"));
    // The spot pool of the cheaper spot offer when asked for spot.
    const OfferChoice spot = OfferChoice::parse("gcp:us-central1-a:H100-80:8:spot", "--pool");
    QCOMPARE(chooseOffer(sheet, spot, "--pool").instance_type, std::string("a3-megagpu-8g"));
    // The scenario reads back as written.
    QCOMPARE(Scenario::fromJson(s.toJson(), cat).toJson().dump(), s.toJson().dump());

    const auto refused = [&](const std::string& text) {
      return test::inputErrorOf([&] {
        const OfferChoice c = OfferChoice::parse(text, "--pool");
        (void)addOfferPool(s, chooseOffer(sheet, c, "--pool"), c.count, c.spot, "2026-12-06", cat,
                           "--pool");
      });
    };
    QString msg = refused("gcp:us-central1-b:H100-80:8");
    QVERIFY2(
        msg.contains("--pool: got \"gcp:us-central1-b:H100-80\"") && msg.contains("us-central1-a"),
        qPrintable(msg));
    msg = refused("lambda:us-east-1:H100-80:8:spot");
    QVERIFY2(msg.contains("spot price"), qPrintable(msg));
    msg = refused("gcp:us-central1-a:H100-80:8");  // the zone has an H100-80 pool already
    QVERIFY2(msg.contains("one pool per zone and GPU type"), qPrintable(msg));
    for (const char* bad : {"gcp:us-central1-a:H100-80", "gcp:us-central1-a:H100-80:0",
                            "gcp:us-central1-a:H100-80:-3", "gcp::H100-80:8",
                            "gcp:us-central1-a:H100-80:8:cheap", "gcp:us-central1-a:H100-80:1e3"}) {
      msg = refused(bad);
      QVERIFY2(msg.startsWith("--pool: got \"") && msg.contains("CLOUD:PLACE:GPU:COUNT"),
               qPrintable(msg));
    }
    msg = refused("azure:eastus:H100-80:8");
    QVERIFY2(msg.contains("a cloud and GPU type the price sheet offers"), qPrintable(msg));
  }

  void importsTheReferenceExtracts() {
    const std::string dir = referenceDir();
    if (!fs::exists(dir + "/gcp/vms.csv"))
      QSKIP(qPrintable(
          QString::fromStdString("SkyPilot catalogue extracts absent (" + dir +
                                 "); the shared/ directory beside the project provides them")));
    const SkyPilotImport imp = importSkyPilotCatalogs(dir);
    std::map<std::string, int> offers, skipped;
    for (const auto& o : imp.offers) ++offers[o.cloud];
    for (const auto& s : imp.skipped) ++skipped[s.file];
    QCOMPARE(imp.files.size(), size_t{3});
    QCOMPARE(offers["gcp"], 655);
    QCOMPARE(offers["aws"], 677);
    QCOMPARE(offers["lambda"], 204);
    QCOMPARE(skipped["gcp/vms.csv"], 432);
    QCOMPARE(skipped["aws/vms.csv"], 169);     // 152 L40S, 10 p4de duplicates, 7 p5e
    QCOMPARE(skipped["lambda/vms.csv"], 119);  // CPU, A10, A6000, RTX6000, H100 PCIe
    // Every data row is in an offer or skipped.
    std::map<std::string, std::set<int>> seen;
    for (const auto& o : imp.offers)
      for (int l : o.source.lines) seen[o.source.file].insert(l);
    for (const auto& s : imp.skipped) seen[s.file].insert(s.line);
    for (const auto& f : imp.files) QCOMPARE(static_cast<int>(seen[f.file].size()), f.rows);
    // Every offer names a GPU type of the catalogue.
    const Catalog cat = Catalog::load(test::resources());
    for (const auto& o : imp.offers) QVERIFY2(cat.findGpu(o.gpu_type), o.gpu_type.c_str());

    // gcp/vms.csv line 70: a2-highgpu-8g, us-central1-a, 5.91582 (spot 2.36604); line 942:
    // 8 x A100 there, 23.47126 (spot 9.1776). (5.91582 + 23.47126) / 8 = 3.673385, the shipped
    // sheet's us-central1 A100-40 figure.
    const PriceOffer* a2 = findOffer(imp.offers, "us-central1-a", "a2-highgpu-8g");
    QVERIFY(a2);
    QCOMPARE(a2->source.lines, (std::vector<int>{70, 942}));
    SAILOR_COMPARE_REL(a2->usd_per_gpu_hour, 3.673385, 1e-12);
    SAILOR_COMPARE_REL(*a2->spot_usd_per_gpu_hour, (2.36604 + 9.1776) / 8, 1e-12);
    // Line 253 a3-megagpu-8g 9.46006 + line 1111 8 x H100-MEGA 82.75421, as H100-80.
    const PriceOffer* mega = findOffer(imp.offers, "us-central1-a", "a3-megagpu-8g");
    QVERIFY(mega);
    QCOMPARE(mega->gpu_type, std::string("H100-80"));
    SAILOR_COMPARE_REL(mega->usd_per_gpu_hour, (9.46006 + 82.75421) / 8, 1e-12);
    // aws/vms.csv line 812: p5.48xlarge, use1-az1, 98.32 on demand, 30.684600 spot, 8 H100.
    const PriceOffer* p5 = findOffer(imp.offers, "use1-az1", "p5.48xlarge");
    QVERIFY(p5);
    QCOMPARE(p5->source.lines, std::vector<int>{812});
    SAILOR_COMPARE_REL(p5->usd_per_gpu_hour, 98.32 / 8, 1e-12);
    SAILOR_COMPARE_REL(*p5->spot_usd_per_gpu_hour, 30.6846 / 8, 1e-12);
    // lambda/vms.csv line 291: gpu_8x_h100_sxm5, europe-central-1, 23.92, no spot.
    const PriceOffer* l8 = findOffer(imp.offers, "europe-central-1", "gpu_8x_h100_sxm5");
    QVERIFY(l8);
    QCOMPARE(l8->source.lines, std::vector<int>{291});
    SAILOR_COMPARE_REL(l8->usd_per_gpu_hour, 23.92 / 8, 1e-12);
    QVERIFY(!l8->spot_usd_per_gpu_hour);

    const std::vector<std::tuple<std::string, int, QString>> skips = {
        {"aws/vms.csv", 827, "Price is empty"},             // p5e.48xlarge
        {"aws/vms.csv", 785, "duplicate offer: line 786"},  // p4de.24xlarge, use1-az4
        {"aws/vms.csv", 786, "duplicate offer: line 785"},
        {"lambda/vms.csv", 2, "CPU-only"},  // cpu_4x_general
    };
    for (const auto& [file, line, reason] : skips) {
      const SkippedCatalogRow* s = findSkip(imp, file, line);
      QVERIFY2(s, qPrintable(QString::fromStdString(file) + QString(":%1").arg(line)));
      SAILOR_VERIFY_MESSAGE(QString::fromStdString(s->reason), QStringList{reason});
    }
  }
};

QTEST_GUILESS_MAIN(TestSkyPilotImport)
#include "test_skypilot_import.moc"
