package normalize

import (
	"slices"
	"testing"
)

// TestClineRowsFit guards the representation: a Cline row given more
// members than Cline.values holds fails here, not at run time; every
// required member is one of its row's, every content_* row names its
// contentType, and no two rows read the same (type, contentType).
func TestClineRowsFit(t *testing.T) {
	var c Cline
	seen := map[[2]string]bool{}
	for _, rows := range [][]clineRow{clineRecords, clineEvents} {
		for _, r := range rows {
			if len(r.members) > len(c.values) {
				t.Errorf("%s: %d members, Cline.values holds %d", r.place, len(r.members), len(c.values))
			}
			for _, req := range r.required {
				if r.index([]byte(req)) < 0 {
					t.Errorf("%s: required %s is not a member", r.place, req)
				}
			}
			if k := [2]string{r.typ, r.content}; seen[k] {
				t.Errorf("%s: two rows for %v", r.place, k)
			} else {
				seen[k] = true
			}
			if (r.typ == "content_start" || r.typ == "content_end" || r.typ == "content_update") != (r.content != "") {
				t.Errorf("%s: a content row names its contentType, and only it", r.place)
			}
		}
	}
	// Every place is named once.
	places := ClinePlaces()
	sorted := slices.Clone(places)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(places) {
		t.Errorf("ClinePlaces names a place twice: %v", places)
	}
}
