package cli

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// shop is a local shop on 127.0.0.1 that keeps its own records: who
// logged in, what each cart holds. A test checks what the browser did by
// asking it, never the browser.
type shop struct {
	mu       sync.Mutex
	logins   []string
	carts    map[string][]string
	orders   []string // who placed an order
	uploads  []string // "name: content" of each file uploaded
	receipts int      // receipts downloaded
}

func newShop(t *testing.T) (*shop, *httptest.Server) {
	sh := &shop{carts: map[string][]string{}}
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, title, body string) {
		fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>%s</h1>%s", title, title, body)
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Tea Shop", `<form method=post action=/login><label>User <input name=user></label>
<label>Password <input type=password name=password></label><button>Log in</button></form>`)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("password") != "sencha" {
			page(w, "Wrong password", `<a href="/">Try again</a>`)
			return
		}
		user := r.FormValue("user")
		sh.mu.Lock()
		sh.logins = append(sh.logins, user)
		sh.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "user", Value: user, Path: "/"})
		http.Redirect(w, r, "/shop", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /shop", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("user")
		if err != nil {
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		sh.mu.Lock()
		n := len(sh.carts[c.Value])
		sh.mu.Unlock()
		page(w, "Shop", fmt.Sprintf(`<p>Signed in as %s. Cart: %d items.</p>
<form method=post action=/cart><input type=hidden name=item value=sencha><button>Add Sencha to cart</button></form>
<form method=post action=/cart><input type=hidden name=item value=matcha><button>Add Matcha to cart</button></form>
<a href="/cart">View cart</a>`, html.EscapeString(c.Value), n))
	})
	mux.HandleFunc("POST /cart", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("user")
		if err != nil {
			http.Error(w, "not signed in", http.StatusForbidden)
			return
		}
		sh.mu.Lock()
		sh.carts[c.Value] = append(sh.carts[c.Value], r.FormValue("item"))
		sh.mu.Unlock()
		http.Redirect(w, r, "/shop", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /cart", func(w http.ResponseWriter, r *http.Request) {
		user := ""
		if c, err := r.Cookie("user"); err == nil {
			user = c.Value
		}
		sh.mu.Lock()
		items := sh.carts[user]
		sh.mu.Unlock()
		page(w, "Cart", "<p>In your cart: "+html.EscapeString(strings.Join(items, ", "))+"</p>")
	})
	mux.HandleFunc("GET /profile", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Profile", `<form method=post action=/avatar enctype=multipart/form-data>
<label>Avatar <input type=file name=avatar></label><button>Upload</button></form>`)
	})
	mux.HandleFunc("POST /avatar", func(w http.ResponseWriter, r *http.Request) {
		f, hdr, err := r.FormFile("avatar")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(f)
		sh.mu.Lock()
		sh.uploads = append(sh.uploads, hdr.Filename+": "+string(b))
		sh.mu.Unlock()
		page(w, "Uploaded", "<p>Uploaded "+html.EscapeString(hdr.Filename)+".</p>")
	})
	// The basket and the checkout are one page; the checkout is a
	// sensitive page by the built-in rules (checkout-any-shop).
	for _, path := range []string{"GET /basket", "GET /checkout"} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			page(w, "Checkout", `<form method=post action=/order onsubmit="return confirm('Place the order?')"><button>Place order</button></form>`)
		})
	}
	mux.HandleFunc("POST /order", func(w http.ResponseWriter, r *http.Request) {
		user := ""
		if c, err := r.Cookie("user"); err == nil {
			user = c.Value
		}
		sh.mu.Lock()
		sh.orders = append(sh.orders, user)
		sh.mu.Unlock()
		page(w, "Thank you", `<p>Order placed.</p><a href="/receipt">Download receipt</a>`)
	})
	mux.HandleFunc("GET /receipt", func(w http.ResponseWriter, r *http.Request) {
		sh.mu.Lock()
		sh.receipts++
		sh.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Disposition", `attachment; filename="receipt.txt"`)
		fmt.Fprint(w, "Receipt: 1 order of tea\n")
	})
	mux.HandleFunc("GET /mine", func(w http.ResponseWriter, r *http.Request) {
		page(w, "My own tab", "<p>The person's page.</p>")
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Slow", `<p id=later></p><script>setTimeout(()=>{document.getElementById('later').textContent='Ready now'}, 3000)</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return sh, srv
}

func (sh *shop) uploaded() []string {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return append([]string(nil), sh.uploads...)
}

func (sh *shop) placed() []string {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return append([]string(nil), sh.orders...)
}

func (sh *shop) cart(user string) []string {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return append([]string(nil), sh.carts[user]...)
}

// browserEnv is a binEnv whose sessions live in a folder of the test's
// own (XDG_RUNTIME_DIR), so tests beside it never see its sessions.
func browserEnv(t *testing.T) *binEnv {
	t.Helper()
	rt, err := os.MkdirTemp("", "bcli")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(rt, 0o700)
	t.Cleanup(func() { os.RemoveAll(rt) })
	e := newBinEnv(t, "XDG_RUNTIME_DIR="+rt, "BROWSERAGENT_SESSION=")
	t.Cleanup(func() { e.run(t, "", "browser", "close", "--all") })
	return e
}

// refOf finds the ref of the element whose snapshot line holds label.
func refOf(t *testing.T, snapshot, label string) string {
	t.Helper()
	for _, l := range strings.Split(snapshot, "\n") {
		if strings.Contains(l, label) {
			if m := regexp.MustCompile(`ref=(e[0-9]+)`).FindStringSubmatch(l); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no ref for %q in the snapshot:\n%s", label, snapshot)
	return ""
}

// step runs one browser command as its own process and wants exit code want.
func (e *binEnv) step(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, out, errOut := e.run(t, "", append([]string{"browser"}, args...)...)
	if code != want {
		t.Fatalf("browser %q: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, want, out, errOut)
	}
	if want != 0 {
		return errOut
	}
	return out
}

// TestBrowserCLIShop: a flow driven by the command line alone, each
// command its own process against one session's daemon: open a shop, log
// in, add to the cart; the shop's own records say it happened. close --all
// leaves no process behind (newBinEnv's check).
func TestBrowserCLIShop(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	sh, srv := newShop(t)
	e := browserEnv(t)

	if out := e.step(t, 0, "open", srv.URL+"/"); !strings.Contains(out, "Tea Shop") {
		t.Fatalf("open: %s", out)
	}
	snap := e.step(t, 0, "snapshot", "-i")
	e.step(t, 0, "fill", "@"+refOf(t, snap, `textbox "User"`), "ada")
	if got := e.step(t, 0, "get", "value", refOf(t, snap, `textbox "User"`)); got != "ada\n" {
		t.Errorf("get value of the field filled: %q", got)
	}
	e.step(t, 0, "fill", refOf(t, snap, `"Password"`), "sencha")
	if got := e.step(t, 0, "get", "value", refOf(t, snap, `"Password"`)); got != "••••\n" {
		t.Errorf("get value of the password field: %q, want it masked", got)
	}
	e.step(t, 0, "click", refOf(t, snap, `button "Log in"`))
	if got := strings.TrimSpace(e.step(t, 0, "get", "title")); got != "Shop" {
		t.Fatalf("after logging in the title is %q, want Shop", got)
	}
	snap = e.step(t, 0, "snapshot", "-i")
	e.step(t, 0, "click", refOf(t, snap, "Add Matcha"))
	snap = e.step(t, 0, "snapshot", "-i")
	e.step(t, 0, "click", refOf(t, snap, "Add Sencha"))
	if diff := cmp.Diff([]string{"matcha", "sencha"}, sh.cart("ada")); diff != "" {
		t.Errorf("the shop's record of ada's cart (-want +got):\n%s", diff)
	}

	// An upload reads one of the person's files: it waits for approval
	// in every mode, and runs once confirmed.
	avatar := filepath.Join(e.dir, "avatar.txt")
	if err := os.WriteFile(avatar, []byte("ada's avatar"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.step(t, 0, "open", srv.URL+"/profile")
	snap = e.step(t, 0, "snapshot", "-i")
	errOut := e.step(t, 4, "upload", refOf(t, snap, "Avatar"), "avatar.txt") // relative to the command's folder
	if len(sh.uploaded()) != 0 {
		t.Fatal("the file was uploaded before the person confirmed")
	}
	// The person says no at their terminal: the call is dropped.
	if code, screen := e.atTerminal(t, "n", "browser", "confirm", pendingID(t, errOut)); code != 0 || !strings.Contains(screen, "did not run") {
		t.Fatalf("confirm answered no: exit %d:\n%s", code, screen)
	}
	// The program that was told to wait cannot approve itself: not
	// without a terminal, nor by claiming one and answering its own
	// question. The call still waits, and nothing was uploaded.
	errOut = e.step(t, 4, "upload", refOf(t, snap, "Avatar"), "avatar.txt")
	id := pendingID(t, errOut)
	if msg := e.step(t, 2, "confirm", id); !strings.Contains(msg, "needs the person at a terminal") {
		t.Errorf("confirm without a terminal: %s", msg)
	}
	self := exec.Command(os.Args[0])
	self.Env = append(append(os.Environ(), e.env...), selfConfirmEnv+"="+id)
	if out, err := self.CombinedOutput(); err == nil || !strings.Contains(string(out), "needs the person at a terminal") {
		t.Errorf("a client that answers its own confirm: %v: %s", err, out)
	}
	if out := e.step(t, 0, "pending"); !strings.Contains(out, id) || len(sh.uploaded()) != 0 {
		t.Fatalf("after the refused confirms the upload no longer waits, or ran: %s %v", out, sh.uploaded())
	}
	if screen := e.confirm(t, id); !strings.Contains(screen, "`upload "+refOf(t, snap, "Avatar")) || !strings.Contains(screen, "avatar.txt") {
		t.Errorf("confirm does not show the person the command it approves:\n%s", screen)
	}
	e.step(t, 0, "click", refOf(t, snap, `button "Upload"`))
	if diff := cmp.Diff([]string{"avatar.txt: ada's avatar"}, sh.uploaded()); diff != "" {
		t.Errorf("the shop's uploads (-want +got):\n%s", diff)
	}

	// The order asks confirm(): the click says so, dialog accept answers it.
	e.step(t, 0, "open", srv.URL+"/basket")
	snap = e.step(t, 0, "snapshot", "-i")
	if out := e.step(t, 0, "click", refOf(t, snap, "Place order")); !strings.Contains(out, "Place the order?") || !strings.Contains(out, "browser dialog accept") {
		t.Errorf("the click does not say a confirm is open: %s", out)
	}
	if len(sh.placed()) != 0 {
		t.Fatal("the order was placed before the confirm was answered")
	}
	e.step(t, 0, "dialog", "accept")
	e.step(t, 0, "wait", "Order placed")
	if diff := cmp.Diff([]string{"ada"}, sh.placed()); diff != "" {
		t.Errorf("the shop's orders (-want +got):\n%s", diff)
	}
	snap = e.step(t, 0, "snapshot", "-i")
	downloads := filepath.Join(e.dir, "downloads")
	code, out, errOut := e.run(t, "", "browser", "download", refOf(t, snap, "Download receipt"), "downloads")
	if code == 4 {
		out = e.confirm(t, pendingID(t, errOut))
	} else if code != 0 {
		t.Fatalf("download: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(downloads, "receipt.txt")); err != nil || string(b) != "Receipt: 1 order of tea\n" {
		t.Errorf("the receipt saved: %q %v (download said %s)", b, err, out)
	}
	sh.mu.Lock()
	if sh.receipts != 1 {
		t.Errorf("the shop served %d receipts, want 1", sh.receipts)
	}
	sh.mu.Unlock()

	var got struct {
		OK   bool   `json:"ok"`
		Text string `json:"text"`
	}
	e.step(t, 0, "open", srv.URL+"/cart")
	if err := json.Unmarshal([]byte(e.step(t, 0, "get", "text", "--json")), &got); err != nil || !got.OK || !strings.Contains(got.Text, "matcha, sencha") {
		t.Errorf("get text --json: %+v (%v)", got, err)
	}
	if out := e.step(t, 0, "sessions"); !strings.HasPrefix(out, "default: running, isolated browser") {
		t.Errorf("sessions: %s", out)
	}
	if out := e.step(t, 0, "close", "--all"); !strings.Contains(out, "Ended 1 session(s): default.") {
		t.Errorf("close --all: %s", out)
	}
	if out := e.step(t, 0, "sessions"); out != "No session is running.\n" {
		t.Errorf("sessions after close --all: %q", out)
	}
}

// TestBrowserCLIBadInput: each bad input is one line on stderr with its
// own exit code, and the session goes on working after it.
func TestBrowserCLIBadInput(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	_, srv := newShop(t)
	e := browserEnv(t)
	e.step(t, 0, "open", srv.URL+"/")
	snap := e.step(t, 0, "snapshot")
	user := refOf(t, snap, `textbox "User"`)
	usable := func(t *testing.T) {
		t.Helper()
		if got := strings.TrimSpace(e.step(t, 0, "get", "url")); got == "" {
			t.Errorf("the session does not answer after the bad input")
		}
	}
	oneLine := func(t *testing.T, stderr, want string) {
		t.Helper()
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
			t.Errorf("stderr is not one line holding %q:\n%s", want, stderr)
		}
	}
	t.Run("unknown ref", func(t *testing.T) {
		oneLine(t, e.step(t, 6, "click", "e999"), "is not in the last snapshot of this page: use a ref it lists, or take a new snapshot")
		usable(t)
	})
	t.Run("not a ref", func(t *testing.T) {
		oneLine(t, e.step(t, 2, "click", "Log in"), "is not a ref")
		usable(t)
	})
	t.Run("stale ref", func(t *testing.T) {
		e.step(t, 0, "reload")
		oneLine(t, e.step(t, 6, "fill", user, "ada"), "is not on the page any more (the page changed or navigated): take a new snapshot")
		usable(t)
	})
	t.Run("closed tab", func(t *testing.T) {
		e.step(t, 0, "open", "--new-tab", srv.URL+"/cart")
		e.step(t, 0, "close", "2")
		oneLine(t, e.step(t, 7, "tab", "2"), "no tab")
		e.step(t, 0, "close")
		oneLine(t, e.step(t, 7, "snapshot"), "no current tab")
		oneLine(t, e.step(t, 7, "get", "title"), "no current tab")
		e.step(t, 0, "open", srv.URL+"/")
		usable(t)
	})
	t.Run("bad session name", func(t *testing.T) {
		for _, name := range []string{"../etc", "a/b", "..", ""} {
			if name == "" {
				continue
			}
			oneLine(t, e.step(t, 2, "--session", name, "get", "url"), "bad session name")
		}
		usable(t)
	})
	t.Run("two at once", func(t *testing.T) {
		e.step(t, 0, "open", srv.URL+"/slow")
		slow := exec.Command(program(t, browseragentPkg), "browser", "wait", "Ready now")
		slow.Dir, slow.Env = e.dir, append(os.Environ(), e.env...)
		var slowErr strings.Builder
		slow.Stderr = &slowErr
		if err := slow.Start(); err != nil {
			t.Fatal(err)
		}
		busy := ""
		time.Sleep(500 * time.Millisecond) // the wait takes the session first (it lasts 3 s)
		for deadline := time.Now().Add(2500 * time.Millisecond); time.Now().Before(deadline) && busy == ""; {
			if code, _, errOut := e.run(t, "", "browser", "get", "title"); code == 5 {
				busy = errOut
			}
		}
		if err := slow.Wait(); err != nil {
			t.Fatalf("the wait beside it failed: %v\n%s", err, slowErr.String())
		}
		oneLine(t, busy, "is busy with `wait \"Ready now\"`")
		usable(t)
	})
	t.Run("dead browser", func(t *testing.T) {
		var list struct {
			Sessions []struct{ PID int } `json:"sessions"`
		}
		if err := json.Unmarshal([]byte(e.step(t, 0, "sessions", "--json")), &list); err != nil || len(list.Sessions) != 1 {
			t.Fatalf("sessions --json: %+v %v", list, err)
		}
		// The daemon's Chromium dies between two commands (its window
		// closed, killed, crashed): every process of it, until the daemon
		// has reaped the one it started.
		daemon := list.Sessions[0].PID
		var browserPIDs []int
		for _, pid := range testutil.ProcessesWithEnv("TMPDIR=" + e.tmp) {
			if pid != daemon {
				browserPIDs = append(browserPIDs, pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if len(browserPIDs) == 0 {
			t.Fatalf("no browser process beside the daemon (pid %d)", daemon)
		}
		for _, pid := range browserPIDs {
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
					break
				}
				if stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(stat), ") Z ") && !isChildOf(pid, daemon) {
					break // a zombie the daemon does not reap
				}
			}
		}
		oneLine(t, e.step(t, 8, "get", "url"), "browser went away")
		e.step(t, 0, "open", srv.URL+"/")
		usable(t)
	})
	t.Run("dead daemon", func(t *testing.T) {
		var list struct {
			Sessions []struct{ PID int } `json:"sessions"`
		}
		if err := json.Unmarshal([]byte(e.step(t, 0, "sessions", "--json")), &list); err != nil || len(list.Sessions) != 1 {
			t.Fatalf("sessions --json: %+v %v", list, err)
		}
		syscall.Kill(list.Sessions[0].PID, syscall.SIGKILL)
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			stat, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(list.Sessions[0].PID), "stat"))
			if err != nil || strings.Contains(string(stat), ") Z ") {
				break
			}
		}
		oneLine(t, e.step(t, 8, "get", "url"), "had ended unexpectedly")
		e.step(t, 0, "open", srv.URL+"/")
		usable(t)
	})
}

// isChildOf reports whether process pid's parent is parent.
func isChildOf(pid, parent int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 1 && f[1] == strconv.Itoa(parent)
}

// checkoutRules make the shop's checkout a sensitive page (a payment).
func checkoutRules(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "sites.yaml")
	rules := "version: 1\nrules:\n  - name: tea-checkout\n    category: payment\n    hosts: [\"127.0.0.1\"]\n    paths: [\"/checkout\", \"/order\"]\n    action: ask\n"
	if err := os.WriteFile(p, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// confirm approves pending call id as the person does: `browser confirm
// ID` in a terminal, answering yes to the question it shows. It returns
// what the terminal showed (the command's result too).
func (e *binEnv) confirm(t *testing.T, id string) string {
	t.Helper()
	code, screen := e.atTerminal(t, "y", "browser", "confirm", id)
	if code != 0 {
		t.Fatalf("browser confirm %s at a terminal: exit %d:\n%s", id, code, screen)
	}
	return screen
}

// pendingID reads the id out of a pending command's one line.
func pendingID(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`browser confirm (p[0-9a-f]+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no pending id in %q", stderr)
	}
	return m[1]
}

// TestBrowserCLIConnect: the same kind of flow in "the person's Chrome"
// (--user-data-dir, shared mode): ordinary writes go with --yes, a write
// on the sensitive checkout waits for 'browser confirm' and runs only then
// (the shop records one order), a denied one never runs; the person's own
// tab can be neither closed nor navigated, and close --all leaves it open.
func TestBrowserCLIConnect(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	sh, srv := newShop(t)
	mine := srv.URL + "/mine"
	person := testutil.StartPersonsBrowser(t, chrome, []string{mine}, func(pages []string) bool { return cmp.Equal(pages, []string{mine}) })
	defer person.Close(t)
	e := browserEnv(t)
	sites := checkoutRules(t)

	// The first open, with the person's tab current, loads the shop in a
	// tab of the session's own (navigating theirs would ask), and later
	// opens load in that tab.
	out := e.step(t, 0, "--user-data-dir", person.Dir, "--sites", sites, "open", srv.URL+"/")
	if !strings.Contains(out, "Tea Shop") {
		t.Fatalf("open in the person's Chrome: %s", out)
	}
	if got := person.PageURLs(); !slices.Contains(got, mine) {
		t.Fatalf("the person's tab was navigated away by open: %v", got)
	}
	snap := e.step(t, 0, "snapshot", "-i")
	// Shared mode: every write asks; with no terminal it would wait, so
	// the ordinary ones go with --yes.
	errOut := e.step(t, 4, "fill", refOf(t, snap, `textbox "User"`), "ada")
	e.step(t, 0, "deny", pendingID(t, errOut))
	e.step(t, 0, "--yes", "fill", refOf(t, snap, `textbox "User"`), "ada")
	e.step(t, 0, "--yes", "fill", refOf(t, snap, `"Password"`), "sencha")
	e.step(t, 0, "--yes", "click", refOf(t, snap, `button "Log in"`))
	e.step(t, 0, "--yes", "open", srv.URL+"/checkout")
	snap = e.step(t, 0, "snapshot", "-i")
	place := refOf(t, snap, "Place order")

	// The sensitive page: --yes does not cover it; it waits.
	errOut = e.step(t, 4, "--yes", "click", place)
	if !strings.Contains(errOut, "`click "+place+"` waits for approval") {
		t.Errorf("pending line: %s", errOut)
	}
	if got := sh.placed(); len(got) != 0 {
		t.Fatalf("an order was placed before the person confirmed: %v", got)
	}
	if out := e.step(t, 0, "pending"); !strings.HasPrefix(out, pendingID(t, errOut)+": `click "+place+"` waits for approval") {
		t.Errorf("pending: %s", out)
	}
	out = e.confirm(t, pendingID(t, errOut))
	if !strings.Contains(out, "Place the order?") {
		t.Errorf("confirm prints the command's result, the open confirm(): %q", out)
	}
	// Answering the page's confirm() is a write on the sensitive page too.
	errOut = e.step(t, 4, "--yes", "dialog", "accept")
	if got := sh.placed(); len(got) != 0 {
		t.Fatalf("an order was placed before the person confirmed the dialog's answer: %v", got)
	}
	e.confirm(t, pendingID(t, errOut))
	e.step(t, 0, "wait", "Order placed")
	if diff := cmp.Diff([]string{"ada"}, sh.placed()); diff != "" {
		t.Errorf("the shop's orders (-want +got):\n%s", diff)
	}
	if err := e.step(t, 1, "confirm", pendingID(t, errOut)); !strings.Contains(err, "no pending approval") {
		t.Errorf("a second confirm: %s", err)
	}

	// The person's tab is theirs (tabs --json lists whose each tab is).
	tabs := e.step(t, 0, "tabs", "--json")
	var list struct {
		Tabs []struct {
			ID, URL        string
			Current, Agent bool
		} `json:"tabs"`
	}
	if err := json.Unmarshal([]byte(tabs), &list); err != nil {
		t.Fatalf("tabs --json: %v\n%s", err, tabs)
	}
	var theirs string
	for _, tab := range list.Tabs {
		if !tab.Agent && tab.URL == mine {
			theirs = tab.ID
		}
	}
	if theirs == "" || len(list.Tabs) != 2 {
		t.Fatalf("tabs --json: want the person's tab and the session's, got\n%s", tabs)
	}
	e.step(t, 3, "--yes", "close", strings.TrimPrefix(theirs, "t"))
	e.step(t, 0, "close", "--all")
	if diff := cmp.Diff([]string{mine}, person.PageURLs()); diff != "" {
		t.Errorf("the person's tabs after close --all (-want +got):\n%s", diff)
	}
}

// TestBrowserCLIIdleTimeout: a session ends by itself after its idle
// timeout, its browser and daemon gone (newBinEnv's check finds any
// process left), and the next command starts a fresh one without calling
// it dead.
func TestBrowserCLIIdleTimeout(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	_, srv := newShop(t)
	e := browserEnv(t)
	e.step(t, 0, "--idle-timeout", "2s", "open", srv.URL+"/")
	ended := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !ended; time.Sleep(200 * time.Millisecond) {
		ended = e.step(t, 0, "sessions") == "No session is running.\n"
	}
	if !ended {
		t.Fatalf("the session still runs 20 s after a 2 s idle timeout: %s", e.step(t, 0, "sessions"))
	}
	testutil.WaitNoProcessWithEnv(t, "TMPDIR="+e.tmp, 10*time.Second)
	if out := e.step(t, 0, "open", srv.URL+"/"); !strings.Contains(out, "Tea Shop") {
		t.Errorf("a fresh session after the idle timeout: %s", out)
	}
}

// TestBrowserCLIAsksAtTerminal: at a terminal, a command that needs
// approval asks there, as the shell does, and runs on "y" or is refused
// on "n" (exit 3), with nothing left waiting. It runs the binary in tmux.
func TestBrowserCLIAsksAtTerminal(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "tmux")
	sh, srv := newShop(t)
	e := browserEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "avatar.txt"), []byte("ada's avatar"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.step(t, 0, "open", srv.URL+"/profile")
	snap := e.step(t, 0, "snapshot", "-i")
	field, button := refOf(t, snap, "Avatar"), refOf(t, snap, `button "Upload"`)

	tm := &ttySession{t: t, socket: filepath.Join(e.dir, "tmux.sock")}
	args := []string{"-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "200", "-y", "50", "-c", e.dir, "env", "-i",
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TERM=xterm-256color", "PS1=$ "}
	tm.run(append(append(args, e.env...), "sh")...)
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	bin := program(t, browseragentPkg)

	tm.keys(bin+" browser upload "+field+" avatar.txt; echo exit=$?", "Enter")
	tm.waitFor("Allow? [y]es once, [N]o:", 30*time.Second) // a file read: no "always"
	if sc := tm.screen(); !strings.Contains(sc, "browser_upload on "+srv.URL+"/profile needs your approval") {
		t.Errorf("the question does not say what and where:\n%s", sc)
	}
	tm.keys("y", "Enter")
	tm.waitFor("exit=0", 30*time.Second)
	e.step(t, 0, "click", button)
	if diff := cmp.Diff([]string{"avatar.txt: ada's avatar"}, sh.uploaded()); diff != "" {
		t.Errorf("the shop's uploads (-want +got):\n%s", diff)
	}

	e.step(t, 0, "open", srv.URL+"/profile")
	snap = e.step(t, 0, "snapshot", "-i")
	tm.keys(bin+" browser upload "+refOf(t, snap, "Avatar")+" avatar.txt; echo exit=$?", "Enter")
	tm.waitForN("Allow? [y]es once", 2, 30*time.Second)
	tm.keys("n", "Enter")
	tm.waitFor("exit=3", 30*time.Second)
	if out := e.step(t, 0, "pending"); out != "No command waits for approval.\n" {
		t.Errorf("a declined command is left waiting: %s", out)
	}

	// close --all while a question is open at the terminal: the session
	// ends rather than wait for an answer, and the terminal says so.
	e.step(t, 0, "open", srv.URL+"/profile")
	snap = e.step(t, 0, "snapshot", "-i")
	tm.keys(bin+" browser upload "+refOf(t, snap, "Avatar")+" avatar.txt; echo exit=$?", "Enter")
	tm.waitForN("Allow? [y]es once", 3, 30*time.Second)
	if out := e.step(t, 0, "close", "--all"); !strings.Contains(out, "Ended 1 session(s)") {
		t.Errorf("close --all with a question open: %s", out)
	}
	tm.waitFor("exit=8", 30*time.Second)
	if sc := tm.screen(); !strings.Contains(sc, "while its question was open: nothing was done") {
		t.Errorf("the terminal does not say the question was withdrawn:\n%s", sc)
	}
	if got := sh.uploaded(); len(got) != 1 {
		t.Errorf("the withdrawn upload ran: %q", got)
	}
}

// TestBrowserCLIPageCommands: type into the focused field, wait --load,
// get html/attr (secret values masked as snapshots mask them), screenshot
// --annotate (refs drawn, then taken away again), pdf (a file the tool
// writes: asks outside the output folder, refused where browseragent never
// writes, and so is a screenshot the command line saves there).
func TestBrowserCLIPageCommands(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Notes</title><h1>Notes</h1>
<label>Note <input name=note></label>
<label>PIN <input type=password name=pin value="1234"></label>
<a href="/next" id=nextlink title="Go on">Next</a><img src="/late.png">`)
	})
	mux.HandleFunc("GET /late.png", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond) // the load event waits for it
		w.WriteHeader(http.StatusNotFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e := browserEnv(t)
	out := filepath.Join(e.dir, "out")
	e.env = append(e.env, "BROWSERAGENT_OUTPUT_DIR="+out)

	e.step(t, 0, "open", srv.URL+"/")
	if got := e.step(t, 0, "wait", "--load"); !strings.Contains(got, "network quiet") {
		t.Errorf("wait --load: %s", got)
	}
	snap := e.step(t, 0, "snapshot", "-i")
	note, pin, next := refOf(t, snap, `textbox "Note"`), refOf(t, snap, `"PIN"`), refOf(t, snap, `link "Next"`)

	if errOut := e.step(t, 1, "type", "hello"); !strings.Contains(errOut, "nothing has the focus") {
		t.Errorf("type with nothing focused: %s", errOut)
	}
	e.step(t, 0, "click", note)
	if got := e.step(t, 0, "type", "hello"); !strings.Contains(got, `Typed 5 characters into the focused <input type=text> "note"`) {
		t.Errorf("type: %s", got)
	}
	if got := e.step(t, 0, "get", "value", note); got != "hello\n" {
		t.Errorf("the field typed into holds %q", got)
	}

	page := e.step(t, 0, "get", "html")
	if !strings.Contains(page, "<h1>Notes</h1>") || strings.Contains(page, "1234") || !strings.Contains(page, `value="••••"`) {
		t.Errorf("get html: want the page with the PIN masked:\n%s", page)
	}
	if got := e.step(t, 0, "get", "html", "@"+next); got != `<a href="/next" id="nextlink" title="Go on">Next</a>`+"\n" {
		t.Errorf("get html REF: %q", got)
	}
	var attr struct {
		OK   bool   `json:"ok"`
		Attr string `json:"attr"`
		Ref  string `json:"ref"`
	}
	if err := json.Unmarshal([]byte(e.step(t, 0, "get", "attr", "title", next, "--json")), &attr); err != nil || !attr.OK || attr.Attr != "Go on" || attr.Ref != next {
		t.Errorf("get attr --json: %+v %v", attr, err)
	}
	if got := e.step(t, 0, "get", "attr", "value", pin); got != "••••\n" {
		t.Errorf("get attr value of the PIN: %q, want it masked", got)
	}
	e.step(t, 1, "get", "attr", "rel", next)
	e.step(t, 6, "get", "attr", "href", "e999")

	shot := e.step(t, 0, "screenshot", "--annotate", "shot.png")
	if !strings.HasPrefix(shot, "shot.png\n") || !strings.Contains(shot, "ref="+next) {
		t.Errorf("screenshot --annotate: %s", shot)
	}
	if b, err := os.ReadFile(filepath.Join(e.dir, "shot.png")); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("the annotated screenshot: %v", err)
	}
	if got := e.step(t, 0, "eval", "document.getElementById('__browseragent_annotations') === null"); strings.TrimSpace(got) != "true" {
		t.Errorf("the annotations stay on the page after the screenshot: %s", got)
	}
	if errOut := e.step(t, 2, "screenshot", ".claude/shot.png"); !strings.Contains(errOut, "never writes there") {
		t.Errorf("a screenshot into .claude: %s", errOut)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".claude")); err == nil {
		t.Error("the screenshot refused was written")
	}

	// pdf: its file is judged as every file a tool writes.
	if errOut := e.step(t, 3, "pdf", ".claude/page.pdf"); !strings.Contains(errOut, "Claude Code") {
		t.Errorf("a pdf into .claude: %s", errOut)
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := e.step(t, 0, "--yes", "pdf", "out/page.pdf"); strings.TrimSpace(got) != filepath.Join(out, "page.pdf") {
		t.Errorf("pdf --yes into the output folder: %s", got)
	}
	errOut := e.step(t, 4, "--yes", "pdf", "elsewhere.pdf") // outside it: asked every time
	if _, err := os.Stat(filepath.Join(e.dir, "elsewhere.pdf")); err == nil {
		t.Fatal("the pdf was written before the person confirmed")
	}
	e.confirm(t, pendingID(t, errOut))
	for _, f := range []string{filepath.Join(out, "page.pdf"), filepath.Join(e.dir, "elsewhere.pdf")} {
		if b, err := os.ReadFile(f); err != nil || !strings.HasPrefix(string(b), "%PDF") {
			t.Errorf("%s: not a PDF (%v)", f, err)
		}
	}
}

// TestBrowserCLIClickShowsWhatItStarted: a click's handler that changes
// the page a little later (after a timer, a chain of timers, a fetch or
// an XMLHttpRequest the server answers after a while, in a shadow tree's
// own handler, in a frame, on the next animation frame, at once) has done so when
// the click's command ends: the next command, `get text` run right after
// as its own process, shows the change.
func TestBrowserCLIClickShowsWhatItStarted(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Later</title><h1>Later</h1>
<script>
const show = (id, text) => { const p = document.createElement('p'); p.id = id; p.textContent = text; document.body.append(p); };
</script>
<button onclick="setTimeout(() => show('timer', 'Shown after a timer.'), 150)">Timer</button>
<button onclick="setTimeout(() => setTimeout(() => show('chain', 'Shown after two timers.'), 80), 80)">Chain</button>
<button onclick="fetch('/later').then(r => r.text()).then(t => show('fetch', t + ' by fetch.'))">Fetch</button>
<button onclick="const x = new XMLHttpRequest(); x.onload = () => show('xhr', x.responseText + ' by XMLHttpRequest.'); x.open('GET', '/later'); x.send()">XHR</button>
<button onclick="requestAnimationFrame(() => show('frame', 'Shown on the next frame.'))">Frame</button>
<button onclick="show('now', 'Shown at once.')">Now</button>
<div id=host></div>
<iframe src="/frame" title="Inner"></iframe>
<script>
const root = document.getElementById('host').attachShadow({mode: 'open'});
root.innerHTML = '<button>Shadow</button>';
root.querySelector('button').addEventListener('click', () => setTimeout(() => show('shadow', 'Shown by a shadow tree.'), 150));
</script>`)
	})
	mux.HandleFunc("GET /frame", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><button onclick="setTimeout(() => { const p = document.createElement('p'); p.textContent = 'Shown in the frame.'; document.body.append(p); }, 150)">Inside</button>`)
	})
	mux.HandleFunc("GET /later", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(150 * time.Millisecond)
		fmt.Fprint(w, "Answered")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e := browserEnv(t)
	e.step(t, 0, "open", srv.URL+"/")
	for _, tc := range []struct{ button, want string }{
		{"Timer", "Shown after a timer."},
		{"Chain", "Shown after two timers."},
		{"Fetch", "Answered by fetch."},
		{"XHR", "Answered by XMLHttpRequest."},
		{"Shadow", "Shown by a shadow tree."},
		{"Inside", "Shown in the frame."},
		{"Frame", "Shown on the next frame."},
		{"Now", "Shown at once."},
	} {
		t.Run(tc.button, func(t *testing.T) {
			snap := e.step(t, 0, "snapshot", "-i")
			ref := regexp.MustCompile(`button "` + tc.button + `" \[ref=((?:f[0-9]+)?e[0-9]+)\]`).FindStringSubmatch(snap)
			if ref == nil {
				t.Fatalf("no button %q in the snapshot:\n%s", tc.button, snap)
			}
			e.step(t, 0, "click", ref[1])
			if got := e.step(t, 0, "get", "text"); !strings.Contains(got, tc.want) {
				t.Errorf("get text right after clicking %s does not show %q:\n%s", tc.button, tc.want, got)
			}
		})
	}
}

// TestBrowserCLIDialogAfterDialog: a page that asks again as soon as its
// first dialog is answered (a confirm, then more, then a prompt) has each
// answer say which dialog is open now, and `dialog accept TEXT` answers
// the prompt: the tab never loses track of a dialog that opened while the
// previous one was closing, which would leave the page paused with
// "no dialog is open" and every later command timing out.
func TestBrowserCLIDialogAfterDialog(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Ask</title><h1>Ask</h1>
<button onclick="let n = 0; for (let i = 1; i <= 6; i++) n += confirm('Sure ' + i + '?'); document.getElementById('out').textContent = n + ' yes, name ' + prompt('Name?')">Ask</button>
<p id=out></p>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e := browserEnv(t)
	e.step(t, 0, "open", srv.URL+"/")
	snap := e.step(t, 0, "snapshot", "-i")
	if got := e.step(t, 0, "click", refOf(t, snap, `button "Ask"`)); !strings.Contains(got, `confirm dialog is open in tab t1: "Sure 1?"`) {
		t.Fatalf("the click: %s", got)
	}
	for i := 1; i <= 6; i++ {
		next := fmt.Sprintf(`confirm dialog is open in tab t1: "Sure %d?"`, i+1)
		if i == 6 {
			next = `prompt dialog is open in tab t1: "Name?"`
		}
		if got := e.step(t, 0, "dialog", "accept"); !strings.Contains(got, fmt.Sprintf(`Accepted the confirm "Sure %d?"`, i)) || !strings.Contains(got, next) {
			t.Fatalf("answer %d does not say what is open now (%s):\n%s", i, next, got)
		}
	}
	if got := e.step(t, 0, "dialog", "accept", "Ada"); !strings.Contains(got, `Answered the prompt "Name?" with "Ada"`) {
		t.Errorf("the prompt's answer: %s", got)
	}
	if got := e.step(t, 0, "get", "text"); !strings.Contains(got, "6 yes, name Ada") {
		t.Errorf("the page after its dialogs:\n%s", got)
	}
}

// TestBrowserCLIConnectDeniedLink: in the person's Chrome a click on a
// link to a page a deny rule names is stopped before the request leaves
// (the server never sees it), and the command says so, exit 3: not that
// it withheld content of that page, which it never had.
func TestBrowserCLIConnectDeniedLink(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	var mu sync.Mutex
	var vault int
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Files</title><h1>Files</h1><a href="/vault/notes.txt">Notes</a>`)
	})
	mux.HandleFunc("GET /mine", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<title>Mine</title>Mine`) })
	mux.HandleFunc("GET /vault/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		vault++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "the vault's notes")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mine := srv.URL + "/mine"
	person := testutil.StartPersonsBrowser(t, chrome, []string{mine}, func(pages []string) bool { return cmp.Equal(pages, []string{mine}) })
	defer person.Close(t)
	sites := filepath.Join(t.TempDir(), "sites.yaml")
	if err := os.WriteFile(sites, []byte("version: 1\nrules:\n  - name: local-vault\n    category: bank\n    hosts: [\"127.0.0.1\"]\n    paths: [\"/vault/*\"]\n    action: deny\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := browserEnv(t)
	e.step(t, 0, "--user-data-dir", person.Dir, "--sites", sites, "open", srv.URL+"/")
	snap := e.step(t, 0, "snapshot", "-i")
	errOut := e.step(t, 3, "--yes", "click", refOf(t, snap, `link "Notes"`))
	if !strings.Contains(errOut, "the request was stopped before it was sent") || !strings.Contains(errOut, "local-vault") || strings.Contains(errOut, "holds content of") {
		t.Errorf("the click on the denied page's link says:\n%s", errOut)
	}
	// The tab stays on the blocked page at that address: it is the current
	// one still, and not read.
	for _, what := range []string{"url", "title"} {
		if errOut := e.step(t, 3, "get", what); !strings.Contains(errOut, `the current tab t2 shows a page the sensitive-site rule "local-vault" denies`) {
			t.Errorf("get %s on the tab left on the denied address: %s", what, errOut)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if vault != 0 {
		t.Errorf("the denied page was asked for %d time(s)", vault)
	}
}
