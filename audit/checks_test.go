package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestChecksByCheck holds the Check enum to the report's shape: the
// members of checks are the checks' names in report order, and At(k) is
// the member k names.
func TestChecksByCheck(t *testing.T) {
	b, err := json.Marshal(Checks{})
	if err != nil {
		t.Fatal(err)
	}
	var members []string
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.Token()
	for dec.More() {
		tok, _ := dec.Token()
		members = append(members, tok.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if len(members) != int(NumChecks) {
		t.Fatalf("checks has members %v, want %d", members, NumChecks)
	}
	for k := range NumChecks {
		if members[k] != k.String() {
			t.Errorf("member %d is %s, want %s", k, members[k], k)
		}
		var c Checks
		c.At(k).State = Fail
		b, _ := json.Marshal(c)
		var got map[string]Verdict
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for name, v := range got {
			if (v.State == Fail) != (name == k.String()) {
				t.Errorf("At(%s) sets member %s", k, name)
			}
		}
		n := 0
		for kk, v := range c.All() {
			if kk != Check(n) || (v.State == Fail) != (kk == k) {
				t.Errorf("All yields %s (%s) at %d", kk, v.State, n)
			}
			n++
		}
		if n != int(NumChecks) {
			t.Errorf("All yields %d checks, want %d", n, NumChecks)
		}
	}
	if got, want := NumChecks.String(), fmt.Sprintf("check(%d)", NumChecks); got != want {
		t.Errorf("NumChecks.String() = %s, want %s", got, want)
	}
}
