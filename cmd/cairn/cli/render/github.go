package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-audit/cairn/audit"
)

// GitHub Actions: a workflow command per check that did not pass, of
// every input (::error for fail, ::warning for inconclusive), one
// ::notice per informational code of a passing check, one ::error per
// invalid input, and a last plain line with the totals; with a summary
// file, a Markdown table of every input appended to it.
//
// GitHub shows at most 10 annotations of each level a step and drops the
// others without a word (SPEC §14.1 v4): a process prints at most
// MaxAnnotations ::error and ::warning lines and MaxAnnotations-1
// informational ::notice lines; the findings beyond them are counted, and
// one last ::notice says how many and where all of them are.

// MaxAnnotations is the most workflow commands of one level a process
// prints.
const MaxAnnotations = 10

type githubWriter struct {
	w, summary io.Writer
	opts       Options
	totals     totals
	limits     []audit.Code
	printed    map[string]int // commands printed, by level
	left       map[string]int // findings not printed, by level
}

func newGitHub(w io.Writer, opts Options) Writer {
	return &githubWriter{w: w, summary: opts.Summary, opts: opts, printed: map[string]int{}, left: map[string]int{}}
}

// command writes one workflow command: ::LEVEL title=TITLE::MESSAGE.
func (g *githubWriter) command(level, title, message string) {
	fmt.Fprintf(g.w, "::%s title=%s::%s\n", level, escapeProperty(title), escapeData(message))
}

// annotate writes a finding's command while its level has room, and
// counts it otherwise. A notice leaves room for the one that counts.
func (g *githubWriter) annotate(level, title, message string) {
	room := MaxAnnotations
	if level == "notice" {
		room--
	}
	if g.printed[level] >= room {
		g.left[level]++
		return
	}
	g.printed[level]++
	g.command(level, title, message)
}

// overflow is the one ::notice of the findings not annotated, when there
// are some: how many of each level, and where they all are; and of the
// stop, when the errors left it no room.
func (g *githubWriter) overflow(stop *Stop) {
	n := g.left["error"] + g.left["warning"] + g.left["notice"]
	if n == 0 && stop == nil {
		return
	}
	where := "the report (--output json or sarif) lists them all"
	if g.summary != nil {
		where = "the step summary lists every input and its codes, the report (--output json or sarif) every finding"
	}
	title := fmt.Sprintf("cairn: %d more %s not annotated", n, plural(n, "finding"))
	text := fmt.Sprintf("GitHub shows %d annotations of each level a step: %d more errors, %d more warnings and %d more notices are not annotated here; %s",
		MaxAnnotations, g.left["error"], g.left["warning"], g.left["notice"], where)
	if stop != nil {
		title += "; stopped early: " + stop.Code
		text += "; the run did not complete: " + stop.line()
	}
	g.command("notice", title, text)
}

func (g *githubWriter) Input(in Input) {
	rep := in.Report
	g.totals.add(rep.Status)
	g.limits = rep.Limitations
	name := "cairn " + inputName(in.Position)
	if e := rep.Error; e != nil {
		g.annotate("error", name+": invalid input: "+e.Code.String(),
			e.Code.Meaning()+" ("+placeText(rep.Input.Format, e.Record, e.Where)+"); "+e.Code.Next())
	} else if rep.Checks != nil {
		for k, v := range rep.Checks.All() {
			var texts []string
			for _, code := range v.Codes {
				texts = append(texts, codeText(rep, code))
			}
			switch v.State {
			case audit.Fail:
				g.annotate("error", name+": "+k.String()+" fail: "+joinCodes(v.Codes), strings.Join(texts, "; "))
			case audit.Inconclusive:
				g.annotate("warning", name+": "+k.String()+" inconclusive: "+joinCodes(v.Codes), strings.Join(texts, "; "))
			default:
				for _, code := range informational(v.Codes) {
					g.annotate("notice", name+": "+k.String()+": "+code.String(), codeText(rep, code))
				}
			}
		}
	}
	g.row(in)
}

// row appends the input's line of the summary table.
func (g *githubWriter) row(in Input) {
	if g.summary == nil {
		return
	}
	if g.totals.inputs == 1 {
		g.summaryHead()
		g.tableHead()
	}
	rep := in.Report
	cells := []string{fmt.Sprint(in.Position), rep.Input.Format, fmt.Sprintf("%s (exit %d)", rep.Status, rep.ExitCode)}
	if e := rep.Error; e != nil {
		cells[2] += ": `" + e.Code.String() + "` at " + placeText(rep.Input.Format, e.Record, e.Where)
		for range audit.NumChecks {
			cells = append(cells, "")
		}
	} else if rep.Checks != nil {
		for _, v := range rep.Checks.All() {
			cell := string(v.State)
			for _, code := range v.Codes {
				cell += " `" + code.String() + "`"
			}
			cells = append(cells, cell)
		}
	}
	io.WriteString(g.summary, "| "+strings.Join(cells, " | ")+" |\n")
}

func (g *githubWriter) summaryHead() {
	io.WriteString(g.summary, "### cairn: project-memory audit\n\n")
}

func (g *githubWriter) tableHead() {
	head := "| input | format | status |"
	for k := range audit.NumChecks {
		head += " " + k.String() + " |"
	}
	io.WriteString(g.summary, head+"\n")
	io.WriteString(g.summary, "| ---: | --- | --- |"+strings.Repeat(" --- |", int(audit.NumChecks))+"\n")
}

// Close writes the totals line; a run that stopped early first gets an
// ::error naming the stop's code, and a row of the summary that says it.
func (g *githubWriter) Close(exit int, stop *Stop) {
	// The stop's ::error, or, when the errors left no room, the
	// overflow's notice names it.
	unsaid := stop
	if stop != nil && g.printed["error"] < MaxAnnotations {
		g.printed["error"]++
		g.command("error", "cairn: stopped early: "+stop.Code, "the run did not complete: "+stop.line())
		unsaid = nil
	}
	g.overflow(unsaid)
	fmt.Fprintf(g.w, "cairn: %s\n", g.totals.text(exit, stop))
	if g.summary == nil {
		return
	}
	if g.totals.inputs == 0 {
		g.summaryHead()
		if stop != nil {
			g.tableHead()
		}
	}
	if stop != nil {
		cells := []string{"stopped", "", "stopped early: `" + stop.Code + "`: " + stop.Text}
		for range audit.NumChecks {
			cells = append(cells, "")
		}
		io.WriteString(g.summary, "| "+strings.Join(cells, " | ")+" |\n")
	}
	fmt.Fprintf(g.summary, "\n%s. Not certified: %s. What each code means: [docs/codes.md](%s).\n\n",
		capitalize(g.totals.text(exit, stop)), "`"+strings.Join(codeNames(g.limits), "`, `")+"`", CodesURL)
}

// Disabled: one warning, and the summary says that nothing was audited.
func (g *githubWriter) Disabled(n int, notice string) {
	g.command("warning", "cairn: not audited", strings.TrimPrefix(notice, "cairn: "))
	if g.summary != nil {
		g.summaryHead()
		fmt.Fprintf(g.summary, "Nothing was audited (%d %s): %s. This is not a passing audit.\n\n", n, plural(n, "input"), strings.TrimPrefix(notice, "cairn: nothing was audited: "))
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return unit
	}
	return unit + "s"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
