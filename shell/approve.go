package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"

	runewidth "github.com/mattn/go-runewidth"
	"golang.org/x/sys/unix"

	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/tools"
)

// approveMu makes approvals one at a time: two boxes at once could not be
// answered.
var approveMu sync.Mutex

// approve is Hooks.Approve, once Run has started: a box that names the tool, server,
// page, matched rule and arguments, and asks: y once, t this tool always,
// s this server always, n no. On a sensitive page only y or n is offered.
// At a terminal anything else asks again. In a script the answer is the
// next line only when it is one of the answers offered; any other line
// means no and stays the script's next command, so a script without an
// answer loses nothing. End of input means no, Ctrl-C (ctx) means no with
// ctx's error. With Options.Yes, calls on ordinary pages are approved once
// without asking; a sensitive page always asks.
func (s *Shell) approve(ctx context.Context, req tools.ApprovalRequest) (tools.Answer, error) {
	approveMu.Lock()
	defer approveMu.Unlock()
	s.p.SpinStop()
	if s.opts.Yes && !req.Sensitive {
		s.p.Hint("approved by --yes: %s %s", textutil.VisibleLine(req.Tool), textutil.VisibleLine(req.PageURL))
		return tools.AnswerOnce, nil
	}
	s.p.Hold(true)
	defer s.p.Hold(false)
	s.p.Text(approvalBox(req, s.p))
	question := choicesLine(req)
	for {
		s.p.Prompt(question)
		line, err := s.readLine(ctx)
		if errors.Is(err, io.EOF) {
			s.p.Line("")
			s.p.Hint("not approved (end of input)")
			return tools.AnswerNone, nil
		}
		if err != nil {
			s.p.Line("")
			s.p.Hint("not approved")
			return tools.AnswerDeny, err
		}
		a, ok := parseAnswer(line, req)
		if s.tty == nil {
			return s.scriptAnswer(line, a, ok), nil
		}
		if ok {
			return a, nil
		}
		if req.Sensitive {
			s.p.Error("sensitive page (rule %s): answer y or n", textutil.VisibleLine(orNone(req.Rule)))
		} else {
			s.p.Error("answer %s", strings.Join(strings.Split(strings.Trim(offered(req), "[] "), "/"), ", "))
		}
	}
}

// approvalBox draws the request, every value made visible (the page chose
// its URL and may have put it in the reason; the arguments are already).
func approvalBox(req tools.ApprovalRequest, p *printer) string {
	rows := [][2]string{{"tool", req.Tool}}
	if req.Server != "" {
		rows = append(rows, [2]string{"server", req.Server})
	}
	if req.PageURL != "" {
		rows = append(rows, [2]string{"page", req.PageURL})
	}
	if req.Rule != "" {
		rule := req.Rule
		if req.Sensitive {
			rule += " (sensitive site)"
		}
		rows = append(rows, [2]string{"rule", rule})
	}
	if req.Reason != "" {
		rows = append(rows, [2]string{"why", req.Reason})
	}
	if req.Args != "" {
		// Every character that runs, wrapped, never cut.
		for i, line := range strings.Split(req.Args, "\n") {
			label := ""
			if i == 0 {
				label = "args"
			}
			rows = append(rows, [2]string{label, line})
		}
	}
	var b strings.Builder
	b.WriteString(p.paint(ansiBold, "╭─ approve this tool call? ") + "\n")
	for _, r := range rows {
		for i, part := range wrapWidth(textutil.VisibleLine(r[1]), approvalWidth) {
			label := r[0]
			if i > 0 {
				label = ""
			}
			fmt.Fprintf(&b, "│ %-7s %s\n", label, part)
		}
	}
	b.WriteString("╰─ [y] yes, once")
	if req.Offers(tools.AnswerTool) {
		b.WriteString("   [t] this tool always")
	}
	if req.Offers(tools.AnswerServer) {
		b.WriteString("   [s] this server always")
	}
	b.WriteString("   [n] no")
	if req.Sensitive {
		b.WriteString("   (sensitive page: no standing grants)")
	}
	return b.String()
}

// approvalWidth is the width, in terminal columns, the box wraps its
// values at.
const approvalWidth = 100

// wrapWidth splits s into pieces of at most width columns, at spaces when
// it can, keeping every character: a piece never drops what it wraps.
func wrapWidth(s string, width int) []string {
	var out []string
	for runewidth.StringWidth(s) > width {
		cut, w := 0, 0
		for i, r := range s {
			rw := runewidth.RuneWidth(r)
			if w+rw > width {
				cut = i
				break
			}
			w += rw
		}
		if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut/2 {
			cut = sp + 1
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

func choicesLine(req tools.ApprovalRequest) string {
	return "approve? " + offered(req) + " "
}

// offered lists the answer keys the guard accepts for req, e.g. "[y/t/n]".
func offered(req tools.ApprovalRequest) string {
	keys := []string{"y"}
	if req.Offers(tools.AnswerTool) {
		keys = append(keys, "t")
	}
	if req.Offers(tools.AnswerServer) {
		keys = append(keys, "s")
	}
	return "[" + strings.Join(append(keys, "n"), "/") + "]"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// parseAnswer reads y/t/s/n (and yes/no); t and s count only when the
// guard offers them (never on a sensitive page).
func parseAnswer(line string, req tools.ApprovalRequest) (tools.Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return tools.AnswerOnce, true
	case "n", "no":
		return tools.AnswerDeny, true
	case "t":
		return tools.AnswerTool, !req.Sensitive && req.Offers(tools.AnswerTool)
	case "s":
		return tools.AnswerServer, !req.Sensitive && req.Offers(tools.AnswerServer)
	}
	return tools.AnswerDeny, false
}

// scriptAnswer takes a script's line as the answer when it is one (ok);
// any other line is the script's next command, put back, and the call is
// declined: asking again would swallow the rest of the script.
func (s *Shell) scriptAnswer(line string, a tools.Answer, ok bool) tools.Answer {
	if ok {
		s.p.Line("%s", line) // echo, so a transcript reads well
		return a
	}
	s.unread(line)
	s.p.Line("")
	s.p.ErrHint("no answer on the next line: not approved")
	return tools.AnswerNone
}

// readAnswer reads one line like readLine; a script's line is echoed after
// the question, so a transcript reads well.
func (s *Shell) readAnswer(ctx context.Context) (string, error) {
	line, err := s.readLine(ctx)
	if err == nil && s.tty == nil {
		s.p.Line("%s", line)
	}
	return line, err
}

// readLine reads one line: from the terminal (cooked mode, the command is
// running) or the script's next line.
func (s *Shell) readLine(ctx context.Context) (string, error) {
	if s.tty == nil {
		return s.nextLine(ctx)
	}
	return readLineFD(ctx, s.tty.fd)
}

// readLineFD reads a line from a terminal in cooked mode, giving up when
// ctx ends (Ctrl-C cancels the command that asked).
func readLineFD(ctx context.Context, fd int) (string, error) {
	var line []byte
	buf := make([]byte, 256)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 100)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return "", err
		}
		if n <= 0 {
			continue
		}
		m, err := syscall.Read(fd, buf)
		if m == 0 || err != nil {
			return "", io.EOF
		}
		line = append(line, buf[:m]...)
		if i := strings.IndexByte(string(line), '\n'); i >= 0 {
			return string(line[:i]), nil
		}
	}
}
