package mcpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// scopeNames of `mcp add`, `mcp remove` and `mcp enable/disable`, as Claude
// Code means them. browseragent keeps user and local servers in its own
// file (UserConfigPath), in the shape of Claude Code's ~/.claude.json, and
// never writes another client's files except the project's .mcp.json,
// which is what the project scope means:
//
//	user     the file's top-level "mcpServers": every directory
//	local    the file's "projects": {"<abs dir>": {"mcpServers": ...}}: this
//	         directory only, private to you (the default, as in Claude Code)
//	project  ./.mcp.json, shared with everyone who works on the code
//	         (Claude Code and others read it too)
const (
	ScopeLocal   = "local"
	ScopeUser    = "user"
	ScopeProject = "project"
)

// scopeNames are the scopes in the order `mcp remove` and `mcp get` look.
var scopeNames = []string{ScopeLocal, ScopeProject, ScopeUser}

// ScopeOf returns the scope of a merged entry found in workDir: local,
// project (the .mcp.json of workDir), user (the user file), or "" for the
// built-in server and --mcp-config files.
func ScopeOf(sc *ServerConfig, workDir string) string {
	switch {
	case sc.Scope != "":
		return sc.Scope
	case sc.Source == UserConfigPath():
		return ScopeUser
	case absPath(sc.Source) == filepath.Join(absPath(workDir), ".mcp.json"):
		return ScopeProject
	}
	return ""
}

// ScopeFile is the file a scope's servers live in, for workDir.
func ScopeFile(scope, workDir string) string {
	if scope == ScopeProject {
		return filepath.Join(workDir, ".mcp.json")
	}
	return UserConfigPath()
}

// CheckScope returns an error naming the flag when scope is not one of
// local, user or project.
func CheckScope(scope string) error {
	if !slices.Contains(scopeNames, scope) {
		return fmt.Errorf("--scope %q: want local, user or project", scope)
	}
	return nil
}

// The lists of `mcp disable` and `mcp enable`, under the same names Claude
// Code keeps in ~/.claude.json's projects.
const (
	toggleOff = "disabledMcpServers"
	toggleOn  = "enabledMcpServers"
)

// readToggles reads the enable/disable lists of one object of a file.
func readToggles(c *Config, obj map[string]json.RawMessage, data []byte, file string) []string {
	var warns []string
	for _, k := range []string{toggleOff, toggleOn} {
		raw, ok := obj[k]
		if !ok {
			continue
		}
		var names []string
		if err := json.Unmarshal(raw, &names); err != nil {
			warns = append(warns, fmt.Sprintf("%s: field %s: want a list of server names; ignored", where(file, fieldLine(data, data, k)), k))
			continue
		}
		for _, n := range names {
			if c.Toggles == nil {
				c.Toggles = map[string]bool{}
			}
			c.Toggles[n] = k == toggleOn
		}
	}
	return warns
}

// applyToggles turns servers on or off as the lists say.
func (c *Config) applyToggles() {
	for n, on := range c.Toggles {
		if sc, ok := c.Servers[n]; ok && sc.Disabled == on {
			sc = sc.clone()
			sc.Disabled, sc.Toggled = !on, true
			c.Servers[n] = sc
		}
	}
}

// editScope edits the servers object of scope in file (ScopeFile), for
// workDir: the top-level "mcpServers" (user, project) or
// projects[workDir].mcpServers (local), keeping everything else.
func editScope(file, scope, workDir string, edit func(servers map[string]json.RawMessage) error) error {
	return editObject(file, scopeDir(scope, workDir), func(obj map[string]json.RawMessage) error {
		servers := map[string]json.RawMessage{}
		if raw, ok := obj["mcpServers"]; ok {
			if err := json.Unmarshal(raw, &servers); err != nil {
				return fmt.Errorf("%s: field mcpServers: want an object of servers", file)
			}
		}
		if err := edit(servers); err != nil {
			return err
		}
		raw, err := json.Marshal(servers)
		obj["mcpServers"] = raw
		return err
	})
}

// Toggle states for SetToggle.
const (
	ToggleClear = iota // in neither list: the entry's "disabled" decides
	ToggleOn           // in "enabledMcpServers"
	ToggleOff          // in "disabledMcpServers"
)

// SetToggle records in the user file that server name is on, off or
// neither for scope: user (every directory) or local (workDir).
func SetToggle(scope, workDir, name string, state int) error {
	return editObject(UserConfigPath(), scopeDir(scope, workDir), func(obj map[string]json.RawMessage) error {
		for _, k := range []string{toggleOff, toggleOn} {
			var names []string
			if raw, ok := obj[k]; ok {
				if err := json.Unmarshal(raw, &names); err != nil {
					return fmt.Errorf("%s: field %s: want a list of server names", UserConfigPath(), k)
				}
			}
			names = slices.DeleteFunc(names, func(n string) bool { return n == name })
			if k == toggleOn && state == ToggleOn || k == toggleOff && state == ToggleOff {
				names = append(names, name)
			}
			if len(names) == 0 {
				delete(obj, k)
				continue
			}
			raw, _ := json.Marshal(names)
			obj[k] = raw
		}
		return nil
	})
}

func scopeDir(scope, workDir string) string {
	if scope == ScopeLocal {
		return absPath(workDir)
	}
	return ""
}

// editObject rewrites path, applying edit to its top-level object (dir "")
// or to projects[dir], keeping every other field. It creates the file (and
// its directory, 0700; the file 0600, as it may hold secrets) when missing.
func editObject(path, dir string, edit func(obj map[string]json.RawMessage) error) error {
	top := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &top); err != nil {
			return syntaxError(data, path, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if top == nil {
		top = map[string]json.RawMessage{}
	}
	if dir == "" {
		if err := edit(top); err != nil {
			return err
		}
	} else if err := editProject(path, top, dir, edit); err != nil {
		return err
	}
	return writeJSONFile(path, top)
}

func editProject(path string, top map[string]json.RawMessage, dir string, edit func(map[string]json.RawMessage) error) error {
	projects := map[string]json.RawMessage{}
	if raw, ok := top["projects"]; ok {
		if err := json.Unmarshal(raw, &projects); err != nil {
			return fmt.Errorf("%s: field projects: want an object of directories", path)
		}
	}
	obj := map[string]json.RawMessage{}
	if raw, ok := projects[dir]; ok {
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fmt.Errorf("%s: field projects[%q]: want an object", path, dir)
		}
	}
	if err := edit(obj); err != nil {
		return err
	}
	if raw, ok := obj["mcpServers"]; ok && string(raw) == "{}" {
		delete(obj, "mcpServers")
	}
	if len(obj) == 0 {
		delete(projects, dir)
	} else {
		raw, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		projects[dir] = raw
	}
	if len(projects) == 0 {
		delete(top, "projects")
		return nil
	}
	raw, err := json.Marshal(projects)
	top["projects"] = raw
	return err
}

// writeJSONFile replaces path atomically with v, indented.
func writeJSONFile(path string, v any) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, append(out, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// scopeServers returns the entries scope keeps in file for workDir, as
// written (nil when the file or the part is missing).
func scopeServers(file, scope, workDir string) (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, syntaxError(data, file, err)
	}
	obj := top
	if dir := scopeDir(scope, workDir); dir != "" {
		var projects map[string]map[string]json.RawMessage
		if raw, ok := top["projects"]; ok {
			if err := json.Unmarshal(raw, &projects); err != nil {
				return nil, fmt.Errorf("%s: field projects: want an object of directories", file)
			}
		}
		obj = projects[dir]
	}
	var servers map[string]json.RawMessage
	if raw, ok := obj["mcpServers"]; ok {
		if err := json.Unmarshal(raw, &servers); err != nil {
			return nil, fmt.Errorf("%s: field mcpServers: want an object of servers", file)
		}
	}
	return servers, nil
}
