// What the engine writes on a cluster before any unit there: the seed's inventory on a cluster
// the seed creates, which did not exist when the run opened the inventories (seed_run.h), so a
// run interrupted after its first write there has still left the record of what it may have
// written. Bookkeeping only: the engine sends, and says what waits.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace planter::plant {

class FirstWrites {
 public:
  explicit FirstWrites(std::map<std::string, boost::json::object> objects);

  // Whether units on `cluster` wait for its first write.
  bool pending(const std::string& cluster) const;
  // Holds unit `u` until the first write on `cluster` is answered; true when that write is yet
  // to be sent (the caller sends object(cluster) now).
  bool hold(const std::string& cluster, size_t u);
  const boost::json::object& object(const std::string& cluster) const;
  // The write is answered (or given up): the units held, to look at again.
  std::vector<size_t> done(const std::string& cluster);
  // The write is to be sent again: the units held, to look at again after a pause.
  std::vector<size_t> again(const std::string& cluster);

 private:
  struct Write {
    boost::json::object object;
    bool sent = false;
    std::vector<size_t> held;
  };
  std::map<std::string, Write> writes_;  // those not done yet
};

}  // namespace planter::plant
