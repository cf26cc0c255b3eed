package optim_test

import (
	"fmt"
	"log"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// meanProblem fits one number a to the data by least squares,
// loss 0.5 (a − y_i)² averaged over a batch; its minimiser is the mean.
type meanProblem struct {
	p *params.Params
	y []float64
}

func (m *meanProblem) Params() *params.Params { return m.p }
func (m *meanProblem) NumExamples() int       { return len(m.y) }

func (m *meanProblem) LossGrad(batch []int, grads *params.Params) (float64, error) {
	a, g := m.p.Data("a")[0], grads.Data("a")
	loss := 0.0
	for _, i := range batch {
		r := a - m.y[i]
		loss += 0.5 * r * r / float64(len(batch))
		g[0] += r / float64(len(batch))
	}
	return loss, nil
}

func ExampleTrainer() {
	p := params.New()
	if _, err := p.Add("a", 1); err != nil {
		log.Fatal(err)
	}
	prob := &meanProblem{p: p, y: []float64{1, 2, 3, 4, 5, 6}}
	opt, err := optim.New("sgd", optim.Config{LR: 0.2})
	if err != nil {
		log.Fatal(err)
	}
	tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{
		Epochs:    50,
		BatchSize: 2,
		Seed:      1,
		// CheckpointPath: "run.npz", MetricsPath: "run.jsonl", Progress: os.Stderr,
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := tr.Run()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("a = %.1f after %d epochs (%d steps)\n", p.Data("a")[0], res.Epochs, res.Steps)
	// Output:
	// a = 3.5 after 50 epochs (150 steps)
}
