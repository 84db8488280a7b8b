package shell

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/mcpclient"
)

// mcpCompleter is the optional part of MCP behind completion of prompt
// arguments and URI-template variables (completion/complete);
// mcpclient.Manager has it.
type mcpCompleter interface {
	Complete(ctx context.Context, name string, ref *mcp.CompleteReference, arg, value string, resolved map[string]string) ([]string, error)
}

// completeTimeout bounds one completion/complete while the person types;
// a slow server just offers nothing.
const completeTimeout = 300 * time.Millisecond

// completeCache remembers answers per server, reference, argument and
// typed value, so a keystroke that repeats a question does not ask again.
var completeCache sync.Map // string → []string

// serverComplete asks server for values of arg, or nil.
func (s *Shell) serverComplete(server string, ref *mcp.CompleteReference, arg, value string, resolved map[string]string) []string {
	c, ok := s.opts.MCP.(mcpCompleter)
	if !ok {
		return nil
	}
	key := strings.Join([]string{server, ref.Type, ref.Name + ref.URI, arg, value}, "\x00")
	if v, ok := completeCache.Load(key); ok {
		return v.([]string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	vals, err := c.Complete(ctx, server, ref, arg, value, resolved)
	if err != nil {
		vals = nil
	}
	completeCache.Store(key, vals)
	return vals
}

// promptArgSuggestions completes "/mcp__server__prompt name=val": argument
// names first, then the server's values for the one being typed.
func (s *Shell) promptArgSuggestions(head, word string, done []string) []suggestion {
	if s.opts.MCP == nil || !strings.HasPrefix(head, "mcp__") {
		return nil
	}
	server, prompt, ok := s.splitPromptName(strings.TrimPrefix(head, "mcp__"))
	if !ok {
		return nil
	}
	var p *mcp.Prompt
	if ps, err := s.opts.MCP.Prompts(server); err == nil {
		for _, cand := range ps {
			if cand.Name == prompt {
				p = cand
			}
		}
	}
	if p == nil {
		return nil
	}
	resolved := map[string]string{}
	for _, w := range done {
		if k, v, ok := strings.Cut(w, "="); ok {
			resolved[k] = v
		}
	}
	arg, value, typingValue := strings.Cut(word, "=")
	if !typingValue {
		var out []suggestion
		for _, a := range p.Arguments {
			if _, set := resolved[a.Name]; !set {
				desc := a.Description
				if a.Required {
					desc = "required " + desc
				}
				out = append(out, suggestion{a.Name + "=", textutil.OneLine(desc, 50)})
			}
		}
		return filterPrefix(out, word)
	}
	var out []suggestion
	for _, v := range s.serverComplete(server, mcpclient.PromptRef(prompt), arg, value, resolved) {
		out = append(out, suggestion{arg + "=" + v, ""})
	}
	return out
}

// templateSuggestions completes "@server:prefix..." inside a URI template
// whose one variable ends it ("test://items/{id}"): the server suggests
// values for the variable.
func (s *Shell) templateSuggestions(server string, tmpls []*mcp.ResourceTemplate, word string) []suggestion {
	typed := strings.TrimPrefix(word, "@"+server+":")
	var out []suggestion
	for _, t := range tmpls {
		prefix := templatePrefix(t.URITemplate)
		rest := strings.TrimPrefix(t.URITemplate, prefix)
		if !strings.HasPrefix(typed, prefix) || !strings.HasPrefix(rest, "{") || !strings.HasSuffix(rest, "}") || strings.Count(rest, "{") != 1 {
			continue
		}
		variable := strings.Trim(rest, "{}")
		for _, v := range s.serverComplete(server, mcpclient.TemplateRef(t.URITemplate), variable, strings.TrimPrefix(typed, prefix), nil) {
			out = append(out, suggestion{"@" + server + ":" + prefix + v, textutil.OneLine("from template "+t.URITemplate, 50)})
		}
	}
	return out
}
