package browser

import (
	"context"
	"errors"
	"fmt"
	"time"
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
	expr := fmt.Sprintf("(function(){%s\n%s\nlet el = document.activeElement;\nwhile (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;\nreturn __baSecret(el) ? 1 : (__baFrame(el) ? 2 : 0);})()",
		secretFieldJS, frameOwnerJS)
	if ref != "" {
		expr = fmt.Sprintf("(function(el){%s\n%s\nreturn __baSecret(el) ? 1 : (__baFrame(el) ? 2 : 0);})((%s)(%s))", secretFieldJS, frameOwnerJS, refsJS, jsArg(ref))
	}
	v, err := askPage[int](b, ctx, tabID, expr)
	switch {
	case err != nil:
		return false, err
	case v == 2:
		return b.framesHaveSecret(ctx, tabID, true)
	}
	return v == 1, nil
}

// PageHasSecretField reports whether the tab's document or any of its
// frames holds a secret field (as SecretField judges one). It is for tools
// whose target element browseragent cannot resolve, such as
// chrome-devtools-mcp's uids, which reach into frames.
func (b *Browser) PageHasSecretField(ctx context.Context, tabID string) (bool, error) {
	ok, err := askPage[bool](b, ctx, tabID, anySecretJS)
	if err != nil || ok {
		return ok, err
	}
	return b.framesHaveSecret(ctx, tabID, false)
}

// askPage evaluates an expression in the tab's top document, serialised
// with the tab's tool calls, and decodes its value.
func askPage[T any](b *Browser, ctx context.Context, tabID, expr string) (T, error) {
	return askRef[T](b, ctx, tabID, "", expr)
}

// askRef is askPage in the document whose element ref names: the top
// document for "" and e7, the frame's for f2e7.
func askRef[T any](b *Browser, ctx context.Context, tabID, ref, expr string) (T, error) {
	var v T
	err := b.withTab(ctx, tabID, func(s *session, t *tab, tctx context.Context) error {
		d, release, err := s.refDoc(ctx, tctx, t, ref)
		if err != nil {
			return err
		}
		defer release()
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
