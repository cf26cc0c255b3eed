// Package outlock keeps two runs from writing the same outputs at once.
//
// A run takes an exclusive lock on each output directory and output file
// before any work and holds it until it ends. The lock is a small file,
// LockFile in a directory or ".NAME.rtn-lock" beside a file NAME, that
// holds the holder's process ID, host, command line and start time, and
// is locked with flock(2). The kernel releases a flock when its process
// ends, however it ends, so a lock file left by a process that was killed
// is taken over by the next run; Release removes the file.
//
// A second run is refused with a *HeldError naming the holder:
//
//	lock, err := outlock.Acquire([]string{"out/run1"}, nil)
//	if err != nil {
//		return err // output directory out/run1 is in use by another run: PID 4242 (rtn train -out out/run1)
//	}
//	defer lock.Release()
//
// Two locks in one process conflict as in two processes: the lock
// belongs to the open file, not to the process. On the few platforms
// without flock(2) the lock file is created exclusively, and a file whose
// holder on this host is no longer running is taken over.
package outlock
