package shell

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/agent/llmtest"
)

// clearLLMEnv keeps the machine's LLM variables out of a test.
func clearLLMEnv(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "BROWSERAGENT_MODEL", "BROWSERAGENT_PROVIDER"} {
		t.Setenv(v, "")
	}
}

// twoServers writes a config.yaml, with the person's comments and other
// settings, naming two scripted OpenAI-compatible servers as providers
// "mine" (in use) and "two".
func twoServers(t *testing.T) (path string, mine, two *llmtest.Server) {
	mine = llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("from mine")})
	mine.SetModels(llmtest.Model{ID: "test-model"}, llmtest.Model{ID: "other-model", Capabilities: []string{"tools"}})
	two = llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("from two")})
	two.SetModels(llmtest.Model{ID: "plain"}, llmtest.Model{ID: "caller", Capabilities: []string{"tools"}})
	path = filepath.Join(t.TempDir(), "config.yaml")
	body := "# my LLM\nprovider: mine # the box under the desk\nproviders:\n" +
		"  mine:\n    base_url: " + mine.URL + "\n    model: test-model\n" +
		"  two:\n    base_url: " + two.URL + " # the other one\n" +
		"max_steps: 7\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, mine, two
}

// TestModelAndProviderSave: /model NAME --save and /provider NAME --save
// switch the session and write config.yaml for the next start, keeping the
// person's comments and other settings; the next start (ResolveSettings
// over the file) uses what was saved.
func TestModelAndProviderSave(t *testing.T) {
	clearLLMEnv(t)
	path, mine, two := twoServers(t)
	fc, err := agent.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.ResolveSettings(agent.Overrides{}, os.Getenv, fc), newFakeTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Tools: newFakeTools(), Agent: a, ConfigPath: path}
	stdout, stderr := scriptIO(opts, "/model other-model --save\nhello\n/provider\n/provider two --save\nhello again\n")
	if n := failures(t, New(opts).Run(t.Context())); n != 0 {
		t.Fatalf("%d commands failed; stderr:\n%s", n, stderr)
	}
	out := stdout.String()
	for _, want := range []string{
		"model: other-model\nsaved to " + path + "\n",
		"from mine\n",
		"provider: two (" + two.URL + "), model caller\n/model lists what it serves, /model NAME switches\nsaved to " + path + "\n",
		"from two\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{`(?m)^\* mine +` + regexp.QuoteMeta(mine.URL) + `  local, running: 2 models$`,
		`(?m)^  two +` + regexp.QuoteMeta(two.URL) + `  local, running: 2 models$`, `(?m)^  deepseek +https://api.deepseek.com/v1  needs DEEPSEEK_API_KEY$`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("/provider's list lacks /%s/:\n%s", want, out)
		}
	}
	if got := mine.Requests(); len(got) != 1 || got[0].Model != "other-model" {
		t.Errorf("mine got %d requests (%+v), want one for other-model", len(got), got)
	}
	if got := two.Requests(); len(got) != 1 || got[0].Model != "caller" {
		t.Errorf("two got %d requests (%+v), want one for caller", len(got), got)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# my LLM\nprovider: two # the box under the desk\nproviders:\n" +
		"  mine:\n    base_url: " + mine.URL + "\n    model: other-model\n" +
		"  two:\n    base_url: " + two.URL + " # the other one\n    model: caller\n" +
		"max_steps: 7\n"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("config.yaml (-want +got)\n%s", diff)
	}
	fc, err = agent.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if st := agent.ResolveSettings(agent.Overrides{}, os.Getenv, fc); st.BaseURL != two.URL || st.Model != "caller" || st.MaxSteps != 7 {
		t.Errorf("the next start resolves %s %s, %d steps; want %s caller, 7", st.BaseURL, st.Model, st.MaxSteps, two.URL)
	}
}

// TestProviderFirstLLM: a shell started without an LLM gets one with
// /provider NAME, and the next line is a task for it.
func TestProviderFirstLLM(t *testing.T) {
	clearLLMEnv(t)
	path, _, two := twoServers(t)
	opts := &Options{Tools: newFakeTools(), ConfigPath: path, NoLLMReason: "no LLM configured",
		NewAgent: func(st agent.Settings) (Agent, error) { return agent.New(st, newFakeTools(), nil) }}
	stdout, stderr := scriptIO(opts, "/provider two\nhello\n/model\n")
	if n := failures(t, New(opts).Run(t.Context())); n != 0 {
		t.Fatalf("%d commands failed; stderr:\n%s", n, stderr)
	}
	want := "provider: two (" + two.URL + "), model caller\n/model lists what it serves, /model NAME switches\nfrom two\ncaller (" + two.URL + ")\n  plain\n* caller  (tools)\n/model NAME switches; /model NAME --save also keeps it in config.yaml\n"
	if !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("stdout = %q, want it to start %q", stdout, want)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "provider: mine") {
		t.Errorf("/provider without --save changed the file:\n%s", b)
	}
}

// TestSaveFailureNamesTheFile: a config file that cannot be written is
// named in the error; the switch itself still happened.
func TestSaveFailureNamesTheFile(t *testing.T) {
	clearLLMEnv(t)
	llm := llmtest.New(t)
	blocker := filepath.Join(t.TempDir(), "blocker")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "config.yaml")
	a, err := agent.New(agent.Settings{BaseURL: llm.URL, Model: "test-model"}, newFakeTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Tools: newFakeTools(), Agent: a, ConfigPath: path}
	_, stderr := scriptIO(opts, "/model other --save\n")
	if n := failures(t, New(opts).Run(t.Context())); n != 1 {
		t.Errorf("%d failed, want 1", n)
	}
	if !strings.Contains(stderr.String(), "save settings to "+path+": ") {
		t.Errorf("stderr = %q, want the file named", stderr)
	}
	if a.Settings().Model != "other" {
		t.Errorf("model %q, want other", a.Settings().Model)
	}
}
