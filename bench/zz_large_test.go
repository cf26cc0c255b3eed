package bench

import (
	"os"
	"strconv"
	"testing"
)

func BenchmarkZZLarge(b *testing.B) {
	h, _ := strconv.Atoi(os.Getenv("ZZH"))
	bt, _ := strconv.Atoi(os.Getenv("ZZB"))
	p, err := Setup(os.Getenv("ZZM"), Config{Steps: 100, Hidden: h, Batch: bt, DType: os.Getenv("ZZD")})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	Warm(p.Step)
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		p.Step()
	}
	b.ReportMetric(float64(cpuTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
}
