#include "kube/sim_fleet.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "model/base64.h"

namespace planter::testing {

namespace fs = std::filesystem;

SimFleet::SimFleet(sim::ServerOptions options) : SimFleet(std::move(options), {}, nullptr) {}

SimFleet::SimFleet(
    sim::ServerOptions options, const std::map<std::string, std::string>& files,
    const std::function<void(const std::filesystem::path& dir, sim::ServerOptions&)>& prepare) {
  char tmpl[] = "/tmp/planter-kube-test-XXXXXX";
  dir_ = ::mkdtemp(tmpl);
  for (const auto& [name, content] : files) write(name, content);
  if (prepare) prepare(dir_, options);
  options.audit_log = (dir_ / "audit.jsonl").string();
  auto s = sim::Server::create(std::move(options));
  if (!s) {
    ADD_FAILURE() << "the sim did not start: " << s.error().message;
    std::abort();
  }
  server_ = std::move(s.value());
  server_->start();
}

SimFleet::~SimFleet() {
  server_.reset();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

fs::path SimFleet::write(const std::string& name, const std::string& content) const {
  fs::path p = dir_ / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::trunc) << content;
  return p;
}

kube::RestConfig SimFleet::rest_config(const std::string& context) const {
  auto k = kube::Kubeconfig::parse(kubeconfig(), "sim kubeconfig", dir_.string());
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().message);
  auto rc = k->rest_config(context);
  EXPECT_TRUE(rc.ok()) << (rc.ok() ? "" : rc.error().message);
  return rc.value();
}

std::vector<boost::json::object> SimFleet::audit_requests() const {
  std::vector<boost::json::object> out;
  std::ifstream in(audit_log());
  std::string line;
  while (std::getline(in, line)) {
    boost::json::error_code ec;
    auto v = boost::json::parse(line, ec);
    if (ec || !v.is_object() || !v.as_object().contains("verb")) continue;
    out.push_back(v.as_object());
  }
  return out;
}

std::string kubeconfig_with_user(const std::string& server, const std::string& ca_pem,
                                 const std::string& user_yaml) {
  std::ostringstream k;
  k << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
    << "clusters:\n- name: sim\n  cluster:\n    server: " << server << "\n";
  if (!ca_pem.empty()) k << "    certificate-authority-data: " << base64_encode(ca_pem) << "\n";
  k << "users:\n- name: tester\n  user:\n";
  std::istringstream lines(user_yaml);
  std::string line;
  while (std::getline(lines, line)) k << "    " << line << "\n";
  k << "contexts:\n- name: test\n  context:\n    cluster: sim\n    user: tester\n";
  return k.str();
}

}  // namespace planter::testing
