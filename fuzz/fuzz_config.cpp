// fuzz-config: LightningCLI::parse on arbitrary input. The first byte picks the form: even, the
// rest is a YAML file given with --config; odd, the rest is a command line, one argument per
// line. Every outcome must be a parse result or a ConfigError (the CLI's promise), never a
// crash or another exception.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fulgur/cli/lightning_cli.h"
#include "fulgur/errors.h"
#include "fuzz/fuzz_input_file.h"

namespace {

std::vector<std::string> lines_of(const uint8_t* data, size_t size) {
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      lines.emplace_back();
    } else {
      lines.back() += static_cast<char>(data[i]);
    }
  }
  return lines;
}

// The program's own keys, of each kind the CLI binds (as the example's main.cpp has).
struct ProgramKeys {
  double lr = 1e-3;
  int64_t batch_size = 64;
  int hidden = 128;
  bool augment = false;
  std::string data_dir = "data";
};

void bind(fulgur::LightningCLI& cli, ProgramKeys& keys) {
  cli.add_argument("model.lr", keys.lr, "learning rate");
  cli.add_argument("model.hidden", keys.hidden, "hidden units");
  cli.add_argument("data.batch_size", keys.batch_size, "batch size");
  cli.add_argument("data.augment", keys.augment, "augment");
  cli.add_argument("data.data_dir", keys.data_dir, "data directory");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  ProgramKeys keys;
  fulgur::LightningCLI cli({.program = "fuzz", .seed_everything = std::nullopt});
  bind(cli, keys);

  std::vector<std::string> args;
  if (data[0] % 2 == 0) {
    const std::string path = fulgur::fuzz::write_fuzz_input(data + 1, size - 1, ".yaml");
    args = {"fit", "--config=" + path};
  } else {
    args = lines_of(data + 1, size - 1);
  }
  fulgur::CLIAction action;
  try {
    action = cli.parse(args);
  } catch (const fulgur::ConfigError&) {
    return 0;
  } catch (const std::exception& e) {
    fulgur::fuzz::report_escape("LightningCLI::parse", e);
  }
  if (action != fulgur::CLIAction::Run) return 0;

  // The CLI's second promise: --print_config's YAML reads back to the same configuration.
  const std::string yaml = cli.config_yaml();
  const std::string path = fulgur::fuzz::write_fuzz_input(
      reinterpret_cast<const uint8_t*>(yaml.data()), yaml.size(), ".print_config.yaml");
  ProgramKeys reread_keys;
  fulgur::LightningCLI reread({.program = "fuzz", .seed_everything = std::nullopt});
  bind(reread, reread_keys);
  try {
    reread.parse({cli.subcommand(), "--config=" + path});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "the printed config does not parse back: %s\n%s\n", e.what(),
                 yaml.c_str());
    std::abort();
  }
  if (reread.config_yaml() != yaml) {
    std::fprintf(stderr, "the printed config reads back differently:\n%s\n---\n%s\n",
                 yaml.c_str(), reread.config_yaml().c_str());
    std::abort();
  }
  return 0;
}
