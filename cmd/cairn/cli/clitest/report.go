package clitest

// Report is the --json report, read strictly.
type Report struct {
	Schema   string `json:"schema"`
	Enabled  bool   `json:"enabled"`
	Status   string `json:"status"`
	ExitCode int    `json:"exit_code"`
	Input    struct {
		Format  string  `json:"format"`
		Source  string  `json:"source"`
		Harness *string `json:"harness"`
		SHA256  *string `json:"sha256"`
		Bytes   int64   `json:"bytes"`
		Records int     `json:"records"`
		Events  int     `json:"events"`
	} `json:"input"`
	Policy struct {
		Catalog           string `json:"catalog"`
		CaptureAuthorized bool   `json:"capture_authorized"`
		SHA256            string `json:"sha256"`
	} `json:"policy"`
	Checks *map[string]struct {
		State string   `json:"state"`
		Codes []string `json:"codes"`
	} `json:"checks"`
	Counts   map[string]int `json:"counts"`
	Findings []struct {
		Code   string  `json:"code"`
		Record *int    `json:"record"`
		Where  *string `json:"where"`
	} `json:"findings"`
	Error *struct {
		Code   string  `json:"code"`
		Record *int    `json:"record"`
		Where  *string `json:"where"`
	} `json:"error"`
	Limitations []string `json:"limitations"`
}

// Alnum reports whether c is an ASCII letter or digit: the leak tests
// look for runs of them.
func Alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Window is the length of the runs the leak tests look for: no run of
// Window letters and digits of an input may appear in an output unless
// the output's own vocabulary has it.
const Window = 8
