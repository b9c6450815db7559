#include "cli/man_page.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <vector>

namespace planter::cli {

namespace {

// Text as roff reads it: a backslash doubled, a line that would start with a dot or a quote
// escaped, dashes in flags kept as minus signs.
std::string roff(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string names_of(const CLI::Option& o) {
  std::string out;
  for (const std::string& s : o.get_snames()) out += (out.empty() ? "" : ", ") + ("-" + s);
  for (const std::string& l : o.get_lnames()) out += (out.empty() ? "" : ", ") + ("--" + l);
  return out;
}

void options_of(const CLI::App& app, std::string& out) {
  for (const CLI::Option* o : app.get_options()) {
    if (!o->nonpositional() && o->get_name().empty()) continue;
    std::string names = o->nonpositional() ? names_of(*o) : o->get_name();
    if (names == "-h, --help") continue;  // said once, below
    bool value = o->get_items_expected_max() > 0 && o->get_type_size_min() > 0;
    std::string type = value ? o->get_type_name() : "";
    out += ".TP\n.B " + roff(names) + (type.empty() ? "" : " \" " + roff(type) + "\"") + "\n";
    out += roff(o->get_description());
    if (!o->get_default_str().empty()) out += " (default: " + roff(o->get_default_str()) + ")";
    out += "\n";
  }
}

}  // namespace

std::string man_page(CLI::App& app, const std::string& version) {
  std::string out;
  out += fmt::format(".TH PLANTER 1 \"\" \"planter {}\" \"planter manual\"\n", roff(version));
  out += ".SH NAME\nplanter \\- plant a seed of Kubernetes objects across a fleet of clusters\n";
  out += ".SH SYNOPSIS\n.B planter\n.I command\n[\\fIflags\\fR] [\\fIseed\\fR...]\n";
  out += ".SH DESCRIPTION\n" + roff(app.get_description()) + "\n";
  out +=
      ".PP\nA \\fIseed\\fR is files, folders, `\\-' (standard input) or http(s) URLs of YAML "
      "manifests, kustomizations, Helm charts and kpt packages. A \\fIunit\\fR is one object on "
      "one cluster: planting declares each unit by server-side apply once its requirements "
      "hold.\n";
  out += ".SH COMMANDS\n";
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;  // hidden: the completion scripts' helper
    out += ".SS " + roff(sub->get_name()) + "\n" + roff(sub->get_description()) + "\n";
    options_of(*sub, out);
    if (!sub->get_footer().empty()) out += ".PP\n.nf\n" + roff(sub->get_footer()) + "\n.fi\n";
  }
  out +=
      ".SH OPTIONS\n.TP\n.B \\-h, \\-\\-help\nPrint a command's flags and exit.\n"
      ".TP\n.B \\-\\-version\nPrint planter's version and exit.\n";
  out +=
      ".SH EXIT STATUS\n.TP\n.B 0\nSuccess: everything was done (planted, diffed the same, "
      "planned).\n.TP\n.B 1\nSomething did not finish: a unit failed or waited past "
      "\\-\\-timeout, `diff' found differences.\n.TP\n.B 2\nBad input: the seed, a flag or a "
      "cluster's refusal; nothing was declared.\n.TP\n.B 130, 143\nInterrupted (SIGINT, "
      "SIGTERM): what waits is summarised first.\n";
  out +=
      ".SH ENVIRONMENT\n.TP\n.B KUBECONFIG\nThe kubeconfig files, as kubectl reads them, "
      "when \\-\\-kubeconfig is not given.\n.TP\n.B PLANTER_HUGE_PAGE_HEAP\n"
      "`off' keeps glibc's own heap: `plan' and `sim' otherwise start themselves again once, with "
      "GLIBC_TUNABLES=glibc.malloc.arena_max=1:glibc.malloc.hugetlb=1 added (a GLIBC_TUNABLES "
      "that sets either is kept as it is).\n.TP\n.B MALLOC_MMAP_THRESHOLD_\n"
      "glibc's own; when it is set (or GLIBC_TUNABLES sets glibc.malloc.mmap_threshold), the "
      "commands that talk to clusters keep it. Otherwise they fix it at 512 KiB, the size of "
      "a read's download buffer, so that each such buffer is given back when freed.\n";
  out +=
      ".SH FILES\n.TP\n.I ~/.kube/config\nThe kubeconfig used when neither \\-\\-kubeconfig "
      "nor KUBECONFIG is set.\n";
  out += ".SH EXAMPLES\n.nf\n" + roff(app.get_footer()) + "\n.fi\n";
  out +=
      ".SH SEE ALSO\n.BR kubectl (1),\n.BR helm (1);\nthe docs/ folder of planter's "
      "repository.\n";
  return out;
}

}  // namespace planter::cli
