#include "plant/seed_inventory.h"

#include <gtest/gtest.h>

namespace planter::plant {
namespace {

InventoryItem item(int wave, std::string api_version, std::string kind, std::string ns,
                   std::string name) {
  return {{std::move(api_version), std::move(kind), std::move(ns), std::move(name)}, wave};
}

TEST(SeedInventoryTest, ItsNameIsADnsNameOfItsOwnForEverySeed) {
  EXPECT_EQ(inventory_name("hello-world"), "planter-inventory-hello-world");
  EXPECT_EQ(inventory_name("default.cnf"), "planter-inventory-default.cnf");
  // Changed to be a DNS name: a hash keeps "My_Seed" and "my-seed" apart.
  std::string mapped = inventory_name("My_Seed");
  EXPECT_TRUE(mapped.starts_with("planter-inventory-my-seed-")) << mapped;
  EXPECT_NE(mapped, inventory_name("my-seed"));
  EXPECT_EQ(mapped, inventory_name("My_Seed")) << "the same every time";
  EXPECT_NE(inventory_name("a_"), inventory_name("a"));
}

TEST(SeedInventoryTest, ItemsReadBackAsWrittenAndJunkIsSkipped) {
  std::vector<InventoryItem> items = {item(1, "apps/v1", "Deployment", "app", "web"),
                                      item(0, "v1", "Namespace", "", "app")};
  std::string text = format_items(items);
  EXPECT_EQ(text, "0 v1 Namespace - app\n1 apps/v1 Deployment app web\n");
  std::vector<InventoryItem> back = parse_items(text + "junk\n-1 v1 A - b\n2 v1 A - b c\n\n");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].ref, (ObjectRef{"v1", "Namespace", "", "app"}));
  EXPECT_EQ(back[1].ref, (ObjectRef{"apps/v1", "Deployment", "app", "web"}));
  EXPECT_EQ(back[1].wave, 1);
}

TEST(SeedInventoryTest, WhatThePlanNoLongerHoldsIsUprootedDeepestWaveFirst) {
  Plan plan;
  Object kept;
  kept.ref = {"v1", "ConfigMap", "app", "kept"};
  plan.objects.push_back(kept);
  Unit u;
  u.cluster = "SELF";
  u.wave = 1;
  plan.units.push_back(u);
  Inventories inv;
  inv.by_cluster["SELF"] = {
      item(0, "v1", "Namespace", "", "old"), item(1, "v1", "ConfigMap", "app", "kept"),
      item(1, "v1", "ConfigMap", "old", "inside"), item(2, "example.org/v1", "Widget", "old", "w")};
  // The same object on another cluster is not the plan's there.
  inv.by_cluster["edge"] = {item(1, "v1", "ConfigMap", "app", "kept")};
  std::vector<Plan> waves = stale_plans(plan, inv);
  ASSERT_EQ(waves.size(), 3u);
  auto names = [](const Plan& p) {
    std::vector<std::string> out;
    for (const Unit& unit : p.units) out.push_back(unit.cluster + ":" + p.object_of(unit).ref.name);
    return out;
  };
  EXPECT_EQ(names(waves[0]), std::vector<std::string>{"SELF:w"});
  EXPECT_EQ(names(waves[1]), (std::vector<std::string>{"SELF:inside", "edge:kept"}));
  EXPECT_EQ(names(waves[2]), std::vector<std::string>{"SELF:old"});
  EXPECT_EQ(waves[1].object_of(waves[1].units[0]).body.at("metadata").at("namespace"), "old");
}

}  // namespace
}  // namespace planter::plant
