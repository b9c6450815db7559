// The operator's dashboard (--dashboard-addr, docs/operator.md "Dashboard"), as a person at a
// browser sees it: the Seeds with their phase, and a Seed's plan with its units coloured by
// state, read in headless Chromium while a roll-out waits for its approval; its event stream
// tells the change when the approval comes; once planted, the page links to the run's timeline,
// told on the run's clock through every planting slice it took.
#include <future>
#include <regex>

#include "operator/operator_support.h"

namespace planter::testing {
namespace {

// The DOM of `url` after its script ran, as headless Chromium has it.
std::string dom_of(const std::string& url, const fs::path& dir) {
  CommandResult r = run_shell(fmt::format(
      "chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir={} "
      "--dump-dom {} 2>/dev/null",
      q(dir / "chromium"), q(url)));
  EXPECT_EQ(r.code, 0) << r.err;
  return r.out;
}

TEST(OperatorTest, TheDashboardShowsTheSeedsAndEachSeedsUnitsLive) {
  SimProcess sim({"--clusters", "3"});
  ASSERT_TRUE(sim.running());
  // Slices of a second: the wait for the approval goes through several.
  OperatorProcess op(sim.kubeconfig(), sim.dir(),
                     {"--dashboard-addr", "127.0.0.1:0", "--planting-slice", "1"});
  apply_yaml(sim, seed_object("default", "web", R"(    inline: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web
        namespace: default
        annotations:
          planter.nephio.org/cluster-selector: sim.planter.io/index
          planter.nephio.org/rollout: "{maxConcurrency: 2, canaries: [edge1], approval: web-go}"
      data: {a: b})"));
  ASSERT_TRUE(eventually([&] { return op.port("the dashboard") != 0; }, 30s)) << op.log();
  int port = op.port("the dashboard");
  std::string base = fmt::format("http://127.0.0.1:{}/", port);
  // The canary is declared; the rest wait for the approval (once their clusters have answered:
  // until then they wait for the Namespace's list).
  ASSERT_TRUE(eventually(
      [&] {
        std::string state = http_get(port, "/seeds/default/web/state");
        return state.find("\"declared\"") != std::string::npos &&
               state.find("waits for ConfigMap/default/planter-approval-web-go exists") !=
                   std::string::npos;
      },
      60s))
      << op.log();
  auto canary_seen = std::chrono::steady_clock::now();
  std::string index = dom_of(base, sim.dir());
  EXPECT_THAT(index, HasSubstr("data-seed=\"default/web\""));
  EXPECT_THAT(index, HasSubstr("href=\"seeds/default/web/\""));
  std::string page = dom_of(base + "seeds/default/web/", sim.dir());
  EXPECT_THAT(page, HasSubstr("<h2>edge1</h2>"));
  EXPECT_THAT(page, HasSubstr("data-count=\"declared\">1 declared"));
  EXPECT_THAT(page, HasSubstr("data-count=\"pending\">2 pending"));
  // A Seed's approval is in its own namespace: a tenant approves its own roll-outs only.
  EXPECT_THAT(page, HasSubstr("waits for ConfigMap/default/planter-approval-web-go exists"));

  // The Seed's event stream, read from before the approval until it tells a unit declared.
  auto events = std::async(std::launch::async, [&] {
    return run_shell(
        fmt::format("timeout 60 python3 -c 'import urllib.request\n"
                    "n = 0\n"
                    "for line in urllib.request.urlopen(\"{}seeds/default/web/events\"):\n"
                    "    line = line.decode()\n"
                    "    if not line.startswith(\"data: \"): continue\n"
                    "    n += 1\n"
                    "    print(line.strip())\n"
                    "    if n > 1 and line.count(\"\\\"declared\\\"\") >= 2: break'",
                    base));
  });
  // sleep-ok(time): the stream is open before the approval comes
  std::this_thread::sleep_for(1s);
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - canary_seen)
                      .count();  // at least, since the run began
  // The same name approved in kube-system (what `planter plant` waits for) is not this Seed's.
  ASSERT_EQ(planter("approve web-go --kubeconfig " + q(sim.kubeconfig())).code, 0);
  // sleep-ok(none): a wrong approval must not let the roll-out go on meanwhile
  std::this_thread::sleep_for(2s);
  EXPECT_THAT(http_get(port, "/seeds"), HasSubstr("\"units\":3,\"declared\":1"));
  CommandResult approved = planter("approve web-go -n default --kubeconfig " + q(sim.kubeconfig()));
  ASSERT_EQ(approved.code, 0) << approved.err;
  EXPECT_EQ(approved.out, "approved web-go (ConfigMap default/planter-approval-web-go)\n");
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "default", "web", "Planted"); }, 60s))
      << op.log();
  CommandResult told = events.get();
  EXPECT_EQ(told.code, 0) << told.out << told.err;
  EXPECT_GE(std::count(told.out.begin(), told.out.end(), '\n'), 2) << told.out;
  EXPECT_THAT(http_get(port, "/seeds"), HasSubstr("\"phase\":\"Planted\""));
  EXPECT_THAT(http_get(port, "/seeds"), HasSubstr("\"units\":3,\"declared\":3"));
  // Planted, the Seed's page still draws its plan, and links to the run's timeline.
  page = dom_of(base + "seeds/default/web/", sim.dir());
  EXPECT_THAT(page, HasSubstr("<h2>edge2</h2>"));
  EXPECT_THAT(page, HasSubstr("data-count=\"declared\">3 declared"));
  EXPECT_THAT(page, HasSubstr("id=\"timeline\" href=\"timeline\""));
  // The unit that ended last was declared after the approval on the run's clock, not on the
  // clock of the slice that declared it (a second at most).
  std::string timeline = http_get(port, "/seeds/default/web/timeline");
  EXPECT_THAT(timeline, HasSubstr("<title>planter timeline: default/web</title>"));
  std::smatch last;
  ASSERT_TRUE(
      std::regex_search(timeline, last, std::regex(R"(declared at ([0-9.]+)s</li>\n</ol>)")))
      << timeline;
  EXPECT_GE(std::stod(last[1]), waited) << timeline;
  // A name that is no Seed's is not found, and says what is served.
  CommandResult missing = run_shell(fmt::format(
      "python3 -c 'import urllib.request\ntry: urllib.request.urlopen(\"{}seeds/x/..%2F/\")\n"
      "except Exception as e: print(e.code)'",
      base));
  EXPECT_EQ(missing.out, "404\n");
}

}  // namespace
}  // namespace planter::testing
