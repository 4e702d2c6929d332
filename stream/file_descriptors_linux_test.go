package stream

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cairn-audit/cairn/audit"
)

func TestSlotsFor(t *testing.T) {
	for _, tc := range []struct {
		limit uint64
		want  int
	}{
		{0, 1},
		{descriptorReserve, 1},
		{descriptorReserve + 2*descriptorsPerFile - 1, 1},
		{descriptorReserve + 2*descriptorsPerFile, 2},
		{64, 12},
		{1024, 252},
		{maxFileSlots * descriptorsPerFile, maxFileSlots - descriptorReserve/descriptorsPerFile},
		{unix.RLIM_INFINITY, maxFileSlots},
	} {
		if got := slotsFor(tc.limit); got != tc.want {
			t.Errorf("slotsFor(%d): got %d, want %d", tc.limit, got, tc.want)
		}
	}
}

// helperDescriptors names the environment variable that turns
// TestDescriptorsShortHelper into the helper process of
// TestDescriptorsShort.
const helperDescriptors = "CAIRN_STREAM_TEST_DESCRIPTORS"

// helperLimit is the helper's soft RLIMIT_NOFILE: room for 12 Files.
const helperLimit = 64

// TestDescriptorsShort runs TestDescriptorsShortHelper in a process of its
// own, where it may lower RLIMIT_NOFILE and use up every descriptor
// without starving this one's other tests.
func TestDescriptorsShort(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestDescriptorsShortHelper$", "-test.v")
	cmd.Env = append(os.Environ(), helperDescriptors+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestDescriptorsShortHelper/Open_waits_for_a_slot") {
		t.Fatalf("the helper failed, or did not run: %v\n%s", err, out)
	}
}

// spares are descriptors of /dev/null held to use up the process's.
type spares struct {
	t   *testing.T
	fds []int
}

// fill opens /dev/null until no descriptor is left.
func (s *spares) fill() {
	s.t.Helper()
	for {
		fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if errors.Is(err, syscall.EMFILE) {
			return
		}
		if err != nil {
			s.t.Fatal(err)
		}
		s.fds = append(s.fds, fd)
	}
}

// free closes one, and reports whether there was one.
func (s *spares) free() bool {
	if len(s.fds) == 0 {
		return false
	}
	unix.Close(s.fds[len(s.fds)-1])
	s.fds = s.fds[:len(s.fds)-1]
	return true
}

// TestDescriptorsShortHelper checks, with every descriptor in use, that
// Open tries again while descriptors come free and succeeds; that it
// fails as input_unreadable, after every wait, when none does; that a walk
// again after reading that runs short is input_unreadable, not
// input_changed; and that Open waits for a slot when the limit's Files
// are open.
func TestDescriptorsShortHelper(t *testing.T) {
	if os.Getenv(helperDescriptors) == "" {
		t.Skip("the helper process of TestDescriptorsShort")
	}
	lim := unix.Rlimit{Cur: helperLimit, Max: helperLimit}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func(f *File) error {
		if _, err := io.ReadAll(f); err != nil {
			t.Fatal(err)
		}
		return f.Verify()
	}
	s := &spares{t: t}
	waits := 0
	defer func() { descriptorWait = time.Sleep }()

	t.Run("descriptors come free", func(t *testing.T) {
		s.fill()
		waits = 0
		// Each wait frees one: the walk needs three at once.
		descriptorWait = func(time.Duration) { waits++; s.free() }
		f, err := Open(path)
		if err != nil {
			t.Fatalf("Open: %v after %d waits, want the file", err, waits)
		}
		if err := read(f); err != nil {
			t.Errorf("Verify: %v, want nil", err)
		}
		f.Close()
		if waits < 3 {
			t.Errorf("%d waits, want one per descriptor the walk needed (3)", waits)
		}
	})
	t.Run("none comes free", func(t *testing.T) {
		s.fill()
		waits = 0
		descriptorWait = func(time.Duration) { waits++ }
		f, err := Open(path)
		if err == nil {
			f.Close()
			t.Fatal("Open succeeded with no descriptor free")
		}
		if code := codeString(err); code != "input_unreadable" || !errors.Is(err, syscall.EMFILE) {
			t.Errorf("Open: %s (%v), want input_unreadable from EMFILE", code, err)
		}
		if waits != len(descriptorWaits) {
			t.Errorf("%d waits, want %d", waits, len(descriptorWaits))
		}
	})
	t.Run("the walk after reading runs short", func(t *testing.T) {
		for range 4 {
			s.free()
		}
		descriptorWait = func(time.Duration) {}
		f, err := Open(path)
		if err != nil {
			t.Fatalf("Open: %v, want the file", err)
		}
		defer f.Close()
		s.fill()
		for _, verify := range []func() error{f.VerifyUnchanged, func() error { return read(f) }} {
			var ie *audit.InputError
			if err := verify(); !errors.As(err, &ie) || ie.Code != audit.InputUnreadable {
				t.Errorf("got %v, want input_unreadable: running short says nothing of the file", err)
			}
		}
	})
	for s.free() {
	}

	t.Run("Open waits for a slot", func(t *testing.T) {
		slots := fileSlots()
		if cap(slots) != slotsFor(helperLimit) {
			t.Fatalf("%d slots, want %d", cap(slots), slotsFor(helperLimit))
		}
		var files []*File
		for range cap(slots) {
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		var closed atomic.Int32
		done := make(chan int32)
		go func() {
			f, err := Open(path)
			if err != nil {
				t.Error(err)
			} else {
				f.Close()
			}
			done <- closed.Load()
		}()
		closed.Add(1)
		files[0].Close()
		if n := <-done; n != 1 {
			t.Errorf("the Open past the slots returned before any File was closed")
		}
		for _, f := range files[1:] {
			f.Close()
		}
		if len(slots) != 0 {
			t.Errorf("%d slots still taken after every File was closed", len(slots))
		}
	})
}
