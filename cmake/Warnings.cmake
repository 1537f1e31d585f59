# Warnings on in every room; CUDA sources pass them to the host compiler.
add_library(vksim_warnings INTERFACE)
target_compile_options(vksim_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=all-warnings>)
if(VKSIM_WARNINGS_AS_ERRORS)
  target_compile_options(vksim_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
