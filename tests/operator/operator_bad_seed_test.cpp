// The operator outlives every Seed, however malformed: each seed of tests/data/bad fails with
// its reason in the Seed's status, and nothing of it is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "operator/operator_support.h"
#include "plant/audit_order.h"

namespace planter::testing {
namespace {

// What a tests/data/bad seed expects to be told about the objects of `seed`, where the operator
// calls the stream `source` instead of by the file's name.
std::vector<std::string> expected_in(const fs::path& seed, const std::string& source) {
  std::vector<std::string> out;
  std::ifstream in(seed);
  std::string line, file = seed.filename().string();
  while (std::getline(in, line)) {
    if (!line.starts_with("# expect: " + file)) continue;
    line.erase(0, 10);
    for (size_t at; (at = line.find(file)) != std::string::npos;)
      line.replace(at, file.size(), source);
    out.push_back(line);
  }
  return out;
}

// The operator outlives every Seed: each malformed seed of tests/data/bad becomes a Failed Seed
// that says why, nothing of it is written, and the operator neither crashes nor restarts.
TEST(OperatorTest, EveryMalformedSeedFailsWithItsReasonAndTheOperatorLives) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("create namespace bad").code, 0);
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  std::vector<fs::path> seeds;
  for (const auto& e : fs::directory_iterator(fs::path(PLANTER_TEST_DATA) / "bad"))
    seeds.push_back(e.path());
  std::sort(seeds.begin(), seeds.end());
  ASSERT_GE(seeds.size(), 30u);
  std::vector<std::string> names;
  std::string seed_objects;  // applied in one request
  for (const fs::path& seed : seeds) {
    std::string name = "bad-" + seed.filename().string().substr(0, 2);
    names.push_back(name);
    CommandResult r = sim.kubectl(
        fmt::format("create configmap {} -n bad --from-file=seed.yaml={}", name, q(seed)));
    ASSERT_EQ(r.code, 0) << r.err;
    seed_objects += seed_object("bad", name, fmt::format("    configMapRef: {{name: {}}}", name));
    seed_objects += "\n---\n";
  }
  // The three lines that once crashed the operator at every start, inline.
  names.push_back("inline-resource-list");
  seed_objects += seed_object("bad", "inline-resource-list",
                              "    inline: |\n      apiVersion: config.kubernetes.io/v1\n"
                              "      kind: ResourceList\n      items: 5\n");
  apply_yaml(sim, seed_objects);
  // Every Seed's phase and Failed message, by name, from one list.
  struct SeedState {
    std::string phase, message;
  };
  auto states = [&] {
    std::map<std::string, SeedState> out;
    CommandResult r = sim.kubectl("get seeds -n bad -o json");
    if (r.code != 0) return out;
    json::value list = json::parse(r.out);
    for (const json::value& item : list.at("items").as_array()) {
      const json::object& o = item.as_object();
      SeedState& s = out[std::string(o.at("metadata").at("name").as_string())];
      const json::object* status = o.if_contains("status") ? o.at("status").if_object() : nullptr;
      if (!status) continue;
      if (auto* p = status->if_contains("phase"); p && p->is_string()) s.phase = p->as_string();
      if (auto* cs = status->if_contains("conditions"); cs && cs->is_array())
        for (const json::value& c : cs->as_array())
          if (c.at("type") == "Failed" && c.as_object().contains("message"))
            s.message = c.at("message").as_string();
    }
    return out;
  };
  ASSERT_TRUE(eventually(
      [&] {
        auto now = states();
        for (const std::string& n : names)
          if (now[n].phase != "Failed") return false;
        return true;
      },
      120s))
      << sim.kubectl("get seeds -n bad").out << op.log();
  // kubectl keeps what is not UTF-8 in binaryData, which is no seed text.
  std::set<std::string> binary;
  json::value config_maps = json::parse(sim.kubectl("get configmaps -n bad -o json").out);
  for (const json::value& item : config_maps.at("items").as_array())
    if (item.as_object().contains("binaryData"))
      binary.insert(std::string(item.at("metadata").at("name").as_string()));
  std::vector<std::vector<std::string>> expected;
  for (size_t i = 0; i < seeds.size(); ++i)
    expected.push_back(binary.contains(names[i])
                           ? std::vector<std::string>{"has no data"}
                           : expected_in(seeds[i], "configmap bad/" + names[i] + " key seed.yaml"));
  expected.push_back(
      {"spec.source.inline:1: config.kubernetes.io/v1 ResourceList: items must be "
       "a sequence of objects"});
  // A failed Seed is tried again every 2 s (--retry-failed 2): its message is read while Failed.
  auto says_all = [&](const std::map<std::string, SeedState>& now, size_t i) {
    auto it = now.find(names[i]);
    if (it == now.end()) return false;
    for (const std::string& e : expected[i])
      if (it->second.message.find(e) == std::string::npos) return false;
    return true;
  };
  std::map<std::string, SeedState> last;
  eventually(
      [&] {
        last = states();
        for (size_t i = 0; i < names.size(); ++i)
          if (!says_all(last, i)) return false;
        return true;
      },
      30s);
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(i < seeds.size() ? seeds[i].filename().string() : names[i]);
    EXPECT_TRUE(says_all(last, i)) << "the Failed condition of " << names[i] << " says:\n"
                                   << last[names[i]].message;
  }
  EXPECT_TRUE(op.running()) << op.log();
  EXPECT_EQ(http_get(op.port("health probes"), "/healthz"), "ok\n");
  for (const AuditEntry& a : parse_audit(sim.audit_lines()))
    EXPECT_NE(a.user, "system:serviceaccount:bad:default") << a.verb << " " << a.object;
}

}  // namespace
}  // namespace planter::testing
