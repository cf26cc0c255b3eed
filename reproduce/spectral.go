package reproduce

import (
	"fmt"
	"math"

	"github.com/rtnlab/rtn/runs"
)

// spectralTrends are the paper's qualitative findings (Section 5), the
// only "paper figures" there are: the results are plots.
var spectralTrends = map[string]string{
	"ls":       "consistent; less sample-efficient than (T)IHT",
	"nuclear":  "consistent; less sample-efficient than (T)IHT",
	"iht":      "more sample-efficient than LS / nuclear",
	"tiht":     "more sample-efficient than LS / nuclear, tends to beat IHT",
	"tiht+sgd": "almost always improves on TIHT (noisy data)",
	"lstm":     "good on addition, struggles on the random 2-RNN",
}

// runSpectralSection runs a grid of the paper's experiments: quick mode
// N in {640, 1280}, noise std 0.1 and 1, 2 seeds, fine-tuning at most 30
// epochs, the LSTM at N = 1280 only (10 epochs); full mode the paper's
// grid (N from 20 to 20,000, noise 0, 0.1, 1, 5 seeds, 100 epochs) and
// the rank mis-specification runs.
func runSpectralSection(ctx *Context) ([]Row, error) {
	sw := runs.SweepSpec{
		Tasks: []string{"random2rnn", "addition"}, Ns: []int{640, 1280}, Noises: []float64{0.1, 1},
		Methods: []string{"ls", "nuclear", "iht", "tiht", "tiht+sgd"}, Seeds: 2, Seed: ctx.Seed, Epochs: 30, Log: ctx.Log,
	}
	if !ctx.Quick {
		sw.Ns = []int{20, 40, 80, 160, 320, 640, 1280, 2560, 5000, 10000, 20000}
		sw.Noises = []float64{0, 0.1, 1}
		sw.Seeds, sw.Epochs = 5, 100
	}
	reps, err := runs.SpectralSweep(sw)
	if err != nil {
		return nil, err
	}
	// The LSTM baseline costs most: quick mode runs it at N = 1280 only,
	// one seed, at most 10 epochs.
	ls := sw
	ls.Methods = []string{"lstm"}
	if ctx.Quick {
		ls.Ns, ls.Seeds, ls.Epochs = []int{1280}, 1, 10
	}
	lstm, err := runs.SpectralSweep(ls)
	if err != nil {
		return nil, err
	}
	reps = append(reps, lstm...)
	if ctx.Dir != "" {
		if err := runs.WriteSweep(ctx.Dir, "sweep", reps, false); err != nil {
			return nil, err
		}
		if !ctx.Quick {
			rk := sw
			rk.Tasks, rk.Noises, rk.Ranks, rk.Methods, rk.Epochs = []string{"addition"}, []float64{1}, []int{2, 3, 4, 5}, []string{"tiht"}, 0
			ranks, err := runs.SpectralSweep(rk)
			if err != nil {
				return nil, err
			}
			if err := runs.WriteSweep(ctx.Dir, "ranks", ranks, true); err != nil {
				return nil, err
			}
		}
	}
	const at = 1280
	avg := func(task string, noise float64, method string) float64 {
		sum, k := 0.0, 0
		for _, r := range reps {
			if r.Task == task && r.Noise == noise && r.Method == method && r.N == at {
				sum += float64(r.TestMSE)
				k++
			}
		}
		return sum / float64(k)
	}
	var rows []Row
	for _, task := range sw.Tasks {
		for _, noise := range sw.Noises {
			if noise == 0 {
				continue
			}
			for _, m := range append(sw.Methods, "lstm") {
				seeds := sw.Seeds
				if m == "lstm" {
					seeds = ls.Seeds
				}
				rows = append(rows, Row{
					Metric: fmt.Sprintf("%s noise %g: %s test MSE, N=%d", task, noise, m, at),
					Paper:  "plot", Measured: avg(task, noise, m),
					Note: fmt.Sprintf("%s; mean of %d seeds", spectralTrends[m], seeds),
				})
			}
			rows = append(rows,
				Row{
					Metric: fmt.Sprintf("%s noise %g: TIHT+SGD / TIHT MSE, N=%d", task, noise, at),
					Paper:  "< 1", Measured: avg(task, noise, "tiht+sgd") / avg(task, noise, "tiht"),
					Note: "fine-tuning with Adam 0.001 helps", Headline: noise == 1,
				},
				Row{
					Metric: fmt.Sprintf("%s noise %g: min(IHT,TIHT) / min(LS,nuclear) MSE, N=%d", task, noise, at),
					Paper:  "< 1",
					Measured: math.Min(avg(task, noise, "iht"), avg(task, noise, "tiht")) /
						math.Min(avg(task, noise, "ls"), avg(task, noise, "nuclear")),
					Note: "low-rank recovery is more sample-efficient", Headline: noise == 1,
				})
		}
	}
	return rows, nil
}
