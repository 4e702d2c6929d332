//go:build unix

package stream

import (
	"errors"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Running short of file descriptors is the process's state, not the
// input's: a file must get the same report however many others are open
// beside it (SPEC §10: a batch's reports do not depend on --jobs). Two
// things see to it. Open waits for a slot among the Files the descriptor
// limit leaves room for, so that cairn's own Files never exhaust it; and an
// open that still fails with EMFILE or ENFILE (descriptors the rest of the
// process or the system holds) is tried again, a few times with growing
// waits, before it counts as input_unreadable. A walk again after reading
// that runs short is input_unreadable too, never input_changed: nothing
// says the file changed.

const (
	// descriptorsPerFile is the most descriptors one File holds at once:
	// the directory its walk starts from and the file itself, and while
	// its path is walked (at Open, and again in VerifyUnchanged) the
	// directory reached and the next one.
	descriptorsPerFile = 4
	// descriptorReserve is what the slots leave to the rest of the
	// process: the standard streams, the runtime's, a host program's.
	descriptorReserve = 16
	// maxFileSlots bounds the slots where the limit is very high or
	// infinite.
	maxFileSlots = 1 << 16
)

// fileSlots holds a token for each File open: as many as the soft
// RLIMIT_NOFILE, when first needed, leaves room for, and at least one. (A
// limit changed later is not seen.)
var fileSlots = sync.OnceValue(func() chan struct{} {
	// The runtime's poller takes descriptors of its own (on Linux an
	// epoll and an eventfd) the first time a timer is set, by the waits
	// below or by the garbage collector, and a poller it cannot create is
	// a fatal error: have it take them now, while some are free. (A
	// function's timer is set at once; a channel's only when waited on.)
	time.AfterFunc(time.Hour, func() {}).Stop()
	return make(chan struct{}, slotsFor(currentLimit()))
})

// currentLimit is the soft RLIMIT_NOFILE, or 0 when it cannot be read.
func currentLimit() uint64 {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return uint64(lim.Cur)
}

// slotsFor is how many Files a soft limit of limit descriptors leaves room
// for.
func slotsFor(limit uint64) int {
	if limit > maxFileSlots*descriptorsPerFile {
		return maxFileSlots
	}
	return max(1, (int(limit)-descriptorReserve)/descriptorsPerFile)
}

// acquireSlot waits for a File's slot; releaseSlot gives it back.
func acquireSlot() { fileSlots() <- struct{}{} }
func releaseSlot() { <-fileSlots() }

// descriptorWaits are the waits between tries of an open that found no
// descriptor free: about a second in all.
var descriptorWaits = []time.Duration{
	1 * time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond, 8 * time.Millisecond,
	16 * time.Millisecond, 32 * time.Millisecond, 64 * time.Millisecond, 128 * time.Millisecond,
	256 * time.Millisecond, 512 * time.Millisecond,
}

// descriptorWait sleeps between tries; tests replace it.
var descriptorWait = time.Sleep

// withDescriptor runs open, which opens one descriptor, and runs it again
// after each of descriptorWaits while it fails for want of a descriptor.
func withDescriptor(open func() (int, error)) (int, error) {
	for _, d := range descriptorWaits {
		fd, err := open()
		if !outOfDescriptors(err) {
			return fd, err
		}
		descriptorWait(d)
	}
	return open()
}

// outOfDescriptors reports whether err is the process (EMFILE) or the
// system (ENFILE) having no descriptor free.
func outOfDescriptors(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
