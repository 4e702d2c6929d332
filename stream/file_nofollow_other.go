//go:build !unix && !wasip1

package stream

// noFollow is 0 where os.OpenFile has no flag for it (Windows): there the
// Lstat of the walk and the fstat after opening are all there is.
const noFollow = 0
