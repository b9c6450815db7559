#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/kinds.h"
#include "shared_dir.h"

namespace planter {
namespace {

TEST(BuiltinKinds, KnowsScopes) {
  KindTable t = KindTable::builtin();
  EXPECT_EQ(t.scope("", "Namespace"), Scope::kCluster);
  EXPECT_EQ(t.scope("apps", "Deployment"), Scope::kNamespaced);
  EXPECT_EQ(t.scope("rbac.authorization.k8s.io", "ClusterRole"), Scope::kCluster);
  EXPECT_EQ(t.scope("example.com", "Widget"), Scope::kUnknown);
  EXPECT_EQ(t.find_resource("apps", "deployments")->kind, "Deployment");
  EXPECT_TRUE(t.is_builtin_group("apps"));
  EXPECT_FALSE(t.is_builtin_group("cert-manager.io"));
}

TEST(BuiltinKinds, GeneratedTableIsCurrent) {
  std::string discovery = std::string(PLANTER_SHARED_DIR) + "/k8s-api/discovery";
  REQUIRE_SHARED(discovery);
  std::string cmd = std::string(PLANTER_SOURCE_DIR) + "/scripts/gen-builtin-kinds " + discovery;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_TRUE(p);
  std::string generated;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) generated.append(buf, n);
  ASSERT_EQ(pclose(p), 0);
  std::ifstream in(std::string(PLANTER_SOURCE_DIR) + "/src/model/builtin_kinds.inc");
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(generated, committed.str())
      << "run scripts/gen-builtin-kinds > src/model/builtin_kinds.inc";
}

}  // namespace
}  // namespace planter
