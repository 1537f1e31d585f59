# Which GPUs the CUDA code is compiled for. Included before project(): enabling
# CUDA fills CMAKE_CUDA_ARCHITECTURES with nvcc's default (sm_75 only) otherwise.
#
# Every architecture costs a device compile and a ptxas run per .cu file
# (DEVELOPERS.md, "Build time", has the figures), so the default builds what this machine
# needs, not every GPU there is:
#   auto (default): the GPUs of this machine (`native`) when nvidia-smi lists
#     one; otherwise sm_75 machine code and sm_75's PTX. Nothing CUDA runs on
#     a machine without a GPU: its build is there to catch errors, and one
#     real architecture does that (the front end and ptxas both run). sm_75
#     is the oldest and smallest supported SM, where ptxas checks each
#     kernel's launch bounds against the tightest limits; its PTX lets any
#     later GPU run the build after the driver compiles it at the first start
#     (the driver keeps the result in its cache). A build meant for a given
#     GPU without one names it: -DVKSIM_CUDA_ARCHITECTURES=90-real.
#   all: real code for sm_75, 80, 86, 89, 90 and 120 plus sm_120's PTX
#     (packagers; the `all-gpus` preset). Real code also runs on later minor
#     versions of its major (sm_86's on sm_87 and sm_88); sm_120's PTX serves
#     12.x and later majors. sm_100, sm_103 and sm_110 get nothing from it.
#   anything else: passed on as CMAKE_CUDA_ARCHITECTURES (e.g. 89-real).
# An explicit -DCMAKE_CUDA_ARCHITECTURES=... wins over all of this.
# sim/cuda_nvx/ builds its own sm_90 module whatever is chosen here.
set(VKSIM_CUDA_ARCHITECTURES "auto" CACHE STRING
  "CUDA architectures: auto (this machine's GPUs, else sm_75 with its PTX), all, or a CMAKE_CUDA_ARCHITECTURES list")
set(VKSIM_CUDA_ARCHITECTURES_ALL 75-real 80-real 86-real 89-real 90-real 120-real 120-virtual)
set(VKSIM_CUDA_ARCHITECTURES_NO_GPU 75-real 75-virtual)

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  if(VKSIM_CUDA_ARCHITECTURES STREQUAL "all")
    set(CMAKE_CUDA_ARCHITECTURES ${VKSIM_CUDA_ARCHITECTURES_ALL})
  elseif(VKSIM_CUDA_ARCHITECTURES STREQUAL "auto")
    execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE smi_result OUTPUT_VARIABLE smi_gpus
                    ERROR_QUIET TIMEOUT 20)
    if(smi_result EQUAL 0 AND smi_gpus MATCHES "GPU [0-9]")
      set(CMAKE_CUDA_ARCHITECTURES native)
    else()
      set(CMAKE_CUDA_ARCHITECTURES ${VKSIM_CUDA_ARCHITECTURES_NO_GPU})
    endif()
  else()
    set(CMAKE_CUDA_ARCHITECTURES ${VKSIM_CUDA_ARCHITECTURES})
  endif()
endif()
message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (-DVKSIM_CUDA_ARCHITECTURES=all for sm_75 to sm_90 and sm_120, DEVELOPERS.md)")
