// Removes a folder and everything in it, as `rm -rf` does. Natively this
// walks the tree with POSIX nftw rather than std::filesystem::remove_all:
// PyTorch's wheels export their own static copy of libstdc++'s filesystem
// code (pytorch/pytorch#133437), and a binary linked against a CUDA
// LibTorch from a wheel crashed (SIGSEGV) in remove_all's directory walk.
#pragma once

#include <string>

namespace fastslow {

// True when `path` is gone afterwards (a path that never existed counts);
// false when something in it could not be removed. Never throws.
bool remove_tree(const std::string& path);

}  // namespace fastslow
