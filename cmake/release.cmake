# What an install adds besides bin/ikigai and libexec/ikigai/*-tool (their
# install() rules sit beside their targets; tests, test helpers and
# benchmarks have none), and the Debian package:
#
#   PREFIX/share/man/man1/ikigai.1.gz
#   PREFIX/share/bash-completion/completions/ikigai
#   PREFIX/share/doc/ikigai/README.md, copyright (LICENSE), docs/*.md, docs/examples/
#
# The host finds its tools at <dir of the binary>/../libexec/ikigai, so these
# paths stay relative to PREFIX. `make package` (the top-level Makefile)
# builds build-package/ with CMAKE_INSTALL_PREFIX=/usr and runs cpack there.

# The man page, gzip'd (-n: no name or time inside, so the package is
# reproducible), into the build tree's share/man, as in an install tree:
# `man -M build/share/man ikigai` reads it.
find_program(IKIGAI_GZIP gzip REQUIRED)
set(IKIGAI_MAN_PAGE ${PROJECT_SOURCE_DIR}/docs/ikigai.1)
set(IKIGAI_MAN_GZ ${CMAKE_BINARY_DIR}/share/man/man1/ikigai.1.gz)
add_custom_command(OUTPUT ${IKIGAI_MAN_GZ}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/share/man/man1
  COMMAND sh -c "\"$0\" -9nc \"$1\" > \"$2\"" ${IKIGAI_GZIP} ${IKIGAI_MAN_PAGE} ${IKIGAI_MAN_GZ}
  DEPENDS ${IKIGAI_MAN_PAGE}
  COMMENT "Compressing the man page"
  VERBATIM)
add_custom_target(ikigai_man ALL DEPENDS ${IKIGAI_MAN_GZ})

install(FILES ${IKIGAI_MAN_GZ} DESTINATION share/man/man1)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/completions/ikigai.bash
        DESTINATION share/bash-completion/completions RENAME ikigai)
# README.md links docs/*.md, which link examples/: the same tree keeps the
# links working. The examples are to be copied, so not executable here.
file(GLOB IKIGAI_DOC_PAGES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/ikigai)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION share/doc/ikigai RENAME copyright)
install(FILES ${IKIGAI_DOC_PAGES} DESTINATION share/doc/ikigai/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/examples DESTINATION share/doc/ikigai/docs)

if(IKIGAI_BUILD_TESTS)
  # The man page renders without warnings and names every subcommand and
  # flag of --help; the completion completes against the built ikigai.
  # (The package itself is checked by scripts/check-package.sh, in CI.)
  add_test(NAME manpage
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/check-manpage.sh
            $<TARGET_FILE:ikigai> ${IKIGAI_MAN_PAGE} ${PROJECT_SOURCE_DIR})
  add_test(NAME completion
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/completions/completion_test.sh
            ${PROJECT_SOURCE_DIR}/scripts/completions/ikigai.bash $<TARGET_FILE_DIR:ikigai>)
  set_tests_properties(manpage completion PROPERTIES TIMEOUT 120)
endif()

# The Debian package: `cpack -G DEB` in a build tree configured with
# CMAKE_INSTALL_PREFIX=/usr (the prefix is compiled in: /etc/ikigai/config.json).
set(IKIGAI_PACKAGE_MAINTAINER
    "The ikigai authors <maintainers@users.noreply.a-seed-674a563f.example>"
    CACHE STRING "The Debian package's Maintainer field")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ikigai)
set(CPACK_PACKAGE_VENDOR "The ikigai authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "terminal coding agent whose every tool is an external executable")
set(CPACK_PACKAGE_DESCRIPTION
    "ikigai sends your prompt to a language model (OpenAI-compatible or\n\
Anthropic), runs the tools the model asks for, and streams the answer.\n\
Every tool is an executable that answers --schema and takes JSON on stdin:\n\
drop one into ~/.ikigai/tools/ to add or override a tool, in any language.\n\
Six core tools ship with it (bash, file_read, file_write, file_edit, glob,\n\
grep), and every tool call runs in a sandbox (Landlock, seccomp).")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # ikigai_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${IKIGAI_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends from dpkg-shlibdeps (dpkg-dev)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
