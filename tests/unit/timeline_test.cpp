// The timeline as a reader sees it, from a plant's records: a stretch per requirement waited for,
// the apply queued and on the wire, an earlier attempt the server sent back, rows that went alike
// drawn once, the critical path, even ticks and a legend of what appears.
#include "plant/timeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <regex>

#include "plant/report.h"
#include "test_support.h"

namespace planter::plant {
namespace {

using std::chrono::microseconds;
using ::testing::ElementsAre;
using testing::find_unit;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::plan_yaml;

constexpr const char* kSeed = R"(apiVersion: v1
kind: Namespace
metadata: {name: app}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: app}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b, namespace: app}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: app}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
)";

int32_t namespace_requirement(const Unit& unit) {
  for (size_t i = 0; i < unit.requirements.size(); ++i)
    if (unit.requirements[i].when.type == ReadinessPredicate::Type::kActive)
      return static_cast<int32_t>(i);
  return -100;
}

UnitRecord declared(int64_t sent, int64_t on_wire, int64_t at) {
  UnitRecord r;
  r.state = UnitState::kDeclared;
  r.ready = microseconds(sent);
  r.sent = microseconds(sent);
  r.on_wire = microseconds(on_wire);
  r.declared = microseconds(at);
  r.attempts = 1;
  return r;
}

class TimelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto planned = plan_yaml(kSeed);
    ASSERT_TRUE(planned.ok());
    plan_ = std::move(planned.plan);
    out_.elapsed = microseconds(1'000'000);
    out_.units.resize(plan_.units.size());
    auto index = [&](const std::string& s) {
      return static_cast<size_t>(find_unit(plan_, s) - plan_.units.data());
    };
    ns_ = index("Namespace/app");
    web_ = index("Deployment/app/web");
    out_.units[ns_] = declared(50'000, 20'000, 100'000);
    // Three ConfigMaps that waited for the Namespace and went alike, to the microsecond.
    for (const char* name : {"ConfigMap/app/a", "ConfigMap/app/b", "ConfigMap/app/c"}) {
      size_t u = index(name);
      UnitRecord r = declared(100'000, 10'000, 120'000);
      r.waits = {{0, 100'000, namespace_requirement(plan_.units[u])}};
      out_.units[u] = r;
    }
    // The Deployment: sent once the Namespace was active, sent back by the server (a retry),
    // sent again, then 500 ms queued in planter and 200 ms on the wire. It ended the plant.
    UnitRecord web = declared(300'000, 200'000, 1'000'000);
    web.ready = microseconds(100'000);
    web.attempts = 2;
    web.waits = {{0, 100'000, namespace_requirement(plan_.units[web_])},
                 {150'000, 300'000, WaitSpan::kRetryWait}};
    out_.units[web_] = web;
  }

  Plan plan_;
  PlantOutcome out_;
  size_t ns_ = 0, web_ = 0;
};

TEST_F(TimelineTest, TheCriticalPathFollowsWhatHeldTheLastUnitBack) {
  EXPECT_THAT(critical_path(plan_, out_), ElementsAre(web_, ns_));
}

TEST_F(TimelineTest, ARowShowsEachStretchOfItsWaitAndItsApply) {
  std::string svg = render_timeline_svg(plan_, out_, "demo");
  // The Deployment's row: the Namespace, its first apply (in flight until the server's answer),
  // the retry, then its apply queued and on the wire, and the mark.
  std::string web = svg.substr(svg.find("apps/v1 Deployment app/web on SELF"));
  web = web.substr(0, web.find("</g>"));
  std::vector<std::string> parts;
  static const std::regex bar("class=\"bar ([a-z-]+)\"");
  for (auto it = std::sregex_iterator(web.begin(), web.end(), bar); it != std::sregex_iterator();
       ++it)
    parts.push_back((*it)[1]);
  EXPECT_THAT(parts, ElementsAre("w-namespace", "inflight", "w-retry", "queued", "onwire"));
  EXPECT_THAT(web, HasSubstr("waited 0.100s for Namespace/app active"));
  EXPECT_THAT(web, HasSubstr("apply: 0.500s queued, 0.200s on the wire; declared at 1.000s"));
  EXPECT_THAT(web, HasSubstr("class=\"mark\""));
  EXPECT_THAT(web, HasSubstr("on the critical path"));
}

TEST_F(TimelineTest, RowsThatWentAlikeAreDrawnOnceWithTheirCount) {
  std::string svg = render_timeline_svg(plan_, out_, "demo");
  EXPECT_THAT(svg, HasSubstr(">3 x ConfigMap</text>"));
  EXPECT_THAT(svg, HasSubstr("3 units on SELF that went alike"));
  EXPECT_THAT(svg, Not(HasSubstr(">ConfigMap/app/a</text>")));
  // The Namespace, the three ConfigMaps, the Deployment: three rows.
  size_t rows = 0;
  for (size_t at = svg.find("<g class=\"row"); at != std::string::npos;
       at = svg.find("<g class=\"row", at + 1))
    ++rows;
  EXPECT_EQ(rows, 3u);
}

TEST_F(TimelineTest, TicksAreEvenAndTheLegendNamesWhatAppears) {
  std::string svg = render_timeline_svg(plan_, out_, "demo");
  std::vector<std::string> ticks;
  static const std::regex tick("class=\"tick\">([0-9.]+s)<");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator();
       ++it)
    ticks.push_back((*it)[1]);
  EXPECT_THAT(ticks, ElementsAre("0.0s", "0.1s", "0.2s", "0.3s", "0.4s", "0.5s", "0.6s", "0.7s",
                                 "0.8s", "0.9s", "1.0s"));
  for (const char* item :
       {"waiting for a Namespace", "retry after the server's answer", "apply queued in planter",
        "apply on the wire", "declared", "critical path"})
    EXPECT_THAT(svg, HasSubstr(std::string(">") + item + "</text>")) << item;
  EXPECT_THAT(svg, Not(HasSubstr("waiting for nodes (room, configuration, a scheduler)")));
  EXPECT_THAT(svg, Not(HasSubstr("waiting for a cluster")));

  std::string html = render_timeline_html(plan_, out_, "demo");
  EXPECT_THAT(html, HasSubstr("<li>v1 Namespace app on SELF, declared at 0.100s</li>\n<li>apps/v1 "
                              "Deployment app/web on SELF, declared at 1.000s</li>"));
}

// The report names each stretch's kind of wait as the chart colours it, so a reader (or a script)
// can sum what a run waited for.
TEST_F(TimelineTest, TheReportNamesTheKindOfEachWait) {
  boost::json::value report = boost::json::parse(render_report_json(plan_, out_, "demo"));
  std::vector<std::string> web_waits;
  for (const boost::json::value& u : report.at("units").as_array())
    if (u.at("object").as_string() == "apps/v1|Deployment|app|web")
      for (const boost::json::value& w : u.at("waits").as_array())
        web_waits.push_back(std::string(w.at("for").as_string()) + ": " +
                            std::string(w.at("kind").as_string()));
  EXPECT_THAT(web_waits, ElementsAre("Namespace/app active: namespace",
                                     "a retry after the server's answer: retry"));
  const Unit& web = plan_.units[web_];
  EXPECT_EQ(to_string(wait_kind(web, {0, 1, WaitSpan::kLinkWait})), "cluster");
  EXPECT_EQ(to_string(wait_kind(web, {0, 1, 1000})), "retry");  // no such requirement
}

}  // namespace
}  // namespace planter::plant
