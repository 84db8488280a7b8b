package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// setChooser records the file chooser clicking ref opened in target, for
// browser_upload.
func (t *tab) setChooser(fc *page.EventFileChooserOpened, in target.ID, ref string) {
	t.dmu.Lock()
	t.chooser, t.chooserIn, t.chooserRef = fc, in, ref
	t.dmu.Unlock()
}

// takeChooser returns and forgets the file chooser a click on ref opened,
// and the target it opened in; nil when the last chooser was another
// element's: the upload was judged for the frame ref is in, and the files
// go nowhere else.
func (t *tab) takeChooser(ref string) (*page.EventFileChooserOpened, target.ID) {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	fc, in, of := t.chooser, t.chooserIn, t.chooserRef
	t.chooser, t.chooserIn, t.chooserRef = nil, "", ""
	if of != ref {
		return nil, ""
	}
	return fc, in
}

// fileInputJS says what el is for an upload: a file input (or the label of
// one), with whether it takes several files, or something else.
const fileInputJS = `const t = (el.tagName === 'LABEL' && el.control) ? el.control : el;
if (t.tagName === 'INPUT' && t.type === 'file') return {file: true, multiple: t.multiple, disabled: t.disabled};
return {file: false, tag: t.tagName.toLowerCase()};`

type fileInput struct {
	File, Multiple, Disabled bool
	Tag                      string
}

type uploadArgs struct {
	refArg
	Paths []string `json:"paths" jsonschema:"files to upload"`
	tabArg
}

// toolUpload chooses local files for a file input: the one ref names, or
// the chooser clicking ref opens (a button that calls input.click()). The
// registry resolved each path and the person approved reading each one.
func toolUpload(ctx context.Context, c *call, a uploadArgs) (*Result, error) {
	if len(a.Paths) == 0 {
		return failf("browser_upload needs paths: the files to choose"), nil
	}
	for _, p := range a.Paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return failf("cannot upload %s: %v", p, strings.TrimPrefix(err.Error(), "stat "+p+": ")), nil
		case !fi.Mode().IsRegular():
			return failf("cannot upload %s: it is not a regular file", p), nil
		}
	}
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	d, r := c.refDoc(ctx, a.Ref)
	if r != nil {
		return r, nil
	}
	in, err := onRef[fileInput](d, a.Ref, fileInputJS)
	if err != nil {
		return jsFail(err)
	}
	set := dom.SetFileInputFilesParams{Files: a.Paths}
	var openedIn target.ID // the target a chooser opened in
	multiple := in.Multiple
	switch {
	case in.File && in.Disabled:
		return failf("%s is a disabled file input", a.Ref), nil
	case in.File:
		id, err := refObject(d, a.Ref)
		if err != nil {
			return jsFail(err)
		}
		set.ObjectID = id
	default:
		var fc *page.EventFileChooserOpened
		fc, openedIn = c.t.takeChooser(a.Ref)
		if fc == nil {
			p, r, err := c.pointAt(ctx, pctx, a.Ref)
			if r != nil || err != nil {
				return r, err
			}
			done := c.catchChooser(pctx, a.Ref)
			if err := press(pctx, p.X, p.Y, gesture{button: input.MouseButtonLeft, buttons: 1, count: 1}); err != nil {
				done(0)
				return jsFail(err)
			}
			fc, openedIn = done(time.Second)
		}
		if fc == nil || fc.BackendNodeID == 0 {
			return failf("%s is a <%s> and clicking it opened no file chooser: give the ref of the file input or of the button that opens the chooser", a.Ref, in.Tag), nil
		}
		set.BackendNodeID = fc.BackendNodeID
		multiple = fc.Mode == page.FileChooserOpenedModeSelectMultiple
	}
	if len(a.Paths) > 1 && !multiple {
		return failf("%s takes one file, and %d were given", a.Ref, len(a.Paths)), nil
	}
	on := pctx // an input's node is its document's target's; a chooser's, the target it opened in
	switch {
	case set.ObjectID != "":
		on = d.ctx
	case openedIn != "" && openedIn != c.t.id:
		fctx, _, release, err := c.s.targetCtx(ctx, pctx, c.t, openedIn)
		if err != nil {
			return failf("could not choose the files for %s: the frame whose chooser opened is gone (%v)", a.Ref, err), nil
		}
		defer release()
		on = fctx
	}
	if _, err := chromedp.Call(on, dom.SetFileInputFiles, set); err != nil {
		return failf("could not choose the files for %s: %v", a.Ref, err), nil
	}
	names := make([]string, len(a.Paths))
	for i, p := range a.Paths {
		names[i] = filepath.Base(p)
	}
	noun := "file"
	if len(names) > 1 {
		noun = "files"
	}
	return &Result{Text: fmt.Sprintf("Chose %d %s for %s: %s.", len(names), noun, a.Ref, strings.Join(names, ", "))}, nil
}

// refObject returns a handle on the element behind ref (the file input a
// label names, for a label), for CDP commands that take a node.
func refObject(d docCtx, ref string) (runtime.RemoteObjectID, error) {
	expr := fmt.Sprintf("(function(el){ return (el.tagName === 'LABEL' && el.control) ? el.control : el })((%s)(%s))", refsJS, jsArg(ref))
	ctx, cancel := context.WithTimeout(d.ctx, evalTimeout)
	defer cancel()
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: d.exec})
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", &chromedp.ExceptionError{ExceptionDetails: res.ExceptionDetails}
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return "", fmt.Errorf("ref %s names no element", ref)
	}
	return res.Result.ObjectID, nil
}
