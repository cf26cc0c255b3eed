"""One training step (forward, backpropagation through time, Adam) of the
models `rtn bench` times, in PyTorch on one thread, at the same sizes and
on the same kind of data (see bench/doc.go).

Usage: python3 bench/torch_step.py [--batch 32 --in 88 --hidden 100
--steps 50,100,1000 --reps 5 --dtype float64 --only rnn-step,...]

Prints one JSON object: {"results": [{"name", "steps", "ms_per_step",
"ms_per_time_step", "cpu_ms_per_step", "setup_seconds"}], "torch": version, "threads": 1,
"dtype": ...}. Exits 0 with a message on stderr when PyTorch is not
installed (it is optional).
"""
import argparse
import json
import math
import os
import sys
import time

# One thread: torch.set_num_threads(a.threads) alone leaves an OpenBLAS-backed
# build's own threads running, so pin them before torch loads.
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

try:
    import torch
except ImportError:
    print("torch_step.py: PyTorch is not installed; skipping "
          "(apt-get install python3-torch libopenblas0-pthread)", file=sys.stderr)
    sys.exit(0)

TWO_RNN_IN = 10  # bench/models.go; its states are --hidden // 2 (twoRNNStates)
UMPS_SYMBOLS = 2
WFA_SYMBOLS, WFA_RATE = 10, 1e-5  # bench/models.go
COND_FLOOR = 1e-12  # condFloor of wfa/finetune.go
MPS_SYMBOLS, MPS_BOND = 10, 50  # bench/models.go
HOT_LAGS, HOT_RANK = 2, 4  # bench/models.go (tensorcell's defaults)
MPS_EPS = 1e-12  # mpsEps of layers/tensorcell/mpscell.go
# the benchmarks --hidden sizes (bench.RunSizes: Result.Hidden)
HIDDEN_SIZED = {"rnn-step", "lstm-step", "gru-step", "ugru-step", "2rnn-step", "cp2rnn-step", "hotrnn-step",
                "hotrnn3-step", "mirnn-step"}
NAMES = ["rnn-step", "lstm-step", "gru-step", "ugru-step", "2rnn-step", "cp2rnn-step", "hotrnn-step",
         "hotrnn3-step", "mirnn-step", "mpscell-step", "umps-d20-step", "umps-d50-step", "wfa-n50-step",
         "wfa-n150-step"]


class Seq(torch.nn.Module):
    """A recurrent layer with a linear read-out, as rtn's layers.Sequence."""

    def __init__(self, kind, n_in, hidden):
        super().__init__()
        # ugru-step is rtn's GRU written as a user cell (no kernel): the same model
        cls = {"rnn-step": torch.nn.RNN, "lstm-step": torch.nn.LSTM, "gru-step": torch.nn.GRU,
               "ugru-step": torch.nn.GRU}[kind]
        self.rnn = cls(n_in, hidden)  # time-major [T, B, in]
        self.out = torch.nn.Linear(hidden, n_in)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.out(h)


class TwoRNN(torch.nn.Module):
    """The bilinear 2-RNN of layers/twornn, h_t[j] = tanh(sum_{i,c}
    h_{t-1}[i] x_t[c] A[i,c,j]) from a learned h_0, with a linear read-out."""

    def __init__(self, n_in, states):
        super().__init__()
        self.n_in, self.states = n_in, states
        self.A = torch.nn.Parameter(torch.randn(states, n_in * states) / (n_in * states) ** 0.5)
        self.h0 = torch.nn.Parameter(torch.randn(states))
        self.out = torch.nn.Linear(states, n_in)

    def forward(self, x):
        T, B, _ = x.shape
        h = self.h0.expand(B, self.states)
        hs = []
        for t in range(T):
            z = (h @ self.A).view(B, self.n_in, self.states)
            h = torch.tanh(torch.bmm(x[t].unsqueeze(1), z).squeeze(1))
            hs.append(h)
        return self.out(torch.stack(hs))


def normal(*shape, std=1.0):
    return torch.nn.Parameter(torch.randn(*shape) * std)


def uniform(*shape, bound):
    return torch.nn.Parameter(torch.empty(*shape).uniform_(-bound, bound))


class CP2RNN(torch.nn.Module):
    """The 2-RNN with a rank-R CP transition tensor (layers/tensorcell,
    cp2rnn.go): h_t = tanh(((h_{t-1} F1) * (x_t F2)) O + b) from a learned
    h_0, with a linear read-out."""

    def __init__(self, n_in, hidden, rank):
        super().__init__()
        s = (1 / (hidden * n_in * rank)) ** (1 / 6)  # decomp.CP's factor scale
        self.F1, self.F2, self.O = normal(hidden, rank, std=s), normal(n_in, rank, std=s), normal(rank, hidden, std=s)
        self.b = torch.nn.Parameter(torch.zeros(hidden))
        self.h0 = normal(hidden)
        self.out = torch.nn.Linear(hidden, n_in)

    def forward(self, x):
        T, B, _ = x.shape
        # the input's factor, every step at once (unbind, not xf[t]: the
        # backward of an index writes a whole [T, B, R] zero tensor per step)
        xf = x @ self.F2
        h = self.h0.expand(B, -1)
        hs = []
        for xt in xf.unbind(0):
            h = torch.tanh(((h @ self.F1) * xt) @ self.O + self.b)
            hs.append(h)
        return self.out(torch.stack(hs))


class HOTRNN(torch.nn.Module):
    """The higher-order tensor-train RNN of Yu et al. (2017) as
    layers/tensorcell/hotrnn.go builds it: s_t = [1, h_{t-1}, ..., h_{t-L}],
    h_t = tanh(x_t W + A(s_t, ..., s_t)) with A a tensor train (cores C1
    [D, R], Ck [R, D, R], O [R, H]), contracted core by core with
    torch.einsum; learned initial states, a linear read-out."""

    def __init__(self, n_in, hidden, order, lags, rank):
        super().__init__()
        d = lags * hidden + 1
        s = (d ** -order / rank ** order) ** (1 / (2 * (order + 1)))  # decomp.TT's core scale
        self.W = uniform(n_in, hidden, bound=hidden ** -0.5)
        self.C1 = normal(d, rank, std=s)
        self.C = torch.nn.ParameterList([normal(rank, d, rank, std=s) for _ in range(order - 1)])
        self.O = normal(rank, hidden, std=s)
        self.h0 = torch.nn.Parameter(torch.zeros(lags, hidden))
        self.out = torch.nn.Linear(hidden, n_in)

    def forward(self, x):
        T, B, _ = x.shape
        lagged = list(self.h0.unsqueeze(1).expand(-1, B, -1).unbind(0))  # newest first
        one = torch.ones(B, 1, dtype=x.dtype)
        hs = []
        for xw in (x @ self.W).unbind(0):
            s = torch.cat([one] + lagged, 1)
            z = s @ self.C1
            for c in self.C:
                z = torch.einsum("br,bi,ris->bs", z, s, c)
            h = torch.tanh(xw + z @ self.O)
            lagged = [h] + lagged[:-1]
            hs.append(h)
        return self.out(torch.stack(hs))


class MIRNN(torch.nn.Module):
    """The tanh RNN with multiplicative integration (Wu et al., 2016;
    layers/tensorcell/mirnn.go): h_t = tanh((alpha * Wx + beta1) * Uh +
    beta2 * Wx + b), Wx = x_t W, Uh = h_{t-1} U; a linear read-out."""

    def __init__(self, n_in, hidden):
        super().__init__()
        a = hidden ** -0.5
        self.W, self.U = uniform(n_in, hidden, bound=a), uniform(hidden, hidden, bound=a)
        self.alpha = torch.nn.Parameter(torch.ones(hidden))
        self.beta1 = torch.nn.Parameter(torch.full((hidden,), 0.5))
        self.beta2 = torch.nn.Parameter(torch.full((hidden,), 0.5))
        self.b = torch.nn.Parameter(torch.zeros(hidden))
        self.h0 = torch.nn.Parameter(torch.zeros(hidden))
        self.out = torch.nn.Linear(hidden, n_in)

    def forward(self, x):
        T, B, _ = x.shape
        wx = x @ self.W
        gate, lin = wx * self.alpha + self.beta1, wx * self.beta2 + self.b
        h = self.h0.expand(B, -1)
        hs = []
        for g, l in zip(gate.unbind(0), lin.unbind(0)):
            h = torch.tanh(g * (h @ self.U) + l)
            hs.append(h)
        return self.out(torch.stack(hs))


class MPSCell(torch.nn.Module):
    """A u-MPS step as a recurrent cell (layers/tensorcell/mpscell.go):
    u_t = einsum(bi,bc,icj->bj; h_{t-1}, x_t, A), h_t = u_t / sqrt(|u_t|^2 +
    eps), from a learned h_0, with a softmax read-out."""

    def __init__(self, symbols, bond):
        super().__init__()
        a = torch.eye(bond).unsqueeze(1).repeat(1, symbols, 1) + 0.5 / bond ** 0.5 * torch.randn(bond, symbols, bond)
        self.A = torch.nn.Parameter(a)  # [D, symbols, D]
        self.h0 = normal(bond, std=bond ** -0.5)
        self.out = torch.nn.Linear(bond, symbols)

    def forward(self, x):
        T, B, _ = x.shape
        h = self.h0.expand(B, -1)
        hs = []
        for xt in x.unbind(0):
            u = torch.einsum("bi,bc,icj->bj", h, xt, self.A)
            h = u * torch.rsqrt((u * u).sum(1, keepdim=True) + MPS_EPS)
            hs.append(h)
        return self.out(torch.stack(hs))


class UMPS(torch.nn.Module):
    """A u-MPS Born machine, P_n(s) = f(s)^2 / Z_n with f(s) = alpha^T
    A(s_1) ... A(s_n) omega and Z_n = sum over strings of length n of f^2,
    both computed with a rescaling at every position."""

    def __init__(self, bond, symbols):
        super().__init__()
        a = torch.eye(bond).unsqueeze(1).repeat(1, symbols, 1) + 1e-6 * torch.randn(bond, symbols, bond)
        self.A = torch.nn.Parameter(a)  # [D, d, D]
        self.alpha = torch.nn.Parameter(torch.randn(bond))
        self.omega = torch.nn.Parameter(torch.randn(bond))

    def nll(self, seqs):
        """Mean -log P_n(s) over the strings seqs [B, n] (all of length n)."""
        B, n = seqs.shape
        D, d, _ = self.A.shape
        flat = self.A.reshape(D, d * D)
        rows = torch.arange(B)
        v = self.alpha.expand(B, D)
        log_f = torch.zeros(B, dtype=flat.dtype)
        for t in range(n):
            v = (v @ flat).view(B, d, D)[rows, seqs[:, t]]
            s = v.norm(dim=1, keepdim=True)
            log_f = log_f + torch.log(s.squeeze(1))
            v = v / s
        log_f = log_f + torch.log(torch.abs(v @ self.omega))
        q = torch.outer(self.alpha, self.alpha)
        log_z = torch.zeros((), dtype=flat.dtype)
        for _ in range(n):
            q = torch.einsum("icj,ik,kcl->jl", self.A, q, self.A)
            s = q.norm()
            log_z = log_z + torch.log(s)
            q = q / s
        log_z = log_z + torch.log(self.omega @ q @ self.omega)
        return log_z - 2 * log_f.mean()


class WFA(torch.nn.Module):
    """The linear 2-RNN of a WFA under the loss of rtn's wfa.Likelihood: a
    string costs -sum_t log q_t(x_t) - log q(end), q = |g| / sum |g| with
    g_s = h A_s beta, g_end = h omega, beta = (I - S)^-1 omega, S = sum_s A_s,
    h = alpha^T A_x1 ... rescaled at every position, except that the end
    weight is signed: u = g_end / sum |g| not above COND_FLOOR costs
    -log(COND_FLOOR) (1 - u); +Inf unless the
    spectral radius of S is below 1 (checked on the eigenvalues, as rtn
    does when its cheaper certificate fails). The transition is one product
    with all the symbols' matrices side by side and a gather: per-string
    matrices gathered for torch.bmm were 2 to 19 times slower here."""

    def __init__(self, states, symbols, g, dtype):
        super().__init__()
        A = torch.rand(states, symbols, states, generator=g, dtype=dtype) * 1.2 - 0.2
        A = A * (0.9 / A.sum(1).abs().sum(1).max())
        self.A = torch.nn.Parameter(A)  # [n, d, n], A[i, s, j] = A_s[i, j]
        self.alpha = torch.nn.Parameter(torch.rand(states, generator=g, dtype=dtype))
        self.omega = torch.nn.Parameter(torch.rand(states, generator=g, dtype=dtype) * 0.1 + 0.05)

    def nll(self, seqs):
        """Mean loss of the strings seqs [B, T] (all of length T)."""
        B, T = seqs.shape
        n, d, _ = self.A.shape
        S = self.A.sum(1)
        if torch.linalg.eigvals(S.detach()).abs().max() >= 1:
            return torch.tensor(float("inf"), dtype=S.dtype, requires_grad=True)
        beta = torch.linalg.solve(torch.eye(n, dtype=S.dtype) - S, self.omega)
        m = torch.cat([torch.einsum("isj,j->is", self.A, beta), self.omega[:, None]], 1)
        flat = self.A.reshape(n, d * n)
        rows = torch.arange(B)
        end = torch.full((B, 1), d)
        h = self.alpha.expand(B, n)
        h = h / h.abs().amax(1, keepdim=True).detach()
        loss = torch.zeros((), dtype=S.dtype)
        for t in range(T):
            g = (h @ m).abs()
            loss = loss - torch.log(g.gather(1, seqs[:, t:t + 1]).squeeze(1) / g.sum(1)).sum()
            h = (h @ flat).view(B, d, n)[rows, seqs[:, t]]
            h = h / h.abs().amax(1, keepdim=True).detach()
        g = h @ m
        u = g[:, d] / g.abs().sum(1)
        floor = -math.log(COND_FLOOR)
        loss = loss + torch.where(u > COND_FLOOR, -torch.log(u.clamp(min=COND_FLOOR)), floor - floor * u).sum()
        return loss / B


def setup(kind, a, T, dtype, g):
    """Returns the model and a loss function of it, on data drawn from g."""
    if kind == "2rnn-step":
        data = torch.randn(T + 1, a.batch, TWO_RNN_IN, generator=g, dtype=dtype)
        x, y = data[:-1], data[1:]
        model = TwoRNN(TWO_RNN_IN, max(1, a.hidden // 2)).to(dtype)
        # mean over steps and sequences of the squared error averaged over outputs
        return model, lambda: ((model(x) - y) ** 2).mean(-1).sum() / (T * a.batch)
    if kind.startswith("wfa-n"):
        states = int(kind[len("wfa-n"):-len("-step")])
        seqs = torch.randint(0, WFA_SYMBOLS, (a.batch, T), generator=g)
        model = WFA(states, WFA_SYMBOLS, g, dtype)
        return model, lambda: model.nll(seqs)
    if kind.startswith("umps-d"):
        bond = int(kind[len("umps-d"):-len("-step")])
        seqs = torch.randint(0, UMPS_SYMBOLS, (a.batch, T), generator=g)
        model = UMPS(bond, UMPS_SYMBOLS).to(dtype)
        return model, lambda: model.nll(seqs)
    if kind == "mpscell-step":
        sym = torch.randint(0, MPS_SYMBOLS, (T + 1, a.batch), generator=g)
        x, y = torch.nn.functional.one_hot(sym[:-1], MPS_SYMBOLS).to(dtype), sym[1:]
        model = MPSCell(MPS_SYMBOLS, MPS_BOND).to(dtype)
        ce = torch.nn.CrossEntropyLoss(reduction="sum")
        # mean over steps and sequences of the next symbol's NLL, as rtn
        return model, lambda: ce(model(x).flatten(0, 1), y.flatten()) / (T * a.batch)
    data = torch.randint(0, 2, (T + 1, a.batch, a.n_in), generator=g).to(dtype)
    x, y = data[:-1], data[1:]
    if kind == "cp2rnn-step":
        model = CP2RNN(a.n_in, a.hidden, a.hidden)
    elif kind in ("hotrnn-step", "hotrnn3-step"):
        model = HOTRNN(a.n_in, a.hidden, 3 if kind == "hotrnn3-step" else 2, HOT_LAGS, HOT_RANK)
    elif kind == "mirnn-step":
        model = MIRNN(a.n_in, a.hidden)
    else:
        model = Seq(kind, a.n_in, a.hidden)
    model = model.to(dtype)
    bce = torch.nn.BCEWithLogitsLoss(reduction="sum")
    # mean over steps and sequences of the summed Bernoulli NLL of a frame, as rtn
    return model, lambda: bce(model(x), y) / (T * a.batch)


def bench(kind, a, T, dtype):
    torch.manual_seed(1)
    g = torch.Generator().manual_seed(1)
    t0 = time.perf_counter()
    model, loss_fn = setup(kind, a, T, dtype, g)
    opt = torch.optim.Adam(model.parameters(), lr=WFA_RATE if kind.startswith("wfa-n") else 1e-3)
    setup_s = time.perf_counter() - t0

    def step():
        opt.zero_grad()
        loss_fn().backward()
        opt.step()

    step()  # warm-up
    t1, c1 = time.perf_counter(), time.process_time()
    for _ in range(a.reps):
        step()
    per = (time.perf_counter() - t1) / a.reps * 1000
    cpu = (time.process_time() - c1) / a.reps * 1000
    return {"name": kind, "steps": T, "batch": a.batch, "hidden": a.hidden if kind in HIDDEN_SIZED else 0,
            "ms_per_step": per, "ms_per_time_step": per / T, "cpu_ms_per_step": cpu, "setup_seconds": setup_s}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--in", dest="n_in", type=int, default=88)
    p.add_argument("--hidden", type=int, default=100)
    p.add_argument("--steps", default="50,100,1000")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--only", default=",".join(NAMES))
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    kinds = [k for k in a.only.split(",") if k]
    for k in kinds:
        if k not in NAMES:
            p.error("unknown benchmark %r (known: %s)" % (k, ", ".join(NAMES)))
    torch.set_num_threads(a.threads)
    dtype = getattr(torch, a.dtype)
    steps = [int(s) for s in a.steps.split(",")]
    res = [bench(k, a, T, dtype) for k in kinds for T in steps]
    print(json.dumps({"results": res, "torch": torch.__version__, "threads": torch.get_num_threads(), "dtype": a.dtype}))


if __name__ == "__main__":
    main()
