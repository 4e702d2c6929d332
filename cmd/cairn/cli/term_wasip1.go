package cli

import "unsafe"

// termIsTerminal is isatty as wasi-libc defines it: fd is a character
// device on which seeking is not allowed. (golang.org/x/term says no for
// every descriptor on wasip1, so that standard input from a terminal
// would be read, a hang, instead of refused as SPEC §2 asks; /dev/null is
// a character device too, but one that allows seeking.)
func termIsTerminal(fd int) bool {
	var st fdstat
	if fdFdstatGet(int32(fd), unsafe.Pointer(&st)) != 0 {
		return false
	}
	return st.filetype == filetypeCharacterDevice && st.rightsBase&(rightFdSeek|rightFdTell) == 0
}

// fdstat is WASI preview 1's fdstat: 24 bytes, the filetype at 0, the
// flags at 2, the rights at 8 and 16.
type fdstat struct {
	filetype         uint8
	_                uint8
	flags            uint16
	_                uint32
	rightsBase       uint64
	rightsInheriting uint64
}

const (
	filetypeCharacterDevice = 2
	rightFdSeek             = 1 << 2
	rightFdTell             = 1 << 5
)

//go:wasmimport wasi_snapshot_preview1 fd_fdstat_get
//go:noescape
func fdFdstatGet(fd int32, st unsafe.Pointer) int32

// The layout above is the ABI's.
var _ [24]byte = [unsafe.Sizeof(fdstat{})]byte{}
