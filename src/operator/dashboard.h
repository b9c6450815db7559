// The operator's dashboard (`planter operator --dashboard-addr ADDR`, docs/operator.md
// "Dashboard"): read-only pages served by the binary, live through server-sent events.
//
//   /                      every Seed this replica plants: its phase, units declared, message
//   /seeds                 the same as JSON
//   /events                the Seeds, then each change, as server-sent events
//   /seeds/NS/NAME/        one Seed's plan as plant --ui draws it (plant_view.h), its units
//                          coloured by state, each waiting unit saying why
//   /seeds/NS/NAME/plan    /state    /events   as plant --ui serves them; an event {"reload":true}
//                          when a new run brings a new plan
//   /seeds/NS/NAME/timeline  the timeline of its run (plant --timeline's page), the last one's
//                          once it ended (the operator keeps each Seed's last plan for it)
//
// Each stream looks at the controller every kEventPoll and sends what changed; nothing is held
// between requests but what each stream last sent.
#pragma once

#include <string>

#include "daemon/http_endpoint.h"
#include "operator/controller.h"

namespace planter::op {

class Dashboard {
 public:
  explicit Dashboard(const Controller& controller) : controller_(controller) {}
  daemon::HttpAnswer answer(const std::string& path) const;

 private:
  daemon::HttpAnswer index() const;
  daemon::HttpAnswer seed(const std::string& key, const std::string& rest) const;
  daemon::HttpAnswer timeline(const std::string& key, const Controller::SeedRunView& v) const;
  const Controller& controller_;
};

}  // namespace planter::op
