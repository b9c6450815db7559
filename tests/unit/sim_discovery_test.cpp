// The sim's built-in API: generated from shared/k8s-api and kept current; every group-version
// `/apis` lists answers; CRDs join discovery and OpenAPI when established.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "shared_dir.h"
#include "sim/catalog.h"

namespace planter::sim {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

TEST(SimDiscoveryTest, GeneratedFileIsCurrent) {
  fs::path discovery = fs::path(PLANTER_SHARED_DIR) / "k8s-api" / "discovery";
  REQUIRE_SHARED(discovery);
  std::string cmd =
      std::string(PLANTER_SOURCE_DIR) + "/scripts/gen-sim-discovery " + discovery.string();
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string generated;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) generated.append(buf, n);
  ASSERT_EQ(pclose(p), 0);
  std::ifstream in(std::string(PLANTER_SOURCE_DIR) + "/src/sim/builtin_discovery.inc");
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(generated, committed.str())
      << "run scripts/gen-sim-discovery > src/sim/builtin_discovery.inc";
}

TEST(SimDiscoveryTest, EveryListedGroupVersionAnswers) {
  Catalog c = Catalog::builtin();
  json::value groups = json::parse(c.group_list());
  size_t count = 0;
  for (const auto& g : groups.at("groups").as_array())
    for (const auto& v : g.at("versions").as_array()) {
      std::string group(g.at("name").as_string()), version(v.at("version").as_string());
      EXPECT_FALSE(c.resource_list(group, version).empty()) << group << "/" << version;
      EXPECT_FALSE(c.openapi_document("apis/" + group + "/" + version).empty());
      ++count;
    }
  EXPECT_EQ(count, 23u);  // the 22 GA group-versions and the gang API's scheduling.k8s.io/v1beta1
  EXPECT_EQ(json::parse(c.resource_list("", "v1")).at("groupVersion"), "v1");
  ASSERT_NE(c.find("apps", "v1", "deployments"), nullptr);
  EXPECT_TRUE(c.find("apps", "v1", "deployments")->has_scale);
  EXPECT_EQ(c.find("apps", "v1beta1", "deployments"), nullptr);
}

// --api-level: a 1.36 server serves the gang API as v1alpha2 and no DeviceTaintRule; a 1.33 one
// neither DRA nor the gang API.
TEST(SimDiscoveryTest, AnOlderApiLevelServesLess) {
  Catalog now = Catalog::builtin(37), v36 = Catalog::builtin(36), v33 = Catalog::builtin(33);
  EXPECT_NE(now.find("scheduling.k8s.io", "v1beta1", "podgroups"), nullptr);
  EXPECT_NE(now.find("resource.k8s.io", "v1", "devicetaintrules"), nullptr);
  EXPECT_EQ(v36.find("scheduling.k8s.io", "v1beta1", "podgroups"), nullptr);
  ASSERT_NE(v36.find("scheduling.k8s.io", "v1alpha2", "podgroups"), nullptr);
  EXPECT_TRUE(v36.find("scheduling.k8s.io", "v1alpha2", "podgroups")->has_status);
  EXPECT_EQ(json::parse(v36.resource_list("scheduling.k8s.io", "v1alpha2")).at("groupVersion"),
            "scheduling.k8s.io/v1alpha2");
  EXPECT_EQ(v36.find("resource.k8s.io", "v1", "devicetaintrules"), nullptr);
  EXPECT_NE(v36.find("resource.k8s.io", "v1", "resourceclaims"), nullptr);
  EXPECT_EQ(v33.find("resource.k8s.io", "v1", "resourceclaims"), nullptr);
  EXPECT_EQ(v33.find("scheduling.k8s.io", "v1alpha2", "podgroups"), nullptr);
  EXPECT_NE(v33.find("scheduling.k8s.io", "v1", "priorityclasses"), nullptr);
  EXPECT_EQ(json::parse(v33.group_list()).at("groups").as_array().size() + 1,
            json::parse(now.group_list()).at("groups").as_array().size());
}

TEST(SimDiscoveryTest, AggregatedDocumentMatchesTheLegacyOnes) {
  Catalog c = Catalog::builtin();
  json::value agg = json::parse(c.aggregated(false));
  EXPECT_EQ(agg.at("kind"), "APIGroupDiscoveryList");
  EXPECT_EQ(agg.at("apiVersion"), "apidiscovery.k8s.io/v2");
  bool found = false;
  for (const auto& g : agg.at("items").as_array())
    if (g.at("metadata").at("name") == "apps")
      for (const auto& r : g.at("versions").at(0).at("resources").as_array())
        if (r.at("resource") == "deployments") {
          found = true;
          EXPECT_EQ(r.at("scope"), "Namespaced");
          EXPECT_EQ(r.at("responseKind").at("kind"), "Deployment");
          EXPECT_EQ(r.at("subresources").as_array().size(), 2u);
        }
  EXPECT_TRUE(found);
}

TEST(SimDiscoveryTest, OpenApiAdvertisesFieldValidationOnPatch) {
  Catalog c = Catalog::builtin();
  json::value doc = json::parse(c.openapi_document("apis/apps/v1"));
  const auto& patch =
      doc.at("paths").at("/apis/apps/v1/namespaces/{namespace}/deployments/{name}").at("patch");
  EXPECT_EQ(patch.at("x-kubernetes-group-version-kind").at("kind"), "Deployment");
  bool field_validation = false;
  for (const auto& p : patch.at("parameters").as_array())
    field_validation |= p.at("name") == "fieldValidation";
  EXPECT_TRUE(field_validation);
}

TEST(SimDiscoveryTest, CrdsJoinAndLeave) {
  Catalog c = Catalog::builtin();
  ResourceType t;
  t.group = "example.org";
  t.version = "v1";
  t.resource = "widgets";
  t.kind = "Widget";
  t.singular = "widget";
  t.custom = true;
  t.crd_name = "widgets.example.org";
  t.verbs = {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"};
  ResourceType beta = t;
  beta.version = "v1beta1";
  c.set_crd("widgets.example.org", {beta, t});
  json::value group = json::parse(c.group_document("example.org"));
  EXPECT_EQ(group.at("preferredVersion").at("version"), "v1");
  EXPECT_NE(c.group_list().find("example.org"), std::string::npos);
  EXPECT_NE(c.openapi_index().find("apis/example.org/v1beta1"), std::string::npos);
  c.remove_crd("widgets.example.org");
  EXPECT_EQ(c.group_list().find("example.org"), std::string::npos);
  EXPECT_EQ(c.find("example.org", "v1", "widgets"), nullptr);
}

TEST(SimDiscoveryTest, KubernetesVersionPriority) {
  std::vector<std::string> v = {"v1alpha1", "foo", "v2", "v1beta2", "v1", "v1beta1", "v10"};
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return version_before(a, b); });
  EXPECT_EQ(v,
            (std::vector<std::string>{"v10", "v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo"}));
}

}  // namespace
}  // namespace planter::sim
