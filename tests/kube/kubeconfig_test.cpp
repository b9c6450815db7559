// kubeconfig loading as kubectl does it: merging, relative paths, context selection, errors.
#include "kube/kubeconfig.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kube/credentials.h"
#include "model/base64.h"

namespace planter::kube {
namespace {

namespace fs = std::filesystem;

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/planter-kubeconfig-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

const char* kFileA = R"(apiVersion: v1
kind: Config
current-context: alpha
clusters:
- name: shared
  cluster:
    server: https://a.example:6443/
    certificate-authority: certs/ca.pem
users:
- name: shared-user
  user:
    token: token-from-a
contexts:
- name: alpha
  context: {cluster: shared, user: shared-user, namespace: team-a}
)";

const char* kFileB = R"(apiVersion: v1
kind: Config
current-context: beta
clusters:
- name: shared
  cluster:
    server: https://b.example:6443
- name: only-b
  cluster:
    server: https://only-b.example/prefix/path
    insecure-skip-tls-verify: true
    tls-server-name: api.internal
    proxy-url: http://proxy.example:3128
users:
- name: shared-user
  user:
    token: token-from-b
    username: ignored-because-a-defines-this-user
- name: b-user
  user:
    tokenFile: tokens/b
    as: jane
    as-groups: [devs, ops]
contexts:
- name: beta
  context: {cluster: only-b, user: b-user}
)";

TEST_F(KubeconfigTest, MergesKubeconfigFilesTheWayKubectlDoes) {
  std::string a = write("a/config", kFileA);
  write("a/certs/ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  std::string b = write("b/config", kFileB);
  auto k = Kubeconfig::load({.kubeconfig_env = a + ":" + (dir_ / "missing").string() + ":" + b});
  ASSERT_TRUE(k.ok()) << k.error().message;
  // The first file to set current-context wins it.
  EXPECT_EQ(k->current_context(), "alpha");
  auto alpha = k->rest_config();
  ASSERT_TRUE(alpha.ok()) << alpha.error().message;
  // The first file to define a name keeps it whole: a's cluster and user, not b's.
  EXPECT_EQ(alpha->server, "https://a.example:6443");
  EXPECT_EQ(alpha->auth.token, "token-from-a");
  EXPECT_EQ(alpha->auth.username, "");
  EXPECT_EQ(alpha->ns, "team-a");
  // certificate-authority resolves against a's folder.
  EXPECT_TRUE(alpha->ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));

  auto beta = k->rest_config("beta");
  ASSERT_TRUE(beta.ok()) << beta.error().message;
  EXPECT_EQ(beta->server, "https://only-b.example/prefix/path");
  EXPECT_TRUE(beta->insecure_skip_tls_verify);
  EXPECT_EQ(beta->tls_server_name, "api.internal");
  EXPECT_EQ(beta->proxy_url, "http://proxy.example:3128");
  EXPECT_EQ(beta->ns, "default");
  EXPECT_EQ(beta->auth.token_file, (dir_ / "b/tokens/b").string());
  EXPECT_EQ(beta->auth.impersonate, "jane");
  EXPECT_EQ(beta->auth.impersonate_groups, (std::vector<std::string>{"devs", "ops"}));
}

TEST_F(KubeconfigTest, AnExplicitFileMustExistAndWinsOverTheEnvironment) {
  std::string b = write("b/config", kFileB);
  auto k = Kubeconfig::load({.explicit_path = b, .kubeconfig_env = "/nonexistent"});
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->current_context(), "beta");
  auto missing = Kubeconfig::load({.explicit_path = (dir_ / "nope").string()});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
}

TEST_F(KubeconfigTest, HomeKubeConfigIsTheDefault) {
  write("home/.kube/config", kFileB);
  auto k = Kubeconfig::load({.home = (dir_ / "home").string()});
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->current_context(), "beta");
  auto none = Kubeconfig::load({.home = (dir_ / "nobody").string()});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find(".kube/config"), std::string::npos);
}

TEST_F(KubeconfigTest, ErrorsNameTheContextAndWhatIsMissing) {
  auto k = Kubeconfig::parse(kFileA, "a.yaml", dir_.string());
  ASSERT_TRUE(k.ok());
  auto unknown = k->rest_config("gamma");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("context \"gamma\" not found (known: alpha)"),
            std::string::npos);
  // The CA file is relative to base_dir, which lacks it.
  auto alpha = k->rest_config();
  ASSERT_FALSE(alpha.ok());
  EXPECT_NE(alpha.error().message.find("certs/ca.pem"), std::string::npos);
  EXPECT_NE(alpha.error().message.find("cluster \"shared\""), std::string::npos);

  auto bad = Kubeconfig::parse("clusters: {a: b}\n", "bad.yaml", "/");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("bad.yaml: clusters must be a list"), std::string::npos);
}

TEST_F(KubeconfigTest, ExecNeedsASupportedApiVersionAndInteractiveModeInV1) {
  std::string base = R"(clusters: [{name: c, cluster: {server: "https://x"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
)";
  auto v1_without_mode = Kubeconfig::parse(
      base +
          "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, "
          "command: ./plugin}}}]\n",
      "k", "/etc/kube");
  ASSERT_TRUE(v1_without_mode.ok());
  auto r = v1_without_mode->rest_config();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("interactiveMode"), std::string::npos);

  auto alpha = Kubeconfig::parse(
      base +
          "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1alpha1, "
          "command: plugin}}}]\n",
      "k", "/etc/kube");
  ASSERT_FALSE(alpha->rest_config().ok());

  auto ok = Kubeconfig::parse(
      base +
          "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, "
          "command: bin/plugin, args: [--x], env: [{name: A, value: b}]}}}]\n",
      "k", "/etc/kube");
  auto rc = ok->rest_config();
  ASSERT_TRUE(rc.ok()) << rc.error().message;
  EXPECT_EQ(rc->auth.exec->command, "/etc/kube/bin/plugin");  // relative to the kubeconfig
  EXPECT_EQ(rc->auth.exec->args, (std::vector<std::string>{"--x"}));
}

TEST_F(KubeconfigTest, InClusterConfigReadsTheServiceAccount) {
  write("root/var/run/secrets/kubernetes.io/serviceaccount/token", "sa-token\n");
  write("root/var/run/secrets/kubernetes.io/serviceaccount/ca.crt", "CA");
  write("root/var/run/secrets/kubernetes.io/serviceaccount/namespace", "planter-system");
  auto rc = in_cluster_config({"10.96.0.1", "443", (dir_ / "root").string()});
  ASSERT_TRUE(rc.ok()) << rc.error().message;
  EXPECT_EQ(rc->server, "https://10.96.0.1:443");
  EXPECT_EQ(rc->ns, "planter-system");
  EXPECT_EQ(rc->ca_pem, "CA");
  CredentialSource creds(rc.value());
  auto c = creds.get();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->bearer_token, "sa-token");
  // The kubelet rotates the token: the next request carries the new one.
  write("root/var/run/secrets/kubernetes.io/serviceaccount/token", "rotated-token-longer\n");
  EXPECT_EQ(creds.get()->bearer_token, "rotated-token-longer");

  auto outside = in_cluster_config({"", "", ""});
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.error().message.find("KUBERNETES_SERVICE_HOST"), std::string::npos);
}

TEST(Rfc3339, ParsesWhatExecPluginsWrite) {
  auto t = parse_rfc3339("2026-11-21T10:00:00Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(std::chrono::system_clock::to_time_t(*t), 1795255200);
  auto offset = parse_rfc3339("2026-11-21T11:00:00.5+01:00");
  ASSERT_TRUE(offset);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(*offset - *t).count(), 500);
  EXPECT_FALSE(parse_rfc3339("yesterday"));
}

TEST(Base64, RoundTripsAndRejectsGarbage) {
  EXPECT_EQ(base64_encode("planter"), "cGxhbnRlcg==");
  EXPECT_EQ(base64_decode("cGxhbnRlcg==").value_or("?"), "planter");
  EXPECT_EQ(base64_decode("cGxh\nbnRl\ncg==").value_or("?"), "planter");
  EXPECT_FALSE(base64_decode("not base64!"));
}

}  // namespace
}  // namespace planter::kube
