//go:build unix

package capturekit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Facts are an inventory of a version's captures: facts (a record type
// with its members, a tool name, an ending) and the captures each was seen
// in. A diff of two versions' inventories is the quickest review of drift.
type Facts map[string]map[string]bool

// Add notes that fact holds in file.
func (f Facts) Add(fact, file string) {
	if f[fact] == nil {
		f[fact] = map[string]bool{}
	}
	f[fact][file] = true
}

// Write is the inventory as "FACT\n    FILE FILE…\n" lines under a header
// line, facts sorted.
func (f Facts) Write(header string) []byte {
	var out bytes.Buffer
	out.WriteString(header + "\n")
	for _, k := range sortedKeys(f) {
		fmt.Fprintf(&out, "%s\n    %s\n", k, strings.Join(sortedKeys(f[k]), " "))
	}
	return out.Bytes()
}

// Sections is the inventory as "## SECTION" blocks of "ITEM\tFILES" lines
// (at most six files named), for facts written "SECTION\x00ITEM".
func (f Facts) Sections() []byte {
	bySection := map[string]Facts{}
	for k, files := range f {
		sec, item, _ := strings.Cut(k, "\x00")
		if bySection[sec] == nil {
			bySection[sec] = Facts{}
		}
		bySection[sec][item] = files
	}
	var out bytes.Buffer
	for _, sec := range sortedKeys(bySection) {
		fmt.Fprintf(&out, "## %s\n", sec)
		items := bySection[sec]
		for _, it := range sortedKeys(items) {
			fs := sortedKeys(items[it])
			if len(fs) > 6 {
				fs = append(fs[:6], fmt.Sprintf("… (%d files)", len(items[it])))
			}
			fmt.Fprintf(&out, "%s\t%s\n", it, strings.Join(fs, " "))
		}
		out.WriteString("\n")
	}
	return out.Bytes()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Record is one line of a JSONL capture, its members undecoded.
type Record map[string]json.RawMessage

// Str is member k's string value ("" for anything else).
func (r Record) Str(k string) string { return Str(r[k]) }

// Obj is member k as a Record (nil when it is not an object).
func (r Record) Obj(k string) Record {
	var o Record
	_ = json.Unmarshal(r[k], &o)
	return o
}

// OutputForm is what a tool's output (a JSON value) is: none, not a
// string, an empty string, a JSON object's text, or other text.
func OutputForm(raw json.RawMessage) string {
	var s string
	switch {
	case raw == nil:
		return "no output"
	case json.Unmarshal(raw, &s) != nil:
		return "output not a string"
	case s == "":
		return "output empty string"
	case json.Valid([]byte(s)) && strings.HasPrefix(strings.TrimSpace(s), "{"):
		return "output a JSON object text"
	}
	return "output other text"
}

// EachRecord calls fn for every line of the captures in dir and its
// folders whose names end in suffix, in file name order; rec is nil for a
// line that is not a JSON object. name is the file's path below dir
// without suffix.
func EachRecord(dir, suffix string, fn func(name string, line []byte, rec Record)) error {
	files, err := filepath.Glob(filepath.Join(dir, "*"+suffix))
	if err != nil {
		return err
	}
	sub, err := filepath.Glob(filepath.Join(dir, "*", "*"+suffix))
	if err != nil {
		return err
	}
	files = append(files, sub...)
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, f)
		name := strings.TrimSuffix(filepath.ToSlash(rel), suffix)
		for _, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var rec Record
			if json.Unmarshal(line, &rec) != nil {
				rec = nil
			}
			fn(name, line, rec)
		}
	}
	return nil
}

// Sessions are the names of the scenarios among ss that keep the CLI's
// session file, not its stdout (Keep "session").
func Sessions[S any, P row[S]](ss []P) map[string]bool {
	names := map[string]bool{}
	for _, s := range ss {
		if s.Base().Keep == "session" {
			names[s.Base().Name] = true
		}
	}
	return names
}

// EachSession calls fn for every line of the JSONL session files in dir,
// the captures sessions names (see EachRecord), and says how many it read.
func EachSession(dir string, sessions map[string]bool, fn func(name string, line []byte, rec Record)) (int, error) {
	seen := map[string]bool{}
	err := EachRecord(dir, ".jsonl", func(name string, line []byte, rec Record) {
		if sessions[name] {
			seen[name] = true
			fn(name, line, rec)
		}
	})
	return len(seen), err
}

// Streams adds the facts every JSONL capture in dir has (but those skip
// names), under prefix: each record's type with its member list, a line
// that is not JSON, and each file's last record (its type and what fn
// returns for it); fn adds a record's own facts with add. It returns how
// many captures it read.
func (f Facts) Streams(dir, prefix string, skip func(name string) bool, fn func(name, typ string, line []byte, rec Record, add func(string)) string) (int, error) {
	last := map[string]string{}
	err := EachRecord(dir, ".jsonl", func(name string, line []byte, rec Record) {
		if skip != nil && skip(name) {
			return
		}
		add := func(fact string) { f.Add(prefix+fact, name) }
		if rec == nil {
			add("NOT-JSON line")
			last[name] += ""
			return
		}
		typ := rec.Str("type")
		add(fmt.Sprintf("record %s members %s", typ, Members(line)))
		last[name] = typ + fn(name, typ, line, rec, add)
	})
	for name, l := range last {
		f.Add(prefix+"last record "+l, name)
	}
	return len(last), err
}
