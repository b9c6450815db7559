// `-o json` as kubectl prints it (four spaces a level), made while it is written: the compact
// text and its indenting run on two threads, a few chunks apart.
#pragma once

#include <functional>
#include <string_view>

namespace planter::cli {

using Write = std::function<void(std::string_view)>;

// Runs `produce` (which hands compact JSON on to the writer it is given, in pieces that may end
// anywhere) on this thread, and indents what it hands on into `print` on another.
void print_indented_json(const std::function<void(const Write&)>& produce, const Write& print);

}  // namespace planter::cli
