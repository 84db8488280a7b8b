package extract

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/browseragent/browseragent/internal/wordf1"
)

// qualityBar is the mean word-level F1 that text extraction must reach
// against Mozilla Readability's output on the shared test pages.
const qualityBar = 0.99

// TestExtractionQuality reads every shared test page as a server's answer
// (served), renders it as text, and scores its words against the page's expected.html. Run with
// -v to see the per-page table.
func TestExtractionQuality(t *testing.T) {
	pages := loadReadabilityPages(t)
	var sumF1 float64
	var titleMisses []string
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-42s %6s %6s %6s  %s\n", "page", "P", "R", "F1", "title")
	for _, p := range pages {
		res, err := served(p.source, "http://127.0.0.1/"+p.name+"/")
		if err != nil {
			t.Errorf("%s: %v", p.name, err)
			continue
		}
		if res.JSShell {
			t.Errorf("%s: a server-rendered article flagged as a JavaScript shell: %s", p.name, res.Hint)
		}
		prec, rec, f1 := wordf1.Score(wordf1.Words(htmlText(p.expectedHTML)), wordf1.Words(printedText(res)))
		sumF1 += f1
		titleOK := normSpace(res.Title) == normSpace(p.expectedTitle)
		mark := "ok"
		if !titleOK {
			mark = fmt.Sprintf("got %q, want %q", res.Title, p.expectedTitle)
			titleMisses = append(titleMisses, p.name)
		}
		if res.PageType != PageArticle {
			mark += " (read as " + string(res.PageType) + ")"
		}
		fmt.Fprintf(&table, "%-42s %6.3f %6.3f %6.3f  %s\n", p.name, prec, rec, f1, mark)
	}
	mean := sumF1 / float64(len(pages))
	fmt.Fprintf(&table, "%-42s %20.3f  %d/%d titles match\n", "MEAN", mean, len(pages)-len(titleMisses), len(pages))
	t.Log(table.String())
	if mean < qualityBar {
		t.Errorf("mean word F1 = %.3f, want >= %.2f", mean, qualityBar)
	}
	if len(titleMisses) > 0 {
		t.Errorf("titles differ on %d pages: %s", len(titleMisses), strings.Join(titleMisses, ", "))
	}
}

// htmlText is every text node of an HTML fragment, space separated.
func htmlText(b []byte) string {
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	var sb strings.Builder
	walk(doc, func(n *html.Node) bool {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
			sb.WriteByte(' ')
		}
		return true
	})
	return sb.String()
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
