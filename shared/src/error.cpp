#include "fastslow/error.h"

namespace fastslow {

static std::string compose(const std::string& file, const std::string& array,
                           const std::string& problem) {
  std::string s;
  if (!file.empty()) s += file + ": ";
  if (!array.empty()) s += "array '" + array + "': ";
  return s + problem;
}

Error::Error(std::string file, std::string array, std::string problem)
    : std::runtime_error(compose(file, array, problem)),
      file_(std::move(file)),
      array_(std::move(array)),
      problem_(std::move(problem)) {}

}  // namespace fastslow
