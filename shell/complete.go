package shell

import (
	"sort"
	"strings"

	prompt "github.com/c-bata/go-prompt"

	"github.com/browseragent/browseragent/internal/textutil"
)

// complete is go-prompt's completer: commands and their flags, sub-commands,
// server names, tool names, tab numbers and @server:uri mentions, each with
// a description for the popup. It only reads snapshots (tool lists, server
// states, tab lists), so it is cheap on every key.
func (s *Shell) complete(d prompt.Document) []prompt.Suggest {
	return toPrompt(s.suggest(d.TextBeforeCursor()))
}

// suggest returns completions for the text before the cursor.
func (s *Shell) suggest(text string) []suggestion {
	word := text
	if i := strings.LastIndexAny(text, " \t\n"); i >= 0 {
		word = text[i+1:]
	}
	if strings.HasPrefix(word, "@") {
		return filterPrefix(s.mentionSuggestions(word), word)
	}
	if !strings.HasPrefix(text, "/") {
		return nil // prose for the agent: no popup while typing
	}
	if !strings.ContainsAny(text, " \t") {
		return filterPrefix(append(commandSuggestions(""), s.promptSuggestions()...), word)
	}
	name := strings.TrimPrefix(text[:strings.IndexAny(text, " \t")], "/")
	cmd := lookup(name)
	words := strings.Fields(text)[1:]
	if word != "" {
		words = words[:len(words)-1] // the word being typed
	}
	if cmd == nil {
		return s.promptArgSuggestions(name, word, words) // complete_mcp.go
	}
	if strings.HasPrefix(word, "-") {
		return filterPrefix(flagSuggestions(cmd), word)
	}
	if n := len(words); n > 0 && strings.HasPrefix(words[n-1], "--") {
		if f := cmd.flag(strings.TrimPrefix(words[n-1], "--")); f != nil && f.arg != "" {
			return nil // a flag's value
		}
	}
	if cmd.complete == nil {
		return nil
	}
	args := positional(cmd, words)
	return filterPrefix(cmd.complete(s, len(args), args), word)
}

// positional drops flags and their values from words.
func positional(cmd *command, words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "--") && !cmd.rawArgs {
			if f := cmd.flag(strings.TrimPrefix(w, "--")); f != nil && f.arg != "" && !strings.Contains(w, "=") {
				i++
			}
			continue
		}
		out = append(out, w)
	}
	return out
}

func flagSuggestions(cmd *command) []suggestion {
	var out []suggestion
	for _, f := range cmd.flags {
		out = append(out, suggestion{"--" + f.name, strings.TrimSpace(f.arg + "  " + f.desc)})
	}
	return out
}

// promptSuggestions lists /mcp__server__prompt commands.
func (s *Shell) promptSuggestions() []suggestion {
	if s.opts.MCP == nil {
		return nil
	}
	var out []suggestion
	for _, name := range s.serverNames() {
		ps, err := s.opts.MCP.Prompts(name)
		if err != nil {
			continue
		}
		for _, p := range ps {
			out = append(out, suggestion{"/mcp__" + name + "__" + p.Name, textutil.OneLine("prompt: "+p.Description, 60)})
		}
	}
	return out
}

// mentionSuggestions: "@" → servers with resources, "@server:" → its
// resources and templates.
func (s *Shell) mentionSuggestions(word string) []suggestion {
	if s.opts.MCP == nil {
		return nil
	}
	server, _, typedURI := strings.Cut(strings.TrimPrefix(word, "@"), ":")
	var out []suggestion
	for _, st := range s.opts.MCP.Status() {
		if !typedURI {
			if st.Resources > 0 {
				out = append(out, suggestion{"@" + st.Name + ":", plural(st.Resources, "resource")})
			}
			continue
		}
		if st.Name != server {
			continue
		}
		res, tmpls, err := s.opts.MCP.Resources(st.Name)
		if err != nil {
			return nil
		}
		for _, r := range res {
			out = append(out, suggestion{"@" + st.Name + ":" + r.URI, textutil.OneLine(r.Name+" "+r.Description, 50)})
		}
		for _, t := range tmpls {
			out = append(out, suggestion{"@" + st.Name + ":" + templatePrefix(t.URITemplate), textutil.OneLine("template "+t.URITemplate, 50)})
		}
		out = append(out, s.templateSuggestions(st.Name, tmpls, word)...) // complete_mcp.go
	}
	return out
}

// templatePrefix is the literal start of a URI template, up to the first {.
func templatePrefix(t string) string {
	if i := strings.IndexByte(t, '{'); i >= 0 {
		return t[:i]
	}
	return t
}

// completeToolNames suggests tool names for /call.
func completeToolNames(s *Shell, n int, _ []string) []suggestion {
	if n > 0 {
		return nil
	}
	var out []suggestion
	for _, d := range s.opts.Tools.Tools() {
		out = append(out, suggestion{d.Name, textutil.OneLine(d.Description, 60)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].text < out[j].text })
	return out
}

func filterPrefix(in []suggestion, prefix string) []suggestion {
	var out []suggestion
	for _, sg := range in {
		if strings.HasPrefix(sg.text, prefix) {
			out = append(out, sg)
		}
	}
	return out
}

func toPrompt(in []suggestion) []prompt.Suggest {
	out := make([]prompt.Suggest, len(in))
	for i, sg := range in {
		out[i] = prompt.Suggest{Text: sg.text, Description: sg.desc}
	}
	return out
}
