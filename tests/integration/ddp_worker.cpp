// ddp-worker: one rank of the two-process DDP checks in ddp_test.cpp, started there with
// torchrun's variables. Prints "name=value" lines; exits 1 with one line on stderr on error.
//
//   ddp-worker [--timeout-ms N]
#include <fmt/format.h>
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "fulgur/connectors/accelerator_connector.h"
#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/strategies/ddp.h"

namespace {

// 4 → 3 → 1, mean squared error; the batch's first column block is the input.
class TinyRegression : public fulgur::Module {
 public:
  TinyRegression() : Module("TinyRegression") {
    hidden_ = register_module("hidden", torch::nn::Linear(4, 3));
    out_ = register_module("out", torch::nn::Linear(3, 1));
  }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t) override {
    return torch::mse_loss(out_->forward(torch::tanh(hidden_->forward(batch.data))),
                           batch.target);
  }
  fulgur::OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
  }

 private:
  torch::nn::Linear hidden_{nullptr}, out_{nullptr};
};

std::string flat(const torch::Tensor& t) {
  auto v = t.flatten().to(torch::kFloat64).contiguous();
  std::string out;
  for (int64_t i = 0; i < v.numel(); ++i) {
    out += fmt::format("{}{:.9g}", i ? "," : "", v[i].item<double>());
  }
  return out;
}

torch::Tensor all_parameters(TinyRegression& m) {
  std::vector<torch::Tensor> parts;
  for (const auto& p : m.parameters()) parts.push_back(p.detach().flatten());
  return torch::cat(parts);
}

// Trains `model` for `steps` SGD steps, `micro` micro-batches per step (accumulation), on this
// rank's share of `x`/`y` when `strategy` is given, else on all of it (the reference).
void train(TinyRegression& model, fulgur::Strategy* strategy, const torch::Tensor& x,
           const torch::Tensor& y, int steps, int micro) {
  torch::optim::SGD sgd(model.parameters(), torch::optim::SGDOptions(0.1));
  const int ranks = strategy ? strategy->world_size() : 1;
  const int rank = strategy ? strategy->global_rank() : 0;
  const int64_t per_rank = x.size(0) / ranks;
  const int64_t per_micro = per_rank / micro;
  for (int step = 0; step < steps; ++step) {
    sgd.zero_grad();
    for (int k = 0; k < micro; ++k) {
      fulgur::Batch batch;
      if (strategy == nullptr) {
        // One process: micro-batch k of all the samples; the mean over them, summed over k.
        const int64_t size = x.size(0) / micro;
        batch.data = x.slice(0, k * size, (k + 1) * size);
        batch.target = y.slice(0, k * size, (k + 1) * size);
        (model.training_step(batch, step) / micro).backward();
        continue;
      }
      const int64_t begin = rank * per_rank + k * per_micro;
      batch.data = x.slice(0, begin, begin + per_micro);
      batch.target = y.slice(0, begin, begin + per_micro);
      strategy->set_backward_sync(k == micro - 1);
      auto loss = strategy->training_step(model, batch, step);
      strategy->backward(loss / micro, &model);
    }
    sgd.step();
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    fulgur::DDPOptions options;
    for (int i = 1; i < argc; ++i) {
      if (std::string(argv[i]) == "--timeout-ms" && i + 1 < argc) {
        options.timeout = std::chrono::milliseconds(std::stoll(argv[++i]));
      }
    }
    fulgur::AcceleratorConnector connector(
        {.accelerator = "cpu",
         .strategy = std::make_shared<fulgur::DDPStrategy>(options),
         .devices = 2});
    auto& s = *connector.strategy();
    s.setup_environment();
    const int rank = s.global_rank();
    std::cout << "rank=" << rank << "\nworld_size=" << s.world_size() << '\n';

    // ---- collectives ----
    const auto mine = torch::tensor({rank + 1.0});
    std::cout << "sum=" << s.reduce(mine, fulgur::ReduceOp::Sum).item<double>() << '\n'
              << "mean=" << s.reduce(mine, fulgur::ReduceOp::Mean).item<double>() << '\n'
              << "min=" << s.reduce(mine, fulgur::ReduceOp::Min).item<double>() << '\n'
              << "max=" << s.reduce(mine, fulgur::ReduceOp::Max).item<double>() << '\n';
    const auto gathered = s.all_gather(torch::full({2}, static_cast<double>(rank * 10)));
    std::cout << "gathered=" << flat(torch::cat(gathered)) << '\n';
    std::cout << "broadcast_text=" << s.broadcast(std::string(rank == 0 ? "from zero" : "x"), 0)
              << '\n';
    std::cout << "all_true=" << s.reduce_boolean_decision(rank == 0, /*all=*/true) << '\n'
              << "any_true=" << s.reduce_boolean_decision(rank == 0, /*all=*/false) << '\n';
    s.barrier("collectives");

    // ---- gradients: 2 ranks × 4 samples equal 1 process × 8, with and without accumulation ----
    for (int micro : {1, 2}) {
      torch::manual_seed(100 + rank);  // different weights per rank: setup must unify them
      TinyRegression model;
      s.setup_module(model);
      TinyRegression reference;
      {
        torch::NoGradGuard no_grad;
        auto params = reference.parameters();
        auto source = model.parameters();
        for (size_t i = 0; i < params.size(); ++i) params[i].copy_(source[i]);
      }
      std::cout << "micro" << micro << "_initial=" << flat(all_parameters(model)) << '\n';
      torch::manual_seed(7);  // the same data on every rank
      const auto x = torch::randn({8, 4});
      const auto y = torch::randn({8, 1});
      train(model, &s, x, y, /*steps=*/3, micro);
      train(reference, nullptr, x, y, /*steps=*/3, micro);
      std::cout << "micro" << micro << "_final=" << flat(all_parameters(model)) << '\n'
                << "micro" << micro << "_max_diff="
                << (all_parameters(model) - all_parameters(reference)).abs().max().item<double>()
                << '\n';
    }
    s.teardown();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ddp-worker: error: " << e.what() << '\n';
    return 1;
  }
}
