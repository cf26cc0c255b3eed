"""One training step (forward, backpropagation through time, Adam) of the
models `rtn bench` times, in PyTorch on one thread, at the same sizes.

Usage: python3 bench/torch_step.py [--batch 32 --in 88 --hidden 100
--steps 100 --reps 5 --dtype float64 --only rnn-step,lstm-step,gru-step]

Prints one JSON object: {"results": [{"name", "ms_per_step", "setup_seconds"}],
"torch": version, "threads": 1, "dtype": ...}. Exits 0 with a message on
stderr when PyTorch is not installed (it is optional).
"""
import argparse
import json
import sys
import time

try:
    import torch
except ImportError:
    print("torch_step.py: PyTorch is not installed; skipping "
          "(apt-get install python3-torch libopenblas0-pthread)", file=sys.stderr)
    sys.exit(0)


class Seq(torch.nn.Module):
    """A recurrent layer with a linear read-out, as rtn's layers.Sequence."""

    def __init__(self, kind, n_in, hidden):
        super().__init__()
        cls = {"rnn-step": torch.nn.RNN, "lstm-step": torch.nn.LSTM, "gru-step": torch.nn.GRU}[kind]
        self.rnn = cls(n_in, hidden)  # time-major [T, B, in]
        self.out = torch.nn.Linear(hidden, n_in)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.out(h)


def bench(kind, a, dtype):
    g = torch.Generator().manual_seed(1)
    x = torch.randint(0, 2, (a.steps, a.batch, a.n_in), generator=g).to(dtype)
    y = torch.randint(0, 2, (a.steps, a.batch, a.n_in), generator=g).to(dtype)
    t0 = time.perf_counter()
    model = Seq(kind, a.n_in, a.hidden).to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="sum")
    setup = time.perf_counter() - t0

    def step():
        opt.zero_grad()
        # mean over steps of the summed Bernoulli NLL of a frame, as rtn
        loss = loss_fn(model(x), y) / (a.steps * a.batch)
        loss.backward()
        opt.step()

    step()  # warm-up
    t1 = time.perf_counter()
    for _ in range(a.reps):
        step()
    per = (time.perf_counter() - t1) / a.reps
    return {"name": kind, "ms_per_step": per * 1000, "setup_seconds": setup}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--in", dest="n_in", type=int, default=88)
    p.add_argument("--hidden", type=int, default=100)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--only", default="rnn-step,lstm-step,gru-step")
    a = p.parse_args()
    torch.set_num_threads(1)
    dtype = getattr(torch, a.dtype)
    res = [bench(k, a, dtype) for k in a.only.split(",") if k]
    print(json.dumps({"results": res, "torch": torch.__version__, "threads": torch.get_num_threads(), "dtype": a.dtype}))


if __name__ == "__main__":
    main()
