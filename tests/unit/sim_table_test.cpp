// The sim's server-side printing: printer-column JSONPaths, ages as kubectl prints them, and the
// Table a `kubectl get` of a CRD kind receives.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "sim/table.h"

namespace planter::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

const json::object kSeed = json::parse(R"({
  "metadata": {"name": "cnf", "creationTimestamp": "2026-01-01T00:00:00Z"},
  "status": {"phase": "Planting", "counts": {"declared": 3},
             "conditions": [{"type": "Progressing", "status": "True"},
                            {"type": "Planted", "status": "False", "message": "3 of 9"}]}
})")
                               .as_object();

TEST(SimTableTest, PrinterColumnPathsReachFieldsIndexesAndFilters) {
  EXPECT_EQ(printer_column_value(kSeed, ".status.phase"), json::value("Planting"));
  EXPECT_EQ(printer_column_value(kSeed, ".status.counts.declared"), json::value(3));
  EXPECT_EQ(printer_column_value(kSeed, ".status.conditions[1].type"), json::value("Planted"));
  EXPECT_EQ(printer_column_value(kSeed, ".status.conditions[-1].message"), json::value("3 of 9"));
  EXPECT_EQ(printer_column_value(kSeed, R"(.status.conditions[?(@.type=="Planted")].message)"),
            json::value("3 of 9"));
  EXPECT_EQ(printer_column_value(kSeed, ".status.conditions[*].status"), json::value("True"));
  EXPECT_TRUE(printer_column_value(kSeed, ".status.missing").is_null());
  EXPECT_TRUE(
      printer_column_value(kSeed, R"(.status.conditions[?(@.type=="Nope")].message)").is_null());
  EXPECT_TRUE(printer_column_value(kSeed, ".status.conditions[7]").is_null());
}

TEST(SimTableTest, AgesReadAsKubectlPrintsThem) {
  EXPECT_EQ(human_duration(45s), "45s");
  EXPECT_EQ(human_duration(200s), "3m20s");
  EXPECT_EQ(human_duration(3600s * 4), "4h");
  EXPECT_EQ(human_duration(3600s * 24 * 12), "12d");
  EXPECT_EQ(human_duration(3600s * 24 * (365 * 2 + 3)), "2y3d");
}

TEST(SimTableTest, ACrdTableHasNameTheCrdsColumnsAndPartialObjects) {
  json::array columns = json::parse(R"([
    {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
    {"name": "Declared", "type": "integer", "jsonPath": ".status.counts.declared"},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}])")
                            .as_array();
  auto now = std::chrono::system_clock::from_time_t(1767225600 + 90);  // 90 s after creation
  json::object table =
      json::parse(render_table(columns, {&kSeed}, "", {{"resourceVersion", "7"}}, now)).as_object();
  EXPECT_EQ(table.at("kind"), "Table");
  EXPECT_EQ(table.at("columnDefinitions").as_array().size(), 4u);
  const json::object& row = table.at("rows").as_array().at(0).as_object();
  EXPECT_EQ(row.at("cells"), json::parse(R"(["cnf", "Planting", 3, "90s"])"));
  EXPECT_EQ(row.at("object").at("kind"), "PartialObjectMetadata");
  json::object none = json::parse(render_table({}, {&kSeed}, "None", {}, now)).as_object();
  EXPECT_EQ(none.at("columnDefinitions").as_array().size(), 2u);  // Name, Age
  EXPECT_FALSE(none.at("rows").as_array().at(0).as_object().contains("object"));
}

}  // namespace
}  // namespace planter::sim
