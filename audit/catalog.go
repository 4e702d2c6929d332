package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// CatalogName names the catalog of SPEC §6.5.
const CatalogName = "cairn-memory/1"

// Tool is a memory tool of the catalog; NoTool is any other tool.
type Tool uint8

const (
	NoTool Tool = iota
	MemorySearch
	MemoryGet
	MemoryList
	MemoryStore
	MemoryUpdate
	MemoryDelete
	numTools
)

// Class is what a catalog tool may do, from its MCP annotations.
type Class uint8

const (
	Read        Class = iota + 1 // readOnlyHint
	Capture                      // additive: neither read-only nor destructive
	Destructive                  // destructiveHint
)

var classNames = map[Class]string{Read: "read", Capture: "capture", Destructive: "destructive"}

var catalog = [numTools]struct {
	name  string
	class Class
}{
	MemorySearch: {"memory_search", Read},
	MemoryGet:    {"memory_get", Read},
	MemoryList:   {"memory_list", Read},
	MemoryStore:  {"memory_store", Capture},
	MemoryUpdate: {"memory_update", Destructive},
	MemoryDelete: {"memory_delete", Destructive},
}

// Servers are the MCP server names of the memory server, matched exactly.
var Servers = []string{"cairn-memory", "cairn_memory"}

// LookupTool finds a catalog tool by its exact bare name.
func LookupTool(name string) Tool {
	for t := Tool(1); t < numTools; t++ {
		if catalog[t].name == name {
			return t
		}
	}
	return NoTool
}

// IsServer reports whether name is exactly a memory server's name.
func IsServer(name string) bool {
	for _, s := range Servers {
		if s == name {
			return true
		}
	}
	return false
}

func (t Tool) String() string { return catalog[t].name }

// Class returns the tool's catalog class (0 for NoTool).
func (t Tool) Class() Class { return catalog[t].class }

// Tools lists the catalog's tools.
func Tools() []Tool {
	ts := make([]Tool, 0, numTools-1)
	for t := Tool(1); t < numTools; t++ {
		ts = append(ts, t)
	}
	return ts
}

// PolicyJSON is the policy — the catalog plus the capture assertion — as
// RFC 8785 canonical JSON: members sorted by name, no insignificant
// whitespace. Only ASCII names and strings occur, so byte order is the
// UTF-16 order RFC 8785 asks for.
func PolicyJSON(captureAuthorized bool) []byte {
	var b strings.Builder
	b.WriteString(`{"capture_authorized":`)
	b.WriteString(boolText(captureAuthorized))
	b.WriteString(`,"catalog":"` + CatalogName + `","servers":[`)
	for i, s := range Servers {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + s + `"`)
	}
	b.WriteString(`],"tools":[`)
	for i, t := range Tools() {
		if i > 0 {
			b.WriteByte(',')
		}
		c := t.Class()
		b.WriteString(`{"annotations":{"destructiveHint":` + boolText(c == Destructive) +
			`,"readOnlyHint":` + boolText(c == Read) + `},"class":"` + classNames[c] +
			`","name":"` + t.String() + `"}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// PolicyDigest is the hex SHA-256 of PolicyJSON.
func PolicyDigest(captureAuthorized bool) string {
	sum := sha256.Sum256(PolicyJSON(captureAuthorized))
	return hex.EncodeToString(sum[:])
}

func boolText(v bool) string {
	if v {
		return "true"
	}
	return "false"
}
