package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/internal/xdg"
)

// File is a local file or directory a call reads or writes, named by one
// of its catalogue file parameters. The registry resolves Path before the
// guard judges it (absolute, symbolic links followed as far as they exist),
// and the tool receives that same path.
type File struct {
	Param string // the argument that names it
	Path  string // absolute, resolved
	Write bool
}

// Places are the directories files are judged against. Zero fields take
// their defaults from the environment when the policy is made.
type Places struct {
	// WorkDir is the working directory (default os.Getwd).
	WorkDir string
	// TempDir is the temporary directory (default os.TempDir).
	TempDir string
	// Home is the person's home directory (default os.UserHomeDir).
	Home string
	// ConfigHome is $XDG_CONFIG_HOME (default Home/.config): shell
	// programs, editors and browseragent read their settings there.
	ConfigHome string
	// StateHome is $XDG_STATE_HOME (default Home/.local/state), where
	// browseragent keeps its audit log and history.
	StateHome string
	// Outputs are the folders the person chose for what tools save
	// (default: xdg.OutputDir, $BROWSERAGENT_OUTPUT_DIR or the
	// browseragent folder in their downloads). A write anywhere else asks
	// every time.
	Outputs []string
}

func (pl Places) withDefaults() Places {
	if pl.WorkDir == "" {
		pl.WorkDir, _ = os.Getwd()
	}
	if pl.TempDir == "" {
		pl.TempDir = os.TempDir()
	}
	if pl.Home == "" {
		pl.Home, _ = os.UserHomeDir()
	}
	// The XDG directories fall back to this Home, not the process's.
	env := func(k string) string {
		if k == "HOME" {
			return pl.Home
		}
		return os.Getenv(k)
	}
	if pl.ConfigHome == "" {
		pl.ConfigHome = xdg.ConfigHome(env)
	}
	if pl.StateHome == "" {
		pl.StateHome = xdg.StateHome(env)
	}
	if pl.Outputs == nil {
		if d := xdg.OutputDir(env); d != "" {
			pl.Outputs = []string{d}
		}
	}
	pl.Outputs = slices.Clone(pl.Outputs)
	for i, d := range pl.Outputs {
		pl.Outputs[i] = resolvePath(d, "")
	}
	for _, d := range []*string{&pl.WorkDir, &pl.TempDir, &pl.Home, &pl.ConfigHome, &pl.StateHome} {
		if *d != "" {
			*d = resolvePath(*d, "")
		}
	}
	return pl
}

// output reports whether path is inside an output folder the person
// chose, where a tool's writes may be approved for good.
func (pl Places) output(path string) bool {
	return slices.ContainsFunc(pl.Outputs, func(d string) bool { return within(path, d) })
}

func within(path, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolvePath makes path absolute (relative to dir, or the working
// directory when dir is "") and follows symbolic links through the part of
// it that exists, a link at its end too even when what it points at does
// not exist yet, so a link named ./out.txt that points at ~/.bashrc is
// judged as ~/.bashrc. A leading ~/ is the home directory.
func resolvePath(path, dir string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(path) {
		if dir == "" {
			dir, _ = os.Getwd()
		}
		path = filepath.Join(dir, path)
	}
	path = filepath.Clean(path)
	for range 16 { // links to links, bounded
		path = resolveExisting(path)
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path
		}
		target, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = filepath.Clean(target)
	}
	return path
}

// resolveExisting follows the links of the longest part of path that
// exists.
func resolveExisting(path string) string {
	var tail []string
	for p := path; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, tail...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path
		}
		tail = append([]string{filepath.Base(p)}, tail...)
		p = parent
	}
}

// FilesOf lists the files call arguments name through e's file parameters,
// each as the tool will write it (its forced extension) and resolved with
// resolvePath against dir.
func FilesOf(e catalog.Entry, args map[string]any, dir string) []File {
	var out []File
	add := func(f catalog.File, p string) {
		if strings.TrimSpace(p) != "" {
			out = append(out, File{Param: f.Param, Path: writtenPath(f, p, args, dir), Write: f.Write})
		}
	}
	for _, f := range e.Files {
		switch v := args[f.Param].(type) {
		case string:
			add(f, v)
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					add(f, s)
				}
			}
		}
	}
	return out
}

// writtenPath resolves p to the file the tool touches: its extension
// forced, then links followed, until both agree (a link may point at a
// name with another extension, which the tool would force again).
func writtenPath(f catalog.File, p string, args map[string]any, dir string) string {
	p = resolvePath(f.WrittenName(p, args), dir)
	for range 4 {
		next := resolvePath(f.WrittenName(p, args), dir)
		if next == p {
			break
		}
		p = next
	}
	return p
}

// judgeFiles judges the local files c touches: writing a protected place
// is refused; reading any file asks every time (it hands the file to a page
// or a server: no "always" and no --yes covers it); writing asks, with
// "always" (and --yes) on offer only inside an output folder the person
// chose, and every time anywhere else.
func (p *Policy) judgeFiles(c Call, files []File) Decision {
	d := Decision{Verdict: Allow, DecidedBy: ByPolicy}
	var reads, writes []string
	output := true
	for _, f := range files {
		if !f.Write {
			reads = append(reads, f.Path)
			continue
		}
		if why := p.places.forbidden(f.Path); why != "" {
			d.Verdict, d.Sensitive = Deny, true
			d.Reason = fmt.Sprintf("Refused: %s would write %s (%s = %s), which is %s. Nobody can approve that; save to a file in the output folder (%s) instead.",
				c.Tool, f.Path, f.Param, f.Path, why, p.places.outputName())
			return d
		}
		writes = append(writes, f.Path)
		output = output && p.places.output(f.Path)
	}
	var what []string
	if len(reads) > 0 {
		what = append(what, "reads "+strings.Join(reads, ", "))
	}
	if len(writes) > 0 {
		w := "writes " + strings.Join(writes, ", ")
		if e := entry(c); e.Link && c.TargetURL != "" {
			w += " (a file from " + RedactURL(c.TargetURL) + ")" // what it saves, from where
		}
		what = append(what, w)
	}
	desc := c.Tool + " " + strings.Join(what, " and ") + " on this computer"
	switch {
	case len(reads) > 0:
		d.Verdict, d.Scopes, d.Sensitive = Ask, []Scope{Once}, true
		d.Reason = desc + ": a file a tool reads goes to the page or server it talks to, so it needs the person's approval, each time; no \"always\" and no --yes covers it."
	case !output:
		d.Verdict, d.Scopes, d.Sensitive = Ask, []Scope{Once}, true
		d.Reason = desc + ", outside the output folder (" + p.places.outputName() + "): it needs the person's approval, each time."
	case p.toolGrants[grantKey{c.Grantee, c.Tool}]:
		d.DecidedBy, d.Reason = ByGrant, desc+"; allowed by the person's earlier \"always\" approval"
	default:
		d.Verdict, d.Scopes = Ask, []Scope{Once, ToolAlways}
		d.Reason = desc + ": every local file a tool writes needs the person's approval."
	}
	return d
}

// outputName names the output folders for a message.
func (pl Places) outputName() string {
	if len(pl.Outputs) == 0 {
		return "none is set: BROWSERAGENT_OUTPUT_DIR chooses one"
	}
	return strings.Join(pl.Outputs, ", ")
}

// combine is the stricter of the page's decision and the files': a denial
// wins, an ask offers only the approvals both accept.
func combine(page, files Decision) Decision {
	switch {
	case page.Verdict == Deny:
		return page
	case files.Verdict == Deny:
		files.Effect, files.Mode, files.URL = page.Effect, page.Mode, page.URL
		return files
	case files.Verdict == Allow:
		if page.Verdict == Allow && page.DecidedBy == ByPolicy {
			page.DecidedBy = files.DecidedBy
		}
		return page
	}
	d := page
	if page.Verdict == Allow {
		d.Verdict, d.Scopes, d.Reason = Ask, files.Scopes, files.Reason
		d.DecidedBy = ByPolicy
	} else {
		d.Scopes = slices.DeleteFunc(slices.Clone(page.Scopes), func(s Scope) bool { return !slices.Contains(files.Scopes, s) })
		d.Reason = page.Reason + " Also: " + files.Reason
	}
	d.Sensitive = d.Sensitive || files.Sensitive
	return d
}
