package browser

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	site := newSite(t)
	b := newTestBrowser(t, nil)
	shot := filepath.Join(t.TempDir(), "spa.jpg")
	tests := []struct {
		name    string
		url     string
		o       RenderOptions
		want    []string
		notWant []string
		err     error
	}{
		{"spa settles without wait-for", "/spa.html", RenderOptions{}, []string{"Rendered by JavaScript", "forty-two"}, []string{"Loading…"}, nil},
		{"wait for selector", "/spa.html", RenderOptions{WaitFor: "#late"}, []string{"forty-two"}, nil, nil},
		{"wait for text and select", "/spa.html", RenderOptions{WaitFor: "Late text", Select: "h1", Screenshot: shot}, []string{"Rendered by JavaScript"}, []string{"forty-two"}, nil},
		{"article", "/article.html", RenderOptions{}, []string{"lunar tide"}, []string{"local test site"}, nil},
		{"missing wait-for", "/spa.html", RenderOptions{WaitFor: "never", WaitTime: 1e9}, nil, nil, ErrWaitFor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := b.Render(context.Background(), site.URL+tt.url, tt.o)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			md := r.Markdown()
			for _, w := range tt.want {
				if !strings.Contains(md, w) {
					t.Errorf("missing %q in:\n%s", w, md)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(md, w) {
					t.Errorf("unexpected %q in:\n%s", w, md)
				}
			}
			if r.Status != 200 {
				t.Errorf("status %d", r.Status)
			}
			if r.JSShell || r.Hint != "" {
				t.Errorf("a rendered page is reported as a JavaScript shell: %q", r.Hint)
			}
		})
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 1000 {
		t.Errorf("screenshot %s: %v", shot, err)
	}
	if n := len(b.Tabs()); n > 1 {
		t.Errorf("render left %d tabs open: %+v", n, b.Tabs())
	}
}
