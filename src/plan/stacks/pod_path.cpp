#include "plan/stacks/pod_path.h"

#include <boost/json.hpp>
#include <charconv>
#include <cstdint>

#include "model/strings.h"

namespace planter::pod_path {

namespace json = boost::json;

std::string text(const PodPath& p) {
  std::string out;
  for (const auto& step : p) out += step.front() == '[' ? step : (out.empty() ? "" : ".") + step;
  return out;
}

PodPath concat(PodPath p, std::initializer_list<std::string_view> more) {
  for (std::string_view s : more) p.emplace_back(s);
  return p;
}

PodPath plain(std::string_view dotted) {
  PodPath p;
  for (std::string_view s : split(dotted, '.')) p.emplace_back(s);
  return p;
}

// The index of a list step "[i]"; SIZE_MAX (past every list's end) when it is not one. Paths
// from a CRD's annotation hold no such steps (parse_pod_shapes refuses them); planter makes them
// while expanding "[*]", so this never sees a user's text, but it stays total.
size_t index_of(const std::string& step) {
  size_t i = SIZE_MAX;
  if (step.size() < 3 || step.front() != '[' || step.back() != ']') return i;
  auto [end, ec] = std::from_chars(step.data() + 1, step.data() + step.size() - 1, i);
  if (ec != std::errc() || end != step.data() + step.size() - 1) return SIZE_MAX;
  return i;
}

const json::value* resolve(const json::value& root, const PodPath& p) {
  return walk(&root, p.begin(), p.end());
}

json::object* object_at(json::object& body, const PodPath& p) {
  if (p.empty()) return &body;
  json::value* at = walk(body.if_contains(p.front()), p.begin() + 1, p.end());
  return at ? at->if_object() : nullptr;
}

// Makes the objects along `p` (and the leaf, as an object or a list) where they are missing.
// Returns false when something in the way is neither (the author's value stays, planter writes
// nothing there).
bool ensure(json::value& root, const PodPath& p, bool leaf_is_list) {
  json::value* at = &root;
  for (size_t i = 0; i < p.size(); ++i) {
    const std::string& step = p[i];
    bool last = i + 1 == p.size();
    if (step.front() == '[') {
      if (!at->is_array() || index_of(step) >= at->as_array().size()) return false;
      at = &at->as_array()[index_of(step)];
      continue;
    }
    if (!at->is_object()) return false;
    json::value& next = at->as_object()[step];
    if (next.is_null()) {
      if (last && leaf_is_list)
        next = json::array{};
      else
        next = json::object{};
    }
    at = &next;
  }
  return leaf_is_list ? at->is_array() : at->is_object();
}

// Every concrete path a pattern with "*" and "[*]" steps reaches in `root`.
// `make_leaf`: the last step may name what planter is to make (a container's resources).
void expand(const json::value& at, const std::vector<std::string_view>& steps, size_t i,
            PodPath& cur, std::vector<PodPath>& out, bool make_leaf) {
  if (i == steps.size()) {
    out.push_back(cur);
    return;
  }
  std::string_view step = steps[i];
  bool each_item = step.ends_with("[*]");
  if (each_item) step.remove_suffix(3);
  auto go_into = [&](const json::value& v, std::string key) {
    cur.push_back(std::move(key));
    if (!each_item) {
      expand(v, steps, i + 1, cur, out, make_leaf);
    } else if (v.is_array()) {
      for (size_t k = 0; k < v.as_array().size(); ++k) {
        cur.push_back("[" + std::to_string(k) + "]");
        expand(v.as_array()[k], steps, i + 1, cur, out, make_leaf);
        cur.pop_back();
      }
    }
    cur.pop_back();
  };
  if (!at.is_object()) return;
  if (make_leaf && i + 1 == steps.size() && !each_item && step != "*") {
    cur.emplace_back(step);
    out.push_back(cur);
    cur.pop_back();
    return;
  }
  if (step == "*") {
    for (const auto& [k, v] : at.as_object()) go_into(v, std::string(k));
  } else if (auto* v = at.as_object().if_contains(step)) {
    go_into(*v, std::string(step));
  }
}

}  // namespace planter::pod_path
