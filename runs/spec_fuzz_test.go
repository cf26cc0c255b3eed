package runs

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

// fuzzedSpecs lists a zero value of every spec whose checks FuzzSpecs
// runs.
var fuzzedSpecs = []any{
	CompareSpec{}, EvalSpec{}, PCNNBaselineSpec{}, PCNNSpec{}, PredictSpec{}, PretrainSpec{},
	SampleOptions{}, SampleSpec{}, SpectralDataSpec{}, SpectralPredictSpec{}, SpectralSpec{}, SpectralTuneSpec{}, StringsFitSpec{},
	StringsRankSpec{}, StringsSampleSpec{}, StringsScoreSpec{},
	SweepSpec{}, TrainSpec{}, UMPSBaselineSpec{}, UMPSCompleteSpec{}, UMPSEvalSpec{},
	UMPSProbSpec{}, UMPSSampleSpec{}, UMPSScoreSpec{}, UMPSSpec{}, WFADotSpec{},
	WFAFinetuneSpec{}, WFALearnSpec{}, WFAMinimizeSpec{}, WFAPAutomaCSpec{}, WFARankSpec{},
	WFASampleSpec{}, WFAScoreSpec{}, WFASweepSpec{},
}

// FuzzSpecs fills every spec from the same JSON object (fields it cannot
// decode keep their zero value) and runs WithDefaults, Validate and
// EstimateMemory where the spec has them: none may panic, whatever the
// numbers. Strings that could name files outside the test's directory
// are cleared, so that a check that reads a file reads nothing.
func FuzzSpecs(f *testing.F) {
	f.Add([]byte(`{"Hidden": -1, "Batch": 9223372036854775807, "Epochs": 3}`))
	f.Add([]byte(`{"Bond": 1000000000, "Symbols": 2, "Restarts": -1, "LR": 1e308}`))
	f.Add([]byte(`{"N": -5, "Rank": 2147483647, "States": [0], "Folds": 1e9}`))
	f.Add([]byte(`{"Model": "lstm", "Layers": 64, "Hidden": 4096, "Seeds": [1, 2]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, z := range fuzzedSpecs {
			p := reflect.New(reflect.TypeOf(z))
			_ = json.Unmarshal(data, p.Interface())
			clearPaths(p.Elem())
			s := p.Elem()
			if m := s.MethodByName("WithDefaults"); m.IsValid() {
				s = m.Call(nil)[0]
			}
			if m := s.MethodByName("Validate"); m.IsValid() {
				m.Call(nil)
			}
			if m := s.MethodByName("EstimateMemory"); m.IsValid() {
				m.Call(nil)
			}
		}
	})
}

// clearPaths sets to "" every string field of v (a struct) holding a
// path separator or starting with a dot.
func clearPaths(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.String && f.CanSet() && (strings.ContainsAny(f.String(), `/\`) || strings.HasPrefix(f.String(), ".")) {
			f.SetString("")
		}
	}
}

// TestFuzzedSpecsComplete: every spec of the package (a type named
// ...Spec or ...Options with a Validate method) is in fuzzedSpecs; the
// model files' Validate methods are fuzzed by their readers' targets.
func TestFuzzedSpecsComplete(t *testing.T) {
	listed := map[string]bool{}
	for _, z := range fuzzedSpecs {
		listed[reflect.TypeOf(z).Name()] = true
	}
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range pkgs["runs"].Files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Validate" {
				continue
			}
			typ := fn.Recv.List[0].Type
			if st, ok := typ.(*ast.StarExpr); ok {
				typ = st.X
			}
			name := typ.(*ast.Ident).Name
			found++
			if !strings.HasSuffix(name, "Spec") && !strings.HasSuffix(name, "Options") {
				continue
			}
			if !listed[name] {
				t.Errorf("%s has Validate but is not in fuzzedSpecs", name)
			}
		}
	}
	if found < len(fuzzedSpecs) {
		t.Errorf("found %d Validate methods, fewer than the %d fuzzed specs", found, len(fuzzedSpecs))
	}
}
