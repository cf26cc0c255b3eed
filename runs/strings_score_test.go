package runs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRunStringsScoreChecksFirst: RunStringsScore refuses a bad spec with
// the *FieldError of its field before it opens any file, and names a
// missing model file.
func TestRunStringsScoreChecksFirst(t *testing.T) {
	for field, spec := range map[string]StringsScoreSpec{
		"Model": {Test: "no-such-test"},
		"Test":  {Model: "no-such-model"},
		"Jobs":  {Model: "no-such-model", Test: "no-such-test", Jobs: -1},
	} {
		_, _, err := RunStringsScore(spec)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: error %v, want a FieldError of %s", field, err, field)
		}
	}
	test := filepath.Join(t.TempDir(), "test.txt")
	if err := os.WriteFile(test, []byte("1 2\n1 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := RunStringsScore(StringsScoreSpec{Model: "no-such-model.json", Test: test})
	var fe *FieldError
	if err == nil || errors.As(err, &fe) {
		t.Errorf("a missing model file: error %v, want a file error", err)
	}
}
