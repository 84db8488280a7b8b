package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/browseragent/browseragent/browsercli/early"
)

// Request is one command as the client sends it to the daemon.
type Request struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Flags   map[string]string `json:"flags,omitempty"` // the command's own flags, as given ("true" for a bool)
	Yes     bool              `json:"yes,omitempty"`   // --yes: approve ordinary writes, never sensitive pages
	// Ask: the client has a terminal to ask the person at; otherwise a
	// call that needs approval is parked as a pending one.
	Ask bool `json:"ask,omitempty"`
	// Connect is the person's Chrome to attach to (--connect and its
	// target flags); nil keeps the session's browser as it is.
	Connect *Target `json:"connect,omitempty"`
	// ID names the pending approval of confirm and deny.
	ID string `json:"id,omitempty"`
	// Version is the command's browseragent build: a daemon of another
	// build ends rather than serve it with other code.
	Version string `json:"version,omitempty"`
	// Binary is the program file the command runs as (Binary): a daemon
	// started from that same file serves it without its Version, which
	// Quick does not know; any other daemon asks for it (a "version"
	// message) before it runs anything.
	Binary string `json:"binary,omitempty"`
}

// Target is the person's browser, as browser.Target.
type Target struct {
	WSEndpoint  string `json:"ws_endpoint,omitempty"`
	BrowserURL  string `json:"browser_url,omitempty"`
	UserDataDir string `json:"user_data_dir,omitempty"`
}

// Flag is the value of the command's flag name as given ("" when not).
func (r *Request) Flag(name string) string { return r.Flags[name] }

// On reports whether the command's boolean flag name was given.
func (r *Request) On(name string) bool { return r.Flags[name] == "true" }

// Response is what a command did, for the command line to print.
type Response struct {
	Exit int `json:"exit"`
	// Text is the output for the person (stdout); Error the one-line
	// failure (stderr).
	Text  string `json:"text,omitempty"`
	Error string `json:"error,omitempty"`
	// Data is the command's JSON payload for --json.
	Data map[string]any `json:"data,omitempty"`
	// File is content the command line writes where the person said
	// (a screenshot), so the daemon writes nothing of the person's.
	File *File `json:"file,omitempty"`
	// Pending is set when the command waits for approval (ExitPending).
	Pending *Pending `json:"pending,omitempty"`
	// Notice is a line about the session itself (it was started, its
	// browser was lost) for stderr.
	Notice string `json:"notice,omitempty"`
}

// File is bytes to save at Path.
type File struct {
	Path string `json:"path"`
	Data []byte `json:"data"`
}

// Pending is a call parked until the person confirms or denies it.
type Pending struct {
	ID      string `json:"id"`
	Command string `json:"command"` // the command line as given
	Tool    string `json:"tool"`
	Page    string `json:"page,omitempty"`
	Reason  string `json:"reason"`
	Args    string `json:"args,omitempty"`
	// Sensitive: only a confirm for this one call is possible.
	Sensitive bool `json:"sensitive,omitempty"`
}

// Ask is an approval question the daemon puts to the client's terminal.
type Ask struct {
	// Command is the command line of a pending call being confirmed
	// (`browser confirm`); "" for the command's own question.
	Command   string `json:"command,omitempty"`
	Tool      string `json:"tool"`
	Page      string `json:"page,omitempty"`
	Reason    string `json:"reason"`
	Args      string `json:"args,omitempty"`
	Sensitive bool   `json:"sensitive,omitempty"` // "always" is not on offer
}

// Message is one line on the socket.
type Message struct {
	Type    string    `json:"type"` // request, ask, answer, pending, version, done
	Request *Request  `json:"request,omitempty"`
	Ask     *Ask      `json:"ask,omitempty"`
	Answer  string    `json:"answer,omitempty"` // once, always, deny
	Pending *Pending  `json:"pending,omitempty"`
	Done    *Response `json:"done,omitempty"`
}

// Binary names the program file this process runs: its path, size and
// modification time. Two processes of one file run the same code; a
// rebuilt or upgraded file is another. "" when the system does not say.
func Binary() string { return early.Binary() }

// ErrNeedVersion is Do's error when the session's daemon runs from
// another program file and the request did not say its Version: the
// command was not run (the full command line says it and runs it).
var ErrNeedVersion = errors.New("the session's daemon asks which build of browseragent this is")

// Wire is one connection's framing: a JSON object per line.
type Wire struct {
	r   *bufio.Reader
	enc *json.Encoder
}

// NewWire frames the connection c.
func NewWire(c io.ReadWriter) *Wire {
	return &Wire{r: bufio.NewReaderSize(c, 64<<10), enc: json.NewEncoder(c)}
}

// Send writes one message.
func (w *Wire) Send(m Message) error { return w.enc.Encode(m) }

// Recv reads the next message.
func (w *Wire) Recv() (Message, error) {
	line, err := w.r.ReadBytes('\n')
	if err != nil {
		return Message{}, err
	}
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		return Message{}, fmt.Errorf("bad message from the session: %w", err)
	}
	return m, nil
}

// DescribePending is a parked call as the person reads it.
func DescribePending(p Pending) string {
	return early.DescribePending(p.ID, p.Command, p.Reason, p.Args)
}
