// Where a Seed's objects come from: ConfigMaps (one, several, a selector), a Flux source's
// artifact; and the Seed's schema as kubectl explain shows it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "operator/operator_support.h"

namespace planter::testing {
namespace {

// kube-prometheus (3 MiB) does not fit one ConfigMap (1 MiB, as kube-apiserver enforces): split in
// parts, each its own ConfigMap labelled as the seed's, a Seed's configMapSelector reads them as
// one seed, in name order. A ConfigMap without the label is not read.
TEST(OperatorTest, ASeedLargerThanAConfigMapIsReadFromTheConfigMapsItsSelectorPicks) {
  SKIP_WITHOUT_CORPUS();
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("create namespace monitoring").code, 0);
  fs::path whole = kCorpus / "kube-prometheus/seed.yaml";
  std::string text = read_file(whole), part;
  ASSERT_GT(text.size(), 3u << 20);  // more than kube-apiserver takes in one request, even
  fs::path half = sim.dir() / "half.yaml";
  std::ofstream(half) << text.substr(0, 3u << 19);
  CommandResult too_big =
      sim.kubectl("create configmap kp -n monitoring --from-file=seed.yaml=" + q(half));
  EXPECT_NE(too_big.code, 0);
  EXPECT_THAT(too_big.err, HasSubstr("ConfigMap \"kp\" is invalid: []: Too long: may not be more "
                                     "than 1048576 bytes"));
  // The seed's documents, in order, in parts of at most 900 KiB; a document larger than that (a
  // CRD of 1 MiB) gzipped alone, which kubectl keeps in binaryData.
  std::vector<std::pair<std::string, bool>> parts;  // text, gzipped
  auto flush = [&] {
    if (!part.empty()) parts.push_back({std::move(part), false});
    part.clear();
  };
  for (size_t at = 0; at < text.size();) {
    size_t next = text.find("\n---", at + 1);
    std::string doc = text.substr(at, next == std::string::npos ? std::string::npos : next - at);
    at = next == std::string::npos ? text.size() : next;
    if (doc.size() > 900 * 1024) {
      flush();
      parts.push_back({gzip(doc), true});
      continue;
    }
    if (part.size() + doc.size() > 900 * 1024) flush();
    part += doc;
  }
  flush();
  ASSERT_GE(parts.size(), 5u);
  ASSERT_TRUE(std::any_of(parts.begin(), parts.end(), [](const auto& p) { return p.second; }));
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string name = fmt::format("kp-{:02}", i);
    std::string key = parts[i].second ? "seed.yaml.gz" : "seed.yaml";
    fs::path f = sim.dir() / (name + "-" + key);
    std::ofstream(f, std::ios::binary) << parts[i].first;
    CommandResult made = sim.kubectl(
        fmt::format("create configmap {} -n monitoring --from-file={}={}", name, key, q(f)));
    ASSERT_EQ(made.code, 0) << made.err;
    ASSERT_EQ(
        sim.kubectl(fmt::format("label configmap {} -n monitoring seed-part=kube-prometheus", name))
            .code,
        0);
  }
  // Not the seed's: were it read, the seed would fail.
  ASSERT_EQ(
      sim.kubectl("create configmap notes -n monitoring --from-literal=seed.yaml='kind: ['").code,
      0);
  ASSERT_EQ(sim.kubectl("label configmap notes -n monitoring seed-part=other").code, 0);
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  apply_yaml(sim, seed_object("monitoring", "kube-prometheus",
                              "    configMapSelector:\n      matchLabels: {seed-part: "
                              "kube-prometheus}"));
  ASSERT_TRUE(
      eventually([&] { return phase_is(sim, "monitoring", "kube-prometheus", "Planted"); }, 180s))
      << sim.kubectl("get seed kube-prometheus -n monitoring -o yaml").out << op.log();
  json::object plan = plan_of(q(whole) + " -n monitoring");
  EXPECT_EQ(seed_field(sim, "monitoring", "kube-prometheus", ".status.counts.declared"),
            std::to_string(plan.at("units").as_array().size()));
  EXPECT_THAT(sim.kubectl("get deployment prometheus-operator -n monitoring").out,
              HasSubstr("prometheus-operator"));
  expect_in_order(plan, sim.audit_lines(), "system:serviceaccount:monitoring:default");
}

// A Seed from a Flux GitRepository: the artifact source-controller announces in its status is
// fetched, checked against its digest and read under spec.source.path (files in path order, other
// folders and non-YAML files left out). An artifact that does not match its digest is not read; a
// source without an artifact yet says so. An OCIRepository, which the corpus's Flux serves only as
// v1beta2, is found there after source.toolkit.fluxcd.io/v1.
TEST(OperatorTest, ASeedIsReadFromAFluxSourcesArtifactCheckedAgainstItsDigest) {
  SKIP_WITHOUT_CORPUS();
  fs::path tmp = fs::temp_directory_path() / fmt::format("planter-flux-{}", getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp / "repo/deploy/app/sub");
  fs::create_directories(tmp / "repo/other");
  fs::create_directories(tmp / "served");
  std::ofstream(tmp / "repo/deploy/app/10-namespace.yaml")
      << "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n";
  std::ofstream(tmp / "repo/deploy/app/sub/20-settings.yaml")
      << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: web}\n"
         "data: {color: green}\n";
  std::ofstream(tmp / "repo/deploy/app/README.md") << "# not a manifest\n";
  std::ofstream(tmp / "repo/other/broken.yaml") << "kind: [\n";  // outside the path
  fs::create_directories(tmp / "repo/deploy/oci");
  std::ofstream(tmp / "repo/deploy/oci/app.yaml")
      << "apiVersion: v1\nkind: Namespace\nmetadata: {name: from-oci}\n---\n"
         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: from-oci}\n"
         "data: {color: blue}\n";
  ASSERT_EQ(
      run_shell("tar czf " + q(tmp / "served/artifact.tar.gz") + " -C " + q(tmp / "repo") + " .")
          .code,
      0);
  std::string digest =
      "sha256:" + run_shell("sha256sum " + q(tmp / "served/artifact.tar.gz") + " | cut -c1-64")
                      .out.substr(0, 64);
  ServerProcess server(file_server_command(tmp / "served"));
  ASSERT_GT(server.port(), 0);
  std::string url = fmt::format("http://127.0.0.1:{}/artifact.tar.gz", server.port());

  SimProcess sim;
  ASSERT_TRUE(sim.running());
  // Flux's own source CRDs, from the corpus's Flux install.
  std::string flux = read_file(kCorpus / "flux/seed.yaml");
  for (std::string plural : {"gitrepositories", "ocirepositories"}) {
    size_t at = flux.find("name: " + plural + ".source.toolkit.fluxcd.io");
    ASSERT_NE(at, std::string::npos) << plural;
    size_t begin = flux.rfind("\n---", at), end = flux.find("\n---", at);
    fs::path crd_file = sim.dir() / (plural + ".yaml");
    std::ofstream(crd_file) << flux.substr(begin + 4,
                                           end == std::string::npos ? end : end - begin - 4);
    ASSERT_EQ(sim.kubectl("apply --server-side -f " + q(crd_file)).code, 0);
    ASSERT_EQ(sim.kubectl("wait --for condition=established --timeout 30s crd/" + plural +
                          ".source.toolkit.fluxcd.io")
                  .code,
              0);
  }
  ASSERT_EQ(sim.kubectl("get crd ocirepositories.source.toolkit.fluxcd.io "
                        "-o jsonpath={.spec.versions[*].name}")
                .out,
            "v1beta2");
  ASSERT_EQ(sim.kubectl("create namespace apps").code, 0);
  // A source of `kind` (GitRepository or OCIRepository), with an artifact of that digest.
  auto flux_source = [&](const std::string& kind, const std::string& name,
                         const std::string& artifact_digest) {
    const bool oci = kind == "OCIRepository";
    apply_yaml(sim,
               fmt::format("apiVersion: source.toolkit.fluxcd.io/{}\nkind: {}\n"
                           "metadata: {{name: {}, namespace: apps}}\n"
                           "spec: {{url: '{}', interval: 1m, ref: {{{}}}}}\n",
                           oci ? "v1beta2" : "v1", kind, name,
                           oci ? "oci://registry.example.org/site" : "https://git.example.org/site",
                           oci ? "tag: latest" : "branch: main"));
    if (artifact_digest.empty()) return;
    std::string patch = fmt::format(
        R"({{"status":{{"artifact":{{"path":"{0}/apps/{1}/abc.tar.gz","url":"{2}",)"
        R"("revision":"{3}","digest":"{4}",)"
        R"("lastUpdateTime":"2026-11-28T05:00:00Z"}}}}}})",
        oci ? "ocirepository" : "gitrepository", name, url,
        oci ? "latest@sha256:0123456789abcdef" : "main@sha1:0123456789abcdef", artifact_digest);
    CommandResult r =
        sim.kubectl(fmt::format("patch {} {} -n apps --subresource=status --type=merge -p '{}'",
                                oci ? "ocirepository" : "gitrepository", name, patch));
    ASSERT_EQ(r.code, 0) << r.err;
  };
  flux_source("GitRepository", "site", digest);
  flux_source("GitRepository", "tampered", "sha256:" + std::string(64, '0'));
  flux_source("GitRepository", "fresh", "");
  flux_source("OCIRepository", "oci", digest);
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  for (const char* name : {"site", "tampered", "fresh"})
    apply_yaml(sim, seed_object("apps", name,
                                fmt::format("    sourceRef: {{kind: GitRepository, name: {}}}\n"
                                            "    path: ./deploy/app",
                                            name)));
  apply_yaml(sim, seed_object("apps", "oci",
                              "    sourceRef: {kind: OCIRepository, name: oci}\n"
                              "    path: deploy/oci"));
  ASSERT_TRUE(eventually(
      [&] {
        return phase_is(sim, "apps", "site", "Planted") &&
               phase_is(sim, "apps", "tampered", "Failed") &&
               phase_is(sim, "apps", "fresh", "Failed") && phase_is(sim, "apps", "oci", "Planted");
      },
      60s))
      << sim.kubectl("get seeds -n apps -o yaml").out << op.log();
  EXPECT_EQ(sim.kubectl("get configmap settings -n web -o jsonpath={.data.color}").out, "green");
  EXPECT_EQ(sim.kubectl("get configmap settings -n from-oci -o jsonpath={.data.color}").out,
            "blue");
  EXPECT_EQ(seed_field(sim, "apps", "oci", ".status.counts.total"), "2");
  EXPECT_EQ(seed_field(sim, "apps", "site", ".status.counts.total"), "2");
  auto failed = [&](const std::string& name) { return failed_message(sim, "apps", name); };
  EXPECT_THAT(failed("tampered"), HasSubstr("GitRepository apps/tampered's artifact from " + url +
                                            " does not match its digest sha256:000"));
  EXPECT_THAT(failed("fresh"), HasSubstr("GitRepository apps/fresh has no artifact yet"));
  fs::remove_all(tmp);
}

// The Seed's schema is structural, with descriptions: kubectl explain says what each field is, the
// status included.
TEST(OperatorTest, KubectlExplainDescribesTheSeedSpecAndStatus) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("apply --server-side -f " +
                        q(kSource / "deploy/crds/planter.nephio.org_seeds.yaml"))
                .code,
            0);
  CommandResult source = sim.kubectl("explain seed.spec.source");
  ASSERT_EQ(source.code, 0) << source.err;
  for (const char* field : {"configMapRef", "configMapRefs", "configMapSelector", "inline", "url"})
    EXPECT_THAT(source.out, HasSubstr(std::string("  ") + field + "\t")) << source.out;
  EXPECT_THAT(source.out, HasSubstr("read in name"));
  CommandResult status = sim.kubectl("explain seed.status --recursive");
  ASSERT_EQ(status.code, 0) << status.err;
  for (const char* field : {"phase", "observedGeneration", "counts", "declared", "notDeclared",
                            "waitingFor", "clusterChoices", "conditions", "lastTransitionTime"})
    EXPECT_THAT(status.out, HasSubstr(field)) << status.out;
  CommandResult phase = sim.kubectl("explain seed.status.phase");
  EXPECT_THAT(phase.out, HasSubstr("Planting, Planted"));
}

// configMapRefs are read in their order, each part named in messages by its ConfigMap and key: a
// problem in the second says where it is, and an unlabelled selector or a missing ConfigMap says
// what to do.
TEST(OperatorTest, ConfigMapRefsAreReadInTheirOrderAndAProblemNamesItsConfigMap) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("create namespace parts").code, 0);
  fs::path bad = sim.dir() / "bad.yaml";
  std::ofstream(bad) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\n"
                        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Not_A_Name}\n";
  ASSERT_EQ(sim.kubectl("create configmap second -n parts --from-file=objects.yaml=" + q(bad)).code,
            0);
  hello_configmap(sim, "parts");
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  apply_yaml(sim, seed_object("parts", "two",
                              "    configMapRefs:\n    - {name: hello}\n    - {name: second, key: "
                              "objects.yaml}"));
  apply_yaml(sim, seed_object("parts", "missing",
                              "    configMapRefs:\n    - {name: hello}\n    - {name: nowhere}"));
  apply_yaml(sim, seed_object("parts", "nothing-selected",
                              "    configMapSelector: {matchLabels: {seed-part: none}}"));
  auto failed = [&](const std::string& name) { return failed_message(sim, "parts", name); };
  ASSERT_TRUE(eventually(
      [&] {
        return phase_is(sim, "parts", "two", "Failed") &&
               phase_is(sim, "parts", "missing", "Failed") &&
               phase_is(sim, "parts", "nothing-selected", "Failed");
      },
      60s))
      << sim.kubectl("get seeds -n parts -o yaml").out << op.log();
  EXPECT_THAT(
      failed("two"),
      HasSubstr("configmap parts/second key objects.yaml:5: v1 ConfigMap parts/Not_A_Name"));
  EXPECT_THAT(failed("two"), HasSubstr("Not_A_Name"));
  EXPECT_THAT(failed("missing"), HasSubstr("configmap parts/nowhere"));
  EXPECT_THAT(failed("missing"), HasSubstr("NotFound"));
  EXPECT_THAT(failed("nothing-selected"),
              HasSubstr("no ConfigMap of namespace parts matches spec.source.configMapSelector "
                        "seed-part=none"));
  // Fixed, the two parts plant as one seed: the hello-world's objects and the second's.
  std::ofstream(bad) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok, namespace: "
                        "parts}\n";
  ASSERT_EQ(sim.kubectl("delete configmap second -n parts").code, 0);
  ASSERT_EQ(sim.kubectl("create configmap second -n parts --from-file=objects.yaml=" + q(bad)).code,
            0);
  ASSERT_EQ(
      sim.kubectl("patch seed two -n parts --type merge -p '{\"spec\":{\"replant\":\"1\"}}'").code,
      0);
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "parts", "two", "Planted"); }, 60s))
      << sim.kubectl("get seed two -n parts -o yaml").out << op.log();
  EXPECT_THAT(sim.kubectl("get configmap ok -n parts").out, HasSubstr("ok"));
  EXPECT_EQ(seed_field(sim, "parts", "two", ".status.counts.total"), "11");
}

}  // namespace
}  // namespace planter::testing
