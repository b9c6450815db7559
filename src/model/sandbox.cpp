#include "model/sandbox.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <optional>

namespace planter {

namespace {

// What the child reports on the status pipe: one byte of what, then an errno.
enum : char { kNoNamespaces = 'N', kNoFilter = 'F', kExecFailed = 'E' };

#if defined(__x86_64__)
constexpr unsigned kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kAuditArch = AUDIT_ARCH_AARCH64;
#endif

// No network without namespaces: a seccomp filter under which socket() of any family but
// AF_UNIX and AF_NETLINK (local IPC, and the kernel's own interface that getaddrinfo reads) fails
// with EACCES, as does io_uring (which can make sockets on its own), and a system call of another
// ABI (x32, or 32-bit calls through int 0x80, whose socketcall would slip by) fails with ENOSYS.
// Built once, before any fork: the child only installs it.
#if defined(__x86_64__) || defined(__aarch64__)
const sock_filter kNoNetwork[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),  // x32 system calls
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

// Installs kNoNetwork on this process (and so on what it executes); errno on failure.
int deny_network() {
  sock_fprog program{static_cast<unsigned short>(std::size(kNoNetwork)),
                     const_cast<sock_filter*>(kNoNetwork)};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) return errno;
  return 0;
}
#else
int deny_network() {
  return ENOSYS;
}
#endif

// Only async-signal-safe calls from here on: the parent may have other threads.
void report(int fd, char what, int err) {
  char buf[1 + sizeof(int)];
  buf[0] = what;
  std::memcpy(buf + 1, &err, sizeof err);
  (void)!::write(fd, buf, sizeof buf);
}

bool write_file(const char* path, const char* text, size_t len) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text, len) == static_cast<ssize_t>(len);
  ::close(fd);
  return ok;
}

// Closes every descriptor but `keep`: a process that forked without exec holds copies of all of
// planter's, the plugin's pipes among them, and close-on-exec never closes them.
void close_all_but(int keep) {
  if (keep > 0) ::close_range(0, static_cast<unsigned>(keep) - 1, 0);
  ::close_range(static_cast<unsigned>(keep) + 1, ~0U, 0);
}

[[noreturn]] void run_child(const char* path, char* const argv[], char* const envp[],
                            SandboxFds fds, int status_fd, const char* uid_map, size_t uid_len,
                            const char* gid_map, size_t gid_len, bool namespaces) {
  ::setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::dup2(fds.in, 0);
  ::dup2(fds.out, 1);
  ::dup2(fds.err, 2);
  if (!namespaces || ::unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID) != 0) {
    report(status_fd, kNoNamespaces, namespaces ? errno : 0);
    if (int err = deny_network(); err != 0) report(status_fd, kNoFilter, err);
    ::execve(path, argv, envp);
    report(status_fd, kExecFailed, errno);
    ::_exit(127);
  }
  write_file("/proc/self/setgroups", "deny", 4);
  write_file("/proc/self/uid_map", uid_map, uid_len);
  write_file("/proc/self/gid_map", gid_map, gid_len);
  // The plugin's wait status, from the namespace's init to this process.
  int result[2];
  if (::pipe2(result, O_CLOEXEC) != 0) {
    report(status_fd, kExecFailed, errno);
    ::_exit(127);
  }
  pid_t init = ::fork();
  if (init < 0) {
    report(status_fd, kExecFailed, errno);
    ::_exit(127);
  }
  if (init == 0) {
    // PID 1 of the new namespace: it only starts the plugin and waits. When it exits, the kernel
    // kills whatever else is left in the namespace. (The plugin is not PID 1 itself: PID 1 ignores
    // the signals it sends itself, and a plugin that kills itself must die.)
    pid_t plugin = ::fork();
    if (plugin == 0) {
      ::execve(path, argv, envp);
      report(status_fd, kExecFailed, errno);
      ::_exit(127);
    }
    int status = 127 << 8;
    if (plugin > 0) {
      close_all_but(result[1]);
      while (true) {
        int st = 0;
        pid_t done = ::waitpid(-1, &st, 0);
        if (done == plugin) {
          status = st;
          break;
        }
        if (done < 0 && errno != EINTR) break;
      }
    }
    (void)!::write(result[1], &status, sizeof status);
    ::_exit(0);
  }
  // The waiting process keeps nothing open but the result pipe.
  int keep = result[0];
  close_all_but(keep);
  int init_status = 0;
  while (::waitpid(init, &init_status, 0) < 0 && errno == EINTR) {
  }
  int status = 127 << 8;
  while (::read(keep, &status, sizeof status) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(init_status)) status = init_status;  // the sandbox itself was killed
  if (WIFSIGNALED(status)) {
    ::signal(WTERMSIG(status), SIG_DFL);
    ::kill(::getpid(), WTERMSIG(status));
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

}  // namespace

Result<pid_t> spawn_sandboxed(const std::string& path, char* const argv[], char* const envp[],
                              SandboxFds fds, std::string& note, bool namespaces) {
  // Everything the child needs is made before fork: it may not allocate.
  std::string uid_map = fmt::format("0 {} 1", ::getuid());
  std::string gid_map = fmt::format("0 {} 1", ::getgid());
  int status[2];
  if (::pipe2(status, O_CLOEXEC) != 0)
    return Error{fmt::format("cannot start {}: {}", path, std::strerror(errno))};
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(status[0]);
    ::close(status[1]);
    return Error{fmt::format("cannot start {}: {}", path, std::strerror(err))};
  }
  if (pid == 0)
    run_child(path.c_str(), argv, envp, fds, status[1], uid_map.data(), uid_map.size(),
              gid_map.data(), gid_map.size(), namespaces);
  ::close(status[1]);
  // Closed with nothing written once the plugin is running (close-on-exec, and the middle
  // process closes its copy); otherwise what went wrong.
  char buf[1 + sizeof(int)];
  std::string error;
  std::optional<int> no_namespaces, no_filter;
  while (true) {
    ssize_t n = ::read(status[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof buf)) break;
    int err = 0;
    std::memcpy(&err, buf + 1, sizeof err);
    if (buf[0] == kNoNamespaces)
      no_namespaces = err;
    else if (buf[0] == kNoFilter)
      no_filter = err;
    else
      error = fmt::format("cannot start {}: {}", path, std::strerror(err));
  }
  ::close(status[0]);
  if (no_namespaces) {
    std::string why = *no_namespaces ? fmt::format(
                                           "this kernel does not allow a user namespace "
                                           "here ({})",
                                           std::strerror(*no_namespaces))
                                     : std::string("namespaces were not asked for");
    note = no_filter ? fmt::format(
                           "runs with the network and outside a PID namespace: {}, and "
                           "the seccomp filter that would take its network was refused "
                           "({})",
                           why, std::strerror(*no_filter))
                     : fmt::format(
                           "runs outside a PID namespace, its network taken by a seccomp "
                           "filter (sockets other than local ones are refused): {}",
                           why);
  }
  if (!error.empty()) {
    int ignored = 0;
    while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    return Error{error};
  }
  return pid;
}

}  // namespace planter
