"""Replays the runs of `go run ./scripts/torch-optim` (JSON on stdin) with
torch.optim in float64 and prints, per run and overall, the largest
absolute difference between rtn's parameters and PyTorch's after each of
the steps.

    go run ./scripts/torch-optim | python3 scripts/torch-optim/check.py
"""
import json
import sys

import torch


def main():
    # float64 throughout, including state torch.optim creates with the
    # default dtype (NAdam's product of momenta).
    torch.set_default_dtype(torch.float64)
    runs = json.load(sys.stdin)
    worst = 0.0
    for r in runs:
        ps = [torch.tensor(t["data"], dtype=torch.float64).reshape(t["shape"]).requires_grad_()
              for t in r["start"]]
        kw = dict(r["torch_kwargs"])
        if "betas" in kw:
            kw["betas"] = tuple(kw["betas"])
        if r["torch"] == "NAdam" and int(torch.__version__.split(".")[0]) < 2:
            # Before torch 2.0 the default single-tensor NAdam counted
            # mu_t twice in the product of the next momentum (fixed by
            # pytorch/pytorch#92699); the foreach code path was right.
            kw["foreach"] = True
        opt = getattr(torch.optim, r["torch"])(ps, **kw)
        diff = 0.0
        for grads, after in zip(r["grads"], r["after"]):
            for p, g in zip(ps, grads):
                p.grad = torch.tensor(g["data"], dtype=torch.float64).reshape(g["shape"])
            opt.step()
            for p, a in zip(ps, after):
                want = torch.tensor(a["data"], dtype=torch.float64).reshape(a["shape"])
                diff = max(diff, (p.detach() - want).abs().max().item())
        worst = max(worst, diff)
        print(f"{r['optimizer']:6s} torch.optim.{r['torch']}({kw}): "
              f"max |rtn - torch| over {len(r['grads'])} steps = {diff:.3g}")
    print(f"torch {torch.__version__}: largest difference {worst:.3g}")


if __name__ == "__main__":
    main()
