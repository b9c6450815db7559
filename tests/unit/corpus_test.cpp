// Golden tests over the real-world manifests in ../shared/corpus (read in place, never copied).
// For every seed: it plans (or, for unrendered templates, fails with a message naming the template
// variable), and the plan keeps the ordering invariants a user relies on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "plan/render.h"
#include "shared_dir.h"
#include "test_support.h"

namespace planter {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() {
  return fs::path(PLANTER_SHARED_DIR) / "corpus";
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

PlanOutcome plan_file(const fs::path& p) {
  PlanRequest req;
  req.sources = {p.string()};
  return build_plan(req);
}

// The invariants of DESIGN.md, checked on every unit of a plan.
void expect_ordering_invariants(const Plan& plan, const std::string& name) {
  std::map<std::string, const Unit*> by_key;
  for (const Unit& u : plan.units) by_key[plan.object_of(u).ref.key() + "@" + u.cluster] = &u;
  std::map<std::string, std::string> crd_of_kind;  // group|Kind -> CRD key
  for (const Object& o : plan.objects)
    if (o.ref.kind == "CustomResourceDefinition") {
      const auto* g = find_string(o.body, {"spec", "group"});
      const auto* k = find_string(o.body, {"spec", "names", "kind"});
      if (g && k) crd_of_kind[std::string(*g) + "|" + std::string(*k)] = o.ref.key();
    }
  for (const Unit& u : plan.units) {
    const Object& o = plan.object_of(u);
    auto before = [&](const std::string& key, const char* what) {
      auto it = by_key.find(key + "@" + u.cluster);
      if (it == by_key.end()) return;
      EXPECT_LT(it->second->wave, u.wave)
          << name << ": " << o.display() << " (" << o.where() << ") is not after its " << what;
    };
    auto crd = crd_of_kind.find(std::string(o.ref.group()) + "|" + o.ref.kind);
    if (crd != crd_of_kind.end()) before(crd->second, "CRD");
    if (!o.ref.ns.empty()) before(object_key("", "Namespace", "", o.ref.ns), "Namespace");
    if (u.cluster != "SELF") {
      for (const ClusterInfo& c : plan.clusters)
        if (c.name == u.cluster && c.object) {
          const Unit* cu = nullptr;
          for (const Unit& x : plan.units)
            if (x.object == *c.object) cu = &x;
          ASSERT_TRUE(cu);
          EXPECT_LT(cu->wave, u.wave)
              << name << ": " << o.display() << " is not after cluster " << c.name;
        }
    }
  }
}

struct Expected {
  const char* file;
  size_t units;
  int waves;
};

// Exact outcomes, so a change in any rule shows up here.
const Expected kExpected[] = {
    {"planter-hello-world/seed.yaml", 14, 4},
    {"kube-prometheus/seed.yaml", 131, 2},
    {"cert-manager/seed.yaml", 51, 2},
    {"argo-cd/seed.yaml", 59, 1},
    {"argo-cd/extra-crs.yaml", 3, 1},
    {"flux/seed.yaml", 77, 2},
    {"multus/seed.yaml", 10, 3},  // the pod after its network's definition (node-capability)
    {"nephio-free5gc/seed.yaml", 38, 2},
    {"tekton-pipelines/seed.yaml", 74, 2},
    {"percona-xtradb-cluster-operator/seed.yaml", 10, 2},
    {"cf-for-k8s/seed.yaml", 245, 2},
};

TEST(Corpus, EverySeedPlansWithItsExpectedShape) {
  REQUIRE_SHARED(corpus_dir());
  for (const Expected& e : kExpected) {
    auto out = plan_file(corpus_dir() / e.file);
    ASSERT_TRUE(out.ok()) << e.file << "\n" << out.diags.str();
    EXPECT_EQ(out.plan.units.size(), e.units) << e.file;
    EXPECT_EQ(out.plan.wave_count(), e.waves) << e.file;
    expect_ordering_invariants(out.plan, e.file);
  }
}

TEST(Corpus, EveryFileIsCovered) {
  REQUIRE_SHARED(corpus_dir());
  std::set<std::string> known;
  for (const Expected& e : kExpected) known.insert(e.file);
  known.insert("cluster-api-capd/seed.yaml");
  known.insert("cluster-api-capd/seed-quickstart.yaml");
  known.insert("sriov-network-operator/seed.yaml");
  for (const auto& entry : fs::recursive_directory_iterator(corpus_dir())) {
    if (entry.path().extension() != ".yaml") continue;
    std::string rel = fs::relative(entry.path(), corpus_dir()).string();
    EXPECT_TRUE(known.contains(rel)) << rel << " has no golden expectation";
  }
}

// Unrendered templates fail with a message naming the variable, and plan once rendered.
TEST(Corpus, TemplatesFailClearlyAndPlanOnceRendered) {
  REQUIRE_SHARED(corpus_dir());
  for (const char* file : {"cluster-api-capd/seed.yaml", "cluster-api-capd/seed-quickstart.yaml",
                           "sriov-network-operator/seed.yaml"}) {
    auto out = plan_file(corpus_dir() / file);
    ASSERT_FALSE(out.ok()) << file;
    for (const Diagnostic& d : out.diags.items())
      EXPECT_NE(d.message.find("unsubstituted template variable"), std::string::npos)
          << file << ": " << d.str();

    // What envsubst would do with a small environment.
    std::string text = read(corpus_dir() / file);
    text = std::regex_replace(text, std::regex(R"(\$\{?NAMESPACE\}?)"), "capi-demo");
    text = std::regex_replace(text, std::regex(R"(\$\{?CLUSTER_NAME\}?)"), "edge1");
    text = std::regex_replace(text, std::regex(R"(\$\{CNI_RESOURCES\})"), "{cni.yaml: x}");
    text = std::regex_replace(text, std::regex(R"(\$\{([A-Z_]+)(:=[^}]*)?\})"), "x");
    text = std::regex_replace(text, std::regex(R"(\$([A-Z_]+))"), "x");
    auto rendered = testing::plan_yaml(text);
    ASSERT_TRUE(rendered.ok()) << file << "\n" << rendered.diags.str();
    expect_ordering_invariants(rendered.plan, file);
  }
}

TEST(Corpus, HelloWorldPlacesTheWorkloadOnTheSeedsCluster) {
  REQUIRE_SHARED(corpus_dir());
  auto out = plan_file(corpus_dir() / "planter-hello-world/seed.yaml");
  ASSERT_TRUE(out.ok());
  const Plan& p = out.plan;
  const Unit* instance = testing::find_unit(p, "Instance/cnf/cnf", "edge1");
  ASSERT_TRUE(instance);
  EXPECT_EQ(instance->wave, 3);
  EXPECT_TRUE(
      testing::find_requirement(p, *instance, "CustomResourceDefinition/instances.cnf.org"));
  EXPECT_TRUE(testing::find_unit(p, "Cluster/network-service/edge1", "SELF"));
  EXPECT_TRUE(testing::find_unit(p, "Deployment/cnf/cnf", "edge1"));
  EXPECT_FALSE(testing::find_unit(p, "Deployment/cnf/cnf", "SELF"));
}

TEST(Corpus, KubePrometheusCustomResourcesWaitForTheirCrds) {
  REQUIRE_SHARED(corpus_dir());
  auto out = plan_file(corpus_dir() / "kube-prometheus/seed.yaml");
  ASSERT_TRUE(out.ok());
  size_t crs = 0;
  for (const Unit& u : out.plan.units)
    for (const Requirement& r : u.requirements)
      if (r.rule == "crd") {
        ++crs;
        EXPECT_FALSE(r.external()) << out.plan.object_of(u).display();
      }
  EXPECT_EQ(crs, 23u);
}

}  // namespace
}  // namespace planter
