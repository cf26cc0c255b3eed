package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A u-MPS trained on a PAutomaC-format file and scored on a test file with
// and without a solution; bad file flags are usage errors.
func TestUMPSScore(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "x.train")
	var b strings.Builder
	b.WriteString("40 3\r\n")
	for i := 0; i < 40; i++ {
		switch i % 4 {
		case 0:
			b.WriteString("0\r\n")
		case 1:
			b.WriteString("2 0 1\r\n")
		case 2:
			b.WriteString("3 0 2 1\r\n")
		default:
			b.WriteString("1 2\r\n")
		}
	}
	test := filepath.Join(dir, "x.test")
	sol := filepath.Join(dir, "x.solution")
	for path, text := range map[string]string{train: b.String(), test: "3 3\n0\n2 0 1\n4 2 2 2 2\n", sol: "3\n0.5\n0.3\n0.2\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := filepath.Join(dir, "run")
	out, errs, code := invoke("umps", "train", "-data", train, "-format", "pautomac", "-bond", "2", "-epochs", "2", "-out", run, "-quiet", "-json")
	var rep map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("train: exit %d, %q, %q", code, out, errs)
	}
	// A string file trains P_* by default (its own length distribution).
	if rep["train"] != 32.0 || rep["valid"] != 8.0 || rep["length_model"] != "star" {
		t.Errorf("train -json: %v", rep)
	}
	// The string-file default clips the gradients at 0.3.
	for clip, same := range map[string]bool{"0.3": true, "0": false} {
		out, errs, code := invoke("umps", "train", "-data", train, "-format", "pautomac", "-bond", "2", "-epochs", "2", "-clip", clip, "-quiet", "-json")
		var r map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("train -clip %s: exit %d, %q, %q", clip, code, out, errs)
		}
		if (r["valid_nll"] == rep["valid_nll"]) != same {
			t.Errorf("valid NLL %v with -clip %s, %v by default", r["valid_nll"], clip, rep["valid_nll"])
		}
	}
	out, errs, code = invoke("umps", "train", "-data", train, "-format", "pautomac", "-norm", "n", "-bond", "2", "-epochs", "2", "-quiet", "-json")
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep["length_model"] != "fitted" {
		t.Fatalf("train -norm n: exit %d, %q, %q", code, out, errs)
	}
	// A string file chooses the bond dimension by default (here 20) and
	// trains what -bond 20 trains.
	var auto, fixed map[string]any
	out, errs, code = invoke("umps", "train", "-data", train, "-format", "pautomac", "-epochs", "1", "-quiet", "-json")
	if code != 0 || json.Unmarshal([]byte(out), &auto) != nil {
		t.Fatalf("train -bond auto: exit %d, %q, %q", code, out, errs)
	}
	out, errs, code = invoke("umps", "train", "-data", train, "-format", "pautomac", "-bond", "20", "-epochs", "1", "-quiet", "-json")
	if code != 0 || json.Unmarshal([]byte(out), &fixed) != nil {
		t.Fatalf("train -bond 20: exit %d, %q, %q", code, out, errs)
	}
	if r, ok := auto["spectral_rank"].(float64); !ok || r < 1 || auto["bond"] != 20.0 || auto["valid_nll"] != fixed["valid_nll"] || fixed["spectral_rank"] != nil {
		t.Errorf("-bond auto: %v; -bond 20: %v", auto, fixed)
	}
	// -grow-from trains the smaller model first and reports it.
	var grown map[string]any
	out, errs, code = invoke("umps", "train", "-data", train, "-format", "pautomac", "-bond", "3", "-grow-from", "2", "-epochs", "1", "-quiet", "-json")
	if code != 0 || json.Unmarshal([]byte(out), &grown) != nil {
		t.Fatalf("train -grow-from 2: exit %d, %q, %q", code, out, errs)
	}
	if g, ok := grown["grown_from"].(map[string]any); !ok || g["bond"] != 2.0 || grown["bond"] != 3.0 {
		t.Errorf("-bond 3 -grow-from 2: %v", grown)
	}
	out, errs, code = invoke("umps", "score", "-model", run, "-test", test, "-solution", sol, "-json")
	var sc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &sc) != nil {
		t.Fatalf("score: exit %d, %q, %q", code, out, errs)
	}
	// The log-loss is in nats per symbol, the end counted: the test file's
	// 3 strings hold 0 + 2 + 4 symbols and 3 ends, so log-loss x 9 is the
	// NLL (nats per string) x 3.
	const unitTol = 1e-9
	if ll, nll := sc["log_loss_nats_per_symbol"].(float64), sc["nll"].(float64); math.Abs(ll*9-nll*3) > unitTol*nll {
		t.Errorf("score: log_loss_nats_per_symbol %v, nll %v: want log-loss x 9 = nll x 3", ll, nll)
	}
	pp, ok := sc["perplexity"].(float64)
	// The optimum (Q = P*) is 2^H(0.5, 0.3, 0.2) = 2.80.
	if !ok || !(pp >= 2.80) || math.IsInf(pp, 0) {
		t.Errorf("score: %v", sc)
	}
	out, _, code = invoke("umps", "score", "-model", run, "-test", test, "-json")
	if code != 0 || strings.Contains(out, "perplexity") || !strings.Contains(out, "log_loss_nats_per_symbol") {
		t.Errorf("score without solution: exit %d, %q", code, out)
	}
	if out, _, code = invoke("umps", "prob", "-model", run, "-string", "0 2 1", "-json"); code != 0 || !strings.Contains(out, `"log_prob"`) {
		t.Errorf("prob on numbered symbols: exit %d, %q", code, out)
	}
	if out, _, code = invoke("umps", "sample", "-model", run, "-regex", "0.*", "-n", "3"); code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 3 {
		t.Errorf("sample on numbered symbols: exit %d, %q", code, out)
	}
	for _, bad := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"umps", "train", "-data", train, "-format", "xml"}, 2, "-format"},
		{[]string{"umps", "train", "-data", train, "-format", "pautomac", "-alphabet", "a,b"}, 2, "-alphabet"},
		{[]string{"umps", "train", "-data", train, "-format", "pautomac", "-valid-frac", "1"}, 2, "-valid-frac"},
		{[]string{"umps", "score", "-model", run}, 2, "-test"},
		{[]string{"umps", "score", "-model", run, "-test", train, "-solution", sol}, 1, "probabilities"},
		{[]string{"umps", "train", "-data", sol, "-format", "pautomac", "-quiet"}, 1, "x.solution:1"},
	} {
		_, errs, code := invoke(bad.args...)
		if code != bad.code || !strings.Contains(errs, bad.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", bad.args, code, errs, bad.code, bad.want)
		}
	}
}
