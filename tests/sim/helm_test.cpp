// Helm 3.17 against `planter sim`: install, list, upgrade and uninstall a small chart
// (tests/data/charts/hello). Helm stores releases as Secrets through a typed client, so this
// also exercises protobuf request bodies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/sim_process.h"

namespace planter::testing {
namespace {

using ::testing::HasSubstr;

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

}  // namespace
}  // namespace planter::testing
