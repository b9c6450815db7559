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

// Waits for SIGINT or SIGTERM (blocked before) and returns which came.
inline int wait_for_stop_signal() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  int sig = 0;
  sigwait(&signals, &sig);
  return sig;
}

}  // namespace planter::cli
