// The one error type of the core: every problem with user data names the file,
// the array (when there is one) and what is wrong, so the CLI and the page can
// show it as is.
#pragma once

#include <stdexcept>
#include <string>

namespace fastslow {

class Error : public std::runtime_error {
 public:
  Error(std::string file, std::string array, std::string problem);
  explicit Error(std::string problem) : Error("", "", std::move(problem)) {}

  const std::string& file() const { return file_; }
  const std::string& array() const { return array_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_, array_, problem_;
};

}  // namespace fastslow
