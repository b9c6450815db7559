// The operator's dashboard (--dashboard-addr, docs/operator.md "Dashboard"), as a person at a
// browser sees it: the Seeds with their phase, and a Seed's plan with its units coloured by
// state, read in headless Chromium while a roll-out waits for its approval; its event stream
// tells the change when the approval comes.
#include <future>

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
  OperatorProcess op(sim.kubeconfig(), sim.dir(), {"--dashboard-addr", "127.0.0.1:0"});
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
  // The canary is declared; the rest wait for the approval.
  ASSERT_TRUE(eventually(
      [&] {
        std::string state = http_get(port, "/seeds/default/web/state");
        return state.find("\"declared\"") != std::string::npos &&
               state.find("planter-approval-web-go") != std::string::npos;
      },
      60s))
      << op.log();
  std::string index = dom_of(base, sim.dir());
  EXPECT_THAT(index, HasSubstr("data-seed=\"default/web\""));
  EXPECT_THAT(index, HasSubstr("href=\"seeds/default/web/\""));
  std::string page = dom_of(base + "seeds/default/web/", sim.dir());
  EXPECT_THAT(page, HasSubstr("<h2>edge1</h2>"));
  EXPECT_THAT(page, HasSubstr("data-count=\"declared\">1 declared"));
  EXPECT_THAT(page, HasSubstr("data-count=\"pending\">2 pending"));
  EXPECT_THAT(page, HasSubstr("waits for ConfigMap/kube-system/planter-approval-web-go exists"));

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
  ASSERT_EQ(planter("approve web-go --kubeconfig " + q(sim.kubeconfig())).code, 0);
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "default", "web", "Planted"); }, 60s))
      << op.log();
  CommandResult told = events.get();
  EXPECT_EQ(told.code, 0) << told.out << told.err;
  EXPECT_GE(std::count(told.out.begin(), told.out.end(), '\n'), 2) << told.out;
  EXPECT_THAT(http_get(port, "/seeds"), HasSubstr("\"phase\":\"Planted\""));
  EXPECT_THAT(http_get(port, "/seeds"), HasSubstr("\"units\":3,\"declared\":3"));
  // A name that is no Seed's is not found, and says what is served.
  CommandResult missing = run_shell(fmt::format(
      "python3 -c 'import urllib.request\ntry: urllib.request.urlopen(\"{}seeds/x/..%2F/\")\n"
      "except Exception as e: print(e.code)'",
      base));
  EXPECT_EQ(missing.out, "404\n");
}

}  // namespace
}  // namespace planter::testing
