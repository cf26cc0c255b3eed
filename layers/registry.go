package layers

import (
	"math/rand/v2"
	"sort"
	"strings"
	"sync"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// CellConfig sizes a registered cell. Which fields a cell reads is up to
// its factory; one that does not use a field refuses a value other than
// its zero, so that nothing is ignored silently.
type CellConfig struct {
	// In is the input width: the task's, or the embedding width.
	In int `json:"in"`
	// Hidden is the width of the cell's state 0 (the width the output
	// layer reads).
	Hidden int `json:"hidden"`
	// Activation names the cell's nonlinearity (activation.Parse); empty
	// for the cell's default.
	Activation string `json:"activation,omitempty"`
	// Rank is the decomposition rank of tensor cells (CP / TT rank).
	Rank int `json:"rank,omitempty"`
	// Order is the polynomial order of higher-order cells.
	Order int `json:"order,omitempty"`
	// Lags is the number of past states a cell reads.
	Lags int `json:"lags,omitempty"`
}

// CheckUnused returns an error naming the first of fields ("activation",
// "rank", "order", "lags") that is set in c: a factory calls it for the
// fields its cell does not read.
func (c CellConfig) CheckUnused(model string, fields ...string) error {
	for _, f := range fields {
		set := false
		switch f {
		case "activation":
			set = c.Activation != ""
		case "rank":
			set = c.Rank != 0
		case "order":
			set = c.Order != 0
		case "lags":
			set = c.Lags != 0
		}
		if set {
			return errors.Errorf("layers: cell %s has no %s to set", model, f)
		}
	}
	return nil
}

// Validate checks the sizes every cell needs: In and Hidden positive,
// Rank, Order and Lags not negative.
func (c CellConfig) Validate() error {
	switch {
	case c.In < 1:
		return errors.Errorf("layers: cell input width must be positive, got %d", c.In)
	case c.Hidden < 1:
		return errors.Errorf("layers: cell hidden width must be positive, got %d", c.Hidden)
	case c.Rank < 0 || c.Order < 0 || c.Lags < 0:
		return errors.Errorf("layers: cell rank, order and lags must not be negative, got %d, %d, %d", c.Rank, c.Order, c.Lags)
	}
	return nil
}

// CellFactory makes a cell: it adds its parameters to p, their names
// prefixed with name ("name/W", ...), and initialises them from rng. It
// returns an error naming the field of cfg it cannot use.
type CellFactory func(p *params.Params, name string, cfg CellConfig, rng *rand.Rand) (graph.Cell, error)

var (
	cellsMu sync.RWMutex
	cells   = map[string]CellFactory{}
)

// RegisterCell makes a cell available by name to NewCell, model files
// (LoadModel) and the -model flags of the command line. The built-in cells
// register themselves when their package is imported: layers/rnn (rnn,
// lstm, gru) and layers/twornn (2rnn). Like database/sql's Register, it
// panics when f is nil, the name empty or already registered.
func RegisterCell(model string, f CellFactory) {
	cellsMu.Lock()
	defer cellsMu.Unlock()
	switch {
	case f == nil:
		panic("layers: RegisterCell of " + model + " with a nil factory")
	case model == "" || strings.ContainsAny(model, " \t\n,/"):
		panic("layers: RegisterCell with an invalid name " + `"` + model + `"`)
	}
	if _, dup := cells[model]; dup {
		panic("layers: RegisterCell called twice for " + model)
	}
	cells[model] = f
}

// NewCell makes the cell registered as model (see RegisterCell) after
// checking cfg (CellConfig.Validate) and checks it with graph.CheckCell.
func NewCell(model string, p *params.Params, name string, cfg CellConfig, rng *rand.Rand) (graph.Cell, error) {
	cellsMu.RLock()
	f, ok := cells[model]
	cellsMu.RUnlock()
	if !ok {
		return nil, &UnknownCellError{Name: model}
	}
	if err := cfg.Validate(); err != nil {
		return nil, errors.WithMessagef(err, "cell %s", model)
	}
	c, err := f(p, name, cfg, rng)
	if err != nil {
		return nil, err
	}
	if in := c.InputSize(); in != cfg.In {
		return nil, errors.Errorf("layers: cell %s was asked for input width %d and has %d", model, cfg.In, in)
	}
	if err := graph.CheckCell(c); err != nil {
		return nil, errors.Wrapf(err, "layers: cell %s", model)
	}
	return c, nil
}

// CheckCellConfig reports the error NewCell would give for model and
// cfg, by making the cell in a scratch set with its input and hidden
// widths brought into [2, 4] and its rank and lags to at most 3, so that
// the check allocates next to nothing whatever the sizes (width 1 trips
// gorgonia's broadcasting): a command checks its flags with it before
// reading any data, and checks the memory of the real sizes with
// ModelConfig.Size. A cell must therefore refuse an out-of-range Order
// (which is not brought down) without allocating for it.
func CheckCellConfig(model string, cfg CellConfig) error {
	cfg.In, cfg.Hidden = min(max(cfg.In, 2), 4), min(max(cfg.Hidden, 2), 4)
	cfg.Rank, cfg.Lags = min(cfg.Rank, 3), min(cfg.Lags, 3)
	_, err := NewCell(model, params.New(), model, cfg, rand.New(rand.NewPCG(1, 1)))
	return err
}

// UnknownCellError is the error of NewCell for a name that is not
// registered.
type UnknownCellError struct {
	// Name is the name asked for.
	Name string
}

// Error names the cell and lists the registered ones.
func (e *UnknownCellError) Error() string {
	return "layers: unknown cell " + `"` + e.Name + `"` + " (registered: " + strings.Join(CellNames(), ", ") + ")"
}

// CellNames lists the registered cells, sorted.
func CellNames() []string {
	cellsMu.RLock()
	defer cellsMu.RUnlock()
	names := make([]string, 0, len(cells))
	for n := range cells {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// HasCell reports whether a cell is registered under name.
func HasCell(model string) bool {
	cellsMu.RLock()
	defer cellsMu.RUnlock()
	_, ok := cells[model]
	return ok
}
