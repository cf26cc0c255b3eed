// Package experiments holds the benchmarks of rtn bench: the timed
// training steps and their registry.
package experiments
