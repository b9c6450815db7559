#include "seed/seed.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>

#include "seed/planter_annotations.h"
#include "seed/template_variables.h"
#include "seed/validate.h"
#include "test_support.h"

namespace planter {
namespace {

namespace fs = std::filesystem;

Seed parse(const std::string& text, Diagnostics& d) {
  Seed s;
  parse_seed_text(text, "seed.yaml", s, d);
  return s;
}

TEST(Seed, MultiDocumentStreamWithCommentsAndEmptyDocuments) {
  Diagnostics d;
  Seed s = parse(
      "# Source: chart/templates/ns.yaml\n"
      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"
      "---\n---\n# only a comment\n---\n"
      "# Source: chart/templates/cm.yaml\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: a\n",
      d);
  ASSERT_TRUE(d.empty()) << d.str();
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_EQ(s.objects[0].where(), "seed.yaml:2");
  EXPECT_EQ(s.objects[1].where(), "seed.yaml:11");
  EXPECT_EQ(s.objects[1].display(), "v1 ConfigMap a/c");
}

TEST(Seed, ListsAreFlattenedAndItemsKeepTheirLines) {
  Diagnostics d;
  Seed s = parse(
      "apiVersion: v1\nkind: ConfigMapList\nitems:\n"
      "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a, namespace: x}\n"
      "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b, namespace: x}\n",
      d);
  ASSERT_TRUE(d.empty()) << d.str();
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_EQ(s.objects[0].where(), "seed.yaml:4");
  EXPECT_EQ(s.objects[1].where(), "seed.yaml:7");
}

TEST(Seed, ResourceListInputIsRemembered) {
  Diagnostics d;
  Seed s = parse(
      "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
      "- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n",
      d);
  ASSERT_TRUE(d.empty());
  EXPECT_TRUE(s.resource_list);
  ASSERT_EQ(s.objects.size(), 1u);
}

TEST(Seed, StructuralErrorsAreAllReported) {
  Diagnostics d;
  Seed s = parse(
      "kind: ConfigMap\nmetadata: {name: a}\n---\n"
      "apiVersion: v1\nmetadata: {name: b}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: c-}\n---\n"
      "- just\n- a list\n",
      d);
  EXPECT_EQ(d.size(), 4u) << d.str();
  std::string all = testing::all_errors(d);
  EXPECT_NE(all.find("seed.yaml:1: ? ConfigMap a: apiVersion is missing"), std::string::npos)
      << all;
  EXPECT_NE(all.find("seed.yaml:4: v1 ? b: kind is missing"), std::string::npos) << all;
  EXPECT_NE(all.find("seed.yaml:7: v1 ConfigMap (no name): metadata.generateName"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("seed.yaml:11: a document must be a mapping"), std::string::npos) << all;
}

TEST(Seed, FoldersAreReadRecursivelyInPathOrder) {
  fs::path dir = fs::temp_directory_path() / "planter-seed-folder-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "b");
  std::ofstream(dir / "b" / "2.yml") << "apiVersion: v1\nkind: Namespace\nmetadata: {name: two}\n";
  std::ofstream(dir / "a.yaml") << "apiVersion: v1\nkind: Namespace\nmetadata: {name: one}\n";
  std::ofstream(dir / "c.json")
      << R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"three"}})";
  std::ofstream(dir / "README.md") << "not a seed";
  Diagnostics d;
  Seed s = load_seed({dir.string()}, d);
  ASSERT_TRUE(d.empty()) << d.str();
  ASSERT_EQ(s.objects.size(), 3u);
  EXPECT_EQ(s.objects[0].ref.name, "one");
  EXPECT_EQ(s.objects[1].ref.name, "two");
  EXPECT_EQ(s.objects[2].ref.name, "three");
  fs::remove_all(dir);
}

TEST(Seed, MissingFileIsReported) {
  Diagnostics d;
  load_seed({"/nonexistent/seed.yaml"}, d);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d.items()[0].str().find("no such file or folder"), std::string::npos);
}

TEST(Validate, NamespacedObjectsGetTheDefaultNamespace) {
  Diagnostics d;
  Seed s = parse(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n---\n"
      "apiVersion: example.com/v1\nkind: Unknown\nmetadata: {name: c}\n",
      d);
  KindTable kinds = KindTable::builtin();
  validate_seed(s, kinds, {"argocd"}, d);
  ASSERT_TRUE(d.empty()) << d.str();
  EXPECT_EQ(s.objects[0].ref.ns, "argocd");
  EXPECT_EQ(s.objects[1].ref.ns, "");
  EXPECT_EQ(s.objects[2].ref.ns, "");  // scope unknown until discovery: left alone
}

TEST(Validate, SeedCrdsTeachScope) {
  Diagnostics d;
  Seed s = parse(
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
      "metadata: {name: widgets.example.com}\n"
      "spec: {group: example.com, scope: Namespaced, names: {kind: Widget, plural: widgets},"
      " versions: [{name: v1, served: true, storage: true}]}\n---\n"
      "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\n"
      "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w2, namespace: x}\n",
      d);
  KindTable kinds = KindTable::builtin();
  validate_seed(s, kinds, {}, d);
  EXPECT_EQ(s.objects[1].ref.ns, "default");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d.items()[0].str().find("does not serve version v2 (it serves: v1)"), std::string::npos)
      << d.str();
}

TEST(Validate, ClusterScopedNamespaceIsDroppedWithAWarning) {
  Diagnostics d;
  Seed s = parse(
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"
      "metadata: {name: r, namespace: x}\n",
      d);
  KindTable kinds = KindTable::builtin();
  validate_seed(s, kinds, {}, d);
  EXPECT_TRUE(d.empty());
  ASSERT_EQ(d.warnings().size(), 1u);
  EXPECT_EQ(s.objects[0].ref.ns, "");
  EXPECT_FALSE(find_path(s.objects[0].body, {"metadata", "namespace"}));
}

// A seed of 20,000 objects or more is checked in two halves on two threads: the namespaces are
// set and cleared as on one, and the errors and warnings come in the seed's order.
TEST(Validate, ALargeSeedsHalvesAreCheckedAsOneAndReportInTheSeedsOrder) {
  constexpr int kObjects = 30'000;
  std::string yaml;
  for (int i = 0; i < kObjects; ++i) {
    if (i > 0) yaml += "---\n";
    if (i == 5 || i == 25'000)
      yaml += "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r" +
              std::to_string(i) + ", namespace: x" + std::to_string(i) + "}\n";
    else if (i == 10 || i == 20'000 || i == 29'999)
      yaml += "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_" + std::to_string(i) +
              ", namespace: app}\n";
    else
      yaml += "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm" + std::to_string(i) +
              (i == 28'000 ? "" : ", namespace: app") + "}\n";
  }
  Diagnostics d;
  Seed s = parse(yaml, d);
  ASSERT_EQ(s.objects.size(), static_cast<size_t>(kObjects));
  KindTable kinds = KindTable::builtin();
  validate_seed(s, kinds, {"prod"}, d);
  ASSERT_EQ(d.size(), 3u) << d.str();
  for (size_t k = 0; k < 3; ++k)
    EXPECT_EQ(d.items()[k].object,
              "v1 ConfigMap app/Bad_" + std::to_string(std::array{10, 20'000, 29'999}[k]));
  ASSERT_EQ(d.warnings().size(), 2u);
  EXPECT_NE(d.warnings()[0].message.find("\"x5\" is ignored"), std::string::npos);
  EXPECT_NE(d.warnings()[1].message.find("\"x25000\" is ignored"), std::string::npos);
  EXPECT_EQ(s.objects[25'000].ref.ns, "");
  EXPECT_FALSE(find_path(s.objects[25'000].body, {"metadata", "namespace"}));
  EXPECT_EQ(s.objects[28'000].ref.ns, "prod");
  EXPECT_EQ(*find_string(s.objects[28'000].body, {"metadata", "namespace"}), "prod");
}

// A mistyped planter annotation would place or order the object as if it were absent: it is bad
// input naming the object, its line and the key meant; every key planter documents passes.
TEST(Validate, AnUnknownPlanterAnnotationIsRefusedWithTheKeyMeant) {
  Diagnostics d;
  Seed s = parse(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x, annotations: "
      "{planter.nephio.org/clustr: edge9, example.com/clustr: free}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: x\n  annotations:\n"
      "    planter.nephio.org/sparkle: 'yes'\n",
      d);
  KindTable kinds = KindTable::builtin();
  validate_seed(s, kinds, {}, d);
  ASSERT_EQ(d.size(), 2u) << d.str();
  EXPECT_EQ(d.items()[0].str(),
            "seed.yaml:1: v1 ConfigMap x/a: metadata.annotations: planter reads no annotation "
            "\"planter.nephio.org/clustr\"\n  hint: did you mean `planter.nephio.org/cluster`?");
  EXPECT_NE(d.items()[1].str().find("seed.yaml:5: v1 ConfigMap x/b"), std::string::npos) << d.str();
  EXPECT_NE(d.items()[1].str().find("docs/annotations.md"), std::string::npos) << d.str();

  Diagnostics known;
  std::string every;
  for (std::string_view key : planter_annotation_keys()) every += fmt::format("    {}: x\n", key);
  Seed all = parse(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\n"
      "  annotations:\n" +
          every,
      known);
  validate_seed(all, kinds, {}, known);
  for (const Diagnostic& item : known.items())
    EXPECT_EQ(item.str().find("planter reads no annotation"), std::string::npos) << item.str();

  Diagnostics odd;
  Seed recreate = parse(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: x, annotations: "
      "{planter.nephio.org/on-immutable: recreate}}\n",
      odd);
  validate_seed(recreate, kinds, {}, odd);
  ASSERT_EQ(odd.size(), 1u) << odd.str();
  EXPECT_EQ(
      odd.items()[0].str().substr(0, 167),
      "seed.yaml:1: v1 ConfigMap x/d: metadata.annotations[\"planter.nephio.org/on-immutable\"]: "
      "\"recreate\" is not a choice: the only one is \"replace\"\n  hint: set it to replace");
}

TEST(Validate, TemplateVariablesAreNamed) {
  EXPECT_TRUE(has_template_variable("${CLUSTER_NAME}"));
  EXPECT_TRUE(has_template_variable("$NAMESPACE"));
  EXPECT_TRUE(has_template_variable("x-${A}-y"));
  EXPECT_FALSE(has_template_variable("price$"));
  EXPECT_FALSE(has_template_variable("a$1"));
}

}  // namespace
}  // namespace planter
