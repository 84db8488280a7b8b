//go:build linux

package early_test

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browsercli/early"
	"github.com/browseragent/browseragent/browsercli/wire"
)

// daemon is a session's daemon as the command line sees it: it holds the
// session's lock, listens on its socket, and answers each command with
// the messages of the case (an "answer" the client sends is recorded).
type daemon struct {
	t        *testing.T
	ln       net.Listener
	requests chan wire.Message // what each connection sent first
	answers  chan string       // an "answer" a client sent to an "ask"
	reply    []string          // the messages to send, one a line; "" closes without a word
}

func startDaemon(t *testing.T, name string) *daemon {
	p, err := wire.PathsOf(name)
	if err != nil {
		t.Fatal(err)
	}
	lock, ok, err := p.TakeLock()
	if err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	t.Cleanup(func() { lock.Close() })
	ln, err := net.Listen("unix", p.Sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	d := &daemon{t: t, ln: ln, requests: make(chan wire.Message, 10), answers: make(chan string, 10)}
	return d
}

// serveOne answers one connection with d.reply.
func (d *daemon) serveOne() {
	c, err := d.ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	r := bufio.NewReader(c)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return
	}
	var m wire.Message
	if err := json.Unmarshal(line, &m); err != nil {
		d.t.Errorf("the request is no JSON message: %v\n%s", err, line)
	}
	d.requests <- m
	for _, msg := range d.reply {
		if msg == "" {
			return
		}
		c.Write([]byte(msg + "\n"))
		if strings.Contains(msg, `"type":"ask"`) {
			line, _ := r.ReadBytes('\n')
			var a wire.Message
			json.Unmarshal(line, &a)
			d.answers <- a.Answer
		}
	}
}

// outcome is what a command printed and its exit code.
type outcome struct {
	Taken          bool
	Code           int
	Stdout, Stderr string
}

// run runs args through fn with stdin, stdout and stderr files (no
// terminals), as the program's init would.
func run(t *testing.T, fn func(args []string, stdin, stdout, stderr *os.File) (int, bool), args []string) outcome {
	t.Helper()
	dir := t.TempDir()
	open := func(name string) *os.File {
		f, err := os.Create(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	in, out, errw := open("in"), open("out"), open("err")
	code, taken := fn(args, in, out, errw)
	for _, f := range []*os.File{in, out, errw} {
		f.Close()
	}
	o, _ := os.ReadFile(dir + "/out")
	e, _ := os.ReadFile(dir + "/err")
	return outcome{Taken: taken, Code: code, Stdout: string(o), Stderr: string(e)}
}

// TestEarlyAnswersAsQuick: a command early takes on sends the request
// wire.Quick sends and prints what Quick prints for every answer a daemon
// gives (text, a notice, an error, a call parked for approval, a question
// with nobody to ask, a daemon that goes away), byte for byte, with the
// same exit code; a daemon of another program file (it asks for the
// version) and the forms early leaves alone are left to Quick with
// nothing printed.
func TestEarlyAnswersAsQuick(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv(wire.SessionEnv, "")
	d := startDaemon(t, "s1")
	const done = `{"type":"done","done":{"exit":0,"text":"Page: Caf\u00e9 \"quoted\" \\ tab\there\nline 2 ☕ \ud83c\udf75\n\n","data":{"result":"x"}}}`
	for _, tc := range []struct {
		name  string
		args  string
		reply []string
		early bool // early takes it on
	}{
		{"text", "browser --session s1 get text", []string{done}, true},
		{"text and notice", "browser --session=s1 open http://127.0.0.1:1/a?b=c&d", []string{`{"type":"done","done":{"exit":0,"text":"Loaded tab t1","notice":"Session s1 started."}}`}, true},
		{"stale ref", "browser --session s1 click @e9 --double", []string{`{"type":"done","done":{"exit":6,"error":"ref e9 is not on the page any more: take a new snapshot"}}`}, true},
		{"fill with quotes and a newline", "browser --session s1 -y fill @e1 TEXT", []string{`{"type":"done","done":{"exit":0,"text":"Typed 8 characters into e1."}}`}, true},
		{"flags", "browser --session s1 snapshot -i --max 5 -s main", []string{`{"type":"done","done":{"exit":0,"text":"- button \"Add\" [ref=e2]"}}`}, true},
		{"parked", "browser --session s1 click @e3", []string{`{"type":"pending","pending":{"id":"p1","command":"click @e3","tool":"browser_click","page":"http://127.0.0.1/","reason":"a sensitive page","args":"ref=\"e3\""}}`}, true},
		{"asked with nobody to ask", "browser --session s1 click @e4", []string{`{"type":"ask","ask":{"tool":"browser_click","reason":"why"}}`, `{"type":"done","done":{"exit":3,"error":"Not done: nobody answered."}}`}, true},
		{"another build", "browser --session s1 get url", []string{`{"type":"version"}`}, false},
		{"json", "browser --session s1 --json get url", nil, false},
		{"a file", "browser --session s1 pdf out.pdf", nil, false},
		{"no daemon", "browser --session s2 get url", nil, false},
		{"gone", "browser --session s1 get url", []string{""}, false}, // last: early then leaves it to Quick
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := strings.Fields(tc.args)
			if args[len(args)-1] == "TEXT" {
				args[len(args)-1] = "a\"b\\c\nd\x01é\xff"
			}
			d.reply = tc.reply
			serve := func() chan struct{} {
				ch := make(chan struct{})
				go func() { defer close(ch); d.serveOne() }()
				return ch
			}
			var viaEarly outcome
			var sentEarly wire.Message
			if tc.reply != nil && tc.name != "json" && tc.name != "a file" && tc.name != "no daemon" {
				served := serve()
				viaEarly = run(t, early.Run, args)
				<-served
				sentEarly = <-d.requests
			} else {
				viaEarly = run(t, early.Run, args)
			}
			if viaEarly.Taken != tc.early {
				t.Fatalf("early took it on: %v, want %v (%+v)", viaEarly.Taken, tc.early, viaEarly)
			}
			if !tc.early {
				if viaEarly.Stdout != "" || viaEarly.Stderr != "" {
					t.Errorf("early left it to Quick but printed %+v", viaEarly)
				}
				if tc.name != "gone" {
					return
				}
				// Quick says what happened without sending it again.
				viaQuick := run(t, wire.Quick, args)
				if !viaQuick.Taken || viaQuick.Code != wire.ExitLost || !strings.Contains(viaQuick.Stderr, "went away during the command") {
					t.Errorf("after early's daemon went away, Quick: %+v", viaQuick)
				}
				select {
				case m := <-d.requests:
					t.Errorf("Quick sent the command again: %+v", m)
				default:
				}
				return
			}
			served := serve()
			viaQuick := run(t, wire.Quick, args)
			<-served
			sentQuick := <-d.requests
			if diff := cmp.Diff(sentQuick, sentEarly); diff != "" {
				t.Errorf("request (-Quick +early):\n%s", diff)
			}
			if diff := cmp.Diff(viaQuick, viaEarly); diff != "" {
				t.Errorf("output (-Quick +early):\n%s", diff)
			}
			if strings.Contains(tc.reply[0], `"ask"`) {
				if a, b := <-d.answers, <-d.answers; a != "deny" || b != "deny" {
					t.Errorf("answers to the question: Quick %q, early %q; want deny", a, b)
				}
			}
		})
	}
}

// TestEarlyWaitsForNoMoreThanOs: Go initialises a package once all it
// imports is, and picks the ready one that sorts first; early is worth
// its place only while it imports nothing package os does not (no
// strings, strconv, fmt or encoding/json: they wait for unicode and
// reflect, which sort late), so that it runs right after os.
func TestEarlyWaitsForNoMoreThanOs(t *testing.T) {
	list := func(pkg string) map[string]bool {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		m := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			m[p] = true
		}
		return m
	}
	osDeps := list("os")
	var more []string
	for p := range list("github.com/browseragent/browseragent/browsercli/early") {
		if !osDeps[p] && p != "github.com/browseragent/browseragent/browsercli/early" {
			more = append(more, p)
		}
	}
	if len(more) > 0 {
		t.Errorf("browsercli/early depends on packages os does not: %v", more)
	}
}
