// Package experiments runs rtn's experiments end to end: the training
// runs behind the rtn train command (TrainSpec, Train) and the sections of
// rtn reproduce, each of which sets a paper's headline experiment on
// built-in data and reports measured figures beside the paper's.
//
// Everything here is reachable from Go, so a user can script the same
// runs the command line makes.
package experiments

// Version is rtn's release version.
const Version = "0.1.0"
