package early

import (
	"os"
	"syscall"
	"unsafe"
)

func init() {
	if code, ok := Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
}

// exitPending is wire.ExitPending: a call parked for approval.
const exitPending = 4

// wentAway is set when the request was sent and the daemon closed the
// connection without an answer (see WentAway).
var wentAway bool

// WentAway reports whether early sent the command and the session's
// daemon went away without answering: wire.Quick then says so as for its
// own commands, without sending it again.
func WentAway() bool { return wentAway }

// Run answers the command line args (the program's arguments after its
// name) when it can (see the package's doc) and returns its exit code; ok
// is false, with nothing printed, when it leaves it to wire.Quick.
func Run(args []string, stdin, stdout, stderr *os.File) (code int, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			what := "panic"
			switch v := r.(type) {
			case error:
				what = v.Error()
			case string:
				what = v
			}
			stderr.WriteString("browseragent: internal error: " + what + "\n(set BROWSERAGENT_DEBUG=1 for details)\n")
			code, ok = 70, true
		}
	}()
	p, ok := Parse(args)
	if !ok || p.JSON || isTerminal(stdin) || isTerminal(stdout) || isTerminal(stderr) {
		return 0, false
	}
	if _, files := FileArgs[p.Command]; files {
		return 0, false
	}
	sock, ok := socketOf(p.Session)
	if !ok {
		return 0, false
	}
	fd, err := dial(sock)
	if err != nil {
		return 0, false // no daemon, or one starting: wire.Quick waits for it or starts one
	}
	defer syscall.Close(fd)
	if !writeAll(fd, request(p)) {
		wentAway = true
		return 0, false
	}
	var buf []byte
	for {
		line, rest, ok := readLine(fd, buf)
		if !ok {
			wentAway = true
			return 0, false
		}
		buf = rest
		m, err := decodeJSON(line)
		obj, _ := m.(map[string]any)
		if err != nil || obj == nil {
			wentAway = true // as wire.Recv's error: the daemon's answer is lost
			return 0, false
		}
		switch obj["type"] {
		case "ask":
			// No terminal to ask at: declined, as Quick declines it.
			if !writeAll(fd, []byte(`{"type":"answer","answer":"deny"}`+"\n")) {
				wentAway = true
				return 0, false
			}
		case "pending":
			pd, _ := obj["pending"].(map[string]any)
			return show(stdout, stderr, "", PendingError(str(pd, "id"), str(pd, "command"), str(pd, "reason"), str(pd, "args")), "", exitPending), true
		case "version":
			return 0, false // nothing ran: Quick says its Version
		case "done":
			d, _ := obj["done"].(map[string]any)
			if d == nil {
				wentAway = true
				return 0, false
			}
			exit, _ := d["exit"].(float64)
			return show(stdout, stderr, str(d, "text"), str(d, "error"), str(d, "notice"), int(exit)), true
		}
	}
}

// show writes a response as wire.Print does without --json to files
// that are not terminals: the notice and the error as one line each on
// stderr, the text on stdout. It returns code.
func show(stdout, stderr *os.File, text, errLine, notice string, code int) int {
	if notice != "" {
		stderr.WriteString("browseragent: " + notice + "\n")
	}
	if text != "" {
		for len(text) > 0 && text[len(text)-1] == '\n' {
			text = text[:len(text)-1]
		}
		stdout.WriteString(text + "\n")
	}
	if errLine != "" {
		stderr.WriteString("browseragent: " + errLine + "\n")
	}
	return code
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// request is the command's request message, as wire.Request encodes it.
func request(p Parsed) []byte {
	b := []byte(`{"type":"request","request":{"command":`)
	b = quote(b, p.Command)
	if len(p.Args) > 0 {
		b = append(b, `,"args":[`...)
		for i, a := range p.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = quote(b, a)
		}
		b = append(b, ']')
	}
	if len(p.Flags) > 0 {
		b = append(b, `,"flags":{`...)
		first := true
		for k, v := range p.Flags {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(quote(b, k), ':')
			b = quote(b, v)
		}
		b = append(b, '}')
	}
	if p.Yes {
		b = append(b, `,"yes":true`...)
	}
	if bin := Binary(); bin != "" {
		b = append(b, `,"binary":`...)
		b = quote(b, bin)
	}
	return append(b, "}}\n"...)
}

// socketOf is the session's socket, in the folder wire.PathsOf names, if
// that folder is one of this user's that only they can enter.
func socketOf(session string) (string, bool) {
	dir := os.TempDir() + "/browseragent-" + itoa(int64(os.Getuid()))
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && rt[0] == '/' {
		dir = rt + "/browseragent"
	}
	var st syscall.Stat_t
	if syscall.Lstat(dir, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR || int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
		return "", false
	}
	sock := dir + "/" + session + ".sock"
	return sock, len(sock) <= 100
}

func dial(sock string) (int, error) {
	syscall.ForkLock.RLock() // no child inherits it before it is close-on-exec
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

func writeAll(fd int, b []byte) bool {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return false
		}
		b = b[n:]
	}
	return true
}

// readLine returns the next line from fd (buf holds what was read past
// the last one), without its newline, and what was read past it.
func readLine(fd int, buf []byte) (line string, rest []byte, ok bool) {
	for from := 0; ; {
		for i := from; i < len(buf); i++ {
			if buf[i] == '\n' {
				return string(buf[:i]), buf[i+1:], true
			}
		}
		from = len(buf)
		if cap(buf)-len(buf) < 16<<10 {
			nb := make([]byte, len(buf), 2*cap(buf)+64<<10)
			copy(nb, buf)
			buf = nb
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return "", nil, false
		}
		buf = buf[:len(buf)+n]
	}
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
