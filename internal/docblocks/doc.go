// Package docblocks reads the Go code blocks of Markdown pages, so that a
// test can hold a page's code to the example tests that go test runs: a
// block shown in the documentation is then code that compiles and prints
// what its example's Output comment says.
package docblocks
