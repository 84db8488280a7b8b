package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browseragent/browseragent/internal/xdg"
)

// A project's .mcp.json comes with the code in the working directory, so
// whoever wrote the code chose its commands. Its servers start only after
// the person approved that file: the approval is remembered per file path
// and content (a changed file asks again) in a TrustStore. User-level
// configuration and --mcp-config files are the person's own and trusted.

// ProjectFile is a project's .mcp.json as read, before its servers are
// merged with the others.
type ProjectFile struct {
	// Path is the file's absolute path.
	Path string
	// Data is the file's content, as hashed for the trust record.
	Data []byte
	// Servers are the file's entries, sorted by name.
	Servers []*ServerConfig
}

// starting returns the servers that would start (not disabled).
func (p ProjectFile) starting() []*ServerConfig {
	var out []*ServerConfig
	for _, sc := range p.Servers {
		if !sc.Disabled {
			out = append(out, sc)
		}
	}
	return out
}

// names returns the names of the servers that would start.
func (p ProjectFile) names() []string {
	var out []string
	for _, sc := range p.starting() {
		out = append(out, sc.Name)
	}
	return out
}

// Commands returns one line per server that would start: its name and the
// command it runs (or the URL it connects to), so the person sees exactly
// what approving the file runs.
func (p ProjectFile) Commands() []string {
	var out []string
	for _, sc := range p.starting() {
		what := sc.URL
		if sc.Transport() == TypeStdio {
			words := append([]string{sc.Command}, sc.Args...)
			for i, w := range words {
				words[i] = shellQuote(w)
			}
			what = strings.Join(words, " ")
			if sc.Cwd != "" {
				what += "   (in " + sc.Cwd + ")"
			}
			if len(sc.Env) > 0 {
				what += "   env " + strings.Join(sortedKeys(sc.Env), ",")
			}
		} else {
			what = sc.Transport() + " " + what
		}
		out = append(out, sc.Name+": "+what)
	}
	return out
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~!{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// contentHash is the hex SHA-256 of a project file's content.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Trust states of a project file.
type TrustState int

const (
	// Untrusted: never approved (or approval withdrawn).
	Untrusted TrustState = iota
	// Changed: approved once, but its content changed since.
	Changed
	// Trusted: approved with exactly this content.
	Trusted
)

// TrustRecord is one approved project file.
type TrustRecord struct {
	File    string    `json:"file"`   // absolute path of the .mcp.json
	SHA256  string    `json:"sha256"` // its content when approved
	Servers []string  `json:"servers,omitempty"`
	Time    time.Time `json:"trusted_at"`
}

type trustDoc struct {
	Version  int           `json:"version"`
	Projects []TrustRecord `json:"projects"`
}

// TrustStore is the file of approved project files,
// $XDG_STATE_HOME/browseragent/trusted-projects.json by default. It is safe
// for concurrent use in one process; writes replace the file atomically.
type TrustStore struct {
	mu   sync.Mutex
	path string
}

// defaultTrustPath is $XDG_STATE_HOME/browseragent/trusted-projects.json
// (~/.local/state when XDG_STATE_HOME is unset).
func defaultTrustPath() string {
	if p := xdg.StatePath(nil, "trusted-projects.json"); p != "" {
		return p
	}
	return filepath.Join(".", "browseragent", "trusted-projects.json") // no home directory
}

// NewTrustStore returns the store at path ("" for defaultTrustPath).
func NewTrustStore(path string) *TrustStore {
	if path == "" {
		path = defaultTrustPath()
	}
	return &TrustStore{path: path}
}

// Path returns the store's file.
func (t *TrustStore) Path() string { return t.path }

func (t *TrustStore) read() (*trustDoc, error) {
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &trustDoc{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("project trust file: %w", err)
	}
	var d trustDoc
	if err := json.Unmarshal(data, &d); err != nil || d.Version != 1 {
		return nil, fmt.Errorf("project trust file %s is damaged (%v); remove it and trust your projects again", t.path, errOr(err, "version is not 1"))
	}
	return &d, nil
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

func (t *TrustStore) write(d *trustDoc) error {
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("project trust file: %w", err)
	}
	tmp := t.path + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, append(out, '\n'), 0o600); err != nil {
		return fmt.Errorf("project trust file: %w", err)
	}
	if err := os.Rename(tmp, t.path); err != nil {
		return fmt.Errorf("project trust file: %w", err)
	}
	return nil
}

// state reports whether the file at path (absolute) with content data was
// approved. A damaged store is an error, and the file counts as untrusted.
func (t *TrustStore) state(path string, data []byte) (TrustState, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, err := t.read()
	if err != nil {
		return Untrusted, err
	}
	for _, r := range d.Projects {
		if r.File == path {
			if r.SHA256 == contentHash(data) {
				return Trusted, nil
			}
			return Changed, nil
		}
	}
	return Untrusted, nil
}

// Trust records p as approved with its current content.
func (t *TrustStore) Trust(p ProjectFile) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, err := t.read()
	if err != nil {
		return err
	}
	d.Projects = slices.DeleteFunc(d.Projects, func(r TrustRecord) bool { return r.File == p.Path })
	d.Projects = append(d.Projects, TrustRecord{File: p.Path, SHA256: contentHash(p.Data), Servers: p.names(), Time: time.Now().UTC()})
	return t.write(d)
}

// Untrust forgets the approval of the file at path; it reports whether
// there was one.
func (t *TrustStore) Untrust(path string) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, err := t.read()
	if err != nil {
		return false, err
	}
	n := len(d.Projects)
	d.Projects = slices.DeleteFunc(d.Projects, func(r TrustRecord) bool { return r.File == path })
	if len(d.Projects) == n {
		return false, nil
	}
	return true, t.write(d)
}

// List returns the approved files.
func (t *TrustStore) List() ([]TrustRecord, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, err := t.read()
	if err != nil {
		return nil, err
	}
	return d.Projects, nil
}

// ReadProjectFile reads and parses the project file at path for trust
// decisions (mcp trust). A missing file is an error naming it.
func ReadProjectFile(path string) (ProjectFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ProjectFile{}, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return ProjectFile{}, fmt.Errorf("project MCP config: %w", err)
	}
	c, err := Parse(data, abs, os.LookupEnv)
	if err != nil {
		return ProjectFile{}, err
	}
	return newProjectFile(abs, data, c), nil
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func newProjectFile(abs string, data []byte, c *Config) ProjectFile {
	p := ProjectFile{Path: abs, Data: data}
	for _, n := range c.Names() {
		p.Servers = append(p.Servers, c.Servers[n])
	}
	return p
}

// TrustFlag is the flag that starts an untrusted project's servers for one
// run; the notes name it.
const TrustFlag = "--trust-project"

// ProjectGate decides whether a project file's servers may start: when the
// store says the file (with this content) was approved, when TrustAll is
// set (--trust-project), or when Ask is set and the person says yes (then
// the approval is remembered). Otherwise they are skipped and Note gets one
// line naming the file, its servers, the flag and `mcp trust`.
type ProjectGate struct {
	Store *TrustStore
	// TrustAll starts the servers of any project file for this run.
	TrustAll bool
	// Ask asks the person at a terminal (nil: nobody is there). changed
	// says the file was approved before with other content.
	Ask func(p ProjectFile, changed bool) (bool, error)
	// Note receives the lines to show the person (nil: dropped).
	Note func(string)
}

// Allow is the LoadFiles hook (ConfigFile.Gate).
func (g *ProjectGate) Allow(p ProjectFile) bool {
	if len(p.starting()) == 0 {
		return true // it starts nothing
	}
	note := func(format string, a ...any) {
		if g.Note != nil {
			g.Note(fmt.Sprintf(format, a...))
		}
	}
	state, err := g.Store.state(p.Path, p.Data)
	if err != nil {
		note("%v", err)
	}
	switch {
	case state == Trusted:
		return true
	case g.TrustAll:
		return true
	case g.Ask != nil:
		ok, err := g.Ask(p, state == Changed)
		if err != nil {
			note("project MCP servers in %s not started: %v", p.Path, err)
			return false
		}
		if !ok {
			note("project MCP servers in %s not started (%s); trust the file later with `browseragent mcp trust`", p.Path, strings.Join(p.names(), ", "))
			return false
		}
		if err := g.Store.Trust(p); err != nil {
			note("could not remember that %s is trusted: %v", p.Path, err)
		}
		return true
	}
	why := "is not trusted"
	if state == Changed {
		why = "changed since you trusted it"
	}
	note("project MCP servers in %s not started (%s): the file %s. Start them with %s, or trust the file with `browseragent mcp trust` (`browseragent mcp untrust` to undo)",
		p.Path, strings.Join(p.names(), ", "), why, TrustFlag)
	return false
}
