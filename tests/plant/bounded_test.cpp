// --timeout bounds the whole command, not only planting: a management cluster that never answers
// (a black hole), an exec credential plugin that hangs, an HTTP server behind an https URL. Each
// command ends within the deadline and a short grace (cli/interrupts.h), exit 1 (diff: above 1, as
// kubectl diff), naming the cluster; a signal before planting says which step it stopped.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "plant/plant_support.h"
#include "sim/planter_process.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A TCP server that accepts connections and never says a word: connect succeeds, TLS never does.
constexpr const char* kBlackHole =
    "python3 -c 'import socket,os\n"
    "s=socket.socket();s.bind((\"127.0.0.1\",0));s.listen(1000)\n"
    "print(s.getsockname()[1],os.getpid(),flush=True)\n"
    "c=[]\n"
    "while True: c.append(s.accept())'";

// A plain HTTP server: an https URL to it fails the TLS handshake, again and again.
constexpr const char* kPlainHttp =
    "python3 -c 'import http.server,os\n"
    "s=http.server.HTTPServer((\"127.0.0.1\",0),http.server.SimpleHTTPRequestHandler)\n"
    "print(s.server_address[1],os.getpid(),flush=True)\n"
    "s.serve_forever()'";

fs::path write_kubeconfig(const fs::path& dir, const std::string& name, int port,
                          const std::string& user) {
  fs::path out = dir / (name + ".kubeconfig");
  std::ofstream(out) << fmt::format(
      "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {{server: "
      "\"https://127.0.0.1:{}\", insecure-skip-tls-verify: true}}\nusers:\n- name: u\n  user:\n{}"
      "contexts:\n- name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\n",
      port, user);
  return out;
}

fs::path seed_in(const fs::path& dir) {
  fs::path seed = dir / "seed.yaml";
  std::ofstream(seed) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: app}\n";
  return seed;
}

fs::path make_temp_dir() {
  static int n = 0;
  fs::path dir = fs::temp_directory_path() / fmt::format("planter-bounded-{}-{}", ::getpid(), ++n);
  fs::create_directories(dir);
  return dir;
}

struct Timed {
  CommandResult result;
  double seconds = 0;
};

Timed timed(const std::string& args) {
  auto start = std::chrono::steady_clock::now();
  CommandResult r = planter(args);
  return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

TEST(BoundedTest, AServerThatNeverAnswersEndsEveryCommandAtItsTimeout) {
  fs::path dir = make_temp_dir();
  ServerProcess hole(kBlackHole);
  ASSERT_GT(hole.port(), 0);
  fs::path kubeconfig = write_kubeconfig(dir, "hole", hole.port(), "    token: t\n");
  fs::path seed = seed_in(dir);
  for (const char* command : {"plant", "replant", "uproot", "diff"}) {
    SCOPED_TRACE(command);
    Timed t =
        timed(fmt::format("{} --timeout 3 --kubeconfig {} {}", command, q(kubeconfig), q(seed)));
    // The deadline, the grace for a step that does not end by itself, and the process's start.
    EXPECT_LT(t.seconds, 3 + 3 + 2) << t.result.out << t.result.err;
    EXPECT_EQ(t.result.code, std::string(command) == "diff" ? 2 : 1)
        << t.result.out << t.result.err;
    EXPECT_THAT(t.result.out + t.result.err, HasSubstr("cluster SELF"));
  }
}

TEST(BoundedTest, AHangingExecPluginAndPlainHttpBehindHttpsEndAtTheTimeout) {
  fs::path dir = make_temp_dir();
  ServerProcess http(kPlainHttp);
  ASSERT_GT(http.port(), 0);
  fs::path seed = seed_in(dir);
  // An exec credential plugin that never returns.
  std::string hanging =
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
      "      command: sleep\n      args: [\"600\"]\n"
      "      interactiveMode: Never\n";
  for (auto [name, user] :
       {std::pair<std::string, std::string>{"exec", hanging}, {"http", "    token: t\n"}}) {
    SCOPED_TRACE(name);
    fs::path kubeconfig = write_kubeconfig(dir, name, http.port(), user);
    Timed t = timed(fmt::format("plant --timeout 3 --kubeconfig {} {}", q(kubeconfig), q(seed)));
    EXPECT_LT(t.seconds, 3 + 3 + 2) << t.result.out << t.result.err;
    EXPECT_EQ(t.result.code, 1) << t.result.out << t.result.err;
    EXPECT_THAT(t.result.out + t.result.err, HasSubstr("cluster SELF"));
  }
}

// Ctrl-C while planter is still asking a cluster that does not answer (no --timeout): it stops at
// once, says which step and which cluster, and that nothing was declared.
TEST(BoundedTest, AnInterruptBeforePlantingNamesTheStepAndTheCluster) {
  fs::path dir = make_temp_dir();
  ServerProcess hole(kBlackHole);
  ASSERT_GT(hole.port(), 0);
  fs::path kubeconfig = write_kubeconfig(dir, "hole", hole.port(), "    token: t\n");
  fs::path log = dir / "plant.log";
  PlanterProcess plant({"plant", "--kubeconfig", kubeconfig.string(), seed_in(dir).string()}, log);
  // sleep-ok(none): planter prints nothing while it waits for the cluster; it has started asking
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(plant.running()) << read_file(log);
  auto start = std::chrono::steady_clock::now();
  int code = plant.stop(SIGINT);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string out = read_file(log);
  EXPECT_EQ(code, 130) << out;
  EXPECT_LT(took, 2.0) << out;
  EXPECT_THAT(out, HasSubstr("interrupted (SIGINT) while "));
  EXPECT_THAT(out, HasSubstr(fmt::format("cluster SELF at https://127.0.0.1:{}", hole.port())));
  EXPECT_THAT(out, HasSubstr("stopped; nothing was declared"));
}

}  // namespace
}  // namespace planter::testing
