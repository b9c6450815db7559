// The discovery parsers on the documents a real kube-apiserver serves (../shared/k8s-api), and
// the REST mapper over them: the aggregated document and the legacy ones must map alike.
#include "kube/discovery.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "model/files.h"
#include "shared_dir.h"

namespace planter::kube {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

fs::path discovery_dir() {
  return fs::path(PLANTER_SHARED_DIR) / "k8s-api" / "discovery";
}

json::value load(const std::string& name) {
  return json::parse(read_file((discovery_dir() / name).string()).value());
}

TEST(Discovery, AggregatedAndLegacyDocumentsMapTheSame) {
  REQUIRE_SHARED(discovery_dir());
  // aggregated_v2.json is the answer of /apis; the core group comes from /api.
  auto aggregated = parse_aggregated_discovery(load("aggregated_v2.json"));
  ASSERT_TRUE(aggregated.ok()) << aggregated.error().message;
  auto core = parse_resource_list(load("api__v1.json"));
  ASSERT_TRUE(core.ok());
  for (auto& r : core.value()) aggregated->push_back(r);
  RestMapper from_aggregated;
  from_aggregated.replace(aggregated.value());

  std::vector<ApiResource> legacy;
  std::vector<std::string> gvs = parse_group_versions(load("api.json"));
  for (const std::string& gv : parse_group_versions(load("apis.json"))) gvs.push_back(gv);
  ASSERT_GT(gvs.size(), 20u);
  for (const std::string& gv : gvs) {
    // "v1" -> api__v1.json, "apps/v1" -> apis__apps__v1.json
    std::string file = "api__" + gv;
    if (size_t slash = gv.find('/'); slash != std::string::npos)
      file = "apis__" + gv.substr(0, slash) + "__" + gv.substr(slash + 1);
    if (!fs::exists(fs::path(PLANTER_SHARED_DIR) / "k8s-api" / "discovery" / (file + ".json")))
      continue;
    auto list = parse_resource_list(load(file + ".json"));
    ASSERT_TRUE(list.ok()) << file << ": " << list.error().message;
    for (auto& r : list.value()) legacy.push_back(std::move(r));
  }
  RestMapper from_legacy;
  from_legacy.replace(legacy);

  struct Case {
    const char* api_version;
    const char* kind;
    const char* resource;
    bool namespaced;
    bool status;
  };
  for (const Case& c :
       {Case{"v1", "Namespace", "namespaces", false, true},
        Case{"v1", "ConfigMap", "configmaps", true, false},
        Case{"apps/v1", "Deployment", "deployments", true, true},
        Case{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "customresourcedefinitions",
             false, true},
        Case{"rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", false, false},
        Case{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration",
             "validatingwebhookconfigurations", false, false}}) {
    for (const RestMapper* m : {&from_aggregated, &from_legacy}) {
      auto r = m->find(c.api_version, c.kind);
      ASSERT_TRUE(r) << c.api_version << " " << c.kind;
      EXPECT_EQ(r->resource, c.resource);
      EXPECT_EQ(r->namespaced, c.namespaced) << c.kind;
      EXPECT_EQ(r->has_status, c.status) << c.kind;
    }
  }
  EXPECT_EQ(from_aggregated.find("apps/v1", "Deployment")->path("cnf", "web"),
            "/apis/apps/v1/namespaces/cnf/deployments/web");
  EXPECT_EQ(from_aggregated.find("v1", "Namespace")->path("ignored", "cnf"),
            "/api/v1/namespaces/cnf");
  EXPECT_FALSE(from_aggregated.find("apps/v1beta1", "Deployment"));
}

TEST(Discovery, OnlyTheAggregatedContentTypeIsTakenForIt) {
  REQUIRE_SHARED(discovery_dir());
  EXPECT_TRUE(is_aggregated_discovery(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"));
  EXPECT_FALSE(is_aggregated_discovery("application/json"));
  EXPECT_FALSE(parse_aggregated_discovery(load("apis.json")).ok());
}

}  // namespace
}  // namespace planter::kube

namespace planter::kube {
namespace {

std::string core_document(const char* scope) {
  return std::string(
             R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[)"
             R"({"metadata":{},"versions":[{"version":"v1","resources":[{"resource":"configmaps",)"
             R"("responseKind":{"group":"","version":"v1","kind":"ConfigMap"},"scope":")") +
         scope + R"(","verbs":["get"]}]}]}]})";
}

// The operator makes a client per Seed's slice: the same two documents, read again and again,
// are parsed once and their table shared.
TEST(Discovery, TheSameAggregatedDocumentsGiveTheSameTableWithoutParsingAgain) {
  REQUIRE_SHARED(discovery_dir());
  std::string apis = read_file((discovery_dir() / "aggregated_v2.json").string()).value();
  auto first = aggregated_table(core_document("Namespaced"), apis);
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto again = aggregated_table(core_document("Namespaced"), apis);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(first->get(), again->get());
  RestMapper mapper;
  mapper.replace(first.value());
  ASSERT_TRUE(mapper.find("v1", "ConfigMap"));
  EXPECT_TRUE(mapper.find("v1", "ConfigMap")->namespaced);
  ASSERT_TRUE(mapper.find("apps/v1", "Deployment"));
  EXPECT_EQ(mapper.find("apps/v1", "Deployment")->resource, "deployments");

  // Other documents, another table.
  auto other = aggregated_table(core_document("Cluster"), apis);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->get(), first->get());
  mapper.replace(other.value());
  EXPECT_FALSE(mapper.find("v1", "ConfigMap")->namespaced);

  auto bad = aggregated_table("{", apis);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "/api is not JSON");
}

}  // namespace
}  // namespace planter::kube
