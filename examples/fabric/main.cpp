// A hand-written LibTorch training loop moved onto fulgur::Fabric. The lines marked `// Fabric`
// are all that changed from the plain loop (which called torch::manual_seed, looped over a
// DataLoader, called loss.backward() and optimizer->step()); with them the same loop runs on
// the strategies, devices and precisions the Trainer has:
//   fabric-example --strategy ddp --devices 2 --batch-size 16 --steps 60 --out run
// It trains a small classifier on synthetic data and writes <out>/final.ckpt (Fabric::save)
// and <out>/weights.txt (every parameter value, for the tests' equivalence check).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"
#include "fulgur/fabric/fabric.h"

namespace {

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(20, 32));
    fc2 = register_module("fc2", torch::nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

// 512 samples, 4 classes a linear rule separates; the same on every rank.
std::shared_ptr<fulgur::DataLoader> make_loader(int64_t batch_size) {
  auto generator = at::detail::createCPUGenerator(1234);
  auto x = at::randn({512, 20}, generator);
  auto y = x.matmul(at::randn({20, 4}, generator)).argmax(1);
  return std::make_shared<fulgur::DataLoader>(
      std::make_shared<fulgur::TensorDataset>(x, y),
      fulgur::DataLoaderOptions{.batch_size = batch_size, .shuffle = true, .seed = 7});
}

struct Args {
  std::string strategy = "auto";
  int devices = 1;
  std::string precision = "32-true";
  int64_t batch_size = 32;
  int64_t steps = 60;
  std::string out = ".";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--strategy") a.strategy = value;
    else if (key == "--devices") a.devices = std::stoi(value);
    else if (key == "--precision") a.precision = value;
    else if (key == "--batch-size") a.batch_size = std::stoll(value);
    else if (key == "--steps") a.steps = std::stoll(value);
    else if (key == "--out") a.out = value;
    else throw fulgur::ConfigError("unknown option " + key);
  }
  return a;
}

void write_weights(const Net& model, const std::string& path) {
  std::ofstream out(path);
  for (const auto& p : model->named_parameters()) {
    const auto values = p.value().detach().to(torch::kCPU, torch::kDouble).flatten();
    for (int64_t i = 0; i < values.numel(); ++i) out << fmt::format("{} {:.9g}\n", p.key(), values[i].item<double>());
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse(argc, argv);
    fulgur::Fabric fabric({.accelerator = "cpu", .strategy = args.strategy,  // Fabric
                           .devices = args.devices, .precision = args.precision});
    fabric.launch([&](fulgur::Fabric& fabric) {  // Fabric
      fulgur::Fabric::seed_everything(42);        // Fabric (was torch::manual_seed(42))
      Net model;
      auto optimizer = fabric.setup(*model, std::make_shared<torch::optim::SGD>(  // Fabric
          model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9)));
      auto loader = fabric.setup_dataloaders(make_loader(args.batch_size));  // Fabric
      int64_t step = 0;
      for (int64_t epoch = 0; step < args.steps; ++epoch) {
        loader.set_epoch(epoch);
        for (auto& batch : loader) {
          optimizer->zero_grad();
          auto loss = torch::nn::functional::cross_entropy(model->forward(batch.data), batch.target);
          fabric.backward(loss);  // Fabric (was loss.backward())
          optimizer->step();
          // all_reduce is a collective: every rank calls it, rank 0 prints.
          const double mean_loss = fabric.all_reduce(loss.detach()).item<double>();
          if (++step % 20 == 0) fabric.print(fmt::format("step {} loss {:.4f}", step, mean_loss));
          if (step == args.steps) break;
        }
      }
      std::filesystem::create_directories(args.out);
      fabric.save(args.out + "/final.ckpt", {.modules = {{"model", model.get()}},
                                             .optimizers = {{"optimizer", &optimizer->optimizer()}},
                                             .values = {{"step", step}}});
      if (fabric.is_global_zero()) write_weights(model, args.out + "/weights.txt");
      fabric.print(fmt::format("rank 0 of {} done after {} steps", fabric.world_size(), step));
    });
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "fabric-example: error: " << error.what() << '\n';
    return 1;
  }
}
