//go:build unix

package main

import "github.com/cairn-audit/cairn/scripts/ordered"

// The mock's JSON objects and opencode.json keep their members in order (package ordered).
type obj = ordered.Obj

var (
	o  = ordered.O
	kv = ordered.Member
)
