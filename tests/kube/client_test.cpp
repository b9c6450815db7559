// The client against `planter sim` over real sockets: every way to authenticate, a server URL
// with a path prefix, impersonation, HTTP/1.1 and HTTP/2, discovery, the verbs and their errors.
#include "kube/client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "kube/sim_fleet.h"
#include "model/base64.h"
#include "model/files.h"
#include "model/object.h"

namespace planter::kube {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using testing::SimFleet;

std::unique_ptr<Client> connect(RestConfig rc, ClientOptions options = {}) {
  auto c = Client::create(std::move(rc), options);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return std::move(c.value());
}

json::object config_map(const std::string& ns, const std::string& name,
                        json::object data = {{"k", "v"}}) {
  return json::object{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", {{"name", name}, {"namespace", ns}}},
                      {"data", std::move(data)}};
}

// The user the audit log saw write ConfigMap `name`.
std::string writer_of(const SimFleet& fleet, const std::string& name) {
  for (const json::object& a : fleet.audit_requests())
    if (a.at("object").as_string().ends_with("|" + name))
      return std::string(a.at("user").as_string());
  return "(not in the audit log)";
}

std::string kubeconfig_for(const SimFleet& fleet, const std::string& user_yaml) {
  return testing::kubeconfig_with_user(fleet.server().url(), fleet.server().ca_pem(), user_yaml);
}

RestConfig rest_config_of(const SimFleet& fleet, const std::string& kubeconfig) {
  fs::path p = fleet.write("kubeconfig-" + std::to_string(std::rand()), kubeconfig);
  auto k = Kubeconfig::load({.explicit_path = p.string()});
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().message);
  auto rc = k->rest_config();
  EXPECT_TRUE(rc.ok()) << (rc.ok() ? "" : rc.error().message);
  return rc.value();
}

TEST(KubeClient, ListsWithTheSimsOwnKubeconfig) {
  SimFleet fleet;
  auto client = connect(fleet.rest_config());
  auto ns = client->list({"v1", "Namespace"});
  ASSERT_TRUE(ns.ok()) << ns.error().str();
  std::set<std::string> names;
  for (const json::object& o : ns->items)
    names.insert(std::string(o.at("metadata").at("name").as_string()));
  EXPECT_EQ(names,
            (std::set<std::string>{"default", "kube-node-lease", "kube-public", "kube-system"}));
  EXPECT_FALSE(ns->resource_version.empty());
  EXPECT_TRUE(client->aggregated_discovery());
}

TEST(KubeClient, AuthenticatesWithAClientCertificateFromDataOrFiles) {
  SimFleet fleet;
  auto cert = fleet.server().client_certificate("cert-user", {"system:masters"});
  ASSERT_TRUE(cert.ok()) << cert.error().message;
  auto data = connect(rest_config_of(
      fleet, kubeconfig_for(fleet, "client-certificate-data: " + base64_encode(cert->first) +
                                       "\nclient-key-data: " + base64_encode(cert->second))));
  ASSERT_TRUE(data->apply(config_map("default", "from-cert-data")).ok());
  EXPECT_EQ(writer_of(fleet, "from-cert-data"), "cert-user");

  // Files, relative to the kubeconfig's folder.
  fleet.write("pki/client.crt", cert->first);
  fleet.write("pki/client.key", cert->second);
  auto files = connect(rest_config_of(
      fleet,
      kubeconfig_for(fleet, "client-certificate: pki/client.crt\nclient-key: pki/client.key")));
  auto r = files->apply(config_map("default", "from-cert-files"));
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(writer_of(fleet, "from-cert-files"), "cert-user");
}

TEST(KubeClient, RereadsATokenFileWhenItChanges) {
  SimFleet fleet({}, {{"tokens.csv", "first-token,alice,1\nsecond-token,bob,2,\"devs\"\n"}},
                 [](const fs::path& dir, sim::ServerOptions& o) {
                   o.token_auth_file = (dir / "tokens.csv").string();
                 });
  fleet.write("token", "first-token\n");
  auto client = connect(rest_config_of(fleet, kubeconfig_for(fleet, "tokenFile: token")));
  ASSERT_TRUE(client->apply(config_map("default", "by-alice")).ok());
  fleet.write("token", "second-token\n");
  ASSERT_TRUE(client->apply(config_map("default", "by-bob")).ok());
  EXPECT_EQ(writer_of(fleet, "by-alice"), "alice");
  EXPECT_EQ(writer_of(fleet, "by-bob"), "bob");
}

TEST(KubeClient, AuthenticatesWithBasicAuth) {
  SimFleet fleet({}, {{"basic.csv", "s3cret-pw,carol,3\n"}},
                 [](const fs::path& dir, sim::ServerOptions& o) {
                   o.basic_auth_file = (dir / "basic.csv").string();
                 });
  auto client =
      connect(rest_config_of(fleet, kubeconfig_for(fleet, "username: carol\npassword: s3cret-pw")));
  ASSERT_TRUE(client->apply(config_map("default", "by-carol")).ok());
  EXPECT_EQ(writer_of(fleet, "by-carol"), "carol");

  auto wrong =
      connect(rest_config_of(fleet, kubeconfig_for(fleet, "username: carol\npassword: nope")));
  auto denied = wrong->get("v1", "ConfigMap", "default", "by-carol");
  ASSERT_FALSE(denied.ok());
  EXPECT_TRUE(denied.error().unauthorized());
  EXPECT_EQ(denied.error().str().find("nope"), std::string::npos);  // no password in messages
}

class ExecPluginTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExecPluginTest, RunsThePluginOnceUntilA401ThenAgain) {
  SimFleet fleet;
  fs::path state = fleet.dir() / "plugin-state";
  fs::create_directories(state);
  std::ofstream(state / "stale-first") << "";
  std::string mode =
      GetParam() == "client.authentication.k8s.io/v1" ? "  interactiveMode: Never\n" : "";
  std::string user = "exec:\n  apiVersion: " + GetParam() + "\n  command: " + PLANTER_SOURCE_DIR +
                     "/tests/kube/exec-credential.sh\n  provideClusterInfo: true\n" + mode +
                     "  env:\n  - {name: PLUGIN_STATE, value: " + state.string() +
                     "}\n  - {name: PLUGIN_TOKEN, value: " + fleet.server().token() +
                     "}\n  - {name: EXEC_API_VERSION, value: " + GetParam() + "}\n";
  auto client = connect(rest_config_of(fleet, kubeconfig_for(fleet, user)));
  // The first token is stale: the 401 makes the client run the plugin again, and the request
  // goes through.
  auto first = client->apply(config_map("default", "by-exec"));
  ASSERT_TRUE(first.ok()) << first.error().str();
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(client->get("v1", "ConfigMap", "default", "by-exec").ok());
  EXPECT_EQ(read_file((state / "runs").string()).value(), "2\n");

  auto info = json::parse(read_file((state / "info-1.json").string()).value()).as_object();
  EXPECT_EQ(info.at("apiVersion").as_string(), GetParam());
  EXPECT_EQ(info.at("kind").as_string(), "ExecCredential");
  EXPECT_EQ(info.at("spec").at("interactive").as_bool(), false);
  EXPECT_EQ(info.at("spec").at("cluster").at("server").as_string(), fleet.server().url());
  EXPECT_EQ(
      base64_decode(info.at("spec").at("cluster").at("certificate-authority-data").as_string())
          .value_or(""),
      fleet.server().ca_pem());
}

INSTANTIATE_TEST_SUITE_P(Versions, ExecPluginTest,
                         ::testing::Values("client.authentication.k8s.io/v1",
                                           "client.authentication.k8s.io/v1beta1"));

TEST(KubeClient, RunsAnExecPluginAgainWhenItsCredentialExpires) {
  SimFleet fleet;
  fs::path state = fleet.dir() / "plugin-state";
  fs::create_directories(state);
  auto expiry = std::chrono::system_clock::now() + std::chrono::seconds(2);
  std::time_t t = std::chrono::system_clock::to_time_t(expiry);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  std::string user =
      std::string("exec:\n  apiVersion: client.authentication.k8s.io/v1\n  command: ") +
      PLANTER_SOURCE_DIR + "/tests/kube/exec-credential.sh\n  interactiveMode: IfAvailable\n" +
      "  env:\n  - {name: PLUGIN_STATE, value: " + state.string() +
      "}\n  - {name: PLUGIN_TOKEN, value: " + fleet.server().token() +
      "}\n  - {name: PLUGIN_EXPIRY, value: \"" + stamp +
      "\"}\n  - {name: EXEC_API_VERSION, value: client.authentication.k8s.io/v1}\n";
  auto client = connect(rest_config_of(fleet, kubeconfig_for(fleet, user)));
  ASSERT_TRUE(client->list({"v1", "Namespace"}).ok());
  ASSERT_TRUE(client->list({"v1", "Namespace"}).ok());
  EXPECT_EQ(read_file((state / "runs").string()).value(), "1\n");
  // sleep-ok(time): the credential's expiry is the condition (a timestamp in seconds)
  std::this_thread::sleep_until(expiry + std::chrono::milliseconds(1100));
  ASSERT_TRUE(client->list({"v1", "Namespace"}).ok());
  EXPECT_EQ(read_file((state / "runs").string()).value(), "2\n");
}

TEST(KubeClient, AFailingExecPluginIsAClearError) {
  SimFleet fleet;
  std::string user =
      "exec:\n  apiVersion: client.authentication.k8s.io/v1beta1\n  command: "
      "planter-no-such-plugin\n  installHint: install it from example.com\n";
  auto client = connect(rest_config_of(fleet, kubeconfig_for(fleet, user)));
  auto r = client->list({"v1", "Namespace"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().reason, "Credentials");
  EXPECT_NE(r.error().message.find("planter-no-such-plugin"), std::string::npos);
  EXPECT_NE(r.error().message.find("install it from example.com"), std::string::npos);
}

TEST(KubeClient, AHangingExecPluginDoesNotHoldTheClientsEnd) {
  SimFleet fleet;
  fs::path started =
      fs::temp_directory_path() / ("planter-exec-started-" + std::to_string(::getpid()));
  fs::remove(started);
  std::string user =
      "exec:\n  apiVersion: client.authentication.k8s.io/v1\n  command: /bin/sh\n"
      "  args: [-c, 'touch " +
      // sleep-ok(child): the exec plugin hangs, the hostile input
      started.string() + "; sleep 300']\n  interactiveMode: Never\n";
  auto client = connect(rest_config_of(fleet, kubeconfig_for(fleet, user)));
  for (int i = 0; i < 5; ++i) client->list_async({"v1", "Namespace"}, [](auto) {});
  // The plugin runs (and hangs) before the client is dropped.
  for (int i = 0; i < 600 && !fs::exists(started); ++i)
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(started)) << "the exec plugin never ran";
  fs::remove(started);
  auto start = std::chrono::steady_clock::now();
  client.reset();  // as `plant --timeout` does when its time is up
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(KubeClient, ReachesAWorkloadClusterUnderAPathPrefix) {
  sim::ServerOptions options;
  options.fleet.clusters = 1;
  SimFleet fleet(options);
  RestConfig edge = fleet.rest_config("edge1");
  EXPECT_EQ(edge.server, fleet.server().url() + "/clusters/edge1");
  auto client = connect(edge);
  auto nodes = client->list({"v1", "Node"});
  ASSERT_TRUE(nodes.ok()) << nodes.error().str();
  ASSERT_FALSE(nodes->items.empty());
  for (const json::object& n : nodes->items)
    EXPECT_TRUE(n.at("metadata").at("name").as_string().starts_with("edge1-node-"));
  ASSERT_TRUE(client->apply(config_map("default", "on-edge")).ok());
  bool on_edge = false;
  for (const json::object& a : fleet.audit_requests())
    on_edge = on_edge || (a.at("cluster").as_string() == "edge1" &&
                          a.at("object").as_string().ends_with("|on-edge"));
  EXPECT_TRUE(on_edge);
}

TEST(KubeClient, ReachesAWorkloadClusterThroughTheKubeconfigInItsSecret) {
  sim::ServerOptions options;
  options.fleet.clusters = 1;
  SimFleet fleet(options);
  auto management = connect(fleet.rest_config());
  auto secret = management->get("v1", "Secret", "default", "edge1-kubeconfig");
  ASSERT_TRUE(secret.ok()) << secret.error().str();
  auto bytes = base64_decode(secret->at("data").at("value").as_string());
  ASSERT_TRUE(bytes);
  auto kubeconfig = Kubeconfig::parse(*bytes, "Secret default/edge1-kubeconfig", "/");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.error().message;
  auto rc = kubeconfig->rest_config();
  ASSERT_TRUE(rc.ok()) << rc.error().message;
  auto edge = connect(rc.value());
  auto nodes = edge->list({"v1", "Node"});
  ASSERT_TRUE(nodes.ok()) << nodes.error().str();
  EXPECT_TRUE(nodes->items.front().at("metadata").at("name").as_string().starts_with("edge1-"));
}

TEST(KubeClient, ChecksTheServerCertificateAgainstTlsServerName) {
  SimFleet fleet;
  // The sim's certificate names localhost, 127.0.0.1 and ::1.
  RestConfig named = fleet.rest_config();
  named.tls_server_name = "localhost";
  EXPECT_TRUE(connect(named)->list({"v1", "Namespace"}).ok());

  RestConfig wrong = fleet.rest_config();
  wrong.tls_server_name = "api.elsewhere.example";
  ClientOptions once;
  once.transport.max_attempts = 1;
  auto r = connect(wrong, once)->list({"v1", "Namespace"});
  ASSERT_FALSE(r.ok());
  // Not worth retrying: the certificate will not name that host later either.
  EXPECT_EQ(r.error().reason, "TLS") << r.error().str();
  EXPECT_TRUE(r.error().unusable_config());
  EXPECT_FALSE(r.error().transient());

  RestConfig no_ca = fleet.rest_config();
  no_ca.ca_pem.clear();  // the system's trust store does not know the sim's CA
  auto untrusted = connect(no_ca, once)->list({"v1", "Namespace"});
  ASSERT_FALSE(untrusted.ok());
  EXPECT_EQ(untrusted.error().reason, "TLS") << untrusted.error().str();
  no_ca.insecure_skip_tls_verify = true;
  EXPECT_TRUE(connect(no_ca, once)->list({"v1", "Namespace"}).ok());
}

TEST(KubeClient, ImpersonationReachesTheAuditLog) {
  SimFleet fleet;
  ClientOptions options;
  options.transport.impersonate_user = "system:serviceaccount:cnf:deployer";
  options.transport.impersonate_groups = {"system:serviceaccounts"};
  auto client = connect(fleet.rest_config(), options);
  ASSERT_TRUE(client->apply(config_map("default", "impersonated")).ok());
  EXPECT_EQ(writer_of(fleet, "impersonated"), "system:serviceaccount:cnf:deployer");
}

// A line break in a header value would end the header and start another one: the issue's
// "deployer\r\nImpersonate-Group: system:masters". The transport refuses to send it, whatever the
// value came from, and the server sees nothing.
TEST(KubeClient, AHeaderValueWithALineBreakIsNeverSent) {
  SimFleet fleet;
  for (std::string user : {std::string("system:serviceaccount:team:deployer\r\nImpersonate-Group: "
                                       "system:masters"),
                           std::string("deployer\nx"), std::string("deployer\0x", 10)}) {
    ClientOptions options;
    options.transport.impersonate_user = user;
    options.transport.max_attempts = 1;
    auto client = connect(fleet.rest_config(), options);
    auto written = client->apply(config_map("default", "smuggled"));
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().reason, "BadHeader") << written.error().str();
    EXPECT_TRUE(written.error().unusable_config());
    EXPECT_NE(written.error().message.find("Impersonate-User"), std::string::npos)
        << written.error().message;
    EXPECT_EQ(written.error().message.find("system:masters"), std::string::npos)
        << "the value is not echoed: " << written.error().message;
  }
  ClientOptions grouped;
  grouped.transport.impersonate_user = "system:serviceaccount:team:deployer";
  grouped.transport.impersonate_groups = {"system:serviceaccounts\r\nX-Evil: 1"};
  auto client = connect(fleet.rest_config(), grouped);
  auto written = client->apply(config_map("default", "smuggled"));
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().reason, "BadHeader");
  EXPECT_EQ(writer_of(fleet, "smuggled"), "(not in the audit log)");
}

// The client diff, the preflight and the drift check use: it reads and dry-runs, and a write is
// refused before it is sent, whatever asks for it.
TEST(KubeClient, AReadOnlyClientCannotWrite) {
  SimFleet fleet;
  ClientOptions options = read_only({});
  options.transport.max_attempts = 1;
  auto client = connect(fleet.rest_config(), options);
  ASSERT_TRUE(client->list({"v1", "Namespace"}).ok());
  ApplyOptions dry;
  dry.dry_run = true;
  EXPECT_TRUE(client->apply(config_map("default", "tried"), dry).ok());
  auto applied = client->apply(config_map("default", "tried"));
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.error().reason, "ReadOnly") << applied.error().str();
  auto created = client->create(config_map("default", "tried"));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().reason, "ReadOnly");
  auto removed = client->remove("v1", "Namespace", "", "default");
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.error().reason, "ReadOnly");
  EXPECT_EQ(writer_of(fleet, "tried"), "(not in the audit log)");
  EXPECT_TRUE(connect(fleet.rest_config())->get("v1", "Namespace", "", "default").ok());
}

TEST(KubeClient, VerbsAndTheirErrors) {
  SimFleet fleet;
  auto client = connect(fleet.rest_config());
  auto missing = client->get("v1", "ConfigMap", "default", "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.error().not_found());
  EXPECT_FALSE(missing.error().kind_unknown());

  auto created = client->create(config_map("default", "cm"));
  ASSERT_TRUE(created.ok()) << created.error().str();
  auto again = client->create(config_map("default", "cm"));
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.error().already_exists());

  // A stale resourceVersion is a conflict.
  json::object stale = created.value();
  ASSERT_TRUE(
      client->merge_patch("v1", "ConfigMap", "default", "cm", {{"data", {{"k", "w"}}}}).ok());
  stale["data"] = json::object{{"k", "x"}};
  auto conflict = client->update(stale);
  ASSERT_FALSE(conflict.ok());
  EXPECT_TRUE(conflict.error().conflict());

  // Server-side apply: a second manager touching the same field conflicts until it forces.
  ASSERT_TRUE(client->apply(config_map("default", "owned", {{"k", "planter"}})).ok());
  auto other =
      client->apply(config_map("default", "owned", {{"k", "other"}}), {.field_manager = "other"});
  ASSERT_FALSE(other.ok());
  EXPECT_TRUE(other.error().conflict());
  EXPECT_NE(other.error().message.find("planter"), std::string::npos);
  auto forced = client->apply(config_map("default", "owned", {{"k", "other"}}),
                              {.field_manager = "other", .force = true});
  ASSERT_TRUE(forced.ok()) << forced.error().str();

  // Invalid objects come back with the server's causes.
  json::object bad = config_map("default", "Not_A_Name");
  auto invalid = client->apply(bad);
  ASSERT_FALSE(invalid.ok());
  EXPECT_TRUE(invalid.error().invalid()) << invalid.error().str();

  // A kind nobody serves.
  json::object widget{{"apiVersion", "example.com/v1"},
                      {"kind", "Widget"},
                      {"metadata", {{"name", "w"}, {"namespace", "default"}}}};
  auto unknown = client->apply(widget);
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(unknown.error().kind_unknown());
  EXPECT_NE(
      unknown.error().message.find("no matches for kind \"Widget\" in version \"example.com/v1\""),
      std::string::npos);

  // The context's namespace is the default, as in kubectl.
  json::object no_ns{
      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "defaulted"}}}};
  auto applied = client->apply(no_ns);
  ASSERT_TRUE(applied.ok()) << applied.error().str();
  EXPECT_EQ(applied->at("metadata").at("namespace").as_string(), "default");

  // Delete with a precondition on the uid.
  auto wrong_uid =
      client->remove("v1", "ConfigMap", "default", "cm", {.precondition_uid = "not-it"});
  ASSERT_FALSE(wrong_uid.ok());
  EXPECT_TRUE(wrong_uid.error().conflict());
  std::string uid(created->at("metadata").at("uid").as_string());
  ASSERT_TRUE(client->remove("v1", "ConfigMap", "default", "cm", {.precondition_uid = uid}).ok());
  EXPECT_TRUE(client->get("v1", "ConfigMap", "default", "cm").error().not_found());
}

TEST(KubeClient, ListsPageByPage) {
  SimFleet fleet;
  auto client = connect(fleet.rest_config());
  for (int i = 0; i < 25; ++i)
    ASSERT_TRUE(client->apply(config_map("default", "page-" + std::to_string(i))).ok());
  size_t before = fleet.audit_requests().size();
  auto list = client->list({"v1", "ConfigMap", "default"}, 10);
  ASSERT_TRUE(list.ok()) << list.error().str();
  int pages = 0;
  for (const json::object& o : list->items)
    pages += o.at("metadata").at("name").as_string().starts_with("page-");
  EXPECT_EQ(pages, 25);
  EXPECT_EQ(list->items.front().at("kind").as_string(), "ConfigMap");
  EXPECT_EQ(fleet.audit_requests().size(), before);  // reads are not audited
}

TEST(KubeClient, FindsAKindOnceItsCrdIsEstablished) {
  sim::ServerOptions options;
  options.fleet.cluster.crd_delay = std::chrono::milliseconds(300);
  SimFleet fleet(options);
  ClientOptions co;
  co.discovery_refresh = std::chrono::milliseconds(100);
  auto client = connect(fleet.rest_config(), co);
  json::object crd = json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
      "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
      "versions": [{"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})")
                         .as_object();
  ASSERT_TRUE(client->apply(crd).ok());
  json::object widget{{"apiVersion", "example.com/v1"},
                      {"kind", "Widget"},
                      {"metadata", {{"name", "w"}, {"namespace", "default"}}}};
  auto early = client->apply(widget);
  ASSERT_FALSE(early.ok());
  EXPECT_TRUE(early.error().kind_unknown());
  int refreshes = client->discovery_refreshes();
  // Once the CRD says Established (a read, which needs no discovery), the kind is served.
  auto established = [&] {
    auto got = client->get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "",
                           "widgets.example.com");
    if (!got) return false;
    const json::value* conditions = find_path(*got, {"status", "conditions"});
    if (!conditions || !conditions->is_array()) return false;
    for (const json::value& c : conditions->as_array())
      if (c.is_object() && c.as_object().contains("type") && c.at("type") == "Established" &&
          c.as_object().contains("status") && c.at("status") == "True")
        return true;
    return false;
  };
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       !established() && std::chrono::steady_clock::now() < end;)
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(established());
  auto later = client->apply(widget);
  ASSERT_TRUE(later.ok()) << later.error().str();
  EXPECT_EQ(client->discovery_refreshes(), refreshes + 1);
}

TEST(KubeClient, SpeaksHttp2WhenTheServerOffersIt) {
  SimFleet fleet;
  ClientOptions h2;
  h2.transport.max_in_flight = 32;
  auto client = connect(fleet.rest_config(), h2);
  std::vector<std::future<ApiResult<json::object>>> results;
  std::atomic<int> ok{0};
  std::promise<void> all;
  constexpr int kN = 1200;  // more than the 1,000 streams a reset guard would allow
  std::atomic<int> left{kN};
  for (int i = 0; i < kN; ++i)
    client->apply_async(config_map("default", "h2-" + std::to_string(i)), {}, [&](auto r) {
      if (r.ok()) ++ok;
      if (--left == 0) all.set_value();
    });
  all.get_future().wait();
  EXPECT_EQ(ok, kN);
  TransportStats s = client->transport().stats();
  EXPECT_GT(s.http2_responses, 0u);
  EXPECT_EQ(s.http1_responses, 0u);
  EXPECT_LE(s.connections, 2u);  // many streams on one connection

  ClientOptions h1;
  h1.transport.http2 = false;
  h1.transport.max_in_flight = 8;
  auto old = connect(fleet.rest_config(), h1);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(old->get("v1", "ConfigMap", "default", "h2-1").ok());
  TransportStats s1 = old->transport().stats();
  EXPECT_EQ(s1.http2_responses, 0u);
  EXPECT_LE(s1.connections, 8u);  // connections are reused
}

TEST(KubeClient, NoCredentialInErrorMessages) {
  SimFleet fleet;
  RestConfig rc = fleet.rest_config();
  rc.auth.token = "wrong-token-do-not-print";
  auto client = connect(rc);
  auto r = client->list({"v1", "Namespace"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().unauthorized());
  EXPECT_EQ(r.error().str().find("wrong-token"), std::string::npos);

  RestConfig refused = fleet.rest_config();
  refused.server = "https://127.0.0.1:1";
  ClientOptions fast;
  fast.transport.max_attempts = 2;
  auto nowhere = connect(refused, fast);
  auto e = nowhere->list({"v1", "Namespace"});
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(e.error().transport());
  EXPECT_EQ(e.error().attempts, 2);
  EXPECT_EQ(e.error().str().find(fleet.server().token()), std::string::npos);
}

}  // namespace
}  // namespace planter::kube
