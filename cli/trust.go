package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/mcpclient"
)

// projectGate is the trust check for the project's .mcp.json: remembered
// approvals, --trust-project, and (ask non-nil: the interactive shell at a
// terminal) one question listing the commands the file would run. Notes
// go to warn.
func projectGate(warn io.Writer, trustAll bool, ask func(mcpclient.ProjectFile, bool) (bool, error)) *mcpclient.ProjectGate {
	return &mcpclient.ProjectGate{
		Store:    mcpclient.NewTrustStore(""),
		TrustAll: trustAll,
		Ask:      ask,
		Note: func(line string) {
			if warn != nil {
				fmt.Fprintf(warn, "browseragent: %s\n", textutil.VisibleLine(line)) // it names the file and its servers
			}
		},
	}
}

// shellGate asks at a terminal; with piped input the project's servers are
// skipped unless trusted, saying so.
func shellGate(s *streams, trustAll bool) *mcpclient.ProjectGate {
	var ask func(mcpclient.ProjectFile, bool) (bool, error)
	if interactive(s) {
		ask = askTrust(s)
	}
	return projectGate(s.err, trustAll, ask)
}

// interactive reports whether s reads from and writes to a terminal.
func interactive(s *streams) bool {
	in, ok := s.in.(*os.File)
	if !ok || !isatty.IsTerminal(in.Fd()) {
		return false
	}
	out, ok := s.out.(*os.File)
	return ok && isatty.IsTerminal(out.Fd())
}

// askTrust asks at the terminal whether to trust a project file, showing
// every command it would run.
func askTrust(s *streams) func(mcpclient.ProjectFile, bool) (bool, error) {
	return func(p mcpclient.ProjectFile, changed bool) (bool, error) {
		var b strings.Builder
		// The file's author chose every word of its commands (and its
		// directory's name): shown visible, nothing in them can redraw
		// the question.
		path := textutil.VisibleLine(p.Path)
		if changed {
			fmt.Fprintf(&b, "%s changed since you trusted it.\n", path)
		}
		fmt.Fprintf(&b, "This project's %s starts MCP servers, which run with your permissions:\n", path)
		for _, c := range p.Commands() {
			fmt.Fprintf(&b, "  %s\n", textutil.VisibleLine(c))
		}
		b.WriteString("Trust this file and start them? Remembered until the file changes; `browseragent mcp untrust` undoes it. [y/N] ")
		fmt.Fprint(s.out, b.String())
		line, err := readRawLine(s.in)
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		}
		return false, nil
	}
}

// readRawLine reads one line a byte at a time, so nothing after it is
// taken from the input the shell reads next.
func readRawLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return string(b), nil
			}
			b = append(b, one[0])
		}
		if err != nil {
			return string(b), err
		}
	}
}

// projectFileArg is FILE, or .mcp.json in the working directory.
func projectFileArg(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return ".mcp.json"
}

func newMCPTrustCmd(s *streams) *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Trust a project's .mcp.json (default: the working directory's) so its servers start; --list shows the trusted files",
		Long: `A project's .mcp.json comes with the code, so its servers start only after
you approve the file: in the interactive shell you are asked once, and
elsewhere (run, mcp, piped input) they are skipped unless you trust the file
here or pass --trust-project. The approval is remembered for this path and
this content, in $XDG_STATE_HOME/browseragent/trusted-projects.json; when
the file changes it is asked again. Your own mcp.json and --mcp-config files
are always trusted.`,
		Example: "  browseragent mcp trust\n  browseragent mcp trust ../other/.mcp.json\n  browseragent mcp trust --list",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store := mcpclient.NewTrustStore("")
			if list {
				recs, err := store.List()
				if err != nil {
					return err
				}
				for _, r := range recs {
					fmt.Fprintf(s.out, "%s  (%s)  trusted %s\n", textutil.VisibleLine(r.File), textutil.VisibleLine(strings.Join(r.Servers, ", ")), r.Time.Local().Format("2006-01-02 15:04"))
				}
				if len(recs) == 0 {
					fmt.Fprintln(s.out, "no trusted project files")
				}
				return nil
			}
			p, err := mcpclient.ReadProjectFile(projectFileArg(args))
			if errors.Is(err, fs.ErrNotExist) {
				return exitCode(exitFailed, err.Error())
			}
			if err != nil {
				return err
			}
			if err := store.Trust(p); err != nil {
				return err
			}
			fmt.Fprintf(s.out, "trusted %s; its servers start from now on:\n", textutil.VisibleLine(p.Path))
			for _, c := range p.Commands() {
				fmt.Fprintf(s.out, "  %s\n", textutil.VisibleLine(c))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted project files")
	return cmd
}

func newMCPUntrustCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:     "untrust [FILE]",
		Short:   "Forget the approval of a project's .mcp.json (default: the working directory's)",
		Example: "  browseragent mcp untrust",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			abs, err := filepath.Abs(projectFileArg(args))
			if err != nil {
				return err
			}
			had, err := mcpclient.NewTrustStore("").Untrust(abs)
			if err != nil {
				return err
			}
			if !had {
				fmt.Fprintf(s.out, "%s was not trusted\n", abs)
				return nil
			}
			fmt.Fprintf(s.out, "no longer trusted: %s (its servers are skipped until you trust it again)\n", abs)
			return nil
		},
	}
}
