// The webhooks of a seed that can hold up other objects: admission webhooks (Mutating/Validating
// WebhookConfiguration) and CRD conversion webhooks, each backed by a Service.
#pragma once

#include <string>
#include <vector>

#include "model/label_selector.h"
#include "model/object.h"

namespace planter {

struct Webhook {
  struct Rule {
    std::vector<std::string> groups, versions, resources, operations;
    std::string scope = "*";
  };

  size_t config = 0;  // the configuration object (or the CRD, for a conversion webhook)
  std::string name;
  ObjectRef service;  // v1 Service <namespace>/<name>
  // Conversion webhooks hold up every object of one kind (empty for admission webhooks).
  std::string conversion_group, conversion_kind;
  std::vector<Rule> rules;
  LabelSelector namespace_selector;
  LabelSelector object_selector;
};

}  // namespace planter
