// Package tasks is a suite of everyday browser tasks a person gives an
// agent — upload a file, pick an item from a hover menu, drag a card to
// Done, dismiss a confirm, fill a form inside a cross-origin iframe — each
// on a local page that records what really happened (the server saw the
// file, the drop event fired, the dialog was dismissed).
//
// Each task carries the steps a model would take, as tool calls whose
// arguments are read from the results before them (a ref from the last
// snapshot, the tab a click opened). The tests in package cli play
// them as a scripted model through `run`, and as an MCP client through
// `mcp serve`, and check the page's own record. Start serves the pages on
// 127.0.0.1; the iframe's form is served from a second origin.
package tasks

import (
	"embed"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

//go:embed pages/*.html
var pages embed.FS

// Task is one thing a person asks for, and how it is done.
type Task struct {
	Name   string // short id
	Prompt string // what the person types
	Steps  []Step
	// Want is the record the site must have seen when the task is done.
	Want string
}

// Step is one tool call. Args values that are strings may hold
// placeholders, filled from the results so far (Resolve):
//
//	{url:/path}   the site's address of path
//	{ref:TEXT}    the ref of the newest outline line containing TEXT (a
//	              snapshot's, or one an action's result lists as changed)
//	{newtab}      the tab the last result says it opened
//	{file:NAME}   the path of a fixture file (Files)
type Step struct {
	Tool string
	Args map[string]any
}

// Files are the local files tasks upload, by name, with their content.
var Files = map[string]string{"cv.txt": "Ada Lovelace, analyst. Notes on the Analytical Engine."}

func open(path string) Step { return Step{"browser_open", map[string]any{"url": "{url:" + path + "}"}} }

var snap = Step{"browser_snapshot", map[string]any{}}

// bottom scrolls to the end of a feed, which loads more there; waitFor
// waits for an item to show.
var bottom = Step{"browser_scroll", map[string]any{"direction": "bottom"}}

func waitFor(text string) Step { return Step{"browser_wait", map[string]any{"text": text}} }

func on(tool, text string, more ...any) Step {
	args := map[string]any{"ref": "{ref:" + text + "}"}
	for i := 0; i+1 < len(more); i += 2 {
		args[more[i].(string)] = more[i+1]
	}
	return Step{tool, args}
}

// All are the tasks of the suite.
var All = []Task{
	{Name: "upload", Prompt: "Upload my CV (cv.txt) to the job form and send it", Want: "upload:cv.txt:Ada Lovelace",
		Steps: []Step{open("/pages/upload.html"), snap, on("browser_upload", `"Your CV"`, "paths", []any{"{file:cv.txt}"}), on("browser_click", `button "Send application"`)}},
	{Name: "hover-menu", Prompt: "Open the Account menu and go to Settings", Want: "menu:settings",
		Steps: []Step{open("/pages/hover.html"), snap, on("browser_hover", `button "Account"`), snap, on("browser_click", `link "Settings"`)}},
	{Name: "drag-card", Prompt: "Drag 'Write the report' to Done", Want: "drop:report>done",
		Steps: []Step{open("/pages/board.html"), snap, on("browser_drag", "Write the report", "to", "Done")}},
	{Name: "double-click-edit", Prompt: "Rename the project to Apollo", Want: "renamed:Apollo",
		Steps: []Step{open("/pages/rename.html"), snap, on("browser_click", "Untitled project", "count", 2), snap,
			on("browser_type", `textbox "Project name"`, "text", "Apollo", "submit", true)}},
	{Name: "right-click-menu", Prompt: "Delete budget.xlsx from its context menu", Want: "context:delete",
		Steps: []Step{open("/pages/contextmenu.html"), snap, on("browser_click", "budget.xlsx", "button", "right"), snap, on("browser_click", `menuitem "Delete"`)}},
	{Name: "download", Prompt: "Download the November 2026 invoice and tell me its file name", Want: "download:invoice-2026-11.pdf",
		Steps: []Step{open("/pages/download.html"), snap, on("browser_download", `link "November 2026"`)}},
	{Name: "dismiss-confirm", Prompt: "Press Delete account, but cancel when it asks", Want: "confirm:false",
		Steps: []Step{open("/pages/confirm.html"), snap, on("browser_click", `button "Delete account"`), {"browser_dialog", map[string]any{"accept": false}}}},
	{Name: "answer-prompt", Prompt: "Rename the document to Q3 plan", Want: "prompt:Q3 plan",
		Steps: []Step{open("/pages/prompt.html"), snap, on("browser_click", `button "Rename document"`), {"browser_dialog", map[string]any{"accept": true, "text": "Q3 plan"}}}},
	{Name: "accept-alert", Prompt: "Save the cart", Want: "alert:acknowledged",
		Steps: []Step{open("/pages/alert.html"), snap, on("browser_click", `button "Save cart"`), {"browser_dialog", map[string]any{"accept": true}}}},
	{Name: "iframe-form", Prompt: "Pay with the name Ada Lovelace on the card", Want: "iframe:Ada Lovelace",
		Steps: []Step{open("/pages/iframe.html"), snap, on("browser_type", `textbox "Name on card"`, "text", "Ada Lovelace"), on("browser_click", `button "Pay"`)}},
	{Name: "shadow-dom", Prompt: "Subscribe to the newsletter", Want: "shadow:subscribed",
		Steps: []Step{open("/pages/shadow.html"), snap, on("browser_click", `button "Subscribe"`)}},
	{Name: "date-picker", Prompt: "Book a table for 24 December 2026", Want: "date:2026-12-24",
		Steps: []Step{open("/pages/date.html"), snap, on("browser_type", `"Date"`, "text", "2026-12-24"), on("browser_click", `button "Book"`)}},
	{Name: "select-by-label", Prompt: "Choose Germany as the country", Want: "country:de",
		Steps: []Step{open("/pages/select.html"), snap, on("browser_select", `combobox "Country"`, "value", "Germany")}},
	{Name: "infinite-scroll", Prompt: "Open item 50 of the feed", Want: "item:50",
		Steps: []Step{open("/pages/scroll.html"),
			bottom, waitFor("Item 20"), bottom, waitFor("Item 30"), bottom, waitFor("Item 40"), bottom, waitFor("Item 50"), snap, on("browser_click", `link "Item 50"`)}},
	{Name: "popup-window", Prompt: "Confirm the order by e-mail in the window it opens", Want: "popup:sent",
		Steps: []Step{open("/pages/popup.html"), snap, on("browser_click", `button "Confirm by e-mail"`),
			{"browser_select_tab", map[string]any{"tab": "{newtab}"}}, snap, on("browser_click", `button "Send"`)}},
	{Name: "contenteditable", Prompt: "Write 'buy milk' in the note and save it", Want: "note:buy milk",
		Steps: []Step{open("/pages/editable.html"), snap, on("browser_type", `textbox "Note"`, "text", "buy milk"), on("browser_click", `button "Save note"`)}},
	{Name: "custom-checkbox", Prompt: "Accept the terms and sign up", Want: "terms:true",
		Steps: []Step{open("/pages/terms.html"), snap, on("browser_check", "I accept the terms"), on("browser_click", `button "Sign up"`)}},
	{Name: "radio", Prompt: "Choose express shipping and continue", Want: "shipping:express",
		Steps: []Step{open("/pages/shipping.html"), snap, on("browser_check", `radio "Express"`), on("browser_click", `button "Continue"`)}},
	{Name: "slider", Prompt: "Turn the volume all the way up", Want: "volume:max",
		Steps: []Step{open("/pages/slider.html"), snap, on("browser_drag", `slider "Volume"`, "to", `{ref:button "Max"}`)}},
	{Name: "escape-modal", Prompt: "Close the newsletter popup", Want: "modal:closed",
		Steps: []Step{open("/pages/modal.html"), {"browser_press", map[string]any{"key": "Escape"}}}},
	{Name: "tabs-widget", Prompt: "Show the Billing tab", Want: "tab:billing",
		Steps: []Step{open("/pages/tabs.html"), snap, on("browser_click", `tab "Billing"`)}},
}

// Site serves the pages and keeps the record of what they saw.
type Site struct {
	URL   string // http://127.0.0.1:PORT
	Frame string // the iframe's origin: http://localhost:PORT2, another site

	main, frame *http.Server
	mu          sync.Mutex
	recs        []string
}

// Start serves the suite's pages on 127.0.0.1 (and the iframe's on
// localhost, another port: a cross-site, out-of-process frame).
func Start() (*Site, error) {
	s := &Site{}
	l1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		l1.Close()
		return nil, err
	}
	s.URL = "http://" + l1.Addr().String()
	s.Frame = fmt.Sprintf("http://localhost:%d", l2.Addr().(*net.TCPAddr).Port)
	s.main = &http.Server{Handler: s.mux()}
	s.frame = &http.Server{Handler: s.frameMux()}
	go s.main.Serve(l1)
	go s.frame.Serve(l2)
	return s, nil
}

// Close stops both servers.
func (s *Site) Close() {
	s.main.Close()
	s.frame.Close()
}

func (s *Site) rec(what string) {
	s.mu.Lock()
	s.recs = append(s.recs, what)
	s.mu.Unlock()
}

// Records lists what the pages recorded, in order.
func (s *Site) Records() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.recs...)
}

// Saw reports whether a record starts with want.
func (s *Site) Saw(want string) bool {
	for _, r := range s.Records() {
		if strings.HasPrefix(r, want) {
			return true
		}
	}
	return false
}

func (s *Site) mux() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("/pages/", func(w http.ResponseWriter, r *http.Request) {
		b, err := pages.ReadFile(strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(strings.ReplaceAll(string(b), "FRAME_ORIGIN", s.Frame)))
	})
	m.HandleFunc("/rec", s.record)
	m.HandleFunc("/upload", func(w http.ResponseWriter, r *http.Request) {
		f, h, err := r.FormFile("cv")
		if err != nil {
			http.Error(w, "no file", http.StatusBadRequest)
			return
		}
		defer f.Close()
		buf := make([]byte, 200)
		n, _ := f.Read(buf)
		s.rec(fmt.Sprintf("upload:%s:%s", h.Filename, buf[:n]))
		fmt.Fprint(w, "<!doctype html><title>Thank you</title><p>Application received.</p>")
	})
	m.HandleFunc("/invoice", func(w http.ResponseWriter, r *http.Request) {
		name := "invoice-" + regexp.MustCompile(`[^0-9-]`).ReplaceAllString(r.FormValue("month"), "") + ".pdf"
		s.rec("download:" + name)
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		fmt.Fprint(w, "%PDF-1.4 invoice "+name)
	})
	return m
}

func (s *Site) frameMux() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("/pay", func(w http.ResponseWriter, r *http.Request) {
		b, _ := pages.ReadFile("pages/pay.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	})
	m.HandleFunc("/rec", s.record)
	return m
}

func (s *Site) record(w http.ResponseWriter, r *http.Request) {
	s.rec(r.FormValue("what"))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<!doctype html><title>Done</title><p>Recorded.</p>")
}

var (
	placeholder = regexp.MustCompile(`\{(url|ref|newtab|file)(?::([^{}]*))?\}`)
	refOnLine   = regexp.MustCompile(`ref=([a-z0-9]+)`)
	newTab      = regexp.MustCompile(`Opened new tab (t[0-9]+)`)
)

// Resolve fills the placeholders of a step's arguments from the site, the
// fixture folder and the text of the results so far (the last first).
func (s *Site) Resolve(st Step, files string, results []string) (map[string]any, error) {
	var fill func(v any) (any, error)
	fill = func(v any) (any, error) {
		switch x := v.(type) {
		case string:
			var err error
			out := placeholder.ReplaceAllStringFunc(x, func(m string) string {
				p := placeholder.FindStringSubmatch(m)
				got, e := s.one(p[1], p[2], files, results)
				if e != nil && err == nil {
					err = e
				}
				return got
			})
			return out, err
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				f, err := fill(e)
				if err != nil {
					return nil, err
				}
				out[i] = f
			}
			return out, nil
		}
		return v, nil
	}
	args := map[string]any{}
	for k, v := range st.Args {
		f, err := fill(v)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", st.Tool, k, err)
		}
		args[k] = f
	}
	return args, nil
}

func (s *Site) one(kind, arg, files string, results []string) (string, error) {
	switch kind {
	case "url":
		return s.URL + arg, nil
	case "file":
		return strings.TrimRight(files, "/") + "/" + arg, nil
	case "newtab":
		for i := len(results) - 1; i >= 0; i-- {
			if m := newTab.FindStringSubmatch(results[i]); m != nil {
				return m[1], nil
			}
		}
		return "", fmt.Errorf("no result says it opened a tab")
	}
	// The newest result that outlines the element: a snapshot, or the
	// changes an action's result lists.
	for i := len(results) - 1; i >= 0; i-- {
		changes := strings.Contains(results[i], "Changes since the last snapshot")
		for _, line := range strings.Split(results[i], "\n") {
			if changes && !strings.HasPrefix(line, "+ ") {
				continue // of a list of changes, only what is there now
			}
			if strings.Contains(line, arg) {
				if m := refOnLine.FindStringSubmatch(line); m != nil {
					return m[1], nil
				}
			}
		}
	}
	return "", fmt.Errorf("no result so far outlines %q with a ref", arg)
}
