# Warning flags for every simpulse target: -Wall -Wextra -Wpedantic, no suppressions.
function(simpulse_set_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                             -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                             -Wnull-dereference -Wdouble-promotion)
endfunction()

# Adds a module library target simpulse_<name> (alias simpulse::<name>) from <dir>/src/*.cpp with the public
# include directory <dir>/include.
function(simpulse_add_module name)
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
    add_library(simpulse_${name} ${sources})
    add_library(simpulse::${name} ALIAS simpulse_${name})
    target_include_directories(simpulse_${name} PUBLIC
        $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
        $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_compile_features(simpulse_${name} PUBLIC cxx_std_20)
    set_target_properties(simpulse_${name} PROPERTIES EXPORT_NAME ${name} POSITION_INDEPENDENT_CODE ON)
    simpulse_set_warnings(simpulse_${name})
endfunction()
