// The `planter` binary as a user runs it: exit codes, messages, and that bad input declares (and
// prints) nothing. Every seed under tests/data/bad/ says what it expects in `# expect:` lines.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out, err;
};

Result planter(const std::string& args, const std::string& cwd = PLANTER_TEST_DATA) {
  fs::path err_file = fs::temp_directory_path() / fmt::format("planter-cli-{}.err", ::getpid());
  std::string cmd =
      // A hang is a failure too: no input may keep planter from answering.
      fmt::format("cd '{}' && timeout -s KILL 60 '{}' {} 2>'{}'", cwd, PLANTER_BINARY, args,
                  err_file.string());
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  fs::remove(err_file);
  return r;
}

// The lines of a seed that start with `prefix` ("# expect: "), without it.
std::vector<std::string> expectations(const fs::path& seed,
                                      const std::string& prefix = "# expect: ") {
  std::vector<std::string> out;
  std::ifstream in(seed);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) out.push_back(line.substr(prefix.size()));
  return out;
}

TEST(Cli, EveryMalformedSeedGetsItsMessageAndExitCode2) {
  fs::path dir = fs::path(PLANTER_TEST_DATA) / "bad";
  std::vector<fs::path> seeds;
  for (const auto& e : fs::directory_iterator(dir)) seeds.push_back(e.path());
  std::sort(seeds.begin(), seeds.end());
  ASSERT_GE(seeds.size(), 20u);
  for (const fs::path& seed : seeds) {
    auto expect = expectations(seed);
    ASSERT_FALSE(expect.empty()) << seed << " has no # expect: line";
    Result r = planter("plan " + seed.filename().string(), dir.string());
    // Bad only once the management cluster is read (a cluster name nothing else defines):
    // offline, `plan` warns (`# offline:`) and plans; planting refuses it (PlantTest).
    if (auto offline = expectations(seed, "# offline: "); !offline.empty()) {
      EXPECT_EQ(r.code, 0) << seed.filename() << "\n" << r.err;
      for (const std::string& e : offline)
        EXPECT_NE(r.err.find("warning: " + e), std::string::npos)
            << seed.filename() << " should warn:\n  " << e << "\nbut said:\n"
            << r.err;
      continue;
    }
    EXPECT_EQ(r.code, 2) << seed.filename() << "\n" << r.err;
    EXPECT_EQ(r.out, "") << seed.filename() << ": bad input must print no plan";
    EXPECT_NE(r.err.find(" in the seed\n"), std::string::npos) << seed.filename() << "\n" << r.err;
    // `plan` never declares, so it does not say that nothing was.
    EXPECT_EQ(r.err.find("nothing was declared"), std::string::npos) << seed.filename() << "\n"
                                                                     << r.err;
    for (const std::string& e : expect)
      EXPECT_NE(r.err.find(e), std::string::npos)
          << seed.filename() << " should say:\n  " << e << "\nbut said:\n"
          << r.err;
  }
}

TEST(Cli, LabelsForAClusterNobodyDefinesAreSaidOffline) {
  // Offline the name might be a cluster object on the management cluster: a warning says so.
  Result r =
      planter(fmt::format("plan '{}/examples/hello-world/seed.yaml' --cluster-labels "
                          "edge9=tier=edge",
                          PLANTER_SOURCE_DIR));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: cluster \"edge9\" is not in the seed or --cluster"),
            std::string::npos)
      << r.err;
  // Labels for the seed's own cluster are fine.
  r = planter(
      fmt::format("plan '{}/examples/hello-world/seed.yaml' --cluster-labels edge1=tier=edge",
                  PLANTER_SOURCE_DIR));
  EXPECT_EQ(r.code, 0) << r.err;
}

// --seed-name becomes a label value, a field manager and an inventory's name: one that cannot be
// a label value is refused before any request, named as JSON would quote it.
TEST(Cli, ASeedNameThatCannotBeALabelValueIsRefused) {
  Result r = planter(fmt::format(
      "plant --sim --seed-name 'shop/v2' '{}/examples/hello-world/seed.yaml'", PLANTER_SOURCE_DIR));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("error: --seed-name \"shop/v2\": a valid label must be"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing was declared"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("planted"), std::string::npos) << r.out;
}

// As kubectl, flux and helm: `planter version` (and as JSON), and a word that is no command named
// with the commands there are, exit 2, rather than "A subcommand is required".
TEST(Cli, VersionAndUnknownCommandsAnswerAsKubectlDoes) {
  Result r = planter("version");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("planter ") + PLANTER_VERSION + "\n");
  r = planter("version -o json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("{\n  \"version\": \"") + PLANTER_VERSION + "\"\n}\n");
  EXPECT_EQ(planter("--version").out, std::string("planter ") + PLANTER_VERSION + "\n");
  r = planter("foo");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("error: unknown command \"foo\" for \"planter\""), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("  plant "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Run 'planter --help' for usage."), std::string::npos) << r.err;
  // No command: kubectl's usage (its commands and how to ask about one), exit 0.
  r = planter("");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Commands:\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  plant "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Use \"planter <command> --help\" for more information"), std::string::npos)
      << r.out;
  // kubectl's `-o=yaml` form of a short flag.
  r = planter(fmt::format("plan -o=json '{}/examples/hello-world/seed.yaml'", PLANTER_SOURCE_DIR));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{", 0), 0u) << r.out;
  EXPECT_EQ(planter("version -o=yaml").out, std::string("version: ") + PLANTER_VERSION + "\n");
  // A mistyped command or flag: the nearest ones, as kubectl suggests commands.
  r = planter("plnat seed.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("Did you mean this?\n\tplan\n\tplant\n"), std::string::npos) << r.err;
  r = planter("plant --tmieout 5 seed.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--tmieout: did you mean this?\n\t--timeout\n"), std::string::npos) << r.err;
}

// `planter man`: planter(1) in roff, every command and its flags, the exit codes; man renders it.
TEST(Cli, TheManualPageNamesEveryCommandAndFlag) {
  Result r = planter("man");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(std::string(".TH PLANTER 1 \"\" \"planter ") + PLANTER_VERSION, 0), 0u)
      << r.out.substr(0, 200);
  for (const char* section : {".SH NAME\n", ".SH SYNOPSIS\n", ".SH COMMANDS\n", ".SH EXIT STATUS\n",
                              ".SH ENVIRONMENT\n", ".SH EXAMPLES\n"})
    EXPECT_NE(r.out.find(section), std::string::npos) << section;
  for (const char* cmd : {"plan", "annotate", "plant", "uproot", "replant", "diff", "sim",
                          "operator", "scheduler", "install", "completion", "man"})
    EXPECT_NE(r.out.find(fmt::format(".SS {}\n", cmd)), std::string::npos) << cmd;
  for (const char* flag : {"\\-\\-timeout", "\\-\\-force\\-conflicts", "\\-\\-sim"})
    EXPECT_NE(r.out.find(fmt::format(".B {}", flag)), std::string::npos) << flag;
  EXPECT_NE(r.out.find(".B 2\nBad input"), std::string::npos);
}

// `planter completion bash` loads in bash and completes commands, a command's flags and the values
// of a flag that takes a fixed set; zsh's and fish's name every command too.
TEST(Cli, CompletionScriptsLoadInBashAndComplete) {
  fs::path script = fs::temp_directory_path() / fmt::format("planter-completion-{}", ::getpid());
  auto complete = [&script](const std::string& words) {
    return planter(fmt::format(
        "completion bash > '{0}' && bash -c 'source \"{0}\" && COMP_WORDS=({1}) && "
        "COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)) && _planter && echo \"${{COMPREPLY[*]}}\"'",
        script.string(), words));
  };
  Result r = complete("planter pl");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "plan plant\n");
  EXPECT_EQ(complete("planter plan -o \"\"").out, "table wide json yaml dot mermaid\n");
  EXPECT_EQ(complete("planter plant --ti").out, "--timeout --timeline\n");
  EXPECT_EQ(complete("kubectl-planter version -").out, "-h --help -o --output\n");
  // --context: the contexts of the kubeconfig on the line (planter asks itself, on PATH).
  fs::path kubeconfig = script.string() + ".kubeconfig";
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: edge-a\n"
                               "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                               "users: [{name: u, user: {token: t}}]\n"
                               "contexts: [{name: edge-a, context: {cluster: c, user: u}}, "
                               "{name: edge-b, context: {cluster: c, user: u}}]\n";
  r = planter(fmt::format(
      "completion bash > '{0}' && PATH='{2}':\"$PATH\" bash -c 'source \"{0}\" && "
      "COMP_WORDS=(planter plant --kubeconfig {1} --context edge) && "
      "COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)) && _planter && echo \"${{COMPREPLY[*]}}\"'",
      script.string(), kubeconfig.string(), fs::path(PLANTER_BINARY).parent_path().string()));
  EXPECT_EQ(r.out, "edge-a edge-b\n") << r.err;
  fs::remove(kubeconfig);
  for (const char* shell : {"zsh", "fish"}) {
    Result s = planter(fmt::format("completion {}", shell));
    EXPECT_EQ(s.code, 0) << s.err;
    for (const char* cmd : {"plan", "plant", "uproot", "replant", "sim", "operator", "scheduler"})
      EXPECT_NE(s.out.find(cmd), std::string::npos) << shell << " " << cmd;
  }
  EXPECT_EQ(planter("completion tcsh").code, 2);
  fs::remove(script);
}

// As a kubectl plugin (kubectl-planter on PATH, as `kubectl plugin list` finds it): `kubectl
// planter version` runs it, and its help and errors say `kubectl planter`.
TEST(Cli, KubectlRunsItAsAPlugin) {
  fs::path tools = fs::path(PLANTER_SOURCE_DIR) / "build" / "tools" / "kubectl";
  std::string kubectl = fs::exists(tools) ? tools.string() : "kubectl";
  std::string path = fs::path(PLANTER_BINARY).parent_path().string();
  ASSERT_TRUE(fs::exists(fs::path(path) / "kubectl-planter"));
  Result r =
      planter(fmt::format("version; PATH='{}':\"$PATH\" '{}' planter version", path, kubectl));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            std::string("planter ") + PLANTER_VERSION + "\nplanter " + PLANTER_VERSION + "\n");
  r = planter(
      fmt::format("version >/dev/null; PATH='{}':\"$PATH\" '{}' planter foo", path, kubectl));
  EXPECT_NE(r.err.find("unknown command \"foo\" for \"kubectl planter\""), std::string::npos)
      << r.err;
}

TEST(Cli, PlansTheExampleSeed) {
  Result r = planter(fmt::format("plan '{}/examples/hello-world/seed.yaml'", PLANTER_SOURCE_DIR));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("WAVE"), std::string::npos);
  EXPECT_NE(r.out.find("units of"), std::string::npos);
}

// `planter plan` starts itself again on a heap of huge pages (model/huge_page_heap.h): the second
// start reads the same arguments (a path with a space) and the same stdin, and prints the plan the
// first start would have printed with glibc's own heap (PLANTER_HUGE_PAGE_HEAP=off).
TEST(Cli, PlanStartedAgainOnHugePagesPrintsThePlanOfItsOwnArgumentsAndStdin) {
  fs::path dir = fs::path(::testing::TempDir()) / fmt::format("planter cli {}", ::getpid());
  fs::create_directories(dir);
  fs::copy_file(fs::path(PLANTER_SOURCE_DIR) / "examples/hello-world/seed.yaml", dir / "seed.yaml",
                fs::copy_options::overwrite_existing);
  std::string seed = "'" + (dir / "seed.yaml").string() + "'";
  ASSERT_EQ(::setenv("PLANTER_HUGE_PAGE_HEAP", "off", 1), 0);
  Result glibc_heap = planter("plan -o json " + seed);
  Result glibc_heap_stdin = planter("plan -o json - < " + seed);
  ::unsetenv("PLANTER_HUGE_PAGE_HEAP");
  Result huge = planter("plan -o json " + seed);
  Result huge_stdin = planter("plan -o json - < " + seed);
  ASSERT_EQ(glibc_heap.code, 0) << glibc_heap.err;
  ASSERT_EQ(huge.code, 0) << huge.err;
  EXPECT_NE(huge.out.find("\"units\""), std::string::npos) << huge.out.substr(0, 200);
  EXPECT_EQ(huge.out, glibc_heap.out);
  ASSERT_EQ(huge_stdin.code, 0) << huge_stdin.err;
  EXPECT_EQ(huge_stdin.out, glibc_heap_stdin.out);
  fs::remove_all(dir);
}

// The second start puts the environment back as the user gave it, so that what `plan` starts
// (here a kustomize, found first in PATH) sees the user's GLIBC_TUNABLES, or none, and not the
// heap's: the fake kustomize names its one ConfigMap after the GLIBC_TUNABLES and
// PLANTER_HUGE_PAGE_HEAP it was given, and after whether its parent (planter, unsandboxed with
// --allow-remote-bases) was started with the heap's mark, that is, started again.
TEST(Cli, PlanStartedAgainOnHugePagesGivesWhatItStartsTheUsersEnvironment) {
  fs::path dir = fs::path(::testing::TempDir()) / fmt::format("planter-env-{}", ::getpid());
  fs::create_directories(dir / "bin");
  fs::create_directories(dir / "seed");
  std::ofstream(dir / "seed/kustomization.yaml") << "resources: []\n";
  fs::path fake = dir / "bin/kustomize";
  std::ofstream(fake)
      << "#!/bin/sh\n"
         "t=${GLIBC_TUNABLES-unset}\n"
         "m=${PLANTER_HUGE_PAGE_HEAP-unset}\n"
         "r=first\n"
         "tr '\\0' '\\n' < /proc/$PPID/environ | grep -q '^PLANTER_HUGE_PAGE_HEAP=on' && "
         "r=restarted\n"
         "name=$(printf '%s.%s.%s' \"$t\" \"$m\" \"$r\" | tr -c 'a-z0-9.\\n' '-')\n"
         "printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: %s\\n  namespace: "
         "default\\n' \"$name\"\n";
  fs::permissions(fake, fs::perms::owner_all);
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  ASSERT_EQ(::setenv("PATH", ((dir / "bin").string() + ":" + path).c_str(), 1), 0);
  std::string args = "plan -o json --allow-remote-bases '" + (dir / "seed").string() + "'";
  auto planned_name = [&] {
    Result r = planter(args);
    EXPECT_EQ(r.code, 0) << r.err;
    size_t at = r.out.find("v1|ConfigMap|default|");
    if (at == std::string::npos) return "(no ConfigMap in: " + r.out.substr(0, 300) + ")";
    at += std::string("v1|ConfigMap|default|").size();
    return r.out.substr(at, r.out.find('"', at) - at);
  };
  ::unsetenv("GLIBC_TUNABLES");
  ::unsetenv("PLANTER_HUGE_PAGE_HEAP");
  EXPECT_EQ(planned_name(), "unset.unset.restarted");
  ASSERT_EQ(::setenv("GLIBC_TUNABLES", "glibc.malloc.perturb=0", 1), 0);
  EXPECT_EQ(planned_name(), "glibc.malloc.perturb-0.unset.restarted");
  // The user's own heap tunables keep the first start; so does PLANTER_HUGE_PAGE_HEAP=off.
  ASSERT_EQ(::setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2", 1), 0);
  EXPECT_EQ(planned_name(), "glibc.malloc.arena-max-2.unset.first");
  ::unsetenv("GLIBC_TUNABLES");
  ASSERT_EQ(::setenv("PLANTER_HUGE_PAGE_HEAP", "off", 1), 0);
  EXPECT_EQ(planned_name(), "unset.off.first");
  ::unsetenv("PLANTER_HUGE_PAGE_HEAP");
  ASSERT_EQ(::setenv("PATH", path.c_str(), 1), 0);
  fs::remove_all(dir);
}

TEST(Cli, OutputFormats) {
  std::string seed = fmt::format("'{}/examples/hello-world/seed.yaml'", PLANTER_SOURCE_DIR);
  Result json = planter("plan -o json " + seed);
  EXPECT_EQ(json.code, 0);
  // Indented as kubectl's -o json: four spaces a level.
  EXPECT_EQ(json.out.rfind("{\n    \"units\": [\n        {\n            \"object\": ", 0), 0u)
      << json.out.substr(0, 80);
  // -o yaml is the same document (read back by PyYAML, compared with the JSON).
  fs::path json_file = fs::temp_directory_path() / fmt::format("planter-cli-{}.json", ::getpid());
  std::ofstream(json_file) << json.out;
  Result same =
      planter(fmt::format("plan -o yaml {} | python3 -c 'import json, sys, yaml; sys.exit(0 if "
                          "yaml.safe_load(sys.stdin) == json.load(open(\"{}\")) else 1)'",
                          seed, json_file.string()));
  EXPECT_EQ(same.code, 0) << same.err;
  fs::remove(json_file);
  // -f, as kubectl's, is the same as the source given without it.
  EXPECT_EQ(planter("plan -o json -f " + seed).out, json.out);
  EXPECT_EQ(planter("plan -o dot " + seed).out.rfind("digraph plan {", 0), 0u);
  EXPECT_EQ(planter("plan -o mermaid " + seed).out.rfind("flowchart LR", 0), 0u);
  Result bad = planter("plan -o xml " + seed);
  EXPECT_EQ(bad.code, 2);
}

TEST(Cli, SeedFromStdin) {
  Result r = planter(
      fmt::format("plan -o json - < '{}/examples/hello-world/seed.yaml'", PLANTER_SOURCE_DIR));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"source\": \"<stdin>:"), std::string::npos) << r.out.substr(0, 300);
}

TEST(Cli, AnnotateWritesTheDecisionsBack) {
  Result r =
      planter(fmt::format("annotate '{}/examples/hello-world/seed.yaml'", PLANTER_SOURCE_DIR));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("planter.nephio.org/cluster: SELF"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("planter.nephio.org/dependencies:"), std::string::npos) << r.out;
  // The seed as its author wrote it: its comments are there, in their places.
  EXPECT_TRUE(r.out.starts_with("# hello-world: a workload cluster and the network function"))
      << r.out.substr(0, 200);
  EXPECT_NE(r.out.find("# The management-side namespace that holds the cluster definition.\n"
                       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: fleet\n"
                       "  annotations:\n    planter.nephio.org/cluster: SELF\n"),
            std::string::npos)
      << r.out;
  // Planned again, it is the same plan.
  std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/annotated.yaml") << r.out;
  Result again = planter("plan '" + dir + "/annotated.yaml'");
  Result first =
      planter(fmt::format("plan '{}/examples/hello-world/seed.yaml'", PLANTER_SOURCE_DIR));
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, first.out);
}

TEST(Cli, PluginsRunInOrderAndFailuresExit2) {
  std::string seed = fmt::format("'{}/examples/hello-world/seed.yaml'", PLANTER_SOURCE_DIR);
  Result r = planter("plan " + seed + " --plugin plugins/fail.sh");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("plugin fail.sh: exited with status 3"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// The worked plugins of docs/plugins.md do what the docs say.
TEST(Cli, DatabaseFirstPluginMakesTheFrontEndWaitForItsDatabase) {
  std::string args = fmt::format(
      "--plugin '{0}/examples/plugins/database-first.py' '{0}/examples/plugins/shop.yaml'",
      PLANTER_SOURCE_DIR);
  Result r = planter("plan " + args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("shop/web   Namespace/shop active, StatefulSet/shop/db "
                       "jsonpath={.status.readyReplicas}=2"),
            std::string::npos)
      << r.out;
  // The Service of the database is no workload: it waits for nothing of the database.
  EXPECT_NE(r.out.find("shop/db    Namespace/shop active\n"), std::string::npos) << r.out;
  // Through a YAML 1.1 library (the plugin's PyYAML) and back, the string "on" stays one.
  Result annotated = planter("annotate " + args);
  ASSERT_EQ(annotated.code, 0) << annotated.err;
  EXPECT_NE(annotated.out.find("value: \"on\""), std::string::npos) << annotated.out;
}

TEST(Cli, ConditionReadyPluginMakesDependentsWaitForReady) {
  std::string plugin =
      fmt::format("--plugin '{}/examples/plugins/condition-ready.sh'", PLANTER_SOURCE_DIR);
  Result r = planter("plan plugins/web-tls.yaml " + plugin);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Certificate/shop/web-tls condition=Ready"), std::string::npos) << r.out;
  Result annotated = planter("annotate plugins/web-tls.yaml " + plugin);
  ASSERT_EQ(annotated.code, 0) << annotated.err;
  EXPECT_NE(annotated.out.find("    planter.nephio.org/ready-when: condition=Ready\n    team: web"),
            std::string::npos)
      << annotated.out;
}

TEST(Cli, HelpSaysWhatEachCommandDoesWithAnExample) {
  for (const char* cmd : {"--help", "plan --help", "annotate --help"}) {
    Result r = planter(cmd);
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find("Examples:"), std::string::npos) << cmd << "\n" << r.out;
  }
}

// docs/cli.md has a section for every command and names every flag `--help` lists.
TEST(Cli, TheCliReferenceCoversEveryCommandAndFlag) {
  std::ifstream in(fs::path(PLANTER_SOURCE_DIR) / "docs/cli.md");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  for (const char* cmd : {"plan", "annotate", "plant", "uproot", "replant", "diff", "sim",
                          "operator", "scheduler", "install", "completion", "man", "approve"}) {
    SCOPED_TRACE(cmd);
    EXPECT_NE(doc.find(fmt::format("\n## planter {}\n", cmd)), std::string::npos);
    Result help = planter(fmt::format("{} --help", cmd));
    ASSERT_EQ(help.code, 0);
    std::istringstream lines(help.out.substr(help.out.find("Options:")));
    size_t flags = 0;
    for (std::string line; std::getline(lines, line);) {
      // Option lines: "  -n,--namespace TEXT ..." or "  --plugin TEXT ...".
      size_t at = line.find("--");
      if (line.rfind("  -", 0) != 0 || at == std::string::npos) continue;
      size_t end = line.find_first_not_of("abcdefghijklmnopqrstuvwxyz-", at + 2);
      std::string flag = line.substr(at, end - at);
      if (flag == "--help") continue;
      ++flags;
      bool named = false;
      for (char after : std::string_view("` ,=[\n"))
        named = named || doc.find(flag + after) != std::string::npos;
      EXPECT_TRUE(named) << flag << " is not in docs/cli.md";
    }
    if (std::string_view(cmd) != "completion" && std::string_view(cmd) != "man") {  // no flags
      EXPECT_GT(flags, 0u);
    }
  }
}

// Every YAML block of the docs and the README that holds whole objects (an apiVersion and a kind
// at the top) is a seed a reader may paste: `planter plan` plans it. A block that drifts from the
// binary (a field renamed, a fragment passed off as an object) fails here, named by file:line.
TEST(Cli, EveryWholeYamlBlockOfTheDocsPlans) {
  std::vector<fs::path> docs = {fs::path(PLANTER_SOURCE_DIR) / "README.md"};
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(PLANTER_SOURCE_DIR) / "docs"))
    if (e.path().extension() == ".md") docs.push_back(e.path());
  std::sort(docs.begin(), docs.end());
  size_t planned = 0;
  for (const fs::path& doc : docs) {
    std::ifstream in(doc);
    std::string line, block;
    int number = 0, start = 0;
    bool in_yaml = false;
    while (std::getline(in, line)) {
      ++number;
      if (!in_yaml && line == "```yaml") {
        in_yaml = true;
        block.clear();
        start = number + 1;
        continue;
      }
      if (!in_yaml) continue;
      if (line != "```") {
        block += line + "\n";
        continue;
      }
      in_yaml = false;
      bool whole =
          block.rfind("apiVersion:", 0) == 0 || block.find("\napiVersion:") != std::string::npos;
      whole = whole && (block.rfind("kind:", 0) == 0 || block.find("\nkind:") != std::string::npos);
      if (!whole) continue;
      fs::path seed = fs::temp_directory_path() / fmt::format("planter-doc-{}.yaml", ::getpid());
      std::ofstream(seed) << block;
      Result r = planter(fmt::format("plan '{}'", seed.string()));
      EXPECT_EQ(r.code, 0) << doc.filename().string() << ":" << start << ": " << r.err;
      fs::remove(seed);
      ++planned;
    }
  }
  EXPECT_GE(planned, 7u);
}

TEST(Cli, MissingSeedFileExits2) {
  Result r = planter("plan no-such-seed.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no-such-seed.yaml: no such file or folder"), std::string::npos) << r.err;
}

TEST(Cli, BadClusterFlagExits2) {
  Result r = planter("plan x.yaml --cluster edge1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--cluster edge1: expected NAME=CONTEXT"), std::string::npos) << r.err;
}

}  // namespace
