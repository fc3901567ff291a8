#include "repl/trust_prompt.h"

#include <unistd.h>

#include <cctype>
#include <iostream>
#include <string>

#include "base/format.h"

namespace ikigai::repl {

void AskTrustIfNeeded(session::TrustState& state, const session::ProjectStore& store) {
  if (state.trusted || state.recorded.has_value() || state.contents.empty() ||
      !state.store_problem.empty() || ::isatty(STDIN_FILENO) != 1) {
    return;
  }
  std::cout << session::TrustQuestion(state) << std::flush;
  // Before libedit starts and before any signal handler: a plain line read,
  // where Ctrl+C ends ikigai (nothing has run yet) and Ctrl+D is "no".
  std::string answer;
  if (!std::getline(std::cin, answer)) {
    std::cin.clear();
    std::cout << "\n";
  }
  answer = AsciiLower(answer);
  while (!answer.empty() && std::isspace(static_cast<unsigned char>(answer.back())))
    answer.pop_back();
  state.trusted = answer == "y" || answer == "yes";
  if (auto saved = store.SetTrusted(state.dir, state.trusted); !saved) {
    std::cerr << "ikigai: the answer is not kept: " << saved.error() << "\n";
  } else {
    state.recorded = state.trusted;
    std::cout << (state.trusted ? "Trusted. `ikigai untrust` takes it back.\n"
                                : "Not trusted: .ikigai/ is skipped. `ikigai trust` changes it.\n");
  }
}

}  // namespace ikigai::repl
