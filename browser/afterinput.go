package browser

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// After an input Chromium draws the page's next frame before it runs any
// task the input's handlers started: a timer of 0, a message, a fetch's
// answer all wait for that frame, 10–17 ms in a headless tab. A click's
// result must show what its handlers did, so the settle after it used to
// wait for the frame every time, also when the handlers started nothing
// (most of them: they change the DOM at once, which the result shows
// anyway). The input watch (inputWatchJS) lets the page say what its
// handlers started, so the wait is for exactly that: nothing when they
// started nothing, a timer's end, a fetch's answer and the handlers it
// ran.

// inputKey names the input watch's function on the page's window: a name
// of this process's own, not one a page knows to look for.
var inputKey = func() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "__ba" + hex.EncodeToString(b)
}()

// Bounds of what the input watch waits for: a timer due later than
// inputTimerLimit ms after it is set (a message that hides itself after
// a few seconds, a ticker) is not waited for, nor what follows inputGens
// steps down a chain of timers, and the whole wait ends after
// inputWaitLimit ms.
const (
	inputTimerLimit = 500
	inputGens       = 3
	inputWaitLimit  = 1000
)

// inputWatchJS runs in the page's own world, from every document's start
// (a new-document script of the tabs the tools load pages in, beside
// readyJS): a page's timers, fetches and frames are only seen there. It
// counts the work the page's handlers of a person's input start (timers
// due soon, animation frames, fetches and the reading of their answers,
// XMLHttpRequests), and what that work starts in turn, and keeps a
// function that resolves once all of it has run. Where it cannot follow
// what comes next (a form submitted, a link followed, a message posted)
// the function waits as the settle always did: for the next frame and a
// timer after it. The page can see the names it wraps, and could make
// the function answer early: that only makes a click's result show the
// page sooner than it reacted, and no judgement of the guard depends on
// it (those are asked in an isolated world).
var inputWatchJS = fmt.Sprintf(`(() => {
  const key = %q, limit = %d, gens = %d, bound = %d;
  if (Object.getOwnPropertyDescriptor(window, key)) return;
  const W = window, ST = W.setTimeout, CT = W.clearTimeout, RAF = W.requestAnimationFrame, CAF = W.cancelAnimationFrame;
  const evd = Object.getOwnPropertyDescriptor(W, 'event') || Object.getOwnPropertyDescriptor(Window.prototype, 'event');
  const current = evd && evd.get ? () => evd.get.call(W) : () => undefined;
  const kinds = new Set(['click', 'dblclick', 'auxclick', 'contextmenu', 'mousedown', 'mouseup', 'pointerdown', 'pointerup',
    'keydown', 'keyup', 'keypress', 'beforeinput', 'input', 'change', 'focus', 'blur', 'focusin', 'focusout', 'select', 'toggle']);
  const xhrs = new WeakSet(), answers = new WeakSet(), timers = new Map(), frames = new Map();
  let pending = 0, vague = false, gen = 0, waiters = [], armed = false;
  // From an input's first sight (on the window, before the page's own
  // handlers, those in shadow trees too) to its return to the window
  // (the page's handlers there are told by window.event), or to the task
  // after it for one that does not come back (focus, a propagation
  // stopped), what is started counts: a ticker of the page's own that
  // runs later is not counted.
  const arm = e => {
    if (!e.isTrusted) return;
    armed = true;
    ST.call(W, () => { armed = false; }, 0);
  };
  for (const k of kinds) {
    W.addEventListener(k, arm, true);
    W.addEventListener(k, e => { if (e.isTrusted) armed = false; });
  }
  // The generation of work started now: 1 in a handler of an input, one
  // more in work that was counted; 0 when it is not counted.
  const now = () => {
    if (gen > 0) return gen < gens ? gen + 1 : 0;
    if (armed) return 1;
    const e = current(); // a handler of the window's, or of a counted request's answer
    if (!e || !e.isTrusted) return 0;
    if (kinds.has(e.type)) return 1;
    return e.target && xhrs.has(e.target) ? 2 : 0;
  };
  const end = () => {
    if (--pending > 0) return;
    pending = 0;
    // A timer of ours after the last one: the microtasks of what ran
    // (a promise's handlers) have run by then.
    ST.call(W, () => { if (pending === 0) { const w = waiters; waiters = []; w.forEach(f => f()); } }, 0);
  };
  const run = (g, f, self, args) => {
    const was = gen;
    gen = g;
    try { return f.apply(self, args); } finally { gen = was; }
  };
  const wrap = (obj, name, make) => {
    const orig = obj[name];
    if (typeof orig !== 'function') return;
    const w = new Proxy(orig, {apply: make(orig)});
    Object.defineProperty(obj, name, {...Object.getOwnPropertyDescriptor(obj, name), value: w});
    natives.set(w, orig);
  };
  const natives = new WeakMap();
  const FTS = Function.prototype.toString;
  Function.prototype.toString = new Proxy(FTS, {apply: (f, self, args) => Reflect.apply(f, natives.get(self) || self, args)});
  natives.set(Function.prototype.toString, FTS);
  wrap(W, 'setTimeout', orig => (f, self, args) => {
    const g = now(), cb = args[0], ms = +args[1] || 0;
    if (!g || typeof cb !== 'function' || ms > limit) return Reflect.apply(orig, self, args);
    pending++;
    const id = Reflect.apply(orig, self, [function () { timers.delete(id); try { return run(g, cb, this, args.slice(2)); } finally { end(); } }, ms]);
    timers.set(id, true);
    return id;
  });
  // A timer ends by either (they share their ids).
  for (const name of ['clearTimeout', 'clearInterval']) wrap(W, name, orig => (f, self, args) => {
    if (timers.delete(args[0])) end();
    return Reflect.apply(orig, self, args);
  });
  wrap(W, 'requestAnimationFrame', orig => (f, self, args) => {
    const g = now(), cb = args[0];
    if (!g || typeof cb !== 'function') return Reflect.apply(orig, self, args);
    pending++;
    const id = Reflect.apply(orig, self, [function (t) { frames.delete(id); try { return run(g, cb, this, [t]); } finally { end(); } }]);
    frames.set(id, true);
    return id;
  });
  wrap(W, 'cancelAnimationFrame', orig => (f, self, args) => {
    if (frames.delete(args[0])) end();
    return Reflect.apply(orig, self, args);
  });
  wrap(W, 'fetch', orig => (f, self, args) => {
    const g = now(), p = Reflect.apply(orig, self, args);
    if (g) {
      pending++;
      p.then(r => { answers.add(r); end(); }, end);
    }
    return p;
  });
  if (W.Response) for (const m of ['json', 'text', 'arrayBuffer', 'blob', 'formData', 'bytes']) {
    wrap(Response.prototype, m, orig => (f, self, args) => {
      const p = Reflect.apply(orig, self, args);
      if (answers.has(self) || now()) {
        pending++;
        p.then(end, end);
      }
      return p;
    });
  }
  if (W.XMLHttpRequest) wrap(XMLHttpRequest.prototype, 'send', orig => (f, self, args) => {
    if (!now()) return Reflect.apply(orig, self, args);
    let over = false;
    const fin = () => { if (!over) { over = true; end(); } };
    pending++;
    xhrs.add(self);
    self.addEventListener('loadend', fin); // before: a synchronous request ends in send
    try {
      return Reflect.apply(orig, self, args);
    } catch (e) {
      fin(); // not sent, or failed at once: no loadend comes
      throw e;
    }
  });
  const untold = orig => (f, self, args) => { if (now()) vague = true; return Reflect.apply(orig, self, args); };
  wrap(W, 'postMessage', untold);
  if (W.MessagePort) wrap(MessagePort.prototype, 'postMessage', untold);
  // A form submitted or a link followed goes on in a task of the
  // browser's after the frame: the settle then waits as it always did.
  W.addEventListener('submit', e => { if (e.isTrusted) vague = true; }, true);
  W.addEventListener('click', e => {
    if (e.isTrusted && e.composedPath().some(n => n.nodeType === 1 && (((n.tagName === 'A' || n.tagName === 'AREA') && n.hasAttribute('href')) ||
      (n.form !== undefined && n.form && (n.type === 'submit' || n.type === 'image'))))) vague = true;
  }, true);
  const frame = () => new Promise(done => { RAF.call(W, () => ST.call(W, done, 0)); ST.call(W, done, 250); });
  Object.defineProperty(W, key, {value: () => {
    if (pending === 0 && !vague) return 'quiet';
    const told = pending > 0;
    return new Promise(done => {
      const t = ST.call(W, () => done('bound'), bound);
      const finish = () => { CT.call(W, t); if (!vague) return done('waited'); vague = false; frame().then(() => done('frame')); };
      if (told) waiters.push(finish); else finish();
    });
  }});
})();`, inputKey, inputTimerLimit, inputGens, inputWaitLimit)

// nextFrameJS resolves once the page has drawn its next frame and run the
// task after it, or after 250 ms where no frame is drawn (a hidden tab):
// the settle's wait where no input watch can say more.
const nextFrameJS = `new Promise(done => { requestAnimationFrame(() => setTimeout(() => done('frame'), 0)); setTimeout(() => done('frame'), 250); })`

// afterInputJS resolves once the page has run what the last input's
// handlers started, by the input watch; in a document without the watch
// (a tab whose page the tools did not load, the person's own) once the
// page has drawn its next frame and run the task after it, or after
// 250 ms where no frame is drawn (a hidden tab). It says which: "quiet"
// (nothing was started), "waited", "frame", "bound" (the watch's bound
// ran out), "unwatched".
var afterInputJS = fmt.Sprintf(`(() => {
  const d = Object.getOwnPropertyDescriptor(window, %q);
  if (d && typeof d.value === 'function') { try { return d.value(); } catch (e) {} }
  return new Promise(done => { requestAnimationFrame(() => setTimeout(() => done('unwatched'), 0)); setTimeout(() => done('unwatched'), 250); });
})()`, inputKey)
