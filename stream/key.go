package stream

import (
	"encoding/binary"
	"hash/maphash"
)

// Key is a 128-bit digest of an id, a name or a value: what the front ends
// keep of a call's id or an item's identity instead of the bytes, beside
// the input's SHA-256 (digest.go), so that no id or payload is held.
type Key [16]byte

// keySeeds are chosen at random per process, so that no input can be
// crafted to make two different ids or identities collide; two 64-bit
// seeded hashes are much cheaper per id than a SHA-256, and an accidental
// collision (2^-128) is out of reach.
var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// KeyOf digests b.
func KeyOf(b []byte) Key {
	var k Key
	binary.LittleEndian.PutUint64(k[:8], maphash.Bytes(keySeeds[0], b))
	binary.LittleEndian.PutUint64(k[8:], maphash.Bytes(keySeeds[1], b))
	return k
}

// ValueKey digests the canonical form of the checked JSON value v (members
// sorted, strings and numbers in one form: WriteCanonical), so that two
// values equal as JSON values have one Key, however they are written.
// Front ends compare call arguments seen twice (Pi's toolCall and its
// tool_execution_start) this way, keeping the Key, not the arguments.
func ValueKey(v []byte) Key {
	var h KeyHash
	h.Reset()
	WriteCanonical(&h, v)
	return h.Sum()
}

// A KeyHash computes a Key (the two seeded hashes of KeyOf) of bytes
// written in pieces: equal to KeyOf of their concatenation. Reset it
// before the first piece.
type KeyHash struct{ h [2]maphash.Hash }

// Reset starts a new Key.
func (k *KeyHash) Reset() {
	k.h[0].SetSeed(keySeeds[0])
	k.h[1].SetSeed(keySeeds[1])
}

// Write adds p; it never fails.
func (k *KeyHash) Write(p []byte) (int, error) {
	k.h[0].Write(p)
	k.h[1].Write(p)
	return len(p), nil
}

// Sum is the Key of everything written since Reset.
func (k *KeyHash) Sum() Key {
	var key Key
	binary.LittleEndian.PutUint64(key[:8], k.h[0].Sum64())
	binary.LittleEndian.PutUint64(key[8:], k.h[1].Sum64())
	return key
}
