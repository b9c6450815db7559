// Starting a child in a sandbox of Linux namespaces: a new user namespace (the caller's uid and
// gid mapped to root inside), a new network namespace (no interface but a loopback that is down:
// no network at all) and a new PID namespace whose init is the child itself, so that when it ends
// or is killed every process it started ends with it, however it detached (setsid, double fork).
//
// Used for plugins (docs/plugins.md). The child is in its own process group, as run_process's
// other children are; killing that group kills the sandbox. Where the kernel refuses user
// namespaces (a container without them, a sysctl), the child still starts without network: a
// seccomp filter refuses every socket but local ones (AF_UNIX, AF_NETLINK); it is then not in a
// PID namespace, and `note` says so and why. Only if the kernel refuses the filter too does the
// child run with the network, and `note` says that.
#pragma once

#include <sys/types.h>

#include <string>

#include "model/result.h"

namespace planter {

struct SandboxFds {
  int in = -1, out = -1, err = -1;  // become the child's 0, 1 and 2
};

// `path` must name the file (with a '/'); argv and envp are null-terminated. Returns the pid to
// wait for; an error (naming the path) when it could not be started at all. `namespaces` false
// skips the namespaces and goes straight to the seccomp fallback (for its tests).
Result<pid_t> spawn_sandboxed(const std::string& path, char* const argv[], char* const envp[],
                              SandboxFds fds, std::string& note, bool namespaces = true);

}  // namespace planter
