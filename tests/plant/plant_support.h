// What the plant tests share: the corpus and data folders, the plan and report of a run as JSON,
// and the audit-log order check (no unit written before its requirements held).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "plant/audit_order.h"
#include "shared_dir.h"
#include "sim/sim_process.h"

namespace planter::testing {

inline const std::filesystem::path kCorpus = std::filesystem::path(PLANTER_SHARED_DIR) / "corpus";
inline const std::filesystem::path kSource = PLANTER_SOURCE_DIR;
inline const std::filesystem::path kData = std::filesystem::path(PLANTER_TEST_DATA) / "plant";

#define SKIP_WITHOUT_CORPUS() REQUIRE_SHARED(kCorpus)

// planter's Cluster CRD, placed on the workload cluster `regional` (a fleet of fleets: the
// regional cluster serves Cluster objects of its own), and a ConfigMap placed on `cluster`.
inline std::string cluster_crd_on_regional() {
  std::string crd = read_file(kSource / "deploy/crds/planter.nephio.org_clusters.yaml");
  const std::string name_line = "  name: clusters.planter.nephio.org\n";
  EXPECT_NE(crd.find(name_line), std::string::npos);
  if (crd.find(name_line) != std::string::npos)
    crd.replace(crd.find(name_line), name_line.size(),
                name_line + "  annotations: {planter.nephio.org/cluster: regional}\n");
  return crd;
}

// `planter plan -o json` of these seed arguments.
inline boost::json::object plan_of(const std::string& seed_args) {
  CommandResult r = planter("plan -o json " + seed_args);
  EXPECT_EQ(r.code, 0) << r.err;
  return boost::json::parse(r.out).as_object();
}

inline boost::json::object report_of(const std::filesystem::path& p) {
  return boost::json::parse(read_file(p)).as_object();
}

// Units of a report by state: "declared" -> {"apps/v1|Deployment|ns|name@SELF", ...}.
inline std::map<std::string, std::set<std::string>> by_state(const boost::json::object& report) {
  std::map<std::string, std::set<std::string>> out;
  for (const boost::json::value& u : report.at("units").as_array())
    out[std::string(u.at("state").as_string())].insert(
        std::string(u.at("object").as_string()) + "@" + std::string(u.at("cluster").as_string()));
  return out;
}

// Every unit of `plan` written, and none before its requirements held, by the audit log.
inline void expect_in_order(const boost::json::object& plan,
                            const std::vector<std::string>& audit_lines, size_t expected_units) {
  OrderCheck check = check_plant_order(plan, parse_audit(audit_lines));
  EXPECT_EQ(check.units_written, expected_units);
  EXPECT_GT(check.requirements_checked, 0u);
  EXPECT_THAT(check.violations, ::testing::IsEmpty());
}

}  // namespace planter::testing
