// The configuration loader (src/config/config.h): a config.json whose
// content is the input, loaded as the user's file and as a project's file
// (.ikigai/config.json, confined to the project). Either it loads, or the
// error names the file.
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"
#include "fuzz_support.h"

namespace config = ikigai::config;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string project_file = [] {
    const std::string dir = ikigai::fuzz::ScratchDirectory() + "/project/.ikigai";
    ::mkdir((ikigai::fuzz::ScratchDirectory() + "/project").c_str(), 0700);
    ::mkdir(dir.c_str(), 0700);
    return dir + "/config.json";
  }();
  ikigai::fuzz::WriteFile(project_file, ikigai::fuzz::AsText(data, size));
  const auto no_environment = [](const std::string&) -> std::optional<std::string> {
    return std::nullopt;
  };

  for (const config::ConfigFiles& files :
       {config::ConfigFiles{.user = project_file}, config::ConfigFiles{.project = project_file}}) {
    auto loaded = config::LoadConfig(files, no_environment);
    if (!loaded) {
      FUZZ_CHECK(loaded.error().starts_with(project_file));
      continue;
    }
    FUZZ_CHECK(loaded->agent.max_rounds > 0);
    FUZZ_CHECK(loaded->agent.max_tokens > 0);
    FUZZ_CHECK(loaded->schema_timeout.count() > 0);
  }
  return 0;
}
