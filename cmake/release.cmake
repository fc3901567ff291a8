# What an install adds besides bin/ikigai and libexec/ikigai/*-tool (their
# install() rules sit beside their targets):
#
#   PREFIX/share/man/man1/ikigai.1.gz
#   PREFIX/share/bash-completion/completions/ikigai

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

if(IKIGAI_BUILD_TESTS)
  # The man page renders without warnings and names every subcommand and
  # flag of --help; the completion completes against the built ikigai.
  add_test(NAME manpage
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/check-manpage.sh
            $<TARGET_FILE:ikigai> ${IKIGAI_MAN_PAGE} ${PROJECT_SOURCE_DIR})
  add_test(NAME completion
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/completions/completion_test.sh
            ${PROJECT_SOURCE_DIR}/scripts/completions/ikigai.bash $<TARGET_FILE_DIR:ikigai>)
  set_tests_properties(manpage completion PROPERTIES TIMEOUT 120)
endif()
