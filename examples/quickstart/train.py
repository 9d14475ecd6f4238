"""Fit a tiny MLP to two noisy half-moons on the CPU: the training code a researcher writes.

Run it through `labledger run`, which sets LABLEDGER_RUN and LABLEDGER_ROOT; the only labledger
call is `save_checkpoint`, which saves atomically, stores the bytes in the content store and
records `checkpoint.saved`. Everything else is plain PyTorch writing the canonical capsule:

    active/<run>/run.json  config.yaml  train.csv  best.pth  last.pth
                 test/heldout/metrics.json  test/heldout/results.parquet

Deterministic: the data comes from --data-seed (the same splits for every run), the model's
initialisation from --seed, and torch uses one thread.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

with warnings.catch_warnings():  # the CPU wheel warns when numpy is absent; it is not needed
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch
    from torch import nn

from labledger.ingest import save_checkpoint


def two_moons(n: int, noise: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """n points on two interleaved half circles with Gaussian noise, labels 0 and 1, shuffled."""
    g = torch.Generator().manual_seed(seed)
    t = torch.rand(n, generator=g) * math.pi
    label = torch.arange(n) % 2
    x = torch.where(label == 0, torch.cos(t), 1 - torch.cos(t))
    y = torch.where(label == 0, torch.sin(t), 0.5 - torch.sin(t))
    points = torch.stack([x, y], dim=1) + noise * torch.randn(n, 2, generator=g)
    order = torch.randperm(n, generator=g)
    return points[order], label[order]


def sha256_of(t: torch.Tensor) -> str:
    return hashlib.sha256(bytes(t.contiguous().view(torch.uint8).flatten().tolist())).hexdigest()


def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """(mean cross-entropy, accuracy) of ``model`` on (x, y)."""
    with torch.no_grad():
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y).item()
        accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    return loss, accuracy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="model initialisation seed")
    parser.add_argument("--data-seed", type=int, default=7, help="data (and split) seed")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--noise", type=float, default=0.2)
    parser.add_argument("--eval-every", type=int, default=20)
    parser.add_argument("--out", help="capsule folder (default: active/$LABLEDGER_RUN)")
    args = parser.parse_args()
    run = os.environ.get("LABLEDGER_RUN", "local")
    out = Path(args.out or f"active/{run}")
    (out / "test" / "heldout").mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)

    # 1000 points: 600 train, 200 validation (checkpoint selection), 200 test (reported once).
    x, y = two_moons(1000, args.noise, args.data_seed)
    splits = {"train": (x[:600], y[:600]), "val": (x[600:800], y[600:800]),
              "test": (x[800:], y[800:])}
    (x_train, y_train), (x_val, y_val), (x_test, y_test) = splits.values()

    torch.manual_seed(args.seed)
    model = nn.Sequential(nn.Linear(2, args.hidden), nn.Tanh(),
                          nn.Linear(args.hidden, args.hidden), nn.Tanh(),
                          nn.Linear(args.hidden, 2))
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    config = {k: v for k, v in vars(args).items() if k != "out"}
    (out / "config.yaml").write_text("".join(f"{k}: {v}\n" for k, v in config.items()))

    best_loss, best_step, best_acc, best_state = math.inf, 0, 0.0, model.state_dict()
    with open(out / "train.csv", "w", newline="") as fh:
        history = csv.writer(fh)
        history.writerow(["step", "train_loss", "val_loss", "val_accuracy"])
        for step in range(1, args.steps + 1):
            optimiser.zero_grad()
            loss = nn.functional.cross_entropy(model(x_train), y_train)
            loss.backward()
            optimiser.step()
            if step % args.eval_every:
                continue
            val_loss, val_acc = evaluate(model, x_val, y_val)
            history.writerow([step, f"{loss.item():.6f}", f"{val_loss:.6f}", f"{val_acc:.4f}"])
            if step % 100 == 0:
                print(f"step {step:4d}  train_loss {loss.item():.4f}  val_loss {val_loss:.4f}  "
                      f"val_accuracy {val_acc:.3f}", flush=True)
            if val_loss < best_loss:
                best_loss, best_step, best_acc = val_loss, step, val_acc
                best_state = {k: v.clone() for k, v in model.state_dict().items()}
    # Two checkpoints, each saved once: every recorded checkpoint is an artifact the teardown
    # gate expects to find pulled, so a file overwritten on improvement would leave superseded
    # digests behind that no pull can fetch. A long run would also save a rolling resume
    # anchor; this one takes seconds.
    save_checkpoint({"model_state_dict": best_state, "step": best_step}, out / "best.pth",
                    step=best_step, role="best",
                    metrics={"val_loss": best_loss, "val_accuracy": best_acc})
    save_checkpoint({"model_state_dict": model.state_dict(), "step": args.steps},
                    out / "last.pth", step=args.steps, role="last",
                    metrics={"val_loss": val_loss, "val_accuracy": val_acc})

    # The selected checkpoint, loaded back from disk, is evaluated once on the test split.
    best = torch.load(out / "best.pth", map_location="cpu", weights_only=True)
    model.load_state_dict(best["model_state_dict"])
    test_loss, test_acc = evaluate(model, x_test, y_test)
    with torch.no_grad():
        p1 = model(x_test).softmax(dim=1)[:, 1]
    metrics = {"accuracy": round(test_acc, 4), "loss": round(test_loss, 4),
               "n": len(y_test), "split": "test", "seed": args.seed, "checkpoint": "best.pth",
               "step": best_step}
    (out / "test" / "heldout" / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    pq.write_table(pa.table({
        "id": list(range(800, 1000)),
        "x0": x_test[:, 0].tolist(), "x1": x_test[:, 1].tolist(),
        "label": y_test.tolist(), "pred": (p1 > 0.5).long().tolist(), "p1": p1.tolist(),
    }), out / "test" / "heldout" / "results.parquet")
    run_json = {
        "run_id": run,
        "created_at_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "task": "two-moons binary classification",
        "model": f"MLP 2-{args.hidden}-{args.hidden}-2, tanh",
        "protocol": "fit on train; select the checkpoint with the lowest validation loss; "
                    "evaluate it once on test",
        "seed": args.seed,
        "data": {"generator": "two_moons", "n": 1000, "noise": args.noise,
                 "data_seed": args.data_seed,
                 "splits": {name: {"n": len(ys), "sha256": sha256_of(xs)}
                            for name, (xs, ys) in splits.items()}},
        "checkpoint_selection": {"file": "best.pth", "metric": "val_loss",
                                 "direction": "lower", "step": best_step,
                                 "value": round(best_loss, 6)},
    }
    (out / "run.json").write_text(json.dumps(run_json, indent=2) + "\n")
    print(f"selected step {best_step} (val_loss {best_loss:.4f}); test accuracy {test_acc:.3f} "
          f"on {len(y_test)} held-out points", flush=True)


if __name__ == "__main__":
    main()
