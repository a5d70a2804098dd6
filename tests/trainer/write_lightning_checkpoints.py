"""Trains as PyTorch Lightning 2.6.5's fit loop does and writes the checkpoints it would write,
laid out key for key as Lightning's CheckpointConnector.dump_checkpoint does, with torch.save.
(Lightning itself is not installed here; this follows its loops' source: loops/fit_loop.py,
loops/training_epoch_loop.py, loops/progress.py, callbacks/model_checkpoint.py.)

Usage: python3 write_lightning_checkpoints.py OUT_DIR

The run: 16 samples in batches of 4 (a plain, unshuffled DataLoader, so no loader state in the
checkpoint), Net below, Adam(lr=0.05) with StepLR(step_size=1, gamma=0.5) at epoch interval,
max_steps=12, no validation. Two ModelCheckpoints: every_n_train_steps=2 (save_top_k=-1) and
Lightning's default one (every epoch). Writes into OUT_DIR:
  step=2.ckpt          from on_train_batch_end of global step 2 (the steps stop saving at 6)
  step=6.ckpt          from on_train_batch_end of global step 6 (epoch 1, its 2nd batch)
  step=4.ckpt          from on_train_batch_end of step 4, the last batch of epoch 0
  epoch=0.ckpt         from on_train_epoch_end of epoch 0 (the default ModelCheckpoint)
  expected.pt          x, y, the loss of every step, the parameters and the lr after step 12
"""
import os
import sys

import torch

N_SAMPLES, BATCH, MAX_STEPS = 16, 4, 12
BATCHES = N_SAMPLES // BATCH


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Progress:
    """Lightning's _Progress: `total` and `current` trackers of the given fields."""

    def __init__(self, fields=("ready", "started", "processed", "completed")):
        self.total = dict.fromkeys(fields, 0)
        self.current = dict.fromkeys(fields, 0)

    def inc(self, field):
        self.total[field] += 1
        self.current[field] += 1

    def reset_current(self):
        self.current = dict.fromkeys(self.current, 0)

    def state(self, **extra):
        return {"total": dict(self.total), "current": dict(self.current), **extra}


def model_checkpoint_key(every_n_train_steps, every_n_epochs):
    return ("ModelCheckpoint{'monitor': None, 'mode': 'min', "
            f"'every_n_train_steps': {every_n_train_steps}, 'every_n_epochs': {every_n_epochs}, "
            "'train_time_interval': None}")


def model_checkpoint_state(out_dir, best_path):
    return {"monitor": None, "best_model_score": None, "best_model_path": best_path,
            "current_score": None, "dirpath": out_dir, "best_k_models": {},
            "kth_best_model_path": "", "kth_value": torch.tensor(float("inf")),
            "last_model_path": ""}


def main(out_dir):
    torch.manual_seed(0)
    x = torch.randn(N_SAMPLES, 4)
    y = (x * torch.tensor([0.5, -1.0, 2.0, 0.25])).sum(1, keepdim=True)
    torch.manual_seed(1)
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)

    epoch_progress = Progress()
    batch_progress = Progress()
    scheduler_progress = Progress(("ready", "completed"))
    step_progress = Progress(("ready", "completed"))
    zero_grad_progress = Progress(("ready", "started", "completed"))
    batches_that_stepped = 0
    is_last_batch = False
    saved = {"steps": "", "epochs": ""}
    losses = []

    def evaluation_loop():
        return {"state_dict": {},
                "batch_progress": Progress().state(is_last_batch=False)}

    def checkpoint():
        fit_loop = {
            "state_dict": {},  # a plain DataLoader is not _Stateful: no "combined_loader"
            "epoch_progress": epoch_progress.state(),
            "epoch_loop.state_dict": {"_batches_that_stepped": batches_that_stepped},
            "epoch_loop.batch_progress": batch_progress.state(is_last_batch=is_last_batch),
            "epoch_loop.scheduler_progress": scheduler_progress.state(),
            "epoch_loop.automatic_optimization.state_dict": {},
            "epoch_loop.automatic_optimization.optim_progress": {
                "optimizer": {"step": step_progress.state(),
                              "zero_grad": zero_grad_progress.state()}},
            "epoch_loop.manual_optimization.state_dict": {},
            "epoch_loop.manual_optimization.optim_step_progress":
                Progress(("ready", "completed")).state(),
            "epoch_loop.val_loop.state_dict": {},
            "epoch_loop.val_loop.batch_progress": Progress().state(is_last_batch=False),
        }
        return {
            "epoch": epoch_progress.current["completed"],
            "global_step": step_progress.total["completed"],
            "pytorch-lightning_version": "2.6.5",
            "state_dict": model.state_dict(),
            "loops": {"fit_loop": fit_loop, "validate_loop": evaluation_loop(),
                      "test_loop": evaluation_loop(),
                      "predict_loop": {"state_dict": {}, "batch_progress": Progress().state()}},
            "callbacks": {
                model_checkpoint_key(2, 0): model_checkpoint_state(out_dir, saved["steps"]),
                model_checkpoint_key(0, 1): model_checkpoint_state(out_dir, saved["epochs"]),
            },
            "optimizer_states": [optimizer.state_dict()],
            "lr_schedulers": [scheduler.state_dict()],
        }

    def save(name, which):
        path = os.path.join(out_dir, name)
        saved[which] = path
        torch.save(checkpoint(), path)

    epoch = 0
    while step_progress.total["completed"] < MAX_STEPS:
        epoch_progress.inc("ready")
        epoch_progress.inc("started")  # on_train_epoch_start runs between these
        for progress in (batch_progress, scheduler_progress, step_progress, zero_grad_progress):
            progress.reset_current()
        for i in range(BATCHES):
            if step_progress.total["completed"] >= MAX_STEPS:
                break
            is_last_batch = i == BATCHES - 1
            xb, yb = x[i * BATCH:(i + 1) * BATCH], y[i * BATCH:(i + 1) * BATCH]
            batch_progress.inc("ready")
            batch_progress.inc("started")
            # optimizer.step(closure); the closure runs training_step, zero_grad, backward.
            step_progress.inc("ready")
            loss = torch.nn.functional.mse_loss(model(xb), yb)
            losses.append(loss.item())
            for field in ("ready", "started"):
                zero_grad_progress.inc(field)
            optimizer.zero_grad()
            zero_grad_progress.inc("completed")
            loss.backward()
            optimizer.step()
            step_progress.inc("completed")
            batch_progress.inc("processed")
            if is_last_batch:  # epoch-interval schedulers step with the epoch's last batch
                scheduler_progress.inc("ready")
                scheduler.step()
                scheduler_progress.inc("completed")
            step = step_progress.total["completed"]
            if step % 2 == 0 and step <= 6:  # on_train_batch_end: every_n_train_steps=2
                save(f"step={step}.ckpt", "steps")
            batch_progress.inc("completed")
            batches_that_stepped += 1  # on_advance_end, after validation
        epoch_progress.inc("processed")
        if epoch == 0:  # on_train_epoch_end: the default ModelCheckpoint saves
            save("epoch=0.ckpt", "epochs")
        epoch_progress.inc("completed")
        epoch += 1

    torch.save({"x": x, "y": y, "losses": torch.tensor(losses, dtype=torch.float64),
                "params": {k: v for k, v in model.state_dict().items()},
                "lr": optimizer.param_groups[0]["lr"]},
               os.path.join(out_dir, "expected.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
