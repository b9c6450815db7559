// SIGINT and SIGTERM as the commands that serve until stopped (`sim`, `plant --sim --keep`,
// `operator`) wait for them: blocked in every thread before any starts, then taken by sigwait.
#pragma once

#include <pthread.h>
#include <signal.h>

namespace planter::cli {

// Blocks SIGINT and SIGTERM in the calling thread (and every thread it starts afterwards).
inline void block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

// Waits for SIGINT or SIGTERM (blocked before) and returns which came; `sender`, when given,
// gets the pid that sent it (0 when the kernel or a terminal did). Anything but one of the two
// (an interrupted wait) waits on.
inline int wait_for_stop_signal(pid_t* sender = nullptr) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  for (;;) {
    siginfo_t info{};
    int sig = sigwaitinfo(&signals, &info);
    if (sig != SIGINT && sig != SIGTERM) continue;
    if (sender) *sender = info.si_code == SI_USER || info.si_code == SI_QUEUE ? info.si_pid : 0;
    return sig;
  }
}

}  // namespace planter::cli
