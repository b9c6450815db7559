// The `planter` command: `plan` and `annotate` (the pure half of the pipeline), `plant`, `uproot`
// and `replant` (the engine), and `sim` (the simulated fleet).
// Exit codes: 0 success, 2 bad input (nothing was declared), 1 anything else.
#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <boost/json/parse.hpp>
#include <cstdio>
#include <iostream>
#include <vector>

#include "cli/approve_command.h"
#include "cli/completion.h"
#include "cli/fit_command.h"
#include "cli/json_output.h"
#include "cli/man_page.h"
#include "cli/operator_command.h"
#include "cli/plant_command.h"
#include "cli/scheduler_command.h"
#include "cli/seed_flags.h"
#include "cli/sim_command.h"
#include "kube/answer_buffers.h"
#include "kube/kubeconfig.h"
#include "model/huge_page_heap.h"
#include "model/strings.h"
#include "model/yaml.h"
#include "plan/planner.h"
#include "plan/render.h"
#include "plugins/runner.h"

namespace {

using namespace planter;

using cli::kExitBadInput;
using cli::kExitFailure;
using cli::kExitOk;
using cli::SeedFlags;

// Plans, then hands the plan to `print`, which writes it to stdout. The plan is not freed: the
// process ends once it is printed, and walking a 100,000-object plan to free it piece by piece
// took a twentieth of `plan`'s time (docs/decisions.md, "`plan` does not free its plan").
// Reachable from a static, so the sanitizers' leak check does not count it.
int run_planner(const SeedFlags& flags, const std::function<void(const Plan&)>& print) {
  auto plan = cli::plan_from_flags(flags);
  if (!plan) return plan.error();
  static auto* const kept = new std::vector<const Plan*>;
  kept->push_back(new Plan(std::move(plan.value())));
  print(*kept->back());
  return kExitOk;
}

void print_text(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
}

// Many clusters, watches and clients need many descriptors: the soft limit goes up to the hard
// one at start, as Go's runtime does for kubectl and kube-apiserver.
void raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

int main(int argc, char** argv) {
  raise_open_file_limit();
  CLI::App app{
      "planter plants a Day-1 package of Kubernetes objects (a seed) across the management "
      "cluster and workload clusters, declaring each object as soon as its hard dependencies "
      "hold."};
  // Run as kubectl's plugin (kubectl-planter), it is `kubectl planter` in help and errors.
  std::string_view invoked = argv[0];
  invoked = invoked.substr(invoked.rfind('/') + 1);
  const std::string program = invoked == "kubectl-planter" ? "kubectl planter" : "planter";
  app.name(program);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("planter ") + PLANTER_VERSION);
  app.footer(
      "Examples:\n"
      "  planter plant --sim examples/hello-world/seed.yaml\n"
      "  planter plan examples/hello-world/seed.yaml\n"
      "  planter plan seed/ -o json --plugin ./plugins/10-network.py\n"
      "  planter annotate seed.yaml > annotated.yaml");

  cli::SeedFlags plan_flags;
  std::string output = "table";
  auto* plan = app.add_subcommand("plan",
                                  "Print the plan of a seed: units, clusters, waves and "
                                  "what each unit waits for (no cluster is contacted, unless "
                                  "--fit)");
  add_seed_flags(plan, plan_flags);
  plan->add_option("-o,--output", output,
                   "Output format; wide: the table with the rule that derived each requirement")
      ->check(CLI::IsMember({"table", "wide", "json", "yaml", "dot", "mermaid"}))
      ->capture_default_str();
  cli::FitFlags fit_flags;
  cli::add_fit_flags(plan, fit_flags);
  plan->footer(
      "Examples:\n"
      "  planter plan examples/hello-world/seed.yaml\n"
      "  planter plan seed.yaml -o json | jq '.units[] | select(.wave == 0)'\n"
      "  planter plan seed.yaml -o dot | dot -Tsvg > plan.svg\n"
      "  planter plan seed.yaml --cluster edge2=kind-edge2 --cluster-labels edge2=tier=edge\n"
      "  planter plan seed.yaml --fit --context prod");

  SeedFlags annotate_flags;
  auto* annotate = app.add_subcommand(
      "annotate",
      "Print the seed back with planter.nephio.org/cluster and planter.nephio.org/dependencies "
      "filled in, as planter decided them");
  add_seed_flags(annotate, annotate_flags);
  bool annotate_rewrite = false;
  annotate->add_flag("--rewrite", annotate_rewrite,
                     "Write every object afresh as planter read it (block YAML, no comments) "
                     "instead of editing the seed's own text");
  annotate->footer(
      "Examples:\n"
      "  planter annotate examples/hello-world/seed.yaml\n"
      "  planter annotate seed.yaml --plugin ./my-plugin > annotated.yaml");

  cli::PlantFlags plant_flags, uproot_flags, replant_flags, diff_flags;
  auto plant_cmds =
      cli::add_plant_commands(app, plant_flags, uproot_flags, replant_flags, diff_flags);

  cli::SimFlags sim_flags;
  auto* sim = cli::add_sim_command(app, sim_flags);

  cli::OperatorFlags operator_flags;
  auto* op = cli::add_operator_command(app, operator_flags);
  cli::SchedulerFlags scheduler_flags;
  auto* scheduler = cli::add_scheduler_command(app, scheduler_flags);
  cli::InstallFlags install_flags;
  auto* install = cli::add_install_command(app, install_flags);
  std::string version_output = "text";
  auto* version = app.add_subcommand("version", "Print planter's version");
  version->add_option("-o,--output", version_output, "text, json or yaml")
      ->check(CLI::IsMember({"text", "json", "yaml"}));

  std::string shell;
  auto* completion = app.add_subcommand(
      "completion",
      "Print a shell completion script: source <(planter completion bash), or zsh, or fish");
  completion->add_option("shell", shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  completion->footer(
      "Examples:\n"
      "  source <(planter completion bash)\n"
      "  planter completion bash > /etc/bash_completion.d/planter\n"
      "  source <(planter completion zsh)\n"
      "  planter completion fish | source");

  cli::ApproveFlags approve_flags;
  auto* approve = cli::add_approve_command(app, approve_flags);

  auto* man = app.add_subcommand("man", "Print the manual page planter(1): planter man | man -l -");
  man->footer(
      "Examples:\n"
      "  planter man | man -l -\n"
      "  planter man > /usr/local/share/man/man1/planter.1");

  // For the completion scripts: the contexts of the kubeconfig kubectl would read (hidden).
  std::string contexts_kubeconfig;
  auto* contexts = app.add_subcommand("__contexts", "The kubeconfig's contexts, one per line");
  contexts->group("");
  contexts->add_option("--kubeconfig", contexts_kubeconfig, "Kubeconfig file");

  std::vector<CLI::App*> all = app.get_subcommands([](CLI::App*) { return true; });
  std::string commands;
  for (const CLI::App* c : all)
    if (!c->get_group().empty())
      commands += fmt::format("  {:<10} {}\n", c->get_name(), c->get_description());
  // No command at all: kubectl's answer, its description, the commands and how to use them (on
  // stdout, exit 0), instead of CLI11's "A subcommand is required".
  if (argc == 1) {
    fmt::print(
        "{}\n\nCommands:\n{}\nUsage:\n  {} [command] [flags] [options]\n\nUse \"{} <command> "
        "--help\" for more information about a given command.\n",
        app.get_description(), commands, program, program);
    return kExitOk;
  }
  // kubectl's `-o=yaml`: a short flag with `=` and its value, which CLI11 reads only for long
  // flags, is given to it as the flag and its value.
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() > 3 && a[0] == '-' && a[1] != '-' && a[2] == '=') {
      std::string value = a.substr(3);
      args[i] = a.substr(0, 2);
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, value);
      ++i;
    }
  }
  std::vector<char*> split_argv;
  for (std::string& a : args) split_argv.push_back(a.data());
  argc = static_cast<int>(split_argv.size());
  split_argv.push_back(nullptr);
  argv = split_argv.data();

  // A word that is no command is answered as kubectl answers it, with the commands there are.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* c : all) known = known || c->get_name() == argv[1];
    if (!known) {
      // kubectl's suggestions: the commands within two edits of the word (or starting with it).
      std::string suggested;
      for (const CLI::App* c : all)
        if (!c->get_group().empty() &&  // not the hidden helpers
            (edit_distance(argv[1], c->get_name()) <= 2 ||
             (std::string_view(argv[1]).size() > 1 && c->get_name().starts_with(argv[1]))))
          suggested += "\t" + c->get_name() + "\n";
      fmt::print(stderr, "error: unknown command \"{}\" for \"{}\"\n\n", argv[1], program);
      if (!suggested.empty())
        fmt::print(stderr, "Did you mean this?\n{}\n", suggested);
      else
        fmt::print(stderr, "Commands:\n{}\n", commands);
      fmt::print(stderr, "Run '{} --help' for usage.\n", program);
      return kExitBadInput;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    // An unknown flag: the command's flags nearest to it, as a "did you mean".
    int rc = app.exit(e);
    CLI::App* sub = nullptr;
    for (CLI::App* c : all)
      if (argc > 1 && c->get_name() == argv[1]) sub = c;
    for (int i = 2; sub && i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--") break;
      if (!arg.starts_with("--")) continue;
      std::string_view name = arg.substr(2, arg.find('=') - std::min(arg.find('='), size_t{2}));
      bool known = false;
      std::string suggested;
      for (const CLI::Option* o : sub->get_options())
        for (const std::string& l : o->get_lnames()) {
          known = known || l == name;
          if (edit_distance(name, l) <= 2) suggested += "\t--" + l + "\n";
        }
      if (!known && !suggested.empty())
        fmt::print(stderr, "\n{}: did you mean this?\n{}", arg, suggested);
    }
    return rc == 0 ? kExitOk : kExitBadInput;
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }

  try {
    if (*version) {
      if (version_output == "json")  // two spaces, as `kubectl version -o json`
        fmt::print("{{\n  \"version\": \"{}\"\n}}\n", PLANTER_VERSION);
      else if (version_output == "yaml")
        fmt::print("version: {}\n", PLANTER_VERSION);
      else
        fmt::print("planter {}\n", PLANTER_VERSION);
      return kExitOk;
    }
    if (*completion) {
      print_text(cli::completion_script(app, shell));
      return kExitOk;
    }
    if (*man) {
      print_text(cli::man_page(app, PLANTER_VERSION));
      return kExitOk;
    }
    if (*contexts) {
      auto config = kube::Kubeconfig::load(kube::KubeconfigSources::from_environment(
          contexts_kubeconfig));  // nothing to offer when there is none
      if (config)
        for (const std::string& c : config->contexts()) fmt::print("{}\n", c);
      return kExitOk;
    }
    if (*plan) {
      // Started again on a heap of huge pages, before the planner's threads
      // (model/huge_page_heap.h).
      run_on_huge_page_heap();
      if (fit_flags.fit) {
        if (output != "table" && output != "json" && output != "yaml") {
          fmt::print(stderr,
                     "error: --fit prints a table, JSON or YAML: use -o table, -o json or -o "
                     "yaml\n");
          return kExitBadInput;
        }
        return cli::run_plan_fit(plan_flags, fit_flags, output);
      }
      return run_planner(plan_flags, [&](const Plan& p) {
        if (output == "json") {
          return cli::print_indented_json([&p](const cli::Write& w) { write_json(p, w); },
                                          print_text);
        }
        if (output == "yaml") return print_text(to_yaml(boost::json::parse(render_json(p))));
        if (output == "dot") return print_text(render_dot(p));
        if (output == "mermaid") return print_text(render_mermaid(p));
        print_text(render_table(p, output == "wide"));
      });
    }
    if (*annotate)
      return run_planner(annotate_flags, [&](const Plan& p) {
        print_text(render_annotated_seed(p, !annotate_rewrite));
      });
    if (*sim) return cli::run_sim(sim_flags);
    // What is left talks to clusters: curl's large answer buffers, and the seed's large blocks
    // read before them, each on a mapping of its own (kube/answer_buffers.h).
    kube::map_large_answer_buffers();
    if (*plant_cmds.plant) return cli::run_plant(plant_flags);
    if (*plant_cmds.uproot) return cli::run_uproot(uproot_flags);
    if (*plant_cmds.replant) return cli::run_replant(replant_flags);
    if (*plant_cmds.diff) return cli::run_diff(diff_flags);
    if (*op) return cli::run_operator(operator_flags);
    if (*scheduler) return cli::run_scheduler(scheduler_flags);
    if (*install) return cli::run_install(install_flags);
    if (*approve) return cli::run_approve(approve_flags);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitFailure;
  }
  return kExitFailure;
}
