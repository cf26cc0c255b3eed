package pcnn

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/activation"
)

// Init sets the starting parameters of section 2 / 3.1 (CNN, PCNN) or of
// eq. (82) (RNN) from the training sequence s, drawing the reading rates
// u_{jy} ~ U[0, 1] from rng. In every case w_{0y} = log nu_y with nu the
// frequency of y among the predicted symbols (a symbol never predicted
// gets half a count, so that no weight is -Inf) and w_{iy} = 0 for i >= 1:
// the initial model is i.i.d. with the right frequencies.
//
// PCNN (eqs. 28-31, 43): tau_{jjy} = -alpha, tau_{0jy} = beta_j +
// mu_j/4 (u_{jy} - sum_y' nutilde_y' u_{jy'}), other tau 0,
// alpha = 1/2, mu_j = 1/(j+1), beta_j = -sqrt(alpha (alpha - mu_j)),
// V_j^0 = s^{-1}(beta_j / alpha).
//
// CNN: the paper gives no separate values; we keep the PCNN's fixed point
// a = beta_j/alpha and memory rate 1 - mu_j (eq. 39) by linearising
// V^{t+1} = tau_{jj} a^t + tau_{0j}: tau_{jjy} = (1 - mu_j)/s'(Vbar),
// tau_{0jy} = Vbar - tau_{jjy} beta_j/alpha + mu_j/4 (u_{jy} - ...).
//
// RNN (eq. 82): tau_{ii} = 1 - 1/i, rho_{jy} = (u_{jy} - sum_y'
// nutilde_y' u_{jy'})/2, V^0 = 0.
//
// The values are the paper's for tanh; a logistic model gets the tanh
// values mapped by Reparametrize, so both compute the same function.
func (m *Model) Init(s datasets.Stream, rng *rand.Rand) error {
	if err := checkSeq(s, m.A); err != nil {
		return err
	}
	if rng == nil {
		return errors.New("pcnn: Init needs a *rand.Rand")
	}
	A, N := m.A, m.Net.N
	nu, nuAll := make([]float64, A), make([]float64, A)
	var npred float64
	for t, x := range s.X {
		nuAll[x] += 1 / float64(len(s.X))
		if chi(s, t) {
			nu[x]++
			npred++
		}
	}
	if npred == 0 {
		return errors.New("pcnn: the sequence has no symbol to predict (the mask is all false)")
	}
	for _, name := range m.P.Names() {
		_ = m.P.Fill(name, 0) // names come from m.P: cannot fail
	}
	w, tau, rho, v0 := m.w(), m.tau(), m.rho(), m.v0()
	for y := range A {
		w[y] = math.Log(math.Max(nu[y], 0.5) / npred)
	}
	// reading returns a random reading-rate vector centred on the data.
	reading := func(scale float64) []float64 {
		u := make([]float64, A)
		var mean float64
		for y := range u {
			u[y] = rng.Float64()
			mean += nuAll[y] * u[y]
		}
		for y := range u {
			u[y] = scale * (u[y] - mean)
		}
		return u
	}
	const alpha = 0.5
	for j := 1; j <= N; j++ {
		in, o := m.Net.In[j-1], m.Off[j-1]
		loop := 0
		for k, i := range in {
			if i == j {
				loop = k
			}
		}
		mu := 1 / float64(j+1)
		beta := -math.Sqrt(alpha * (alpha - mu))
		abar := beta / alpha
		vbar := math.Atanh(abar)
		switch m.Kind {
		case RNN:
			tau[o+loop] = 1 - 1/float64(j)
			copy(rho[(j-1)*A:j*A], reading(0.5))
		case PCNN, CNN:
			self, bias := -alpha, beta
			if m.Kind == CNN {
				self = (1 - mu) / (1 - abar*abar)
				bias = vbar - self*abar
			}
			r := reading(mu / 4)
			for y := range A {
				tau[(o+loop)*A+y] = self
				tau[o*A+y] = bias + r[y]
			}
			v0[j-1] = vbar
		}
	}
	if m.Act == activation.Logistic {
		m.Act = activation.Tanh
		m.reparametrize(activation.Logistic)
	}
	return nil
}

// Reparametrize returns a copy of m with activation act computing exactly
// the same distribution over sequences: tanh(V) = 2 logistic(2V) - 1, so
// a logistic unit carries V' = 2V and a' = (a+1)/2, and the weights
// leaving it are rescaled and their offsets moved to the bias unit 0.
// This affine change of the activities is the one the invariant metrics
// of section 3.8 must not see.
func (m *Model) Reparametrize(act activation.Activation) (*Model, error) {
	if err := activation.Check(act, Activations()...); err != nil {
		return nil, errors.Wrap(err, "pcnn")
	}
	c := m.Clone()
	c.reparametrize(act)
	return c, nil
}

// reparametrize converts m in place to act.
func (m *Model) reparametrize(act activation.Activation) {
	if act == m.Act {
		return
	}
	// New activity a' = p a + q; V' = r V. tanh -> logistic: a' = (a+1)/2,
	// V' = 2V; logistic -> tanh: a' = 2a - 1, V' = V/2. An outgoing weight
	// c on a becomes c/p on a', and the constant -c q/p goes to unit 0.
	p, q, r := 0.5, 0.5, 2.0
	if act == activation.Tanh {
		p, q, r = 2, -1, 0.5
	}
	A, N := m.A, m.Net.N
	w := m.w()
	for y := range A {
		for i := 1; i <= N; i++ {
			w[y] -= w[i*A+y] * q / p
			w[i*A+y] /= p
		}
	}
	tau := m.tau()
	for j := 1; j <= N; j++ {
		in, o := m.Net.In[j-1], m.Off[j-1]
		// V' = r V: every incoming weight is multiplied by r first.
		if m.Kind == RNN {
			for k, i := range in {
				tau[o+k] *= r
				if i != 0 {
					tau[o] -= tau[o+k] * q / p
					tau[o+k] /= p
				}
			}
			continue
		}
		for y := range A {
			for k, i := range in {
				tau[(o+k)*A+y] *= r
				if i != 0 {
					tau[o*A+y] -= tau[(o+k)*A+y] * q / p
					tau[(o+k)*A+y] /= p
				}
			}
		}
	}
	if m.Kind == RNN {
		for k := range m.rho() {
			m.rho()[k] *= r
		}
	}
	for k := range m.v0() {
		m.v0()[k] *= r
	}
	m.Act = act
}
