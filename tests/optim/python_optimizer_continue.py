"""Continues, in Python's torch.optim, a training run that fulgur checkpointed, and compares the
result with what fulgur computed when it continued the same run itself.

Usage: python3 python_optimizer_continue.py CHECKPOINT [CHECKPOINT ...]

Each checkpoint (written by tests/optim/optimizer_state_test.cpp) holds:
  "optimizer"          the torch.optim class name: "SGD", "Adam", "AdamW", "Adagrad", "RMSprop"
  "state_dict"         the model's parameters, named as in Net below (fc1.weight, ...)
  "optimizer_states"   [fulgur's optimizer state in torch.optim's state_dict layout]
  "x", "y"             the data of every step
  "steps"              how many steps fulgur ran after saving
  "expected_output"    the model's outputs on x when the checkpoint was written
  "expected_losses"    the losses of those steps
  "expected_params"    the parameters after them

Prints one line per checkpoint and exits 0 when every value matches within TOLERANCE, 1 otherwise.
"""
import sys

import torch
import torch.nn.functional as F

TOLERANCE = 1e-6


class Net(torch.nn.Module):
    """The C++ test's Net: register_module("fc1", Linear(4, 8)), relu, ("fc2", Linear(8, 2))."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def max_abs_diff(a, b):
    if a.shape != b.shape:
        return float("inf")
    return (a - b).abs().max().item() if a.numel() else 0.0


def check(path):
    """Returns (kind, line, ok)."""
    ckpt = torch.load(path)
    kind = ckpt["optimizer"]
    failures = []

    model = Net()
    model.load_state_dict(ckpt["state_dict"], strict=True)
    x, y = ckpt["x"], ckpt["y"]
    with torch.no_grad():
        output_diff = max_abs_diff(model(x), ckpt["expected_output"])
    if not output_diff <= TOLERANCE:
        failures.append(f"outputs differ by {output_diff:.3g}")

    # Groups as fulgur saved them: its parameter numbers count the model's parameters in order.
    # The hyperparameters given here are all replaced by load_state_dict.
    saved = ckpt["optimizer_states"][0]
    params = list(model.parameters())
    groups, start = [], 0
    for group in saved["param_groups"]:
        groups.append({"params": params[start:start + len(group["params"])]})
        start += len(group["params"])
    optimizer = getattr(torch.optim, kind)(groups, lr=123.0)
    optimizer.load_state_dict(saved)

    losses = []
    for _ in range(ckpt["steps"]):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    expected_losses = list(ckpt["expected_losses"])
    loss_diff = max((abs(a - b) for a, b in zip(losses, expected_losses)), default=0.0)
    if len(losses) != len(expected_losses) or not loss_diff <= TOLERANCE:
        failures.append(f"losses {losses} but fulgur's were {expected_losses}")

    param_diff = 0.0
    for name, param in model.named_parameters():
        diff = max_abs_diff(param.detach(), ckpt["expected_params"][name])
        param_diff = max(param_diff, diff)
        if not diff <= TOLERANCE:
            failures.append(f"{name} differs by {diff:.3g}")

    line = (f"{kind}: outputs max diff {output_diff:.3g}, losses max diff {loss_diff:.3g}, "
            f"parameters max diff {param_diff:.3g} after {len(losses)} steps: ")
    line += "OK" if not failures else "FAILED (" + "; ".join(failures) + ")"
    return line, not failures


def main(paths):
    ok = True
    for path in paths:
        line, good = check(path)
        print(line)
        ok = ok and good
    print("python torch.optim continued every checkpoint like fulgur" if ok
          else "python torch.optim did NOT continue like fulgur")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
