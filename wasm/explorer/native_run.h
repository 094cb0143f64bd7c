// The explorer as a desktop program (native_run.cpp): a window, the files
// named on the command line, and screenshots for tests and documentation.
#pragma once

namespace fastslow::explorer {

int native_main(int argc, char** argv);

}  // namespace fastslow::explorer
