package guard

import (
	"path/filepath"
	"strings"
)

// protected is a place no tool may write, in any mode, under any grant and
// whoever approves: what is written there is run as the person's commands,
// read as their settings or followed as their instructions by another
// program (a coding agent, an editor, a shell, git, a build tool).
type protected struct {
	// Name is a file or directory name, or a few of them joined by "/"
	// (".github/workflows"), matched as whole components anywhere in the
	// path, without regard to case (macOS and Windows file systems ignore
	// it). A file entry matches when the path ends there; a Dir entry
	// also matches everything below it.
	Name string
	Dir  bool
	// Under, instead of Name, is a directory of the person's (from their
	// Places; "" when unknown): it and everything below it.
	Under func(Places) string
	// Why is what the place is, as the refusal says it.
	Why string
}

const (
	whyMCP     = "an MCP server list: the commands in it run when browseragent (or another MCP host) starts"
	whyAgent   = "a coding agent's settings: its hooks and MCP servers run commands when it starts"
	whyEditor  = "an editor's settings: its tasks and MCP servers run commands when the folder is opened"
	whyRules   = "instructions a coding agent follows as the person's own"
	whyStartup = "a shell start-up file: what is written there runs as the person's commands"
	whyBuild   = "a build or package file: the commands in it run at the person's next build, install or test"
	whyCreds   = "a tool's credential settings, which name commands to run for credentials"
)

// protectedPlaces is the list, one entry a line. Writing a file any entry
// matches is refused; the refusal gives its Why.
var protectedPlaces = []protected{
	{Name: ".mcp.json", Why: whyMCP},
	{Name: ".claude.json", Why: "Claude Code's own settings, with its MCP servers: the commands in them run when it starts"},
	{Name: ".claude", Dir: true, Why: "Claude Code's settings, hooks and commands: a hook runs commands when Claude Code starts"},
	{Name: ".cursor", Dir: true, Why: whyAgent},
	{Name: ".gemini", Dir: true, Why: whyAgent},
	{Name: ".codex", Dir: true, Why: whyAgent},
	{Name: ".windsurf", Dir: true, Why: whyAgent},
	{Name: ".continue", Dir: true, Why: whyAgent},
	{Name: ".kiro", Dir: true, Why: whyAgent},
	{Name: ".amazonq", Dir: true, Why: whyAgent},
	{Name: ".roo", Dir: true, Why: whyAgent},
	{Name: ".vscode", Dir: true, Why: whyEditor},
	{Name: ".idea", Dir: true, Why: "a JetBrains IDE's settings: its run configurations and start-up tasks run commands"},
	{Name: ".zed", Dir: true, Why: whyEditor},
	{Name: ".devcontainer", Dir: true, Why: "a dev container's settings: its commands run when the container is built or opened"},
	{Name: "CLAUDE.md", Why: whyRules},
	{Name: "AGENTS.md", Why: whyRules},
	{Name: "GEMINI.md", Why: whyRules},
	{Name: ".cursorrules", Why: whyRules},
	{Name: ".windsurfrules", Why: whyRules},
	{Name: ".clinerules", Why: whyRules},
	{Name: ".github/copilot-instructions.md", Why: whyRules},
	{Name: ".git", Dir: true, Why: "git's own settings and hooks: a hook, or a setting such as core.fsmonitor, runs commands at the next git command"},
	{Name: ".gitconfig", Why: "git's settings, which can name commands git runs"},
	{Name: ".husky", Dir: true, Why: "git hooks: they run at the next commit or push"},
	{Name: ".pre-commit-config.yaml", Why: "git hooks: they run at the next commit"},
	{Name: ".github/workflows", Dir: true, Why: "CI workflows: they run with the repository's secrets when pushed"},
	{Name: "package.json", Why: whyBuild},
	{Name: ".npmrc", Why: "npm's settings, which can name the shell and Node options its scripts run with, and the registry packages come from"},
	{Name: ".yarnrc", Why: "Yarn's settings, which can name the program and registry it runs with"},
	{Name: ".yarnrc.yml", Why: "Yarn's settings, which can name the program and registry it runs with"},
	{Name: "Makefile", Why: whyBuild},
	{Name: "GNUmakefile", Why: whyBuild},
	{Name: "justfile", Why: whyBuild},
	{Name: "Taskfile.yml", Why: whyBuild},
	{Name: ".envrc", Why: "a direnv file: direnv runs it as the person's commands on entering the directory"},
	{Name: ".bashrc", Why: whyStartup}, {Name: ".bash_profile", Why: whyStartup}, {Name: ".bash_login", Why: whyStartup},
	{Name: ".bash_logout", Why: whyStartup}, {Name: ".profile", Why: whyStartup}, {Name: ".zshrc", Why: whyStartup},
	{Name: ".zshenv", Why: whyStartup}, {Name: ".zprofile", Why: whyStartup}, {Name: ".zlogin", Why: whyStartup},
	{Name: ".zlogout", Why: whyStartup}, {Name: ".kshrc", Why: whyStartup}, {Name: ".mkshrc", Why: whyStartup},
	{Name: ".cshrc", Why: whyStartup}, {Name: ".tcshrc", Why: whyStartup}, {Name: ".login", Why: whyStartup},
	{Name: ".logout", Why: whyStartup}, {Name: ".xprofile", Why: whyStartup}, {Name: ".xsession", Why: whyStartup},
	{Name: ".xinitrc", Why: whyStartup},
	{Name: ".ssh", Dir: true, Why: "SSH keys and settings: a key there lets someone in, a setting there runs commands"},
	{Name: ".aws", Dir: true, Why: whyCreds},
	{Name: ".kube", Dir: true, Why: whyCreds},
	{Name: ".docker", Dir: true, Why: whyCreds},
	{Name: ".gnupg", Dir: true, Why: "the person's GnuPG keys and settings"},
	{Name: ".local/bin", Dir: true, Why: "programs on the person's PATH: what is written there runs in place of a command"},
	{Under: func(pl Places) string { return sub(pl.StateHome, "browseragent") }, Why: "browseragent's own audit log and history"},
	{Under: func(pl Places) string { return sub(pl.ConfigHome, "browseragent") }, Why: "browseragent's own configuration"},
	{Under: func(pl Places) string { return pl.ConfigHome }, Why: "under $XDG_CONFIG_HOME, where programs read their settings (some of them run commands)"},
}

func sub(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

// forbidden says why writing path (absolute, resolved) is never allowed,
// or "".
func (pl Places) forbidden(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for _, e := range protectedPlaces {
		if e.Under != nil {
			if d := e.Under(pl); d != "" && within(path, d) {
				return e.Why
			}
			continue
		}
		if e.matches(parts) {
			return e.Why
		}
	}
	return ""
}

// matches reports whether the components of a path hold e's name.
func (e protected) matches(parts []string) bool {
	name := strings.Split(e.Name, "/")
	for i := 0; i+len(name) <= len(parts); i++ {
		if !e.Dir && i+len(name) != len(parts) {
			continue
		}
		ok := true
		for j, n := range name {
			if !strings.EqualFold(parts[i+j], n) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// WriteRefused says why browseragent never writes path (resolved as the
// guard resolves a tool's file, against the working directory), whoever
// asks: the same list the tools' file writes are refused by. "" when path
// is not on it.
func WriteRefused(path string) string {
	return Places{}.withDefaults().forbidden(resolvePath(path, ""))
}
