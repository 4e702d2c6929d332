//go:build !amd64 || purego

package stream

// plainRun is the index of the first byte of b that is a quote, a control
// character or a backslash that does not start a two-byte escape, or
// len(b), and whether it stepped over an escape.
func plainRun(b []byte) (n int, escaped bool) { return plainWords8(b) }

// textOnly reports whether every byte of b is ASCII and none is NUL.
func textOnly(b []byte) bool { return textWords(b) }
