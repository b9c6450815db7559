// A plant as a process meets the world: an interrupt, an API server that goes away or refuses
// for good, too few file descriptors, an 80-column terminal; against a `planter sim` in its own
// process.
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

// A seed whose Widget waits for ever: its kind is on a workload cluster the seed creates (edge1,
// with the Namespace far), and no CRD of the seed defines it. `configmap`: a ConfigMap beside it.
std::string waiting_widget_seed(bool configmap) {
  return std::string(
             "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {name: edge1, "
             "namespace: default}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: far\n"
             "  annotations: {planter.nephio.org/cluster: edge1}\n---\n") +
         (configmap ? "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: far}\n---\n"
                    : "") +
         "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w, namespace: far}\n";
}

// A kind whose CRD is not in the seed, on a workload cluster the seed creates (so nobody could ask
// its discovery before planting), may still come: everything else is declared, then planter gives
// up at --timeout and names exactly that unit and the kind it waits for.
TEST(PlantTest, AKindOnAClusterTheSeedCreatesIsWaitedFor) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "seed.yaml";
  std::ofstream(seed) << waiting_widget_seed(true);
  CommandResult r = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) +
                            " --timeout 8 --report " + q(sim.dir() / "r.json"));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("timed out after 8s"));
  auto states = by_state(report_of(sim.dir() / "r.json"));
  EXPECT_EQ(states["pending"], std::set<std::string>{"example.org/v1|Widget|far|w@edge1"});
  EXPECT_EQ(states["declared"].size(), 3u);
  EXPECT_THAT(r.out, HasSubstr("waiting for kind example.org/v1 Widget established (not in seed)"));
}

// Seconds since the epoch of an RFC 3339 UTC time with a fraction ("2026-11-27T16:46:38.4659Z").
double epoch_seconds(const std::string& ts) {
  std::tm tm{};
  std::istringstream in(ts.substr(0, 19));
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  double fraction = ts.size() > 20 && ts[19] == '.' ? std::atof(("0" + ts.substr(19)).c_str()) : 0;
  return static_cast<double>(timegm(&tm)) + fraction;
}

// Ctrl-C (SIGINT) or a CI job's SIGTERM while planting waits: the run stops, what was declared and
// the summary of what waits are printed (on a pipe, line by line as they happen), and the exit code
// is 128 + the signal. Before, the process died with its buffered output unwritten.
TEST(PlantTest, AnInterruptLeavesTheSummaryOfWhatWaits) {
  // Against a sim, and with the fleet in planter's own process, kept serving (--sim --keep).
  for (bool embedded : {false, true})
    for (int sig : {SIGINT, SIGTERM}) {
      SCOPED_TRACE(embedded ? "--sim --keep" : "--kubeconfig");
      SimProcess sim;
      ASSERT_TRUE(sim.running());
      fs::path seed = sim.dir() / "seed.yaml";
      std::ofstream(seed) << waiting_widget_seed(false);
      fs::path log = sim.dir() / "plant.log";
      std::vector<std::string> args = {"plant", "--kubeconfig", sim.kubeconfig().string(),
                                       seed.string()};
      if (embedded) args = {"plant", "--sim", "--keep", seed.string()};
      PlanterProcess plant(args, log);
      // Once the workload cluster's Namespace is declared, only the Widget waits (for ever).
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (read_file(log).find("Namespace far") == std::string::npos &&
             std::chrono::steady_clock::now() < until)
        // sleep-ok(poll): the step of a wait for observed state with a deadline
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ASSERT_THAT(read_file(log), HasSubstr("Namespace far")) << "declared, and said on the pipe";
      int code = plant.stop(sig);
      std::string out = read_file(log);
      EXPECT_EQ(code, 128 + sig) << out;
      EXPECT_THAT(out, HasSubstr(sig == SIGINT ? "interrupted (SIGINT)" : "interrupted (SIGTERM)"));
      // The Widget is listed with what it waits for: its kind, or (when the signal came before
      // the watch showed its Namespace active) the Namespace.
      EXPECT_THAT(out, HasSubstr("pending example.org/v1 Widget far/w on edge1")) << out;
      EXPECT_THAT(out, HasSubstr("waiting for ")) << out;
      EXPECT_THAT(out, HasSubstr("(interrupted)")) << out;
    }
}

// A process out of file descriptors says so at once, naming its limit and what to change,
// instead of retrying connections that cannot be made until its timeout.
TEST(PlantTest, RunningOutOfDescriptorsIsSaidAtOnce) {
  // Plain HTTP: over TLS the clusters' streams share one HTTP/2 connection, so a dozen descriptors
  // may just suffice and whether one runs out depends on timing; HTTP/1.1 needs a connection per
  // request in flight, so 150 clusters' watches cannot fit in 12.
  SimProcess sim({"--insecure-http"});
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "many.yaml";
  {
    std::ofstream out(seed);
    out << "apiVersion: v1\nkind: Namespace\nmetadata: {name: fleet}\n";
    // A Namespace on each workload cluster: a watch of each, and connections to match.
    for (int c = 0; c < 150; ++c)
      out << fmt::format(
          "---\napiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {{name: "
          "e{0}, namespace: fleet}}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: "
          "app, annotations: {{planter.nephio.org/cluster: e{0}}}}}\n---\napiVersion: v1\nkind: "
          "ConfigMap\nmetadata: {{name: c, namespace: app, annotations: "
          "{{planter.nephio.org/cluster: e{0}}}}}\n",
          c);
  }
  // Under the sanitizers, UBSan's vptr check probes memory through a pipe; with no descriptor
  // left it reports valid objects as invalid, so its findings do not end this one run (the build
  // makes vptr findings recoverable for this; every other run halts on them). LeakSanitizer
  // reads /proc at exit and dies when no descriptor is free, so it is off here.
  CommandResult r = run_shell(
      "ulimit -n 12; ASAN_OPTIONS=detect_leaks=0 "
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=0 " +
      std::string(PLANTER_BINARY) + " plant --timeout 10 --kubeconfig " + q(sim.kubeconfig()) +
      " " + q(seed));
  // Connections that fail for lack of descriptors are retried: the plant finishes (0) or waits
  // out its timeout (1); never bad input (2), never a crash.
  EXPECT_TRUE(r.code == 0 || r.code == 1) << "exit " << r.code << "\n" << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("planter: out of file descriptors: this process may open 12"))
      << "exit " << r.code;
  EXPECT_THAT(r.err, HasSubstr("Raise the limit (ulimit -n"));
}

// On an 80-column terminal the live progress fits (no line wider, however long what a unit waits
// for) and keeps up: SELF's objects, declared at once, are drawn so within 250 ms, although edge1
// takes 3 s to be provisioned. Before, a change was drawn only when the next one came: SELF
// showed as waiting for as long as edge1 did, and lines were cut at 150 columns, so an 80-column
// terminal wrapped them and the redraw stacked.
TEST(PlantTest, ProgressOnAnEightyColumnTerminalFitsAndKeepsUp) {
  SimProcess sim({"--provision-delay", "3000"});
  ASSERT_TRUE(sim.running());
  const std::string self_map = "a-config-map-whose-name-is-long-enough-to-need-cutting";
  const std::string app = "app-with-a-name-long-enough-to-need-cutting-at-eighty-columns";
  fs::path seed = sim.dir() / "wide.yaml";
  std::ofstream(seed) << fmt::format(
      "apiVersion: v1\nkind: Namespace\nmetadata: {{name: fleet}}\n---\napiVersion: v1\nkind: "
      "ConfigMap\nmetadata: {{name: {0}, namespace: fleet}}\n---\napiVersion: "
      "planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {{name: edge1, namespace: fleet}}\n"
      "---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: {1}, annotations: "
      "{{planter.nephio.org/cluster: edge1}}}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: "
      "{{name: c, namespace: {1}, annotations: {{planter.nephio.org/cluster: edge1}}}}\n",
      self_map, app);
  fs::path chunks_file = sim.dir() / "pty.json";
  CommandResult r = run_shell(fmt::format("python3 {} 80 24 {} {} plant --kubeconfig {} {}",
                                          q(kSource / "tests/plant/pty_run.py"), q(chunks_file),
                                          PLANTER_BINARY, q(sim.kubeconfig()), q(seed)));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  json::array chunks = json::parse(read_file(chunks_file)).as_array();
  ASSERT_FALSE(chunks.empty());

  std::string screen;
  for (const auto& c : chunks) screen += std::string(c.as_array().at(1).as_string());
  const std::regex control("\x1b\\[[0-9;]*[A-Za-z]|\r");
  std::istringstream lines(screen);
  for (std::string line; std::getline(lines, line);) {
    std::string shown = std::regex_replace(line, control, "");
    size_t columns = 0;
    for (unsigned char ch : shown) columns += (ch & 0xC0) != 0x80;
    EXPECT_LE(columns, 80u) << shown;
  }
  EXPECT_THAT(screen, HasSubstr("5/5 declared"));

  // When SELF's last object was written, and when the terminal first showed SELF with all three.
  double written = 0;
  for (const std::string& line : sim.audit_lines()) {
    json::object e = json::parse(line).as_object();
    std::string object = e.contains("object") ? std::string(e.at("object").as_string()) : "";
    if (e.contains("verb") && e.at("code").as_int64() < 300 &&
        (object.ends_with("|Namespace||fleet") ||
         object.ends_with("|ConfigMap|fleet|" + self_map) ||
         object.ends_with("|Cluster|fleet|edge1")))
      written = std::max(written, epoch_seconds(std::string(e.at("ts").as_string())));
  }
  ASSERT_GT(written, 0);
  const std::regex self_done("SELF +3/3");
  std::string seen;
  double drawn = 0;
  for (const auto& c : chunks) {
    seen += std::string(c.as_array().at(1).as_string());
    if (std::regex_search(seen, self_done)) {
      drawn = c.as_array().at(0).to_number<double>();
      break;
    }
  }
  ASSERT_GT(drawn, 0) << screen;
  EXPECT_LT(drawn - written, kSanitized ? 1.0 : 0.25) << screen;
}

// The API server goes away mid-plant for 9 seconds and comes back (same port, same identity
// from --state-dir): the plant goes on, every unit is declared once and in order, and while the
// server is away the progress says which cluster is unreachable.
TEST(PlantTest, APlantOutlivesAnApiServerOutage) {
  fs::path state = fs::temp_directory_path() / fmt::format("planter-outage-{}", ::getpid());
  fs::remove_all(state);
  SimProcess sim({"--state-dir", state.string(), "--write-latency", "20"});
  ASSERT_TRUE(sim.running());
  // A chain: each ConfigMap waits for the one before, so planting takes a while.
  fs::path seed = sim.dir() / "chain.yaml";
  {
    std::ofstream out(seed);
    out << "apiVersion: v1\nkind: Namespace\nmetadata: {name: chain}\n";
    for (int i = 0; i < 200; ++i)
      out << fmt::format(
          "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{}\n  "
          "namespace: chain\n{}",
          i,
          i == 0 ? ""
                 : fmt::format("  annotations: {{planter.nephio.org/"
                               "dependencies: ConfigMap/c{}}}\n",
                               i - 1));
  }
  auto written = [&] {
    size_t n = 0;
    for (const AuditEntry& a : parse_audit(sim.audit_lines()))
      n += !a.verb.empty() && a.object.starts_with("|ConfigMap|chain|");
    return n;
  };
  auto planting = std::async(std::launch::async, [&] {
    return planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) +
                   " --timeout 120 --report " + q(sim.dir() / "r.json"));
  });
  for (int i = 0; i < 400 && written() < 20; ++i)
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  int port = sim.port();
  sim.kill_hard();
  // Longer than the client's own retries of one request (3-6 s): the engine must go on.
  // sleep-ok(time): an outage longer than the client's retries
  std::this_thread::sleep_for(std::chrono::seconds(9));
  sim.start({"--state-dir", state.string(), "--write-latency", "20"}, port);
  ASSERT_TRUE(sim.running());
  CommandResult r = planting.get();
  EXPECT_EQ(r.code, 0) << r.out.substr(r.out.size() > 3000 ? r.out.size() - 3000 : 0) << r.err;
  EXPECT_NE(r.out.find("unreachable"), std::string::npos);
  auto states = by_state(report_of(sim.dir() / "r.json"));
  EXPECT_EQ(states["declared"].size(), 201u);
  expect_in_order(plan_of(q(seed)), sim.audit_lines(), 201);
  // What the sim keeps of itself is its owner's alone.
  EXPECT_EQ(fs::status(state).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(fs::status(state / "identity.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(fs::status(sim.kubeconfig()).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  fs::remove_all(state);
}

// What no retry can fix ends the plant at once, with the cause: a token the server refuses, a
// token file that cannot be read, a server certificate that does not verify, a plugin that wants a
// terminal. A server that is not a URL makes the kubeconfig unusable: exit 2.
TEST(PlantTest, APermanentClusterErrorEndsThePlantAtOnce) {
  SimProcess sim;
  SimProcess other;  // its CA does not sign `sim`'s certificate
  ASSERT_TRUE(sim.running() && other.running());
  std::string kubeconfig = read_file(sim.kubeconfig());
  auto ca_of = [](const std::string& k) {
    std::smatch m;
    std::regex_search(k, m, std::regex("certificate-authority-data: (\\S+)"));
    return m[1].str();
  };
  auto with = [&](const std::string& name, const std::string& from, const std::string& to) {
    fs::path p = sim.dir() / (name + ".kubeconfig");
    std::ofstream(p) << std::regex_replace(kubeconfig, std::regex(from), to);
    return p;
  };
  fs::path seed = sim.dir() / "cm.yaml";
  std::ofstream(seed)
      << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n";
  struct Case {
    fs::path kubeconfig;
    int code;
    std::string says;
  };
  std::vector<Case> cases = {
      {with("token", "token: \\S+", "token: not-the-token"), 1, "Unauthorized (401"},
      {with("token-file", "token: \\S+", "tokenFile: /nonexistent/token"), 1,
       "cannot read the token file /nonexistent/token"},
      {with("ca", "certificate-authority-data: \\S+",
            "certificate-authority-data: " + ca_of(read_file(other.kubeconfig()))),
       1, "SSL"},
      {with("interactive", "token: \\S+",
            "exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/true, "
            "interactiveMode: Always}"),
       1, "wants a terminal (interactiveMode: Always)"},
      {with("url", "server: \\S+", "server: not-a-url"), 2, "server \"not-a-url\" is not a URL"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kubeconfig.filename().string());
    auto start = std::chrono::steady_clock::now();
    CommandResult r = planter("plant --kubeconfig " + q(c.kubeconfig) + " " + q(seed));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_EQ(r.code, c.code) << r.out << r.err;
    EXPECT_THAT(r.out + r.err, HasSubstr(c.says));
  }
  EXPECT_EQ(sim.kubectl("get configmap a -n default").code, 1);
}

}  // namespace
}  // namespace planter::testing
