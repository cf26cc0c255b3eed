package reproduce

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/runs"
)

// runRNNLSTM trains an Elman RNN and an LSTM with Adam on the built-in
// PFA next-symbol task and compares their validation loss with the exact
// optimum (the true automaton's loss) and the uniform predictor.
func runRNNLSTM(ctx *Context) ([]Row, error) {
	epochs := 30
	if ctx.Quick {
		epochs = 10
	}
	var (
		rows   []Row
		curves []report.Series
		csv    [][]string
		opt    float64
		unif   float64
	)
	for _, model := range []string{"rnn", "lstm"} {
		spec := runs.TrainSpec{
			Model: model, Hidden: 32, Optimizer: "adam", Optim: optim.Config{LR: 0.01},
			Epochs: epochs, Batch: 32, Seed: ctx.Seed, Progress: ctx.Progress,
		}
		if ctx.Dir != "" {
			spec.Out = filepath.Join(ctx.Dir, model)
		}
		rep, err := runs.Train(spec)
		if err != nil {
			return nil, err
		}
		opt, unif = *rep.OptimalLoss, *rep.UniformLoss
		fmt.Fprintf(ctx.Log, "%s: valid %.4f nats/symbol (optimum %.4f, uniform %.4f) in %.1fs\n",
			model, rep.ValidLoss, opt, unif, rep.Seconds)
		rows = append(rows, Row{
			Metric: model + " valid NLL (nats/symbol)", Paper: "n/a", Measured: float64(rep.ValidLoss), Headline: model == "lstm",
			Note: fmt.Sprintf("%d epochs, Adam 0.01, H=32", rep.Epochs),
		})
		s := report.Series{Name: model}
		for _, h := range rep.History {
			s.X = append(s.X, float64(h.Epoch))
			s.Y = append(s.Y, h.ValidLoss)
			csv = append(csv, []string{model, strconv.Itoa(h.Epoch), report.Ftoa(h.TrainLoss), report.Ftoa(h.ValidLoss)})
		}
		curves = append(curves, s)
	}
	rows = append(rows,
		Row{Metric: "optimal NLL (true automaton)", Paper: "n/a", Measured: opt, Note: "exact, lower bound", Headline: true},
		Row{Metric: "uniform NLL", Paper: "n/a", Measured: unif, Note: "log |alphabet|"})
	if ctx.Dir != "" {
		if err := report.WriteCSV(filepath.Join(ctx.Dir, "curves.csv"), []string{"model", "epoch", "train_loss", "valid_loss"}, csv); err != nil {
			return nil, err
		}
		if err := report.LinePlot(filepath.Join(ctx.Dir, "curves.png"), "Built-in automaton task", "epoch",
			"validation NLL (nats/symbol)", curves, []report.HLine{{Name: "optimum", Y: opt}, {Name: "uniform", Y: unif}}); err != nil {
			return nil, err
		}
	}
	return rows, nil
}
