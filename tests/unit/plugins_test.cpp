#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "model/sandbox.h"
#include "plugins/runner.h"
#include "test_support.h"

namespace planter {
namespace {

namespace fs = std::filesystem;

std::string plugin(const std::string& name) {
  return std::string(PLANTER_TEST_DATA) + "/plugins/" + name;
}

Seed small_seed() {
  Seed s;
  Diagnostics d;
  parse_seed_text(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: a}\n",
      "seed.yaml", s, d);
  return s;
}

TEST(Plugins, StreamPluginAnnotatesAndSourcesSurvive) {
  Seed s = small_seed();
  Diagnostics d;
  ASSERT_TRUE(run_plugins({plugin("annotate-stream.sh")}, s, {}, d)) << d.str();
  ASSERT_EQ(s.objects.size(), 2u);
  const auto* a = s.objects[1].annotation("planter.nephio.org/dependencies");
  ASSERT_TRUE(a);
  EXPECT_EQ(std::string_view(*a), "v1|Namespace||a");
  EXPECT_EQ(s.objects[1].where(), "seed.yaml:5");  // same identity: same file:line
}

TEST(Plugins, ResourceListInGetsResourceListBack) {
  Seed s = small_seed();
  s.resource_list = true;
  Diagnostics d;
  ASSERT_TRUE(run_plugins({plugin("krm-echo.py")}, s, {}, d)) << d.str();
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_TRUE(s.objects[0].annotation("seen-by-krm"));
}

TEST(Plugins, FailuresNameThePluginAndShowItsStderr) {
  struct Case {
    const char* plugin;
    const char* expect;
  };
  for (const Case& c :
       {Case{"fail.sh", "exited with status 3"}, Case{"crash.sh", "killed by signal"},
        Case{"garbage.sh", "its output is not a valid seed"}, Case{"empty.sh", "wrote no objects"},
        Case{"empty-list.sh", "wrote no objects"}}) {
    Seed s = small_seed();
    Diagnostics d;
    EXPECT_FALSE(run_plugins({plugin(c.plugin)}, s, {}, d)) << c.plugin;
    std::string e = d.str();
    EXPECT_NE(e.find(std::string("plugin ") + c.plugin), std::string::npos) << e;
    EXPECT_NE(e.find(c.expect), std::string::npos) << e;
  }
  Seed s = small_seed();
  Diagnostics d;
  run_plugins({plugin("fail.sh")}, s, {}, d);
  EXPECT_NE(d.str().find("| cannot reach the inventory service"), std::string::npos) << d.str();
}

TEST(Plugins, TimeoutKillsThePlugin) {
  Seed s = small_seed();
  Diagnostics d;
  auto start = std::chrono::steady_clock::now();
  PluginLimits limits;
  limits.timeout = std::chrono::milliseconds(300);
  EXPECT_FALSE(run_plugins({plugin("sleep.sh")}, s, limits, d));
  EXPECT_NE(d.str().find("timed out after 300 ms"), std::string::npos) << d.str();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Plugins, OutputLimitKillsThePlugin) {
  Seed s = small_seed();
  Diagnostics d;
  PluginLimits limits;
  limits.max_output_bytes = 1024;
  EXPECT_FALSE(run_plugins({plugin("flood.sh")}, s, limits, d));
  EXPECT_NE(d.str().find("more than 1024 bytes"), std::string::npos) << d.str();
}

TEST(Plugins, MissingExecutableIsReported) {
  Seed s = small_seed();
  Diagnostics d;
  EXPECT_FALSE(run_plugins({plugin("does-not-exist")}, s, {}, d));
  EXPECT_NE(d.str().find("cannot start"), std::string::npos) << d.str();
}

// A plugin written for one test, in a folder of its own.
std::string write_plugin(const std::string& name, const std::string& text) {
  fs::path dir = fs::temp_directory_path() / ("planter-plugin-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p) << text;
  fs::permissions(p, fs::perms::owner_all);
  return p.string();
}

// What the plugin said about itself: the value of annotation `key` on the seed's first object.
std::string told(const Seed& s, const std::string& key) {
  const auto* a = s.objects.empty() ? nullptr : s.objects[0].annotation(key);
  return a ? std::string(*a) : "(no annotation " + key + ")";
}

// The plugin of the sandbox tests: reports what it can reach and see in annotations.
std::string probe_plugin(int port, const std::string& flag_file) {
  return fmt::format(R"(#!/usr/bin/env python3
import os, socket, subprocess, sys, yaml
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
try:
    socket.create_connection(("127.0.0.1", {}), timeout=2).close()
    reached = "yes"
except OSError as e:
    reached = "no"
# A grandchild that leaves the process group and outlives the plugin by a second, unless stopped.
# sleep-ok(child): the grandchild acts a second after it starts
subprocess.Popen(["setsid", "sh", "-c", "sleep 1; echo alive > {}"])
notes = docs[0]["metadata"].setdefault("annotations", {{}})
notes["network"] = reached
notes["env"] = ",".join(sorted(os.environ))
yaml.safe_dump_all(docs, sys.stdout)
)",
                     port, flag_file);
}

// A TCP listener on loopback (what a plugin with the network could reach), closed when it goes.
struct Listener {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  Listener() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(fd, 8) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      port = ntohs(addr.sin_port);
  }
  ~Listener() { ::close(fd); }
};

// Plugins are functions of the seed: no network unless allowed, only a few environment variables,
// and nothing they start outlives them.
TEST(Plugins, RunInASandboxWithoutNetworkOrLeftovers) {
  Listener listener;
  ASSERT_GT(listener.port, 0);
  fs::path flag = fs::temp_directory_path() / ("planter-leftover-" + std::to_string(::getpid()));
  fs::remove(flag);
  std::string probe = write_plugin("probe.py", probe_plugin(listener.port, flag.string()));
  ::setenv("PLANTER_TEST_SECRET", "do-not-pass", 1);

  Seed s = small_seed();
  Diagnostics d;
  ASSERT_TRUE(run_plugins({probe}, s, {}, d)) << d.str();
  // A kernel that refuses user namespaces is said in a warning: the network is then taken by a
  // seccomp filter (SandboxTest below), but nothing keeps a grandchild from outliving the plugin.
  bool pid_namespace = true;
  for (const Diagnostic& w : d.warnings()) {
    EXPECT_EQ(w.message.find("runs with the network"), std::string::npos) << w.message;
    if (w.message.find("outside a PID namespace") != std::string::npos) pid_namespace = false;
  }
  EXPECT_EQ(told(s, "network"), "no");
  std::string env = told(s, "env");
  EXPECT_NE(env.find("PATH"), std::string::npos) << env;
  EXPECT_EQ(env.find("PLANTER_TEST_SECRET"), std::string::npos) << env;
  if (pid_namespace) {
    // The grandchild writes the flag a second after it starts, unless the sandbox's end killed it.
    // sleep-ok(none): a leftover grandchild acts 1 s after it starts; its absence is checked after
    // that
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    EXPECT_FALSE(fs::exists(flag)) << "a process the plugin started outlived it";
  }

  Seed allowed = small_seed();
  PluginLimits limits;
  limits.network = {"probe.py"};
  ASSERT_TRUE(run_plugins({probe}, allowed, limits, d)) << d.str();
  EXPECT_EQ(told(allowed, "network"), "yes");
  ::unsetenv("PLANTER_TEST_SECRET");
  fs::remove(flag);
}

// Where the kernel refuses user namespaces, a seccomp filter still takes the network: sockets of
// the internet families fail, local ones work. Forced here with `namespaces` false.
TEST(SandboxTest, WithoutNamespacesASeccompFilterTakesTheNetwork) {
  Listener listener;
  ASSERT_GT(listener.port, 0);
  std::string script = fmt::format(
      "import socket\n"
      "try:\n"
      "    socket.create_connection(('127.0.0.1', {}), timeout=2).close(); print('inet yes')\n"
      "except OSError as e:\n"
      "    print('inet no', e.errno)\n"
      "try:\n"
      "    socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); print('inet6 yes')\n"
      "except OSError as e:\n"
      "    print('inet6 no', e.errno)\n"
      "a, b = socket.socketpair(); a.send(b'x'); print('unix', b.recv(1).decode())\n",
      listener.port);
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  int null_in = ::open("/dev/null", O_RDONLY);
  std::string python = "/usr/bin/python3";
  std::vector<std::string> args = {python, "-c", script};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  std::string note;
  auto pid = spawn_sandboxed(python, argv.data(), envp, SandboxFds{null_in, out[1], 2}, note,
                             /*namespaces=*/false);
  ::close(out[1]);
  ::close(null_in);
  ASSERT_TRUE(pid) << pid.error().message;
  std::string said;
  char buf[256];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) said.append(buf, size_t(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(*pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said;
  EXPECT_THAT(note, ::testing::HasSubstr("its network taken by a seccomp filter"));
  EXPECT_THAT(said, ::testing::HasSubstr(fmt::format("inet no {}", EACCES)));
  EXPECT_THAT(said, ::testing::HasSubstr(fmt::format("inet6 no {}", EACCES)));
  EXPECT_THAT(said, ::testing::HasSubstr("unix x"));
}

TEST(Plugins, DirectoryIsSortedByName) {
  auto list = plugins_in_dir(std::string(PLANTER_TEST_DATA) + "/plugins");
  ASSERT_TRUE(list.ok());
  ASSERT_GE(list->size(), 2u);
  EXPECT_TRUE(std::is_sorted(list->begin(), list->end()));
}

}  // namespace
}  // namespace planter
