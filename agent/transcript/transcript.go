package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/tools"
)

// Transcript is the --json output of a run.
type Transcript struct {
	Task         string  `json:"task"`
	Model        string  `json:"model"`
	BaseURL      string  `json:"base_url"`
	Status       string  `json:"status"` // answered, refused, step_limit, timeout, interrupted, error
	Answer       string  `json:"answer"`
	Error        string  `json:"error,omitempty"`
	Steps        int     `json:"steps"`
	Requests     int     `json:"requests"`
	ToolDefBytes int     `json:"tool_def_bytes"`
	Events       []Event `json:"events"`
}

// Event is one thing that happened in a step.
type Event struct {
	Type    string          `json:"type"` // text, tool_call, tool_result, notice
	Step    int             `json:"step"`
	Text    string          `json:"text,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	Images  int             `json:"images,omitempty"`
}

// Printer renders agent events on w and records them in its Transcript.
// The model's text is held per step: text before a tool call is narration
// (printed), text of the last step is the answer (the caller prints it).
type Printer struct {
	w     io.Writer
	width int
	tr    *Transcript
	text  strings.Builder
	// effect says what a tool does; refused counts the calls the guard
	// refused and changed the calls that changed something (a write or a
	// script) and succeeded.
	effect           func(name string) catalog.Effect
	refused, changed int
}

// New returns a Printer writing to w, wrapping failures at width, filling
// tr; list is the registry's tools, which say what each call does.
func New(w io.Writer, width int, tr *Transcript, list func() []tools.ToolDef) *Printer {
	return &Printer{w: w, width: width, tr: tr, effect: toolEffects(list)}
}

// Transcript is what the printer recorded.
func (p *Printer) Transcript() *Transcript { return p.tr }

// Refused is the number of calls the guard refused; Changed the number
// that changed something (a write or a script) and succeeded.
func (p *Printer) Refused() int { return p.refused }

// Changed: see Refused.
func (p *Printer) Changed() int { return p.changed }

// Event takes one agent event (agent.Turn's sink).
func (p *Printer) Event(e agent.Event) {
	switch e.Kind {
	case agent.EventStep:
		p.tr.Steps = e.Step
		p.text.Reset()
	case agent.EventText:
		p.text.WriteString(e.Text)
	case agent.EventToolCall:
		p.narrate(e.Step)
		fmt.Fprintf(p.w, "→ %s %s\n", textutil.VisibleLine(e.Call.Name), textutil.VisibleLine(shorten(e.Call.Args, 200)))
		ev := Event{Type: "tool_call", Step: e.Step, Tool: e.Call.Name}
		if json.Valid([]byte(e.Call.Args)) {
			ev.Args = json.RawMessage(e.Call.Args)
		}
		p.tr.Events = append(p.tr.Events, ev)
	case agent.EventToolResult:
		p.result(e)
	case agent.EventNotice:
		fmt.Fprintf(p.w, "browseragent: %s\n", e.Text)
		p.tr.Events = append(p.tr.Events, Event{Type: "notice", Step: e.Step, Text: e.Text})
	}
}

func (p *Printer) narrate(step int) {
	t := strings.TrimSpace(p.text.String())
	p.text.Reset()
	if t == "" {
		return
	}
	fmt.Fprintln(p.w, textutil.Visible(t)) // pages the model read may have chosen it; the transcript keeps it as it came
	p.tr.Events = append(p.tr.Events, Event{Type: "text", Step: step, Text: t})
}

func (p *Printer) result(e agent.Event) {
	ev := Event{Type: "tool_result", Step: e.Step, Tool: e.Call.Name}
	size := 0
	switch {
	case e.Err != nil:
		ev.IsError, ev.Text = true, e.Err.Error()
	case e.Result != nil:
		size = len(e.Result.Text)
		ev.IsError, ev.Text, ev.Images = e.Result.IsError(), textutil.Cut(e.Result.Full(), 2000), len(e.Result.Images) // its own lines, as the model read it
	}
	switch {
	case e.Refused:
		p.refused++
	case !ev.IsError && p.effect != nil:
		if eff := p.effect(e.Call.Name); eff == catalog.Write || eff == catalog.Script {
			p.changed++
		}
	}
	if ev.IsError {
		// Wrapped, not cut: the reason's end is what says how to go on.
		io.WriteString(p.w, textutil.Wrap(textutil.Visible(textutil.Labelled(e.Call.Name, words.ForScript(personText(e)))), p.width, "  ✗ ", "    "))
	} else {
		fmt.Fprintf(p.w, "  ✓ %s: %d chars, %d images\n", textutil.VisibleLine(e.Call.Name), size, ev.Images)
	}
	p.tr.Events = append(p.tr.Events, ev)
}

// toolEffects returns what each tool of list does, by its catalogue entry
// (an unknown tool is a write).
func toolEffects(list func() []tools.ToolDef) func(string) catalog.Effect {
	if list == nil {
		return nil
	}
	return func(name string) catalog.Effect {
		for _, d := range list() {
			if d.Name == name {
				return catalog.Describe(d.Server, d.RawName, catalog.Hints{ReadOnly: d.ReadOnlyHint, Destructive: d.DestructiveHint}, d.Parameters).Effect
			}
		}
		return catalog.UnknownTool(name).Effect
	}
}

// personText is a failed call as the person reads it (the transcript keeps
// what the model read).
func personText(e agent.Event) string {
	if e.Err != nil {
		return words.Error(e.Err)
	}
	return e.Result.ForPerson()
}

// shorten keeps s to one line of at most n bytes.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
