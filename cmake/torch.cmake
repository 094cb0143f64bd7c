# Finds the LibTorch the trainer builds against, and what it offers.
#
#   default          the system's (Debian's libtorch-dev: CPU only)
#   FASTSLOW_TORCH_DIR=DIR
#                    DIR holds TorchConfig.cmake, or is a prefix with
#                    share/cmake/Torch (a LibTorch zip, a torch package)
#   FASTSLOW_CUDA=ON (the `cuda` preset), no FASTSLOW_TORCH_DIR
#                    PyTorch's own LibTorch, found through python3's
#                    torch.utils.cmake_prefix_path: what a machine with a
#                    GPU usually has; configuring fails unless it has CUDA
#
# Sets FASTSLOW_TORCH_CUDA (the LibTorch has CUDA: step_graphs_cuda.cpp is
# built), FASTSLOW_TORCH_NCCL (it has ProcessGroupNCCL, and nccl.h was
# found: FASTSLOW_NCCL_INCLUDE), FASTSLOW_TORCH_DESCRIPTION (for --version).

set(FASTSLOW_TORCH_DIR "" CACHE PATH
  "LibTorch to build against: a folder holding TorchConfig.cmake, or a prefix with share/cmake/Torch (empty: the system's, or with FASTSLOW_CUDA python3's torch)")
set(FASTSLOW_PYTHON "" CACHE FILEPATH "python3 whose torch package FASTSLOW_CUDA builds against (empty: python3 on PATH)")

set(_fastslow_torch_hint "")
if(FASTSLOW_TORCH_DIR)
  if(NOT EXISTS "${FASTSLOW_TORCH_DIR}")
    message(FATAL_ERROR "fastslow: FASTSLOW_TORCH_DIR=${FASTSLOW_TORCH_DIR} does not exist")
  endif()
  set(_fastslow_torch_hint "${FASTSLOW_TORCH_DIR}")
elseif(FASTSLOW_CUDA)
  set(_py "${FASTSLOW_PYTHON}")
  if(NOT _py)
    find_program(_py NAMES python3 python)
  endif()
  if(NOT _py)
    message(FATAL_ERROR "fastslow: FASTSLOW_CUDA needs PyTorch's LibTorch: no python3 found (set FASTSLOW_PYTHON, or FASTSLOW_TORCH_DIR)")
  endif()
  execute_process(COMMAND "${_py}" -c "import torch; print(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE _fastslow_torch_hint OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_VARIABLE _py_error RESULT_VARIABLE _py_rc)
  if(NOT _py_rc EQUAL 0 OR NOT _fastslow_torch_hint)
    message(FATAL_ERROR "fastslow: FASTSLOW_CUDA: '${_py} -c \"import torch\"' failed (${_py_error}); "
      "install PyTorch with CUDA for that python, or set FASTSLOW_TORCH_DIR")
  endif()
  message(STATUS "fastslow: PyTorch's LibTorch from ${_py}: ${_fastslow_torch_hint}")
endif()
if(_fastslow_torch_hint)
  list(PREPEND CMAKE_PREFIX_PATH "${_fastslow_torch_hint}")
  set(Torch_DIR "" CACHE PATH "" FORCE)  # found again from the hint, not from an earlier configure
  unset(Torch_DIR CACHE)
endif()

# Protobuf first: a LibTorch's Caffe2Config defines protobuf::libprotobuf as
# an empty stand-in when no such target exists yet, and ONNX (the export)
# links that name; found here, it is the real library whichever LibTorch.
find_package(Protobuf REQUIRED)
find_package(Torch REQUIRED)

set(FASTSLOW_TORCH_CUDA OFF)
if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES OR EXISTS "${TORCH_INSTALL_PREFIX}/lib/libtorch_cuda.so")
  set(FASTSLOW_TORCH_CUDA ON)
endif()
if(FASTSLOW_CUDA AND NOT FASTSLOW_TORCH_CUDA)
  message(FATAL_ERROR "fastslow: FASTSLOW_CUDA: the LibTorch found (${TORCH_INSTALL_PREFIX}) has no CUDA")
endif()

# The C++ standard its headers demand (PyTorch's newer headers may want C++20).
set(FASTSLOW_TORCH_CXX_STANDARD 17)
foreach(_h c10/util/C++17.h c10/macros/Macros.h)
  foreach(_inc IN LISTS TORCH_INCLUDE_DIRS)
    if(EXISTS "${_inc}/${_h}")
      file(STRINGS "${_inc}/${_h}" _cxx20 REGEX "#error.*C\\+\\+ ?20")
      if(_cxx20)
        set(FASTSLOW_TORCH_CXX_STANDARD 20)
      endif()
    endif()
  endforeach()
endforeach()

# NCCL: ProcessGroupNCCL's header includes nccl.h, which a pip LibTorch
# leaves to the nvidia-nccl package beside it.
set(FASTSLOW_TORCH_NCCL OFF)
if(FASTSLOW_TORCH_CUDA)
  set(_nccl_pg "")
  foreach(_inc IN LISTS TORCH_INCLUDE_DIRS)
    if(EXISTS "${_inc}/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp")
      set(_nccl_pg "${_inc}")
    endif()
  endforeach()
  get_filename_component(_site "${TORCH_INSTALL_PREFIX}/.." ABSOLUTE)
  find_path(FASTSLOW_NCCL_INCLUDE nccl.h
    HINTS "${_site}/nvidia/nccl/include" "${_site}/nvidia/nccl_cu13/include" "${_site}/nvidia/nccl_cu12/include"
          ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
  if(_nccl_pg AND FASTSLOW_NCCL_INCLUDE)
    set(FASTSLOW_TORCH_NCCL ON)
  endif()
endif()

set(FASTSLOW_TORCH_DESCRIPTION "LibTorch ${Torch_VERSION} at ${TORCH_INSTALL_PREFIX}")
if(FASTSLOW_TORCH_CUDA)
  string(APPEND FASTSLOW_TORCH_DESCRIPTION " (CUDA")
  if(FASTSLOW_TORCH_NCCL)
    string(APPEND FASTSLOW_TORCH_DESCRIPTION ", NCCL")
  endif()
  string(APPEND FASTSLOW_TORCH_DESCRIPTION ")")
else()
  string(APPEND FASTSLOW_TORCH_DESCRIPTION " (CPU only)")
endif()
message(STATUS "fastslow: ${FASTSLOW_TORCH_DESCRIPTION}, C++${FASTSLOW_TORCH_CXX_STANDARD}")
