#include "cli/completion.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <vector>

namespace planter::cli {

namespace {

struct Flag {
  std::vector<std::string> names;  // "-o", "--output"
  bool takes_value = false;
  std::vector<std::string> values;  // a fixed set (CLI::IsMember), else any (a file, say)
  bool context = false;             // --context: the kubeconfig's contexts
  std::string description;
};

struct Command {
  std::string name, description;
  std::vector<Flag> flags;
};

// The fixed set of values in a type name such as "TEXT:{table,wide,json}".
std::vector<std::string> member_values(const std::string& type_name) {
  std::vector<std::string> out;
  size_t open = type_name.find('{'), close = type_name.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::string inner = type_name.substr(open + 1, close - open - 1);
  for (size_t at = 0; at <= inner.size();) {
    size_t comma = inner.find(',', at);
    if (comma == std::string::npos) comma = inner.size();
    std::string v = inner.substr(at, comma - at);
    if (!v.empty()) out.push_back(v);
    at = comma + 1;
  }
  return out;
}

// The first sentence or clause of a description, short enough for a completion menu.
std::string short_description(const std::string& text) {
  size_t end = text.size();
  for (std::string_view stop : {". ", "; ", " (", ": ", "\n"}) end = std::min(end, text.find(stop));
  std::string s = text.substr(0, end);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s.size() > 70 ? s.substr(0, 67) + "..." : s;
}

std::vector<Flag> flags_of(const CLI::App& app) {
  std::vector<Flag> out;
  for (const CLI::Option* o : app.get_options()) {
    if (!o->nonpositional()) continue;
    Flag f;
    for (const std::string& s : o->get_snames()) f.names.push_back("-" + s);
    for (const std::string& l : o->get_lnames()) f.names.push_back("--" + l);
    f.takes_value = o->get_items_expected_max() > 0 && o->get_type_size_min() > 0;
    if (f.takes_value) f.values = member_values(o->get_type_name());
    f.context = std::find(f.names.begin(), f.names.end(), "--context") != f.names.end();
    f.description = short_description(o->get_description());
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Command> commands_of(CLI::App& app) {
  std::vector<Command> out;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (!sub->get_group().empty())  // hidden: planter's own helpers
      out.push_back({sub->get_name(), short_description(sub->get_description()), flags_of(*sub)});
  return out;
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

std::string bash(CLI::App& app) {
  std::vector<Command> commands = commands_of(app);
  std::vector<std::string> top;
  for (const Command& c : commands) top.push_back(c.name);
  for (const Flag& f : flags_of(app)) top.insert(top.end(), f.names.begin(), f.names.end());
  std::string cases;
  for (const Command& c : commands) {
    std::string value_cases, all_flags;
    for (const Flag& f : c.flags) {
      all_flags += (all_flags.empty() ? "" : " ") + join(f.names);
      if (!f.takes_value) continue;
      std::string pattern;
      for (const std::string& n : f.names) pattern += (pattern.empty() ? "" : "|") + n;
      // A fixed set is offered; a context, the kubeconfig's (the one on the line, if any); any
      // other value falls back to bash's own (file names).
      value_cases +=
          f.context ? fmt::format(
                          "        {}) COMPREPLY=($(compgen -W \"$(\"${{COMP_WORDS[0]}}\" "
                          "__contexts $kubeconfig 2>/dev/null)\" -- \"$cur\")); "
                          "return ;;\n",
                          pattern)
          : f.values.empty() ? fmt::format("        {}) return ;;\n", pattern)
                             : fmt::format(
                                   "        {}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); "
                                   "return ;;\n",
                                   pattern, join(f.values));
    }
    cases += fmt::format(
        "    {})\n"
        "      case \"$prev\" in\n{}      esac\n"
        "      if [[ \"$cur\" == -* ]]; then\n"
        "        COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n"
        "      fi\n"
        "      ;;\n",
        c.name, value_cases, all_flags);
  }
  return fmt::format(
      "# bash completion for planter: source <(planter completion bash)\n"
      "_planter() {{\n"
      "  local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\" cmd=\"\" "
      "i\n"
      "  COMPREPLY=()\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"${{COMP_WORDS[i]}}\" in\n"
      "      -*) ;;\n"
      "      *) cmd=\"${{COMP_WORDS[i]}}\"; break ;;\n"
      "    esac\n"
      "  done\n"
      "  local kubeconfig=\"\"\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    [[ \"${{COMP_WORDS[i]}}\" == --kubeconfig ]] && "
      "kubeconfig=\"--kubeconfig ${{COMP_WORDS[i+1]}}\"\n"
      "  done\n"
      "  if [[ -z \"$cmd\" ]]; then\n"
      "    COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  case \"$cmd\" in\n{}  esac\n"
      "}}\n"
      "complete -o default -F _planter planter\n"
      "complete -o default -F _planter kubectl-planter\n",
      join(top), cases);
}

std::string fish_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string fish(CLI::App& app) {
  std::string out = "# fish completion for planter: planter completion fish | source\n";
  for (const char* program : {"planter", "kubectl-planter"}) {
    for (const Command& c : commands_of(app))
      out += fmt::format("complete -c {} -n __fish_use_subcommand -f -a {} -d {}\n", program,
                         c.name, fish_quote(c.description));
    for (const Command& c : commands_of(app)) {
      std::string when = fmt::format("'__fish_seen_subcommand_from {}'", c.name);
      for (const Flag& f : c.flags) {
        std::string names;
        for (const std::string& n : f.names)
          names += n.starts_with("--") ? " -l " + n.substr(2) : " -s " + n.substr(1);
        std::string value;
        if (f.context)
          value = fmt::format(" -x -a '({} __contexts)'", program);
        else if (f.takes_value)
          value = f.values.empty() ? " -r -F" : " -x -a " + fish_quote(join(f.values));
        out += fmt::format("complete -c {} -n {}{}{} -d {}\n", program, when, names, value,
                           fish_quote(f.description));
      }
    }
  }
  return out;
}

}  // namespace

std::string completion_script(CLI::App& app, std::string_view shell) {
  if (shell == "bash") return bash(app);
  if (shell == "zsh")
    return "#compdef planter kubectl-planter\n"
           "# zsh completion for planter: source <(planter completion zsh)\n"
           "autoload -U +X bashcompinit && bashcompinit\n" +
           bash(app);
  return fish(app);
}

}  // namespace planter::cli
