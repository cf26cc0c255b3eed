package layers

import "sync"

var (
	sizesMu sync.RWMutex
	sizes   = map[string]func(CellConfig) float64{}
)

// RegisterCellSize records how many parameters a cell registered as model
// holds for a configuration (its defaults applied to the fields left 0),
// so that a command can tell a model too big for the machine before
// building it (ModelConfig.Size). A cell without one is built unchecked.
// The built-in cells register theirs beside their factories.
func RegisterCellSize(model string, size func(CellConfig) float64) {
	sizesMu.Lock()
	defer sizesMu.Unlock()
	if size == nil {
		panic("layers: RegisterCellSize of " + model + " with a nil function")
	}
	sizes[model] = size
}

// CellSize is the number of parameters of a cell registered as model for
// cfg; ok is false when the cell registered no size.
func CellSize(model string, cfg CellConfig) (n float64, ok bool) {
	sizesMu.RLock()
	f, ok := sizes[model]
	sizesMu.RUnlock()
	if !ok {
		return 0, false
	}
	return f(cfg), true
}

// Size is the number of parameters of the model c describes, counted
// without building it: its cells (each of a stack reads the state below,
// Config.Hidden wide), an embedding table and the output layer; ok is
// false when the cell registered no size (RegisterCellSize).
func (c ModelConfig) Size() (n float64, ok bool) {
	cfg := c.Config
	if c.Embed > 0 {
		n = float64(cfg.In) * float64(c.Embed)
		cfg.In = c.Embed
	}
	first, ok := CellSize(c.Cell, cfg)
	if !ok {
		return 0, false
	}
	n += first
	if c.Layers > 1 {
		cfg.In = cfg.Hidden
		above, _ := CellSize(c.Cell, cfg)
		n += float64(c.Layers-1) * above
	}
	return n + (float64(cfg.Hidden)+1)*float64(c.Out), true
}
