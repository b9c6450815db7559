#include "cli/json_output.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "model/json_indent.h"

namespace planter::cli {

namespace {

// The pieces between the two threads: at most kAhead waiting, so that memory stays a few pieces
// (64 KiB each from render_json) whatever the size of the text.
class Pieces {
 public:
  static constexpr size_t kAhead = 8;

  void put(std::string_view piece) {
    std::unique_lock lock(mu_);
    room_.wait(lock, [&] { return waiting_.size() < kAhead; });
    waiting_.emplace_back(piece);
    lock.unlock();
    ready_.notify_one();
  }
  void close() {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
    }
    ready_.notify_one();
  }
  // The next piece; false once closed and every piece was taken.
  bool take(std::string& piece) {
    std::unique_lock lock(mu_);
    ready_.wait(lock, [&] { return !waiting_.empty() || closed_; });
    if (waiting_.empty()) return false;
    piece = std::move(waiting_.front());
    waiting_.pop_front();
    lock.unlock();
    room_.notify_one();
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<std::string> waiting_;
  bool closed_ = false;
};

}  // namespace

void print_indented_json(const std::function<void(const Write&)>& produce, const Write& print) {
  Pieces pieces;
  std::thread indenting([&] {
    JsonIndenter indent(print);
    for (std::string piece; pieces.take(piece);) indent(piece);
    indent.finish();
  });
  // The indenting thread ends whatever `produce` does (an exception included).
  struct Closer {
    Pieces& pieces;
    std::thread& thread;
    ~Closer() {
      pieces.close();
      thread.join();
    }
  } closer{pieces, indenting};
  produce([&](std::string_view piece) { pieces.put(piece); });
}

}  // namespace planter::cli
