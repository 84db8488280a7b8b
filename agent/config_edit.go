package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ConfigValue is one setting to write into config.yaml: Key is its path
// ("model", or "providers.ollama.model"), Value a plain string.
type ConfigValue struct {
	Key, Value string
}

// editConfig returns data (config.yaml's text; empty is an empty file)
// with each value set, every other key, its comments and its order kept
// (yaml.v3 drops blank lines between keys).
// The result parses with parseConfig, or editConfig fails and says why.
func editConfig(data []byte, values ...ConfigValue) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse config: %w", err)
	}
	var b bytes.Buffer
	if doc.Kind == 0 { // an empty file, or only comments: they stay on top
		if text := bytes.TrimSpace(data); len(text) > 0 {
			b.Write(text)
			b.WriteString("\n\n")
		}
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("parse config: the file is not a mapping of settings (key: value lines)")
	}
	for _, v := range values {
		if err := setKey(root, strings.Split(v.Key, "."), v.Value); err != nil {
			return nil, err
		}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("write config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write config: %w", err)
	}
	if _, err := parseConfig(b.Bytes()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// setKey sets path under the mapping m to value, making the mappings on
// the way that are missing.
func setKey(m *yaml.Node, path []string, value string) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Value != path[0] {
			continue
		}
		if len(path) == 1 {
			*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value,
				HeadComment: v.HeadComment, LineComment: v.LineComment, FootComment: v.FootComment}
			return nil
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			*v = yaml.Node{Kind: yaml.MappingNode, LineComment: v.LineComment}
		}
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("parse config: %s is not a mapping", path[0])
		}
		return setKey(v, path[1:], value)
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: path[0]}
	if len(path) == 1 {
		m.Content = append(m.Content, k, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
		return nil
	}
	child := &yaml.Node{Kind: yaml.MappingNode}
	m.Content = append(m.Content, k, child)
	return setKey(child, path[1:], value)
}

// saveConfig writes values into the config file at path (made with its
// folder when missing), keeping the rest of the file: it is editConfig
// applied to the file, written to a temporary file beside it and renamed
// over it, so a failure leaves the old file whole. Errors name the file.
func saveConfig(path string, values ...ConfigValue) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // a config kept in a dotfiles repo stays a link to it
	}
	data, err := os.ReadFile(path)
	mode := fs.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("save settings to %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	out, err := editConfig(data, values...)
	if err != nil {
		return fmt.Errorf("save settings to %s: %w", path, err)
	}
	if err := writeFileAtomic(path, out, mode); err != nil {
		return fmt.Errorf("save settings to %s: %w", path, err)
	}
	return nil
}

func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".config-*.yaml")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone after the rename; left only on failure
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// SaveModel writes model into the config file at path as the one to start
// with on s's endpoint: under its provider's entry when s names one (a
// provider's model comes before the top-level model:), else as model:.
// The note says what would still override it at the next start; "" when
// nothing does.
func SaveModel(path string, s Settings, model string, getenv func(string) string) (string, error) {
	key := "model"
	if s.Provider != "" {
		key = "providers." + s.Provider + ".model"
	}
	if err := saveConfig(path, ConfigValue{key, model}); err != nil {
		return "", err
	}
	return overriddenBy(getenv, "BROWSERAGENT_MODEL"), nil
}

// SaveProvider writes provider: name into the config file at path, with
// model as that provider's model when it is not "" (a model chosen for
// another endpoint must not follow it).
func SaveProvider(path, name, model string, getenv func(string) string) (string, error) {
	values := []ConfigValue{{"provider", name}}
	if model != "" {
		values = append(values, ConfigValue{"providers." + name + ".model", model})
	}
	if err := saveConfig(path, values...); err != nil {
		return "", err
	}
	return overriddenBy(getenv, "BROWSERAGENT_PROVIDER", "OPENAI_BASE_URL", "BROWSERAGENT_MODEL"), nil
}

// overriddenBy says which of the variables are set, as they win over the
// config file at start.
func overriddenBy(getenv func(string) string, vars ...string) string {
	var set []string
	for _, v := range vars {
		if getenv(v) != "" {
			set = append(set, v)
		}
	}
	if len(set) == 0 {
		return ""
	}
	return strings.Join(set, " and ") + " set in the environment still come first at start"
}
