# Warnings on in every room; CUDA sources pass them to the host compiler.
# -Wno-missing-field-initializers: Vulkan structs are written
# `VkFooInfo info{VK_STRUCTURE_TYPE_FOO_INFO};`, which value-initialises the
# rest on purpose.
add_library(vksim_warnings INTERFACE)
target_compile_options(vksim_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wno-missing-field-initializers>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=all-warnings>)
if(VKSIM_WARNINGS_AS_ERRORS)
  target_compile_options(vksim_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
