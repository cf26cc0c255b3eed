package optim

import (
	"sort"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// Optimizer updates named parameters in place from their gradients.
// Its state (moments, step counters) is keyed by parameter name, so it
// survives a checkpoint and a change in the order parameters are listed.
type Optimizer interface {
	// Name is the registry name ("adam", "sgd", ...).
	Name() string
	// Step updates params in place from grads (same names and shapes).
	// It does not modify grads.
	Step(params, grads *params.Params) error
	// LearningRate is the current learning rate.
	LearningRate() float64
	// SetLearningRate changes the learning rate (schedules call it).
	SetLearningRate(lr float64)
	// State returns a deep copy of the optimizer's state as named tensors:
	// per-parameter slots are named "<slot>/<param>", scalars such as the
	// step count are tensors of shape [1]. An optimizer without state
	// returns an empty set.
	State() *params.Params
	// LoadState replaces the state with s, as returned by State.
	LoadState(s *params.Params) error
}

// Problem is what the training loop and optimizers see of a model and its
// data: parameters, and a loss with its gradient on a minibatch of
// training examples given by index.
type Problem interface {
	// Params are the learnable parameters, updated in place.
	Params() *params.Params
	// NumExamples is the number of training examples; batches hold
	// indices in [0, NumExamples()).
	NumExamples() int
	// LossGrad returns the mean loss over the batch and writes its
	// gradient into grads (a set laid out like Params; it is overwritten).
	LossGrad(batch []int, grads *params.Params) (float64, error)
}

// Evaluator is implemented by problems that can evaluate the training loss
// on a batch without a gradient (cheaper). Optimizers that re-evaluate the
// loss after a step (AcceptReject) need it.
type Evaluator interface {
	Loss(batch []int) (float64, error)
}

// Noisy is implemented by problems whose training loss is random
// (dropout): before every training batch the Trainer calls SetNoiseSeed
// with a seed drawn from TrainConfig.Seed and the step's number, so the
// same run, or its resume, draws the same noise. A problem evaluates
// held-out data without noise.
type Noisy interface {
	SetNoiseSeed(seed uint64)
}

// Validator is implemented by problems with a validation set; the
// training loop calls it once per epoch.
type Validator interface {
	ValidationLoss() (float64, error)
}

// ValidationChecker is implemented by problems that are Validators only
// for some data (a task may have an empty validation split). When
// HasValidation reports false the Trainer treats the problem as having no
// Validator and selects the best parameters by training loss.
type ValidationChecker interface {
	HasValidation() bool
}

// ProblemStepper is the optional interface of optimizers that need more
// than a gradient: a loss re-evaluation, a metric or preconditioner. The
// training loop calls StepProblem instead of Step when an optimizer
// implements it; the optimizer type-asserts p for the interfaces it needs
// (Evaluator, or a model-specific metric interface) and fails in Check
// before any work is done when p lacks them.
type ProblemStepper interface {
	Optimizer
	// Check returns an error if p lacks something the optimizer needs.
	Check(p Problem) error
	// StepProblem performs one step. loss and grads are the loss and
	// gradient at the current parameters on batch.
	StepProblem(p Problem, batch []int, loss float64, grads *params.Params) error
}

// GradientFree is the optional interface of problem steppers that compute
// everything they need themselves (a metric-based direction, say) and only
// use the loss the training loop passes them. When NeedsGradient reports
// false and the problem implements Evaluator, the Trainer evaluates the
// loss with Evaluator.Loss instead of LossGrad, saving a backward pass, and
// passes a zeroed gradient set.
type GradientFree interface {
	NeedsGradient() bool
}

// Config holds the hyperparameters shared by the registered optimizers;
// each ignores the fields it does not use. The zero value is usable:
// every field's default is given in its comment. docs/optimizers.md lists
// which optimizer uses which field.
type Config struct {
	// LR is the learning rate. If LR is 0, it will be defaulted to the
	// optimizer's customary value (sgd 0.01, adam 0.001, adamax 0.002,
	// rmsprop 0.001, adagrad 0.01, adamw 0.001, nadam 0.002, radam 0.001,
	// lion 0.0001, schedulefree 0.0025, shampoo 0.001).
	LR float64 `json:"lr,omitempty"`
	// Momentum for sgd (0 = plain SGD). RMSProp uses it as well.
	Momentum float64 `json:"momentum,omitempty"`
	// Nesterov selects Nesterov momentum for sgd.
	Nesterov bool `json:"nesterov,omitempty"`
	// Beta1, Beta2 are the decay rates of the first and second moment
	// estimates (adam, adamax, adamw, nadam, radam, schedulefree,
	// shampoo) or of lion's update interpolation and momentum. If 0, they
	// will be defaulted to 0.9 and 0.999 (lion: 0.9 and 0.99, the
	// paper's).
	Beta1 float64 `json:"beta1,omitempty"`
	Beta2 float64 `json:"beta2,omitempty"`
	// Rho is RMSProp's squared-gradient decay. If 0, it will be defaulted to 0.9.
	Rho float64 `json:"rho,omitempty"`
	// Eps is the denominator guard added to a root of the second moment
	// (shampoo: of its Adam grafting). If 0, it will be defaulted to 1e-8.
	Eps float64 `json:"eps,omitempty"`
	// WeightDecay adds WeightDecay*param to the gradient before any other
	// use of it (coupled L2 decay), in every optimizer. DecoupledDecay is
	// the decoupled form.
	WeightDecay float64 `json:"weight_decay,omitempty"`
	// ClipNorm rescales the gradient so that its global norm is at most
	// ClipNorm. If ClipNorm is 0, gradients are not clipped.
	ClipNorm float64 `json:"clip_norm,omitempty"`
	// DecoupledDecay is the decoupled weight decay λ of Loshchilov and
	// Hutter (2019): each step also moves a parameter by −LR·λ times its
	// value, apart from the gradient's normalisation (adamw, lion,
	// shampoo; schedulefree at its gradient point y). If DecoupledDecay
	// is 0, adamw uses 0.01 (torch.optim.AdamW's default; adamw without
	// decay is adam) and the others no decay.
	DecoupledDecay float64 `json:"decoupled_decay,omitempty"`
	// MomentumDecay is NAdam's ψ: the momentum of step t is
	// β1 (1 − 0.96^(tψ)/2). If MomentumDecay is 0, it will be defaulted
	// to 0.004 (Dozat 2016, torch.optim.NAdam).
	MomentumDecay float64 `json:"momentum_decay,omitempty"`
	// WarmupSteps is schedulefree's built-in warm-up: the rate grows
	// linearly over the first WarmupSteps steps, and the average's
	// weights follow it. If WarmupSteps is 0, there is no warm-up.
	WarmupSteps int `json:"warmup_steps,omitempty"`
	// MaxPreconditionerDim is shampoo's largest block: a parameter, seen
	// as a matrix, is split into blocks of at most MaxPreconditionerDim
	// rows and columns, each with its own preconditioners. If it is 0,
	// it will be defaulted to 128.
	MaxPreconditionerDim int `json:"max_preconditioner_dim,omitempty"`
	// PreconditionFrequency is the number of shampoo steps between two
	// computations of the inverse roots (at steps 1, 1+F, 1+2F, ...).
	// If it is 0, it will be defaulted to 20.
	PreconditionFrequency int `json:"precondition_frequency,omitempty"`
	// MatrixEps is added to the eigenvalues of shampoo's statistics
	// before their inverse roots are taken. If MatrixEps is 0, it will
	// be defaulted to 1e-12 (Distributed Shampoo's epsilon).
	MatrixEps float64 `json:"matrix_eps,omitempty"`
	// Grafting selects how shampoo sizes its steps: "adam" takes, per
	// block, the direction of shampoo and the norm of Adam's step (as the
	// AlgoPerf-winning Distributed Shampoo does); "none" takes shampoo's
	// step as it is. If Grafting is empty, it will be defaulted to "adam".
	Grafting string `json:"grafting,omitempty"`
}

// Factory builds an optimizer from a Config.
type Factory func(Config) (Optimizer, error)

var registry = map[string]Factory{}

// Register adds a factory under name; it panics on a duplicate name
// (a programming error at init time).
func Register(name string, f Factory) {
	if _, ok := registry[name]; ok {
		panic("optim: duplicate optimizer " + name)
	}
	registry[name] = f
}

// New builds the optimizer registered under name.
func New(name string, c Config) (Optimizer, error) {
	f, ok := registry[name]
	if !ok {
		return nil, errors.Errorf("optim: unknown optimizer %q (known: %v)", name, Names())
	}
	return f(c)
}

// Names lists the registered optimizer names in sorted order.
func Names() []string {
	var s []string
	for n := range registry {
		s = append(s, n)
	}
	sort.Strings(s)
	return s
}
