package optim

// Schedule sets the learning rate epoch by epoch. The Trainer calls Next at
// the end of every epoch with the epoch just finished (0-based), the
// current learning rate and the validation loss (NaN when there is no
// validation set), and uses the returned rate for the next epoch.
// Schedules with memory (reduce-on-plateau) expose it through State and
// LoadState so that a resumed run continues bit for bit.
type Schedule interface {
	// Name describes the schedule ("constant", "step", ...).
	Name() string
	// Next returns the learning rate for epoch+1.
	Next(epoch int, lr, valid float64) float64
	// State returns the schedule's memory (nil when it has none).
	State() []float64
	// LoadState restores what State returned.
	LoadState(s []float64) error
}
