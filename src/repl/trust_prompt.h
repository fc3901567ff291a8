// The REPL's trust question, asked once per folder whose .ikigai/ holds
// anything, before anything of it loads; the answer (yes or no) is kept in
// ~/.ikigai/projects.json so it is not asked again.
#pragma once

#include "session/project_store.h"
#include "session/trust.h"

namespace ikigai::repl {

// Asks on the terminal when stdin is one, the folder has something in
// .ikigai/ and no answer is recorded; updates `state.trusted`. Only "y" or
// "yes" trusts; anything else, Ctrl+D or Ctrl+C is no.
void AskTrustIfNeeded(session::TrustState& state, const session::ProjectStore& store);

}  // namespace ikigai::repl
