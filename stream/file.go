//go:build unix

package stream

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/cairn-audit/cairn/audit"
)

// File is an input file opened safely (SPEC §3). Its path was walked one
// component at a time exactly as the kernel would resolve it, but refusing
// links at every step: every directory was opened without following links
// (on Linux with O_PATH, which needs only search permission); the file
// itself was looked at before it was opened, opened without following
// links and without blocking, and checked with fstat.
//
// While it is open it holds one of the slots the descriptor limit leaves
// room for (file_descriptors.go): Open waits for one.
type File struct {
	f      *os.File
	fd     int
	start  int    // where the walk starts: "/" or the working directory
	path   string // as given, to walk again; never printed
	before unix.Stat_t
	n      int64
	closed bool
}

// dirFlags open a directory on the path. With O_PATH opening it needs
// only search permission on the directory holding it, none on itself (SPEC
// §3: a directory that can be searched but not listed is no reason to
// refuse), and the descriptor serves openat and fstatat.
var dirFlags = oPath | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// oPath is Linux's O_PATH. This one file serves every unix and x/sys/unix
// defines O_PATH only on Linux, hence the number, the same on every Linux
// port of Go (TestOPath checks it against unix.O_PATH). Other systems open
// directories O_RDONLY, which needs read permission on them too.
var oPath = func() int {
	if runtime.GOOS == "linux" || runtime.GOOS == "android" {
		return 0x200000
	}
	return unix.O_RDONLY
}()

// Open opens path for an audit. Its errors are *audit.InputError with no
// record; their causes name no path.
//
// The path is not cleaned: ".." is the parent of the directory reached so
// far, so "a/link/../f" goes through link, and is refused because link is
// a symbolic link; "." and empty components change nothing; a trailing
// slash (or "." or "..") makes the path name a directory. A relative path
// starts at the physical working directory, never at $PWD.
//
// It waits while the process has as many Files open as its descriptor
// limit leaves room for, and an open that finds no descriptor free is
// tried again for a while before it fails (file_descriptors.go).
func Open(path string) (*File, error) {
	origin := "."
	if strings.HasPrefix(path, "/") {
		origin = "/"
	}
	acquireSlot()
	start, err := withDescriptor(func() (int, error) { return unix.Open(origin, dirFlags, 0) })
	if err != nil {
		releaseSlot()
		return nil, openError(err)
	}
	in, err := open(start, path)
	if err != nil {
		unix.Close(start)
		releaseSlot()
		return nil, err
	}
	return in, nil
}

// open opens path from the directory start, which the File keeps.
func open(start int, path string) (*File, error) {
	dir, name, st, err := resolve(start, path)
	if err != nil {
		return nil, err
	}
	if dir < 0 {
		dir = start
	} else {
		defer unix.Close(dir)
	}
	// Look before opening (resolve did): opening a device or FIFO can have
	// effects.
	fd, err := withDescriptor(func() (int, error) {
		return unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, openError(err)
	}
	in := &File{fd: fd, start: start, path: path}
	if err := unix.Fstat(fd, &in.before); err != nil {
		unix.Close(fd)
		return nil, audit.Invalid(audit.InputUnreadable, -1, err)
	}
	switch {
	case in.before.Mode&unix.S_IFMT != unix.S_IFREG:
		unix.Close(fd)
		return nil, audit.Invalid(audit.InputNotRegular, -1, nil)
	case in.before.Dev != st.Dev || in.before.Ino != st.Ino:
		unix.Close(fd)
		return nil, audit.Invalid(audit.InputChanged, -1, nil)
	case in.before.Size > MaxBytes:
		unix.Close(fd)
		return nil, tooLarge(in.before.Size)
	}
	// A regular file does not block: O_NONBLOCK was for opening a FIFO.
	// Left set, it would have os.NewFile hand the file to the runtime's
	// poller, which epoll refuses for a regular file, and whose first use
	// takes two more descriptors (and is a fatal error when there are
	// none).
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, audit.Invalid(audit.InputUnreadable, -1, err)
	}
	in.f = os.NewFile(uintptr(fd), "input")
	return in, nil
}

// resolve walks path from the directory start, one component at a time
// and refusing links at every step, so that no component can be swapped
// for a link between check and use. It returns the directory holding the
// file, the file's name in it, and the file's lstat, which says it is a
// regular file. The directory is -1 when it is start itself (no directory
// was opened on the way, as for "f" or "./f"); the caller closes any other,
// with closeDir.
//
// Every component but the last must be a directory, as for the kernel:
// "f/.." and "f/" are refused when f is a file (ENOTDIR, input_not_found).
// A last component that is empty (a trailing slash), "." or ".." names the
// directory reached, refused as input_not_regular.
func resolve(start int, path string) (dir int, name string, st unix.Stat_t, err error) {
	if path == "" {
		return -1, "", st, openError(syscall.ENOENT)
	}
	dir = -1 // none opened yet: the walk is at start
	at := func() int {
		if dir < 0 {
			return start
		}
		return dir
	}
	fail := func(err error) (int, string, unix.Stat_t, error) {
		if dir >= 0 {
			unix.Close(dir)
		}
		return -1, "", st, err
	}
	parts := strings.Split(path, "/")
	name = parts[len(parts)-1]
	for _, part := range parts[:len(parts)-1] {
		if part == "" || part == "." {
			continue
		}
		// ".." too is opened from the directory reached so far: the
		// kernel's parent of it, not a lexical one.
		next, err := withDescriptor(func() (int, error) { return unix.Openat(at(), part, dirFlags, 0) })
		if err != nil {
			if fstatatNoFollow(at(), part, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = syscall.ELOOP
			}
			return fail(openError(err))
		}
		if dir >= 0 {
			unix.Close(dir)
		}
		dir = next
		// O_DIRECTORY says so already; a link opened by O_PATH|O_NOFOLLOW
		// would be refused here.
		if err := unix.Fstat(dir, &st); err != nil {
			return fail(audit.Invalid(audit.InputUnreadable, -1, err))
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return fail(audit.Invalid(audit.InputSymlink, -1, nil))
		}
	}
	switch name {
	case "", ".", "..":
		return fail(audit.Invalid(audit.InputNotRegular, -1, nil))
	}
	if err := fstatatNoFollow(at(), name, &st); err != nil {
		return fail(openError(err))
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return fail(audit.Invalid(audit.InputSymlink, -1, nil))
	case unix.S_IFREG:
	default:
		return fail(audit.Invalid(audit.InputNotRegular, -1, nil))
	}
	return dir, name, st, nil
}

// closeDir closes a directory resolve returned.
func closeDir(dir int) {
	if dir >= 0 {
		unix.Close(dir)
	}
}

func fstatatNoFollow(dir int, name string, st *unix.Stat_t) error {
	return unix.Fstatat(dir, name, st, unix.AT_SYMLINK_NOFOLLOW)
}

// openError maps an OS error to its code, keeping the error only as cause.
// ENOTDIR is input_not_found: a path that goes on after a file ("f/x",
// "f/", "f/..") names nothing, as cat says.
func openError(err error) error {
	var code audit.Code
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR):
		code = audit.InputNotFound
	case errors.Is(err, syscall.ELOOP):
		code = audit.InputSymlink
	case errors.Is(err, syscall.ENXIO), errors.Is(err, syscall.ENODEV), errors.Is(err, syscall.EISDIR):
		code = audit.InputNotRegular
	default:
		code = audit.InputUnreadable
	}
	return audit.Invalid(code, -1, err)
}

// SizeError is input_too_large with the file's size, which the report
// still gives (SPEC §3: input.bytes is a file's size).
type SizeError struct {
	*audit.InputError
	Size int64
}

func (e *SizeError) Unwrap() error { return e.InputError }

func tooLarge(size int64) error {
	return &SizeError{audit.Invalid(audit.InputTooLarge, -1, nil), size}
}

// Size is the file's size as fstat gave it at Open: what a report's
// input.bytes says of a file, however much of it was read (SPEC §3).
func (in *File) Size() int64 { return in.before.Size }

// Read reads the file, counting the bytes.
func (in *File) Read(p []byte) (int, error) {
	n, err := in.f.Read(p)
	in.n += int64(n)
	return n, err
}

// Verify checks, after the whole file was read, that it did not change
// while it was read and that its path still names it (SPEC §3): it is
// VerifyUnchanged, and every byte the first fstat counted was read.
// Otherwise its error is input_changed.
func (in *File) Verify() error {
	if err := in.VerifyUnchanged(); err != nil {
		return err
	}
	if in.n != in.before.Size {
		return audit.Invalid(audit.InputChanged, -1, nil)
	}
	return nil
}

// VerifyUnchanged checks that the file has not changed since Open and that
// its path still names it, however much of it was read: fstat on the open
// file, and the path walked again from the start as Open walked it, must
// both give the same device, inode, size, mtime and ctime as at Open.
// Otherwise, also when the path no longer resolves (a directory on it
// swapped, renamed or made a link), its error is input_changed; but a walk
// that found no descriptor free is input_unreadable, which says nothing of
// the file.
//
// It may be called at any point between Open and Close, more than once,
// and while another goroutine reads the file: a caller that finds a
// content error before the end calls it so that input_changed wins over
// the content's code (SPEC §3).
func (in *File) VerifyUnchanged() error {
	var after unix.Stat_t
	if err := unix.Fstat(in.fd, &after); err != nil {
		return audit.Invalid(audit.InputChanged, -1, err)
	}
	dir, _, now, err := resolve(in.start, in.path)
	if err != nil {
		if outOfDescriptors(err) {
			return audit.Invalid(audit.InputUnreadable, -1, err)
		}
		return audit.Invalid(audit.InputChanged, -1, err)
	}
	closeDir(dir)
	if !sameFile(&after, &in.before) || !sameFile(&now, &in.before) {
		return audit.Invalid(audit.InputChanged, -1, nil)
	}
	return nil
}

// sameFile says whether a and b are the same file in the same state, as far
// as SPEC §3 asks.
func sameFile(a, b *unix.Stat_t) bool {
	return a.Dev == b.Dev && a.Ino == b.Ino && a.Size == b.Size &&
		a.Mtim == b.Mtim && a.Ctim == b.Ctim
}

// Close releases the file, the directory its walk starts from and its
// slot. Only the first call does.
func (in *File) Close() error {
	if in.closed {
		return os.ErrClosed
	}
	in.closed = true
	unix.Close(in.start)
	err := in.f.Close()
	releaseSlot()
	return err
}
