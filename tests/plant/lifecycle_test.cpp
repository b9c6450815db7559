// What planting does to what it planted before, as a user runs it: uproot, adoption, replant and
// its prune, the preflight's dry run and `planter diff`, against a `planter sim` in its own
// process, with the audit log as the oracle for what was written.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <future>
#include <iomanip>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "plant/audit_order.h"
#include "plant/plant_support.h"
#include "sanitized.h"
#include "shared_dir.h"
#include "sim/planter_process.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// uproot deletes dependents first and waits for each deletion; afterwards the management
// cluster is as it was and the workload cluster is gone.
TEST(PlantTest, UprootLeavesTheFleetAsItWasInReverseOrder) {
  SimProcess sim({"--provision-delay", "500"});
  ASSERT_TRUE(sim.running());
  std::string seed = q(kSource / "examples/hello-world/seed.yaml");
  CommandResult before = sim.kubectl("get namespaces,crds,clusterroles -o name");
  ASSERT_EQ(before.code, 0) << before.err;
  CommandResult planted = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + seed);
  ASSERT_EQ(planted.code, 0) << planted.out << planted.err;

  // Something that is not the seed's stays.
  ASSERT_EQ(sim.kubectl("create configmap bystander -n fleet").code, 0);
  CommandResult r =
      planter("uproot --kubeconfig " + q(sim.kubeconfig()) + " " + seed + " --timeout 60");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("uprooted 10 units"));

  json::object plan = plan_of(seed);
  OrderCheck order = check_uproot_order(plan, parse_audit(sim.audit_lines()));
  EXPECT_EQ(order.units_written, 10u);
  EXPECT_GT(order.requirements_checked, 5u);
  EXPECT_THAT(order.violations, IsEmpty());

  CommandResult after = sim.kubectl("get namespaces,crds,clusterroles -o name");
  EXPECT_EQ(after.out, before.out);
  EXPECT_THAT(sim.kubectl("get clusters.planter.nephio.org -A").err,
              HasSubstr("No resources found"));
}

TEST(PlantTest, UprootLeavesObjectsOfOtherSeedsAlone) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "seed.yaml";
  std::ofstream(seed)
      << "apiVersion: v1\nkind: Namespace\nmetadata: {name: shared}\n---\n"
         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shared}\n";
  ASSERT_EQ(
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --seed-name other")
          .code,
      0);
  CommandResult r = planter("uproot --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed));
  // Nothing of this seed was there: said, and a failure (the user likely named the wrong seed).
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("planted by seed \"other\": left alone"));
  EXPECT_THAT(r.out, HasSubstr("nothing labelled planter.nephio.org/seed=" +
                               sim.dir().filename().string() + " was found"));
  EXPECT_EQ(sim.kubectl("get configmap c -n shared").code, 0);
}

// An object another seed planted is not taken over (kapp's and helm's ownership): the preflight
// refuses it naming the seed, with nothing written; without the preflight the unit fails saying
// the same and the rest is planted; --adopt takes it over and records whom from. Another manager's
// fields are a different matter: --force-conflicts does not take over a seed's object.
TEST(PlantTest, AnObjectAnotherSeedPlantedIsNotTakenOverUnlessAdopted) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path a = sim.dir() / "a.yaml", b = sim.dir() / "b.yaml";
  std::ofstream(a) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n"
                      "data: {k: a}\n";
  std::ofstream(b) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: z, namespace: default}\n"
                      "---\napiVersion: v1\nkind: ConfigMap\n"
                      "metadata: {name: x, namespace: default}\ndata: {k: b}\n";
  std::string kc = "--kubeconfig " + q(sim.kubeconfig()) + " ";
  ASSERT_EQ(planter("plant " + kc + q(a) + " --seed-name a").code, 0);
  auto x = [&](const std::string& path) {
    return sim.kubectl("get configmap x -o " + q("jsonpath={" + path + "}")).out;
  };
  auto writes_by_b = [&] {
    size_t n = 0;
    for (const AuditEntry& e : parse_audit(sim.audit_lines()))
      n += e.verb == "apply" && e.object.find("|ConfigMap|default|") != std::string::npos;
    return n;
  };
  const size_t after_a = writes_by_b();
  ASSERT_EQ(after_a, 1u);

  CommandResult r = planter("plant " + kc + q(b) + " --seed-name b --force-conflicts");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("v1 ConfigMap default/x"));
  EXPECT_THAT(r.err, HasSubstr("planted by seed \"a\"; this run is seed \"b\" (given with "
                               "--seed-name): if that object is this seed's, planted under "
                               "another name, run with --seed-name set to that name; to take it "
                               "over, use --adopt"));
  EXPECT_EQ(writes_by_b(), after_a) << "nothing declared";
  // Without --seed-name, the name's origin: the file it was derived from.
  r = planter("plant " + kc + q(b));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("this run is seed \"b\" (derived from " + b.string() +
                               " (--seed-name sets it))"));

  r = planter("plant " + kc + q(b) + " --seed-name b --preflight=false");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("failed v1 ConfigMap default/x on SELF"));
  EXPECT_THAT(r.out, HasSubstr("planted by seed \"a\"; this run is seed \"b\""));
  EXPECT_EQ(x(".metadata.labels.planter\\.nephio\\.org/seed"), "a");
  EXPECT_EQ(x(".data.k"), "a");
  EXPECT_EQ(sim.kubectl("get configmap z -o name").out, "configmap/z\n") << "the rest is planted";

  r = planter("plant " + kc + q(b) + " --seed-name b --adopt");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(x(".metadata.labels.planter\\.nephio\\.org/seed"), "b");
  EXPECT_EQ(x(".metadata.annotations.planter\\.nephio\\.org/adopted-from"), "a");
  EXPECT_EQ(x(".data.k"), "b");
  r = planter("uproot " + kc + q(a) + " --seed-name a");
  EXPECT_THAT(r.out, HasSubstr("planted by seed \"b\": left alone"));
  EXPECT_EQ(sim.kubectl("get configmap x -o name").code, 0);
}

// What a seed planted is listed in its inventory (a ConfigMap in kube-system): `planter diff`
// shows what the seed no longer holds as to be pruned, a replant deletes that and only that,
// deepest first (a ConfigMap before the Namespace it is in), leaving another seed's object alone;
// --prune=false keeps it listed, and uproot of the edited seed still deletes it.
TEST(PlantTest, ReplantPrunesWhatTheSeedNoLongerHoldsAndOnlyThat) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path full = sim.dir() / "full.yaml", cut = sim.dir() / "cut.yaml",
           other = sim.dir() / "other.yaml";
  const std::string ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n";
  auto cm = [](const std::string& name) {
    return "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: app}\n";
  };
  auto old_ns =
      "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: old}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inside, namespace: old}\n";
  std::ofstream(full) << ns << cm("kept") << cm("gone") << old_ns;
  std::ofstream(cut) << ns << cm("kept");
  std::ofstream(other) << cm("theirs").substr(4);  // in this seed's Namespace
  std::string kc = "--kubeconfig " + q(sim.kubeconfig()) + " ";
  ASSERT_EQ(planter("plant " + kc + q(full) + " --seed-name app").code, 0);
  ASSERT_EQ(planter("plant " + kc + q(other) + " --seed-name other").code, 0);
  EXPECT_EQ(sim.kubectl("get configmap -n kube-system planter-inventory-app -o "
                        "jsonpath={.data.objects}")
                .out,
            "0 v1 Namespace - app\n0 v1 Namespace - old\n1 v1 ConfigMap app gone\n"
            "1 v1 ConfigMap app kept\n1 v1 ConfigMap old inside\n");

  CommandResult d = planter("diff " + kc + q(cut) + " --seed-name app");
  EXPECT_EQ(d.code, 1) << d.out << d.err;
  EXPECT_THAT(d.out, HasSubstr("to be pruned (the seed no longer holds them):\n"
                               "  v1 ConfigMap app/gone on SELF\n"
                               "  v1 ConfigMap old/inside on SELF\n  v1 Namespace old on SELF\n"));

  CommandResult keep = planter("replant " + kc + q(cut) + " --seed-name app --prune=false");
  EXPECT_EQ(keep.code, 0) << keep.out << keep.err;
  EXPECT_EQ(sim.kubectl("get configmap gone -n app -o name").code, 0);

  size_t before = parse_audit(sim.audit_lines()).size();
  CommandResult r = planter("replant " + kc + q(cut) + " --seed-name app");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("pruned: v1 ConfigMap app/gone on SELF: deleted"));
  EXPECT_THAT(r.out, HasSubstr("pruned 3 object(s) the seed no longer holds"));
  std::vector<std::string> deleted;
  for (const AuditEntry& e : parse_audit(sim.audit_lines()))
    if (e.index >= before && e.verb == "delete") deleted.push_back(e.object);
  ASSERT_EQ(deleted.size(), 3u) << r.out;
  EXPECT_EQ(deleted.back(), "|Namespace||old") << "the Namespace after what was in it";
  EXPECT_THAT(deleted, ::testing::UnorderedElementsAre("|ConfigMap|app|gone",
                                                       "|ConfigMap|old|inside", "|Namespace||old"));
  EXPECT_EQ(sim.kubectl("get configmap kept theirs -n app -o name").out,
            "configmap/kept\nconfigmap/theirs\n");
  EXPECT_EQ(planter("diff " + kc + q(cut) + " --seed-name app").code, 0);

  // Planted again in full, then uprooted as the cut seed: the inventory knows the rest.
  ASSERT_EQ(planter("replant " + kc + q(full) + " --seed-name app").code, 0);
  CommandResult u = planter("uproot " + kc + q(cut) + " --seed-name app");
  EXPECT_EQ(u.code, 0) << u.out << u.err;
  EXPECT_EQ(sim.kubectl("get configmap gone -n app").code, 1);
  EXPECT_EQ(sim.kubectl("get namespace old -o jsonpath={.status.phase}").code, 1);
  EXPECT_EQ(sim.kubectl("get configmap -n kube-system planter-inventory-app").code, 1);
}

// A soft replant declares everything again, which undoes drift (taking fields back from another
// manager needs --force-conflicts, as with kubectl); a hard one uproots first.
TEST(PlantTest, ReplantDeclaresAgainAndHardReplantUprootsFirst) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path small = sim.dir() / "seed.yaml";
  std::ofstream(small) << "apiVersion: v1\nkind: Namespace\nmetadata: {name: re}\n---\n"
                          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: re}\n"
                          "data: {k: v}\n";
  std::string base = "--kubeconfig " + q(sim.kubeconfig()) + " " + q(small);
  ASSERT_EQ(planter("plant " + base).code, 0);
  auto count = [&](const std::string& verb) {
    size_t n = 0;
    for (const AuditEntry& e : parse_audit(sim.audit_lines()))
      n += e.verb == verb && e.user == "admin" && e.object == "|ConfigMap|re|c" ? 1 : 0;
    return n;
  };
  auto value = [&] { return sim.kubectl("get configmap c -n re -o jsonpath={.data.k}").out; };
  EXPECT_EQ(count("apply"), 1u);
  ASSERT_EQ(
      sim.kubectl("patch configmap c -n re --type merge -p '{\"data\":{\"k\":\"drift\"}}'").code,
      0);
  // The preflight's dry run meets the conflict: bad input, before anything is written.
  CommandResult conflict = planter("replant " + base);
  EXPECT_EQ(conflict.code, 2) << conflict.out;
  EXPECT_THAT(conflict.err, HasSubstr("--force-conflicts"));
  conflict = planter("replant --preflight=false " + base);
  EXPECT_EQ(conflict.code, 1) << conflict.out;
  EXPECT_THAT(conflict.out, HasSubstr("--force-conflicts"));
  EXPECT_EQ(value(), "drift");

  CommandResult soft = planter("replant --force-conflicts " + base);
  EXPECT_EQ(soft.code, 0) << soft.out << soft.err;
  EXPECT_EQ(value(), "v");
  EXPECT_EQ(count("apply"), 2u);
  EXPECT_EQ(count("delete"), 0u);

  CommandResult hard = planter("replant --hard " + base);
  EXPECT_EQ(hard.code, 0) << hard.out << hard.err;
  EXPECT_THAT(hard.out, HasSubstr("uprooted 2 units"));
  EXPECT_EQ(count("delete"), 1u);
  EXPECT_EQ(count("apply"), 3u);
}

// What the API server refuses is known before the first write: every object it can judge now
// goes through a server-side dry run, and each refusal is bad input (exit 2, all of them, each
// with its file:line and the server's words) with nothing declared. What cannot be judged yet
// (an object in a Namespace the seed creates) is checked when planted. Before, the good objects
// were declared and the refused one failed after them.
TEST(PlantTest, APreflightDryRunRefusesWhatTheServerWouldWithNothingDeclared) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  auto deployment = [](const std::string& name, const std::string& template_app) {
    return fmt::format(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {}}}\nspec:\n  selector: "
        "{{matchLabels: {{app: {}}}}}\n  template:\n    metadata: {{labels: {{app: {}}}}}\n    "
        "spec: {{containers: [{{name: c, image: nginx}}]}}\n",
        name, name, template_app);
  };
  fs::path seed = sim.dir() / "refused.yaml";
  std::ofstream(seed) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\ndata: {a: b}\n"
                      << deployment("first", "other") << deployment("fine", "fine")
                      << deployment("second", "else")
                      << "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: later}\n---\n"
                         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: later}\n";
  auto writes = [&] {
    size_t n = 0;
    for (const AuditEntry& e : parse_audit(sim.audit_lines()))
      n += !e.verb.empty() && (e.object.find("|default|") != std::string::npos ||
                               e.object.find("|later") != std::string::npos);
    return n;
  };
  CommandResult r = planter(fmt::format("plant --kubeconfig {} {}", q(sim.kubeconfig()), q(seed)));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("refused.yaml:6: apps/v1 Deployment default/first: cluster SELF "
                               "refuses it (server-side dry run): Deployment.apps \"first\" is "
                               "invalid: spec.template.metadata.labels"));
  EXPECT_THAT(r.err, HasSubstr("refused.yaml:24: apps/v1 Deployment default/second"));
  EXPECT_THAT(r.err, HasSubstr("2 errors in the seed\nnothing was declared"));
  EXPECT_THAT(r.err, Not(HasSubstr("default/fine")));
  EXPECT_EQ(writes(), 0u);

  // Without the preflight, the server refuses them one by one while the rest is declared.
  r = planter(fmt::format("plant --preflight=false --timeout 20 --kubeconfig {} {}",
                          q(sim.kubeconfig()), q(seed)));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_GT(writes(), 0u);
  EXPECT_EQ(sim.kubectl("get configmap good -o name").out, "configmap/good\n");

  // Fixed, it says what the dry run accepted and what waits to be checked.
  std::ofstream(seed) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\ndata: {a: b}\n"
                      << deployment("first", "first")
                      << "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: new}\n---\n"
                         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: new}\n";
  r = planter(fmt::format("plant --timeout 20 --kubeconfig {} {}", q(sim.kubeconfig()), q(seed)));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("preflight: 3 object(s) accepted by a server-side dry run; 1 "
                               "checked when planted"));
}

// `planter diff` as kubectl diff: before planting everything is to be created (exit 1); after, no
// difference (exit 0, nothing printed); after a `kubectl scale`, the replicas it would set back
// (exit 1); after a replant, none again. It writes nothing: planter's writes in the audit log do
// not change across a diff.
TEST(PlantTest, DiffShowsWhatPlantingWouldChangeAndWritesNothing) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "shop.yaml";
  std::ofstream(seed) << "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n"
                         "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: "
                         "shop}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n"
                         "  template:\n    metadata: {labels: {app: web}}\n    spec: "
                         "{containers: [{name: c, image: nginx}]}\n---\napiVersion: v1\nkind: "
                         "ConfigMap\nmetadata: {name: c, namespace: shop}\ndata: {k: v}\n";
  std::string args = "--kubeconfig " + q(sim.kubeconfig()) + " " + q(seed);
  auto planter_writes = [&] {
    size_t n = 0;
    for (const AuditEntry& e : parse_audit(sim.audit_lines()))
      n += !e.verb.empty() && e.user == "admin";
    return n;
  };

  CommandResult before = planter("diff " + args);
  EXPECT_EQ(before.code, 1) << before.out << before.err;
  EXPECT_THAT(before.out, HasSubstr("SELF/v1.ConfigMap.shop.c"));
  EXPECT_THAT(before.out, HasSubstr("+  replicas: 2"));
  // In a Namespace to come: what planter would send.
  EXPECT_THAT(before.out, HasSubstr("+    planter.nephio.org/seed: shop"));
  EXPECT_EQ(planter_writes(), 0u);

  ASSERT_EQ(planter("plant " + args).code, 0);
  CommandResult same = planter("diff " + args);
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_EQ(same.out, "");

  ASSERT_EQ(sim.kubectl("scale deployment web -n shop --replicas=5").code, 0);
  size_t writes = planter_writes();
  CommandResult drift = planter("diff " + args);
  EXPECT_EQ(drift.code, 1) << drift.out << drift.err;
  EXPECT_THAT(drift.out, HasSubstr("SELF/apps.v1.Deployment.shop.web"));
  EXPECT_THAT(drift.out, HasSubstr("-  replicas: 5"));
  EXPECT_THAT(drift.out, HasSubstr("+  replicas: 2"));
  EXPECT_THAT(drift.out, Not(HasSubstr("ConfigMap")));
  EXPECT_THAT(drift.out, Not(HasSubstr("managedFields")));
  EXPECT_EQ(planter_writes(), writes);

  ASSERT_EQ(planter("replant --force-conflicts " + args).code, 0);
  CommandResult after = planter("diff " + args);
  EXPECT_EQ(after.code, 0) << after.out << after.err;
}

}  // namespace
}  // namespace planter::testing
