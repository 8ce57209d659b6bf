#pragma once
// Shared pieces of the command-line front end.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vtrain/diagnostics.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/simulate.hpp"
#include "vtrain/validation.hpp"

namespace vtrain::cli {

struct Args {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options;  // --name value (value "" for flags)
  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
};

// Reads option `name` as a finite number (above 0 where `positive`) into `out`, which keeps its
// value when the option is absent; false, with the rule printed, when the value is not one.
bool number_option(const Args& args, const char* name, double& out, bool positive = false);

// Reads option `name` as a whole number in [lo, hi] into `out`, which keeps its value when the
// option is absent; false, with the rule printed, when the value is not one.
bool whole_option(const Args& args, const char* name, long long lo, long long hi, int& out);

// --threads: this machine's hardware threads unless given, 1 to 1024; false, with the rule
// printed, on a bad value.
bool threads_option(const Args& args, int& out);

// Reads a config argument: a JSON file path, or (with `examples`) the name of a bundled example.
bool load_config_text(const std::string& arg, std::string& text, std::string& error, bool examples = true);

// Reads and parses a JSON file (or, with `examples`, bundled example) argument; prints why on
// failure, with a line and column for a syntax error.
bool load_json_argument(const std::string& arg, nlohmann::json& out, bool examples = true);

// A result (`simulate --json`) or the calculator's Download JSON in place of a config: replaces
// `j` by the config it holds, says so on stderr and returns where in the file the config is
// ("/config" or "/result/config"). Anything else is left as it is, and the answer is "".
std::string use_config_of_result(nlohmann::json& j, const std::string& arg);

// Errors about a config found at `prefix` within the file given: their pointers (and the pointer
// that starts each message) become the file's own.
void prefix_pointers(Diagnostics& errors, const std::string& prefix);

// Prints diagnostics to stderr, one per line; with set_errors_as_json(true) (a command given
// --json) also to stdout as {"ok": false, "errors": [{code, pointer, message}]}, as the API answers.
void print_errors(const Diagnostics& errors);
void set_errors_as_json(bool on);

std::string summary(const SimResult& r);
std::string format_duration(double seconds);
std::string format_number(double v, int significant = 3);
std::string format_money(double usd);

int run_bench(const Args& args);
int run_explore(const Args& args);
int run_validate(const Args& args);
int run_calibrate(const Args& args);
int run_optimal(const Args& args);
int run_schedule(const Args& args);
int run_profile_shapes(const Args& args);
int run_calibrate_measured(const Args& args);

// Shared by validate and calibrate. False for a path that is missing, unreadable or a folder.
bool read_file(const std::string& path, std::string& text);
bool apply_setup_options(const Args& args, ValidationSetup& setup);
bool load_profile_option(const Args& args, Profile& out, bool& has);

}  // namespace vtrain::cli
