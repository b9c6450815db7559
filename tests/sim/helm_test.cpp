// Helm 3.17 against `planter sim`: install, list, upgrade and uninstall a small chart
// (tests/data/charts/hello). Helm stores releases as Secrets through a typed client, so this
// also exercises protobuf request bodies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "model/yaml.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

// The objects of a YAML stream by "Kind/name", with the labels Helm adds taken out.
std::map<std::string, json::object> objects_of(const std::string& yaml) {
  std::map<std::string, json::object> out;
  auto docs = parse_yaml_stream(yaml, "rendered");
  EXPECT_TRUE(docs) << (docs ? "" : docs.error().message);
  if (!docs) return out;
  for (const YamlDocument& d : *docs) {
    if (!d.value.is_object()) continue;
    json::object o = d.value.as_object();
    json::object& meta = o["metadata"].as_object();
    if (auto* labels = meta.if_contains("labels"); labels && labels->is_object()) {
      for (const char* helm :
           {"app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "helm.sh/chart"})
        labels->as_object().erase(helm);
    }
    std::string key =
        std::string(o.at("kind").as_string()) + "/" + std::string(meta.at("name").as_string());
    out[key] = std::move(o);
  }
  return out;
}

TEST(HelmTest, InstallListUpgradeUninstall) {
  SimProcess sim;
  std::string chart = std::string(PLANTER_TEST_DATA) + "/charts/hello";
  auto install = sim.helm("install demo " + chart + " -n default --wait=false");
  ASSERT_EQ(install.code, 0) << install.err;
  EXPECT_THAT(install.out, HasSubstr("STATUS: deployed"));

  auto list = sim.helm("list -n default");
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("demo"));
  EXPECT_THAT(list.out, HasSubstr("deployed"));
  EXPECT_THAT(list.out, HasSubstr("hello-0.1.0"));

  auto deploy = sim.kubectl("get deployment demo -n default -o jsonpath={.spec.replicas}");
  EXPECT_EQ(deploy.out, "1");

  auto upgrade =
      sim.helm("upgrade demo " + chart + " -n default --set replicas=3 --set greeting=hi");
  ASSERT_EQ(upgrade.code, 0) << upgrade.err;
  EXPECT_THAT(upgrade.out, HasSubstr("REVISION: 2"));
  EXPECT_EQ(sim.kubectl("get deployment demo -n default -o jsonpath={.spec.replicas}").out, "3");
  EXPECT_EQ(sim.kubectl("get deployment demo -n default -o jsonpath={.metadata.generation}").out,
            "2");
  EXPECT_EQ(sim.kubectl("get configmap demo-config -n default -o jsonpath={.data.greeting}").out,
            "hi");

  auto history = sim.helm("history demo -n default");
  ASSERT_EQ(history.code, 0) << history.err;
  EXPECT_THAT(history.out, HasSubstr("superseded"));

  auto uninstall = sim.helm("uninstall demo -n default");
  ASSERT_EQ(uninstall.code, 0) << uninstall.err;
  EXPECT_THAT(uninstall.out, HasSubstr("release \"demo\" uninstalled"));
  auto gone = sim.kubectl("get deployments,services,configmaps,secrets -n default -o name");
  EXPECT_EQ(gone.out, "");
  EXPECT_EQ(sim.helm("list -n default -q").out, "");
}

// The operator's chart (deploy/chart): it lints; with its defaults it renders exactly the objects
// of deploy/ (so neither drifts from the other); planter plans what it renders; and Helm installs
// it on the sim, where the operator's Deployment comes up.
TEST(HelmTest, TheOperatorsChartRendersDeployAndInstalls) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  std::string chart = std::string(PLANTER_SOURCE_DIR) + "/deploy/chart";
  auto lint = sim.helm("lint " + chart);
  ASSERT_EQ(lint.code, 0) << lint.out << lint.err;
  EXPECT_THAT(lint.out, HasSubstr("0 chart(s) failed"));

  auto rendered = sim.helm("template planter " + chart + " -n planter-system --include-crds");
  ASSERT_EQ(rendered.code, 0) << rendered.err;
  std::map<std::string, json::object> from_chart = objects_of(rendered.out);
  std::string deploy;
  for (const char* file :
       {"rbac.yaml", "deployment.yaml", "service.yaml", "crds/planter.nephio.org_seeds.yaml",
        "crds/planter.nephio.org_clusters.yaml"})
    deploy += read_file(std::string(PLANTER_SOURCE_DIR) + "/deploy/" + file) + "\n---\n";
  std::map<std::string, json::object> from_deploy = objects_of(deploy);
  ASSERT_EQ(from_chart.size(), from_deploy.size()) << rendered.out;
  for (const auto& [key, object] : from_deploy) {
    ASSERT_TRUE(from_chart.contains(key)) << key;
    EXPECT_TRUE(from_chart[key] == object)
        << key << "\nchart:  " << json::serialize(from_chart[key])
        << "\ndeploy: " << json::serialize(object);
  }

  std::filesystem::path out = sim.dir() / "rendered.yaml";
  std::ofstream(out) << rendered.out;
  CommandResult planned = planter("plan " + q(out));
  EXPECT_EQ(planned.code, 0) << planned.out << planned.err;
  EXPECT_THAT(planned.out, HasSubstr("9 units of 9 objects on 1 cluster")) << planned.out;

  auto install =
      sim.helm("install planter " + chart + " -n planter-system --create-namespace --wait=false");
  ASSERT_EQ(install.code, 0) << install.out << install.err;
  EXPECT_THAT(install.out, HasSubstr("STATUS: deployed"));
  EXPECT_EQ(sim.kubectl("rollout status deployment/planter-operator -n planter-system "
                        "--timeout=30s")
                .code,
            0)
      << sim.kubectl("get pods -n planter-system -o wide").out;
  EXPECT_EQ(sim.kubectl("get clusterrole planter-operator -o "
                        "'jsonpath={.metadata.labels.app\\.kubernetes\\.io/managed-by}'")
                .out,
            "Helm");
}

}  // namespace
}  // namespace planter::testing
