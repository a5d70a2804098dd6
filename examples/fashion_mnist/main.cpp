// fashion-mnist — the example program: a small CNN on Fashion-MNIST, driven LightningCLI-style.
//
//   fashion-mnist {fit,validate,test,predict} [--config FILE.yaml] [--trainer.KEY=VALUE ...]
//                 [--model.KEY=VALUE ...] [--data.KEY=VALUE ...] [--seed_everything=N]
//                 [--checkpoint.KEY=VALUE ...] [--ckpt_path=PATH] [--print_config] [--help]
//
// --checkpoint.* configure the ModelCheckpoint (every_n_train_steps, save_last, dirpath); with
// none given the Trainer's default one (best of each epoch) is used.
//
// Every failure ends in one line on stderr, `fashion-mnist: error: <message>`, and exit code 2
// for a usage mistake (bad flag, value or combination) or 1 for anything that failed at run time.
// SIGTERM or SIGUSR1 during fit stop it after the current batch with a checkpoint
// (hpc_ckpt_<N>.ckpt in the root directory), a line on stderr and exit code 128 + the signal.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "cnn_module.h"
#include "fashion_mnist_data_module.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/cli/lightning_cli.h"
#include "fulgur/cli/subcommand_runner.h"
#include "fulgur/errors.h"
#include "fulgur/seed.h"
#include "fulgur/trainer.h"

namespace {

constexpr const char* kProgram = "fashion-mnist";
constexpr int kRuntimeFailure = 1;
constexpr int kUsageError = 2;

// Defaults chosen so that `make demo` (fit, then test) reaches >= 90% test accuracy within
// minutes on two CPU cores.
fulgur::TrainerOptions example_trainer_defaults() {
  fulgur::TrainerOptions options;
  options.max_epochs = 5;
  return options;
}

// Writes `index,prediction` rows for the predicted class indices; returns the file's path.
std::string write_predictions(const std::vector<torch::Tensor>& batches,
                              const std::string& directory) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(directory.empty() ? fs::path(".") : fs::path(directory));
  fs::create_directories(dir);
  const fs::path path = (dir / "predictions.csv").lexically_normal();
  std::ofstream out(path);
  out << "index,prediction\n";
  int64_t index = 0;
  for (const auto& batch : batches) {
    const auto classes = batch.to(torch::kCPU, torch::kLong).contiguous();
    const auto* data = classes.data_ptr<int64_t>();
    for (int64_t i = 0; i < classes.numel(); ++i) out << index++ << ',' << data[i] << '\n';
  }
  out.close();
  if (!out) {
    throw fulgur::Error(fmt::format("cannot write predictions to {}", path.string()));
  }
  return path.string();
}

int run(int argc, char** argv) {
  fashion_mnist::CNNModuleConfig model_config;
  fashion_mnist::FashionMNISTDataConfig data_config;

  fulgur::LightningCLI cli({
      .program = kProgram,
      .description = "Trains and evaluates a small CNN on Fashion-MNIST.",
      .trainer_defaults = example_trainer_defaults(),
  });
  cli.add_argument("model.lr", model_config.lr, "Adam learning rate");
  cli.add_argument("model.hidden", model_config.hidden, "units of the hidden linear layer");
  cli.add_argument("model.dropout", model_config.dropout, "dropout after the hidden layer");
  cli.add_argument("data.data_dir", data_config.data_dir,
                   "folder with the four Fashion-MNIST *-ubyte.gz files");
  cli.add_argument("data.batch_size", data_config.batch_size, "samples per batch");
  cli.add_argument("data.num_workers", data_config.num_workers,
                   "threads that assemble batches ahead of training (0 = none)");
  cli.add_argument("data.val_size", data_config.val_size,
                   "training images held out for validation");
  fulgur::ModelCheckpointOptions checkpoint;
  int64_t every_n_train_steps = 0;
  cli.add_argument("checkpoint.dirpath", checkpoint.dirpath,
                   "where checkpoints go (empty = <log_dir>/checkpoints)");
  cli.add_argument("checkpoint.every_n_train_steps", every_n_train_steps,
                   "save every N optimizer steps (0 = once per epoch)");
  cli.add_argument("checkpoint.save_last", checkpoint.save_last,
                   "also keep last.ckpt, the newest state (what --ckpt_path=last resumes)");

  switch (cli.parse(argc, argv)) {
    case fulgur::CLIAction::PrintHelp:
      std::cout << cli.help();
      return 0;
    case fulgur::CLIAction::PrintConfig:
      std::cout << cli.config_yaml();
      return 0;
    case fulgur::CLIAction::Run:
      break;
  }

  // Every rank must split and shuffle alike: an unseeded run shares one random seed with the
  // ranks the launcher starts.
  data_config.seed = cli.seed_everything().value_or(fulgur::pick_seed());
  auto trainer_options = cli.trainer_options();
  if (every_n_train_steps > 0) checkpoint.every_n_train_steps = every_n_train_steps;
  const bool custom_checkpoint =
      !checkpoint.dirpath.empty() || checkpoint.save_last || every_n_train_steps > 0;
  if (custom_checkpoint && trainer_options.enable_checkpointing) {
    trainer_options.callbacks.push_back(std::make_shared<fulgur::ModelCheckpoint>(checkpoint));
  }
  fulgur::Trainer trainer(trainer_options);
  auto model = std::make_shared<fashion_mnist::CNNModule>(model_config);
  fashion_mnist::FashionMNISTDataModule data(data_config);

  const auto result =
      fulgur::run_subcommand(cli.subcommand(), trainer, *model, data, cli.ckpt_path());
  if (cli.subcommand() == "predict") {
    const std::string path = write_predictions(result.predictions, trainer.log_dir());
    std::cout << "predictions written to " << path << "\n";
  }
  return 0;
}

// One line, whatever the exception carried (LibTorch's messages span several).
std::string one_line(std::string message) {
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return message;
}

int fail(const std::string& message, int code) {
  std::cout.flush();
  std::cerr << kProgram << ": error: " << one_line(message) << std::endl;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const fulgur::Interrupted& e) {
    std::cout.flush();
    std::cerr << kProgram << ": " << e.what() << std::endl;
    return 128 + e.signal();
  } catch (const fulgur::ConfigError& e) {
    return fail(e.what(), kUsageError);
  } catch (const fulgur::Error& e) {
    return fail(e.what(), kRuntimeFailure);
  } catch (const c10::Error& e) {
    return fail(e.what_without_backtrace(), kRuntimeFailure);
  } catch (const std::exception& e) {
    return fail(e.what(), kRuntimeFailure);
  } catch (...) {
    return fail("unknown failure", kRuntimeFailure);
  }
}
