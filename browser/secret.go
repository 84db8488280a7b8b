package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

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
// focused elements are asked, every frame's, cross-site ones too. An error
// means the page could not answer (a stale ref, no tab, a hung page);
// callers that must not leak should then treat the field as secret.
func (b *Browser) SecretField(ctx context.Context, tabID, ref string) (bool, error) {
	var v int
	err := b.onRefDoc(ctx, tabID, ref, func(d docCtx, frame cdp.FrameID) (err error) {
		dctx, cancel := context.WithTimeout(d.ctx, secretAskTimeout)
		defer cancel()
		v, err = secretInIsolation(dctx, d.worlds, d.exec, frame, ref)
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
func secretInIsolation(ctx context.Context, w *worlds, exec runtime.ExecutionContextID, frame cdp.FrameID, ref string) (int, error) {
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
	err := b.onRefDoc(ctx, tabID, ref, func(d docCtx, _ cdp.FrameID) (err error) {
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
func (b *Browser) onRefDoc(ctx context.Context, tabID, ref string, fn func(d docCtx, frame cdp.FrameID) error) error {
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
		return fn(d, frame)
	})
}
