#include "plant/ownership.h"

#include <gtest/gtest.h>

namespace planter::plant {
namespace {

// A 409 as kube-apiserver words an apply's conflicts: a cause per field, naming its manager.
kube::ApiError conflict(std::vector<std::string> managers) {
  kube::ApiError e;
  e.code = 409;
  e.reason = "Conflict";
  for (const std::string& m : managers)
    e.causes.push_back({"FieldManagerConflict", "conflict with \"" + m + "\" using v1", ".data.k"});
  return e;
}

TEST(OwnershipTest, AConflictWithAnotherSeedsManagerNamesThatSeed) {
  EXPECT_EQ(seed_field_manager("cnf"), "planter/cnf");
  EXPECT_EQ(owning_seed(conflict({"kubectl-edit", "planter/default.cnf"}), "b"), "default.cnf");
  EXPECT_EQ(owning_seed(conflict({"planter/b"}), "b"), std::nullopt) << "its own manager";
  EXPECT_EQ(owning_seed(conflict({"planter", "kubectl"}), "b"), std::nullopt)
      << "not a seed's manager (planter before ownership used one for all)";
  EXPECT_EQ(owning_seed(conflict({"planter/"}), "b"), std::nullopt);
}

TEST(OwnershipTest, ForceTakesOverAnotherManagersFieldsButOnlyAdoptAnotherSeedsObject) {
  const char* hint = "use --adopt to take it over";
  ConflictCall c = decide_conflict(conflict({"planter/a"}), "b", false, true, hint, "force");
  EXPECT_EQ(c.kind, ConflictCall::kRefuse);
  EXPECT_EQ(c.why, "planted by seed \"a\"; use --adopt to take it over");
  c = decide_conflict(conflict({"planter/a"}), "b", true, false, hint, "force");
  EXPECT_EQ(c.kind, ConflictCall::kForce);
  EXPECT_EQ(c.owner, "a");
  c = decide_conflict(conflict({"kubectl-edit"}), "b", false, true, hint, "force");
  EXPECT_EQ(c.kind, ConflictCall::kForce);
  EXPECT_EQ(c.owner, "");
  c = decide_conflict(conflict({"kubectl-edit"}), "b", true, false, hint, "force");
  EXPECT_EQ(c.kind, ConflictCall::kRefuse) << "adopting is not forcing";
  EXPECT_EQ(c.why, "force");
}

}  // namespace
}  // namespace planter::plant
