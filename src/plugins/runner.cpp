#include "plugins/runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include "model/yaml.h"

extern char** environ;

namespace planter {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

bool make_pipe(Fd& read_end, Fd& write_end) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return false;
  read_end.fd = p[0];
  write_end.fd = p[1];
  return true;
}

std::string tail(const std::string& s, size_t max_lines) {
  size_t end = s.size();
  while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == ' ')) --end;
  size_t pos = end;
  for (size_t n = 0; n < max_lines && pos > 0; ++n) {
    pos = s.rfind('\n', pos - 1);
    if (pos == std::string::npos) {
      pos = 0;
      break;
    }
  }
  std::string t = s.substr(pos, end - pos);
  if (!t.empty() && t.front() == '\n') t.erase(0, 1);
  return t;
}

}  // namespace

Result<ProcessOutput> run_process(const std::string& path, const std::string& input,
                                  const PluginLimits& limits) {
  Fd in_r, in_w, out_r, out_w, err_r, err_w;
  if (!make_pipe(in_r, in_w) || !make_pipe(out_r, out_w) || !make_pipe(err_r, err_w))
    return Error{fmt::format("cannot create pipes: {}", std::strerror(errno))};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_r.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);

  std::vector<char*> argv{const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return Error{fmt::format("cannot start {}: {}", path, std::strerror(rc))};
  in_r.reset();
  out_w.reset();
  err_w.reset();

  // A plugin that exits without reading stdin must not kill us with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  for (int fd : {in_w.fd, out_r.fd, err_r.fd}) ::fcntl(fd, F_SETFL, O_NONBLOCK);

  ProcessOutput result;
  size_t written = 0;
  if (input.empty()) in_w.reset();
  auto deadline = std::chrono::steady_clock::now() + limits.timeout;
  char buf[65536];
  while (out_r.fd >= 0 || err_r.fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    for (Fd* f : {&in_w, &out_r, &err_r})
      if (f->fd >= 0) fds[n++] = {f->fd, static_cast<short>(f == &in_w ? POLLOUT : POLLIN), 0};
    int ready = ::poll(fds, n, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_w.fd) {
        ssize_t w = ::write(in_w.fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN) in_w.reset();  // the plugin closed stdin: its choice
        if (written == input.size()) in_w.reset();
        continue;
      }
      Fd& src = fds[i].fd == out_r.fd ? out_r : err_r;
      std::string& dst = &src == &out_r ? result.out : result.err;
      ssize_t r = ::read(src.fd, buf, sizeof buf);
      if (r > 0) {
        dst.append(buf, static_cast<size_t>(r));
        if (&src == &err_r && dst.size() > (1u << 20)) dst.erase(0, dst.size() - (1u << 19));
      } else if (r == 0 || errno != EAGAIN) {
        src.reset();
      }
      if (result.out.size() > limits.max_output_bytes) result.output_too_large = true;
    }
    if (result.output_too_large) break;
  }
  if (result.timed_out || result.output_too_large) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

Result<std::vector<std::string>> plugins_in_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error{fmt::format("{}: not a folder", dir)};
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    if (::access(entry.path().c_str(), X_OK) != 0) continue;
    out.push_back(entry.path().string());
  }
  if (ec) return Error{fmt::format("{}: {}", dir, ec.message())};
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

std::string serialize_seed(const Seed& seed) {
  if (seed.resource_list) {
    json::array items;
    items.reserve(seed.objects.size());
    for (const Object& o : seed.objects) items.push_back(o.body);
    json::value list = json::object{{"apiVersion", "config.kubernetes.io/v1"},
                                    {"kind", "ResourceList"},
                                    {"items", std::move(items)}};
    return to_yaml(list);
  }
  std::vector<const json::value*> docs;
  std::vector<json::value> values;
  values.reserve(seed.objects.size());
  for (const Object& o : seed.objects) values.emplace_back(o.body);
  for (const auto& v : values) docs.push_back(&v);
  return to_yaml_stream(docs);
}

std::string describe_failure(const ProcessOutput& p, const PluginLimits& limits) {
  if (p.timed_out)
    return fmt::format("timed out after {} ms and was killed", limits.timeout.count());
  if (p.output_too_large)
    return fmt::format("wrote more than {} bytes to stdout and was killed",
                       limits.max_output_bytes);
  if (p.signal != 0)
    return fmt::format("was killed by signal {} ({})", p.signal, strsignal(p.signal));
  return fmt::format("exited with status {}", p.exit_code);
}

}  // namespace

bool run_plugins(const std::vector<std::string>& plugins, Seed& seed, const PluginLimits& limits,
                 Diagnostics& diags) {
  for (const std::string& plugin : plugins) {
    std::string name = fs::path(plugin).filename().string();
    auto run = run_process(plugin, serialize_seed(seed), limits);
    if (!run) {
      diags.add("", "plugin " + name, run.error().message, "check the path and its execute bit");
      return false;
    }
    const ProcessOutput& p = run.value();
    std::string err_tail = tail(p.err, 10);
    std::string stderr_note;
    if (!err_tail.empty()) {
      stderr_note = "; its stderr ends with:";
      for (size_t start = 0; start <= err_tail.size();) {
        size_t nl = err_tail.find('\n', start);
        if (nl == std::string::npos) nl = err_tail.size();
        stderr_note += "\n    | " + err_tail.substr(start, nl - start);
        start = nl + 1;
      }
    }
    if (p.timed_out || p.output_too_large || p.signal != 0 || p.exit_code != 0) {
      diags.add("", "plugin " + name, describe_failure(p, limits) + stderr_note,
                "fix the plugin or leave it out; nothing was declared");
      return false;
    }

    // Remember where each object came from, so that errors still point at the seed's files.
    std::unordered_map<std::string, SourceLocation> origin;
    origin.reserve(seed.objects.size());
    for (const Object& o : seed.objects) origin.emplace(o.ref.key(), o.source);

    Seed out;
    Diagnostics out_diags;
    parse_seed_text(p.out, "plugin " + name + " output", out, out_diags);
    if (!out_diags.empty()) {
      for (const auto& d : out_diags.items()) {
        Diagnostic copy = d;
        copy.message = "its output is not a valid seed: " + copy.message;
        copy.hint = "a plugin must write the whole seed back on stdout";
        diags.add(std::move(copy));
      }
      return false;
    }
    for (Object& o : out.objects) {
      auto it = origin.find(o.ref.key());
      if (it != origin.end()) o.source = it->second;
    }
    out.resource_list = seed.resource_list;
    seed = std::move(out);
  }
  return true;
}

}  // namespace planter
