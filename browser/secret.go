package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// secretFieldJS is the test, in the page, of whether an element holds a
// secret: an <input type=password>, or any field whose autocomplete token
// names a password, a one-time code, a card number or a card security
// code (the page's own statement of what the field is). Nothing else is
// guessed: a field called "pin" with no such markup is not a secret field.
const secretFieldJS = `function __baSecret(el) {
  if (!el || el.nodeType !== 1) return false;
  if (el.tagName === 'INPUT' && (el.type || '').toLowerCase() === 'password') return true;
  const ac = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/);
  return ac.some(t => t === 'current-password' || t === 'new-password' || t === 'one-time-code' || t === 'cc-number' || t === 'cc-csc');
}`

// focusedSecretJS tests the focused element, inside open shadow roots too:
// where browser_press sends its key.
const focusedSecretJS = `(function(){` + secretFieldJS + `
let el = document.activeElement;
while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
return __baSecret(el);
})()`

// anySecretJS tests whether the document holds a secret field anywhere.
const anySecretJS = `(function(){` + secretFieldJS + `
return Array.from(document.querySelectorAll('input, textarea, select, [autocomplete]')).some(__baSecret);
})()`

// secretAskTimeout bounds one question to the page: the caller is about to
// run a tool and must not wait long on a busy page.
const secretAskTimeout = 5 * time.Second

// SecretField reports whether the element behind a snapshot ref in the tab
// (tabID "" means the current tab) is a secret field, asked from the live
// page now: an <input type=password>, or a field with autocomplete
// current-password, new-password, one-time-code, cc-number or cc-csc. With
// ref "" it asks about the focused element (where a key press lands). When
// the element is or holds a frame (a card form in a payment iframe, a
// login widget), what it types reaches the frames' documents: then their
// focused elements are asked, every frame's, cross-site ones too. Where
// the keys go is judged: a <label> by its control, an element holding a
// shadow root (open or closed) by every field it holds. An error
// means the page could not answer (a stale ref, no tab, a hung page);
// callers that must not leak should then treat the field as secret.
func (b *Browser) SecretField(ctx context.Context, tabID, ref string) (bool, error) {
	var v int
	err := b.onRefDoc(ctx, tabID, ref, func(d docCtx, t *tab, frame cdp.FrameID) (err error) {
		dctx, cancel := context.WithTimeout(d.ctx, secretAskTimeout)
		defer cancel()
		frameless := func() bool { return false }
		if d.frame == nil {
			frameless = func() bool { none, _ := t.framesKnownNone(); return none }
		}
		v, err = secretInIsolation(dctx, d.worlds, d.exec, frame, ref, frameless)
		return err
	})
	switch {
	case err != nil:
		return false, err
	case v == 2:
		return b.framesHaveSecret(ctx, tabID, true, false)
	}
	return v == 1, nil
}

// secretTestJS answers, of an element (the focused one when it is given
// none), 1 when it is a secret field, 2 when it is or holds a frame, else 0.
const secretTestJS = `function (el) {` + secretFieldJS + "\n" + frameOwnerJS + `
if (el === undefined) {
  el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
}
if (el && el.tagName === 'LABEL' && __baSecret(el.control)) return 1;
return __baSecret(el) ? 1 : (__baFrame(el) ? 2 : 0);
}`

// secretInIsolation runs secretTestJS in an isolated world of frame, where
// the page's scripts cannot redefine what the DOM says (a password field's
// type, its autocomplete, the focus). The element ref names is found where
// the snapshot's refs live, the page's world (exec; 0: the target's main
// one), and handed over by its DOM node; ref "" asks about the focus.
//
// The world is made once per document and kept in w (the document's end
// ends it), and the test is called in it by its system-unique id, which
// can name no other context, not even after a navigation to another
// process; the element's handle must belong to that same world, or V8
// refuses the call. Three round trips for a ref (find it, hand it over,
// test it), one for the focus, where it took six.
//
// One for a ref in a tab that has no frames (frameless, asked once the
// page has answered: a frame attached before the answer is reported
// before it): the element found is judged from its deep serialisation,
// the tag and attributes the browser itself reports (secretNode), which
// no script of the page can redefine; nothing there can hold a frame. A
// label or a shadow host does not pass there: its keys go elsewhere.
func secretInIsolation(ctx context.Context, w *worlds, exec runtime.ExecutionContextID, frame cdp.FrameID, ref string, frameless func() bool) (int, error) {
	group := fmt.Sprintf("browseragent-secret-%d", secretGroups.Add(1))
	defer releaseLater(ctx, group)
	var node cdp.BackendNodeID
	if ref != "" {
		el, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: fmt.Sprintf("(%s)(%s)", refsJS, jsArg(ref)),
			ContextID: exec, ObjectGroup: group,
			SerializationOptions: &runtime.SerializationOptions{Serialization: runtime.SerializationOptionsSerializationDeep, MaxDepth: new(int64(0))}})
		if err != nil {
			return 0, err
		}
		if el.ExceptionDetails != nil {
			return 0, &chromedp.ExceptionError{ExceptionDetails: el.ExceptionDetails}
		}
		if node = backendNode(el.Result); node == 0 {
			return 0, errors.New("ref " + ref + " is not an element: take a new browser_snapshot")
		}
		v, ok := secretNode(el.Result)
		if ok && frameless() {
			return v, nil
		}
		if shadowHost(el.Result) {
			// The keys go where the host hands the focus, into its shadow
			// tree, a closed one too, which no script of ours can see:
			// the browser's own description of the tree is judged.
			if v, err := secretHost(ctx, node); err != nil || v != 0 {
				return v, err
			}
		}
	}
	// Looked up once the page has answered: a document that ended before
	// has said so by then (its world's destroyed event came first).
	iw, kept := w.secretOf(frame)
	if !kept {
		var err error
		if iw, err = newSecretWorld(ctx, w, frame); err != nil {
			return 0, err
		}
	}
	v, err := secretTest(ctx, iw, node, group)
	if err != nil && kept && ctx.Err() == nil {
		// The document ended meanwhile: ask a world of the one there now.
		if iw, err = newSecretWorld(ctx, w, frame); err != nil {
			return 0, err
		}
		v, err = secretTest(ctx, iw, node, group)
	}
	return v, err
}

// secretGroups numbers the secret-field checks' object groups: each check
// releases its own, never the next one's.
var secretGroups atomic.Int64

// releaseLater releases an object group without waiting for the answer:
// nothing depends on it, so the call does not wait for it either.
func releaseLater(ctx context.Context, group string) {
	go func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_, _ = chromedp.Call(rctx, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	}()
}

// backendNode reads the DOM node id of an element from its deep
// serialisation; 0 when the value is no element.
func backendNode(o *runtime.RemoteObject) cdp.BackendNodeID {
	if o == nil || o.DeepSerializedValue == nil || o.DeepSerializedValue.Type != "node" {
		return 0
	}
	var v struct {
		NodeType      int               `json:"nodeType"`
		BackendNodeID cdp.BackendNodeID `json:"backendNodeId"`
	}
	if json.Unmarshal(o.DeepSerializedValue.Value, &v) != nil || v.NodeType != 1 {
		return 0
	}
	return v.BackendNodeID
}

// secretNode judges an element as secretFieldJS does, from its deep
// serialisation: its tag and attributes as the browser reports them, not
// as the page's scripts may answer for them. It answers 1 for a secret
// field, 0 for any other element; ok is false when it cannot tell (no
// element, or a frame owner, whose input goes to another document). It
// judges more as secret, never less: an <input> of any prefix and in an
// XHTML document too, and an attribute given twice (in two namespaces)
// by either value.
func secretNode(o *runtime.RemoteObject) (v int, ok bool) {
	if o == nil || o.DeepSerializedValue == nil || o.DeepSerializedValue.Type != "node" {
		return 0, false
	}
	var n struct {
		NodeType     int             `json:"nodeType"`
		LocalName    string          `json:"localName"`
		NamespaceURI string          `json:"namespaceURI"`
		Attributes   json.RawMessage `json:"attributes"`
	}
	if json.Unmarshal(o.DeepSerializedValue.Value, &n) != nil || n.NodeType != 1 {
		return 0, false
	}
	tag := asciiLower(n.LocalName)
	if frameOwners[tag] && n.NamespaceURI == xhtmlNS {
		return 0, false
	}
	if tag == "label" || shadowHost(o) {
		// Its keys go to another element: its control, its shadow tree's.
		return 0, false
	}
	attrs, err := attributePairs(n.Attributes)
	if err != nil {
		return 0, false
	}
	for _, a := range attrs {
		name := asciiLower(a[0])
		switch {
		case name == "type" && tag == "input" && n.NamespaceURI == xhtmlNS && asciiLower(a[1]) == "password":
			return 1, true
		case name == "autocomplete" && autocompleteSecret(a[1]):
			return 1, true
		}
	}
	return 0, true
}

const xhtmlNS = "http://www.w3.org/1999/xhtml"

// shadowHost reports whether an element's deep serialisation names a
// shadow root the page may have given it (open or closed). The browser
// names its own too (an <input>'s, reported as closed), so only the
// elements a page can attach one to count: custom elements and the tags
// of shadowHosts.
func shadowHost(o *runtime.RemoteObject) bool {
	if o == nil || o.DeepSerializedValue == nil || o.DeepSerializedValue.Type != "node" {
		return false
	}
	var n struct {
		LocalName  string          `json:"localName"`
		ShadowRoot json.RawMessage `json:"shadowRoot"`
	}
	if json.Unmarshal(o.DeepSerializedValue.Value, &n) != nil {
		return true // cannot tell: judged as one
	}
	if len(n.ShadowRoot) == 0 || string(n.ShadowRoot) == "null" {
		return false
	}
	tag := asciiLower(n.LocalName)
	return strings.Contains(tag, "-") || shadowHosts[tag]
}

// shadowHosts are the built-in elements a page may attach a shadow root
// to (HTML's attachShadow, declarative shadow roots too).
var shadowHosts = map[string]bool{"article": true, "aside": true, "blockquote": true, "body": true, "div": true, "footer": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "header": true, "main": true, "nav": true, "p": true,
	"section": true, "span": true}

// secretHost judges a shadow host by the browser's description of all it
// holds, its shadow trees (closed ones too, nested ones) and its children:
// 1 when any element there is a secret field, else 2 when any is a frame
// owner (the focus may go into its document), else 0. A host hands the
// focus to an element of its choosing (delegatesFocus, a focus handler),
// so any secret field it holds makes it one.
func secretHost(ctx context.Context, node cdp.BackendNodeID) (int, error) {
	res, err := chromedp.Call(ctx, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: node, Depth: new(int64(-1)), Pierce: new(true)})
	if err != nil {
		return 0, err
	}
	if res.Node == nil {
		return 0, errors.New("the element is not in the page any more")
	}
	frame := false
	var walk func(n *cdp.Node) bool
	walk = func(n *cdp.Node) bool {
		if n.NodeType == 1 {
			tag := asciiLower(n.LocalName)
			if frameOwners[tag] {
				frame = true
			}
			for i := 0; i+1 < len(n.Attributes); i += 2 {
				name, val := asciiLower(n.Attributes[i]), n.Attributes[i+1]
				if name == "type" && tag == "input" && asciiLower(val) == "password" || name == "autocomplete" && autocompleteSecret(val) {
					return true
				}
			}
		}
		for _, list := range [][]*cdp.Node{n.ShadowRoots, n.Children} {
			for _, c := range list {
				if walk(c) {
					return true
				}
			}
		}
		return n.ContentDocument != nil && walk(n.ContentDocument)
	}
	switch {
	case walk(res.Node):
		return 1, nil
	case frame:
		return 2, nil
	}
	return 0, nil
}

// frameOwners are the tags frameOwnerJS names.
var frameOwners = map[string]bool{"iframe": true, "frame": true, "object": true, "embed": true, "fencedframe": true}

// autocompleteSecret reports whether an autocomplete attribute's tokens
// name a secret, as secretFieldJS splits them (JavaScript's \s).
func autocompleteSecret(s string) bool {
	tokens := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
	for _, t := range tokens {
		switch t {
		case "current-password", "new-password", "one-time-code", "cc-number", "cc-csc":
			return true
		}
	}
	return false
}

// attributePairs reads a serialised element's attributes (an object of
// name to value) in order, each one, even a name given twice.
func attributePairs(raw json.RawMessage) ([][2]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("attributes: not an object")
	}
	var pairs [][2]string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		name, _ := k.(string)
		pairs = append(pairs, [2]string{name, v})
	}
	return pairs, nil
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// newSecretWorld makes frame's secretWorld (w keeps it from its event).
func newSecretWorld(ctx context.Context, w *worlds, frame cdp.FrameID) (isoWorld, error) {
	world, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: secretWorld})
	if err != nil {
		return isoWorld{}, err
	}
	return isoWorld{id: world.ExecutionContextID, uid: w.secretByID(world.ExecutionContextID)}, nil
}

// secretTest calls secretTestJS in the world iw on the element node (the
// focus when 0).
func secretTest(ctx context.Context, iw isoWorld, node cdp.BackendNodeID, group string) (int, error) {
	var args []*runtime.CallArgument
	if node != 0 {
		iso, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node, ExecutionContextID: iw.id, ObjectGroup: group})
		if err != nil {
			return 0, err
		}
		if iso.Object == nil || iso.Object.ObjectID == "" {
			return 0, errors.New("the element is not in the page any more")
		}
		args = append(args, &runtime.CallArgument{ObjectID: iso.Object.ObjectID})
	}
	p := runtime.CallFunctionOnParams{FunctionDeclaration: secretTestJS, Arguments: args, ReturnByValue: new(true), ObjectGroup: group}
	if iw.uid != "" {
		p.UniqueContextID = iw.uid
	} else {
		p.ExecutionContextID = iw.id // its event not seen yet: as made just now
	}
	res, err := chromedp.Call(ctx, runtime.CallFunctionOn, p)
	if err != nil {
		return 0, err
	}
	if res.ExceptionDetails != nil {
		return 0, &chromedp.ExceptionError{ExceptionDetails: res.ExceptionDetails}
	}
	var v int
	if res.Result == nil {
		return 0, errors.New("the page gave no answer")
	}
	err = json.Unmarshal(res.Result.Value, &v)
	return v, err
}

// PageHasSecretField reports whether the tab's document or any of its
// frames holds a secret field (as SecretField judges one). It is for tools
// whose target element browseragent cannot resolve, such as
// chrome-devtools-mcp's uids, which reach into frames. Every document is
// asked in an isolated world, the top one too.
func (b *Browser) PageHasSecretField(ctx context.Context, tabID string) (bool, error) {
	return b.framesHaveSecret(ctx, tabID, false, true)
}

// askRef evaluates an expression in the document whose element ref names
// (the top document for "" and e7, the frame's for f2e7), serialised with
// the tab's tool calls, and decodes its value.
func askRef[T any](b *Browser, ctx context.Context, tabID, ref, expr string) (T, error) {
	var v T
	err := b.onRefDoc(ctx, tabID, ref, func(d docCtx, _ *tab, _ cdp.FrameID) (err error) {
		if d.frame != nil {
			// bounded as the tab's context is
			dctx, cancel := context.WithTimeout(d.ctx, secretAskTimeout)
			defer cancel()
			d.ctx = dctx
		}
		v, err = evalDoc[T](d, expr)
		if err != nil {
			if r, ferr := jsFail(err); ferr == nil && r != nil {
				return errors.New(r.Text)
			}
			return err
		}
		return nil
	})
	return v, err
}

// onRefDoc runs fn, serialised with the tab's tool calls, on the document
// whose element ref names (the top document for "" and e7, the frame's for
// f2e7), with the id of that document's frame.
func (b *Browser) onRefDoc(ctx context.Context, tabID, ref string, fn func(d docCtx, t *tab, frame cdp.FrameID) error) error {
	return b.withTab(ctx, tabID, func(s *session, t *tab, tctx context.Context) error {
		d, release, err := s.refDoc(ctx, tctx, t, ref)
		if err != nil {
			return err
		}
		defer release()
		frame := cdp.FrameID(t.id)
		if d.frame != nil {
			frame = d.frame.id
		}
		return fn(d, t, frame)
	})
}
