#include "toolcmd/tool_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/format.h"
#include "base/utf8.h"
#include "base/visible_text.h"
#include "discovery/discovery.h"
#include "protocol/schema.h"
#include "spawning/run_many.h"

namespace ikigai::toolcmd {
namespace {

using spawning::JobEnd;
using spawning::JobOutcome;

constexpr std::size_t kSchemaLimit = 8 * 1024;
constexpr int kSchemaAttempts = 3;

std::string Ms(std::chrono::microseconds t) {
  return FormatDuration(std::chrono::duration_cast<std::chrono::milliseconds>(t));
}

std::string Ended(const JobOutcome& o) {
  switch (o.end) {
    case JobEnd::kExited:
      return "exit code " + std::to_string(o.exit_code);
    case JobEnd::kSignaled:
      return "killed by signal " + std::to_string(o.term_signal);
    case JobEnd::kTimedOut:
      return "timed out";
    case JobEnd::kOutputTooLarge:
      return "printed too much";
    case JobEnd::kCancelled:
      return "cancelled";
    case JobEnd::kSpawnFailed:
      return "could not start: " + o.spawn_error;
  }
  return "?";
}

// Exactly one JSON object on stdout (whitespace around it allowed).
bool OneObject(const std::string& out, nlohmann::json* parsed) {
  *parsed = nlohmann::json::parse(utf8::Repair(out), nullptr, false);
  return !parsed->is_discarded() && parsed->is_object();
}

void CheckCall(const std::string& what, const JobOutcome& o, bool must_be_error,
               std::vector<RuleResult>& results) {
  nlohmann::json answer;
  const bool exited_zero = o.end == JobEnd::kExited && o.exit_code == 0;
  const bool object = exited_zero && OneObject(o.out, &answer);
  std::string detail = Ended(o);
  if (exited_zero) detail = object ? "one JSON object" : "not one JSON object: " + o.out;
  bool kept = object;
  if (object && must_be_error) {
    kept = answer.contains("error") && answer["error"].is_string();
    detail = kept ? "error_code " + answer.value("error_code", std::string("(none)"))
                  : "the answer has no \"error\" message";
  }
  results.push_back({kept,
                     "answers " + what + " with " +
                         (must_be_error ? std::string("a JSON error") : "one JSON object") +
                         " and exit 0",
                     detail});
}

}  // namespace

std::string Seconds(std::chrono::milliseconds t) { return FormatDuration(t); }

std::vector<RuleResult> CheckTool(const std::string& path, const executor::Limits& limits,
                                  std::chrono::milliseconds schema_timeout) {
  std::vector<RuleResult> results;
  const std::string file = path.substr(path.rfind('/') + 1);
  const std::string name = discovery::ToolNameFromFile(file);
  results.push_back({!name.empty(), "file name ends in -tool",
                     name.empty() ? "'" + file + "' does not" : "tool name '" + name + "'"});
  struct stat st {};
  const bool regular = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const bool executable = regular && ::access(path.c_str(), X_OK) == 0;
  results.push_back({executable, "is an executable regular file",
                     !regular     ? "not a regular file (or missing)"
                     : executable ? "yes"
                                  : "not executable: chmod +x " + path});
  if (!executable) return results;

  auto job = [&](std::vector<std::string> argv, std::string input, std::size_t limit,
                 std::chrono::milliseconds timeout) {
    spawning::Job j;
    j.spawn.path = path;
    j.spawn.argv = std::move(argv);
    j.spawn.env =
        spawning::EnvironmentWith({{"IKIGAI_TOOL_DEADLINE_MS", std::to_string(timeout.count())}});
    j.input = std::move(input);
    j.stdout_limit = limit;
    j.timeout = timeout;
    return j;
  };
  // --schema is timed as discovery times it (time waiting for a CPU not
  // counted), alone, and a miss is tried again: the rule judges the tool,
  // and a first interpreter start on a busy machine can take longer than
  // the tool ever does afterwards.
  JobOutcome schema;
  for (int attempt = 0; attempt < kSchemaAttempts; ++attempt) {
    spawning::Job schema_job = job({path, "--schema"}, "", kSchemaLimit, schema_timeout);
    schema_job.excuse_cpu_wait = true;
    schema = spawning::RunAll({schema_job})[0];
    if (schema.end != JobEnd::kTimedOut) break;
  }
  const std::vector<JobOutcome> runs = spawning::RunAll({
      job({path}, "{}", limits.output_limit, limits.timeout),
      job({path}, "this is not JSON {", limits.output_limit, limits.timeout),
  });

  results.push_back(
      {schema.end != JobEnd::kTimedOut, "--schema answers within " + Seconds(schema_timeout),
       schema.end == JobEnd::kTimedOut ? "no answer within " + Seconds(schema_timeout) + " in " +
                                             std::to_string(kSchemaAttempts) + " tries"
                                       : Ms(schema.elapsed)});
  results.push_back({schema.end != JobEnd::kOutputTooLarge, "--schema output within 8 KB",
                     schema.end == JobEnd::kOutputTooLarge
                         ? "more than 8 KB"
                         : std::to_string(schema.out.size()) + " bytes"});
  const bool schema_ran = schema.end == JobEnd::kExited && schema.exit_code == 0;
  results.push_back({schema_ran, "--schema exits 0", Ended(schema)});
  auto parsed = protocol::ParseSchema(schema.out);
  results.push_back({schema_ran && parsed.ok(), "--schema prints one valid tool schema",
                     parsed.ok() ? "parameters: JSON Schema with " +
                                       std::to_string(parsed->parameters["properties"].size()) +
                                       " properties"
                                 : parsed.error()});
  if (parsed.ok()) {
    results.push_back({parsed->name == name, "schema name matches the file name",
                       parsed->name == name ? "'" + name + "'"
                                            : "schema says '" + parsed->name + "', file says '" +
                                                  name + "' (the file name wins)"});
  }
  CheckCall("{}", runs[0], /*must_be_error=*/false, results);
  CheckCall("malformed input", runs[1], /*must_be_error=*/true, results);
  const bool within = runs[0].end != JobEnd::kTimedOut && runs[0].end != JobEnd::kOutputTooLarge &&
                      runs[1].end != JobEnd::kTimedOut && runs[1].end != JobEnd::kOutputTooLarge;
  results.push_back({within,
                     "calls stay within " + std::to_string(limits.output_limit / 1024) +
                         " KB and " + std::to_string(limits.timeout.count() / 1000) + " s",
                     within ? Ms(std::max(runs[0].elapsed, runs[1].elapsed)) + " at most"
                            : Ended(runs[0]) + ", " + Ended(runs[1])});
  return results;
}

int CheckTools(const std::vector<std::string>& paths, const executor::Limits& limits,
               std::ostream& out, std::chrono::milliseconds schema_timeout) {
  int status = 0;
  for (const auto& path : paths) {
    out << "Checking " << VisibleText(path, Layout::kOneLine) << "\n";
    std::size_t broken = 0;
    const auto results = CheckTool(path, limits, schema_timeout);
    for (const auto& r : results) {
      // The details quote what the tool printed: shown, never obeyed.
      out << (r.kept ? "  ok    " : "  FAIL  ") << r.rule << ": " << VisibleLine(r.detail, 200)
          << "\n";
      if (!r.kept) ++broken;
    }
    if (broken == 0) {
      out << "All " << results.size() << " rules kept.\n";
    } else {
      out << broken << " of " << results.size() << " rules broken.\n";
      status = 1;
    }
  }
  return status;
}

}  // namespace ikigai::toolcmd
