#include "model/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "model/sandbox.h"

extern char** environ;

namespace planter {

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

}  // namespace

std::optional<std::string> find_executable(const std::string& name) {
  const char* env = std::getenv("PATH");
  std::string_view dirs = env ? env : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

Result<ProcessOutput> run_process(const ProcessSpec& spec) {
  if (spec.cancel && spec.cancel->load()) {
    ProcessOutput never_started;
    never_started.cancelled = true;
    return never_started;
  }
  const std::string& path = spec.path;
  const std::string& input = spec.input;
  Fd in_r, in_w, out_r, out_w, err_r, err_w;
  if (!make_pipe(in_r, in_w) || !make_pipe(out_r, out_w) || !make_pipe(err_r, err_w))
    return Error{fmt::format("cannot create pipes: {}", std::strerror(errno))};

  std::vector<char*> argv{const_cast<char*>(path.c_str())};
  for (const std::string& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The child's environment: ours (or only kKeptEnvironment of it), with spec.env set over it.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = std::any_of(spec.env.begin(), spec.env.end(),
                                [&](const auto& kv) { return kv.first == key; });
    bool kept = !spec.clean_environment ||
                std::find(std::begin(kKeptEnvironment), std::end(kKeptEnvironment), key) !=
                    std::end(kKeptEnvironment);
    if (!replaced && kept) env_strings.emplace_back(entry);
  }
  for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  ProcessOutput result;
  pid_t pid = 0;
  if (spec.sandbox) {
    std::string file =
        path.find('/') == std::string::npos ? find_executable(path).value_or(path) : path;
    auto started = spawn_sandboxed(file, argv.data(), envp.data(),
                                   SandboxFds{in_r.fd, out_w.fd, err_w.fd}, result.sandbox_note);
    if (!started) return started.error();
    pid = started.value();
  } else {
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
    int rc = path.find('/') == std::string::npos
                 ? ::posix_spawnp(&pid, path.c_str(), &actions, &attr, argv.data(), envp.data())
                 : ::posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) return Error{fmt::format("cannot start {}: {}", path, std::strerror(rc))};
  }
  in_r.reset();
  out_w.reset();
  err_w.reset();

  // A child that exits without reading stdin must not kill us with SIGPIPE.
  static const bool sigpipe_ignored = [] { return ::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
  (void)sigpipe_ignored;
  for (int fd : {in_w.fd, out_r.fd, err_r.fd}) ::fcntl(fd, F_SETFL, O_NONBLOCK);

  size_t written = 0;
  if (input.empty()) in_w.reset();
  auto deadline = std::chrono::steady_clock::now() + spec.timeout;
  char buf[65536];
  int status = 0;
  bool reaped = false;
  while (out_r.fd >= 0 || err_r.fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    if (spec.cancel && spec.cancel->load()) {
      result.cancelled = true;
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    for (Fd* f : {&in_w, &out_r, &err_r})
      if (f->fd >= 0) fds[n++] = {f->fd, static_cast<short>(f == &in_w ? POLLOUT : POLLIN), 0};
    int ready = ::poll(fds, n, static_cast<int>(std::min<long>(left.count(), 100)));
    if (ready < 0 && errno != EINTR) break;
    // The child is gone and nothing more came: a grandchild may hold the pipes open forever.
    if (ready == 0 && !reaped) reaped = ::waitpid(pid, &status, WNOHANG) == pid;
    if (ready == 0 && reaped) break;
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
      if (result.out.size() > spec.max_output_bytes) result.output_too_large = true;
    }
    if (result.output_too_large) break;
  }
  if (result.timed_out || result.output_too_large || result.cancelled) ::kill(-pid, SIGKILL);
  while (!reaped && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Whatever the child left behind in its group goes with it (the group outlives its leader, so
  // its id cannot have been reused yet).
  ::kill(-pid, SIGKILL);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

std::string tail_lines(const std::string& s, size_t max_lines) {
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

std::string describe_exit(const ProcessOutput& p, const ProcessSpec& spec) {
  if (p.timed_out) return fmt::format("timed out after {} ms and was killed", spec.timeout.count());
  if (p.cancelled) return "was stopped: planter is shutting down";
  if (p.output_too_large)
    return fmt::format("wrote more than {} bytes to stdout and was killed", spec.max_output_bytes);
  if (p.signal != 0)
    return fmt::format("was killed by signal {} ({})", p.signal, strsignal(p.signal));
  return fmt::format("exited with status {}", p.exit_code);
}

}  // namespace planter
