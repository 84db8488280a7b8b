// snapshot builds the accessibility-style outline of the page. Interactive
// elements get refs (e1, e2, ...) that stay the same for the same element
// across snapshots of one document. It runs in the page as one function call.
// Numbering starts at base, the highest ref the tab ever handed out, so a ref
// from a previous page can never name an element of this one. In a frame,
// prefix is the frame's key (f2): its refs read f2e7. An <iframe> the
// caller marked with its key (__baFrameKey) becomes a placeholder line,
// "\0key\0name", where the caller puts the frame's own outline. With
// interactive, the outline is only the elements with refs and the
// headings (without their level, names cut at 60 characters), one flat
// line each, links without their targets. elements
// lists every element given a ref, for callers that want data.
(function (rootSelector, maxLines, base, prefix, interactive) {
  const KEY = '__browseragent';
  let st = window[KEY];
  if (!st) {
    st = { n: base, refs: new Map(), ids: new WeakMap() };
    Object.defineProperty(window, KEY, { value: st, enumerable: false });
  }
  for (const [id, w] of st.refs) {
    const el = w.deref();
    if (!el || !el.isConnected) st.refs.delete(id);
  }
  const INTERACTIVE = new Set(['link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox',
    'listbox', 'option', 'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'treeitem', 'draggable']);
  const LEAF = new Set(['link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox',
    'slider', 'spinbutton', 'switch', 'heading', 'img', 'option', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'treeitem']);
  const HAS_CONTROL = 'a[href], button, input, select, textarea, [role=link], [role=button], [contenteditable=""], [contenteditable=true], [onclick], [tabindex]:not([tabindex^="-"])';
  const NATIVE = /^(A|BUTTON|INPUT|SELECT|TEXTAREA)$/;
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'svg', 'SVG']);
  const INPUT_ROLE = { button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox',
    radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox', hidden: null, file: 'button' };
  const TAG_ROLE = { A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox', H1: 'heading',
    H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading', IMG: 'img', NAV: 'navigation',
    MAIN: 'main', FORM: 'form', TABLE: 'table', TR: 'row', TD: 'cell', TH: 'columnheader', UL: 'list',
    OL: 'list', LI: 'listitem', DIALOG: 'dialog', SUMMARY: 'button', P: 'paragraph', ARTICLE: 'article',
    ASIDE: 'complementary', HEADER: 'banner', FOOTER: 'contentinfo', OPTION: 'option', LABEL: null,
    BLOCKQUOTE: 'blockquote', PRE: 'code', FIELDSET: 'group', DETAILS: 'group', SECTION: null };
  // A form's named controls (<input name=getAttribute>, name=hidden) and a
  // document's named forms and images shadow their built-in properties: a
  // page could break the outline or hide a form from it. Both are read
  // through their prototypes; raw gives back the element for the browser's
  // own functions.
  const raws = new WeakMap();
  function own(o) {
    const p = new Proxy(o, {
      get(t, key) {
        for (let q = Object.getPrototypeOf(t); q; q = Object.getPrototypeOf(q)) {
          const d = Object.getOwnPropertyDescriptor(q, key);
          if (!d) continue;
          if (d.get) return d.get.call(t);
          return typeof d.value === 'function' ? d.value.bind(t) : d.value;
        }
        return t[key];
      }
    });
    raws.set(p, o);
    return p;
  }
  const raw = el => raws.get(el) || el;
  const safe = el => el instanceof HTMLFormElement ? own(el) : el;
  const doc = own(document);
  const clean = (s, max) => {
    s = (s || '').replace(/\s+/g, ' ').trim();
    return s.length > max ? s.slice(0, max - 1) + '…' : s;
  };
  function role(el) {
    const r = el.getAttribute('role');
    // A native control keeps its own role under a role that is not a
    // widget's (<a href role=heading>): it still takes clicks.
    if (r && !(NATIVE.test(el.tagName) && !INTERACTIVE.has(r.split(' ')[0]) && !(el.tagName === 'A' && !el.hasAttribute('href')))) return r.split(' ')[0];
    const tag = el.tagName;
    if (tag === 'INPUT') {
      const t = (el.getAttribute('type') || 'text').toLowerCase();
      return t in INPUT_ROLE ? INPUT_ROLE[t] : 'textbox';
    }
    if (tag === 'A') return el.hasAttribute('href') ? 'link' : null;
    if (tag === 'SELECT') return el.multiple ? 'listbox' : 'combobox';
    if (tag in TAG_ROLE) return TAG_ROLE[tag];
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
    // An HTML5 draggable (a card on a board) is a thing to act on.
    if (el.getAttribute('draggable') === 'true') return 'draggable';
    if (el.hasAttribute('onclick') || (el.tabIndex >= 0 && el.hasAttribute('tabindex'))) return 'button';
    return null;
  }
  function name(el, r) {
    let n = el.getAttribute('aria-label');
    if (n) return clean(n, 100);
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      n = lb.split(/\s+/).map(id => { const e = doc.getElementById(id); return e ? e.textContent : ''; }).join(' ');
      if (n.trim()) return clean(n, 100);
    }
    const tag = el.tagName;
    if (tag === 'IMG') return clean(el.getAttribute('alt') || el.getAttribute('title'), 100);
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') {
      if (el.labels && el.labels.length) return clean(Array.from(el.labels, labelText).join(' '), 100);
      if (tag === 'INPUT' && /^(button|submit|reset)$/i.test(el.type)) return clean(el.value || el.type, 100);
      return clean(el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('name'), 100);
    }
    if (LEAF.has(r) || r === 'cell' || r === 'columnheader')
      return clean(el.innerText || el.getAttribute('title') || (el.querySelector('img[alt]') || {}).alt, 100);
    return clean(el.getAttribute('title'), 100);
  }
  // labelText is the text of a label without the text of the controls in it
  // (a <select> inside its label would name itself after its options).
  function labelText(l) {
    let out = '';
    const visit = n => {
      for (const c of n.childNodes) {
        if (c.nodeType === 3) out += c.data;
        else if (c.nodeType === 1 && !/^(SELECT|TEXTAREA|INPUT|BUTTON|SCRIPT|STYLE)$/.test(c.tagName)) visit(c);
      }
    };
    visit(l);
    return out;
  }
  function ref(el) {
    el = raw(el);
    let id = st.ids.get(el);
    if (!id) {
      id = prefix + 'e' + (++st.n);
      st.ids.set(el, id);
    }
    st.refs.set(id, new WeakRef(el));
    return id;
  }
  const lines = [];
  let lastText = -1, truncated = false, count = 0, gotRef = false;
  const elements = [];
  function emit(depth, s) {
    if (lines.length >= maxLines) { truncated = true; return; }
    lines.push((interactive ? '' : '  '.repeat(depth)) + '- ' + s);
    lastText = -1;
  }
  function text(depth, s) {
    if (interactive) return;
    s = clean(s, 2000);
    if (!s) return;
    if (lastText === lines.length - 1 && lastText >= 0 && lines[lastText].startsWith('  '.repeat(depth) + '- text: ')) {
      if (lines[lastText].length < 2000) lines[lastText] += ' ' + s;
      return;
    }
    emit(depth, 'text: ' + s);
    lastText = lines.length - 1;
  }
  function describe(el, r) {
    let s = r;
    gotRef = false;
    let n = name(el, r);
    if (interactive && r === 'heading') n = clean(n, 60);
    if (n) s += ' ' + JSON.stringify(n);
    const attrs = [];
    if (r === 'heading' && !interactive) attrs.push('level=' + (el.getAttribute('aria-level') || el.tagName.slice(1)));
    if (el.checked || el.getAttribute('aria-checked') === 'true') attrs.push('checked');
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') attrs.push('disabled');
    const ex = el.getAttribute('aria-expanded');
    if (ex) attrs.push('expanded=' + ex);
    if (el.selected || el.getAttribute('aria-selected') === 'true') attrs.push('selected');
    if (el.required) attrs.push('required');
    let rec = null;
    if (INTERACTIVE.has(r) || el.isContentEditable) {
      rec = { ref: ref(el), role: r, name: n };
      attrs.push('ref=' + rec.ref); count++; gotRef = true;
      if (el.checked || el.getAttribute('aria-checked') === 'true') rec.checked = true;
      if (el.disabled || el.getAttribute('aria-disabled') === 'true') rec.disabled = true;
      elements.push(rec);
    }
    if (attrs.length) s += ' [' + attrs.join(', ') + ']';
    if (rec && r === 'link') rec.href = el.href;
    if (r === 'link' && !interactive) {
      const h = el.getAttribute('href');
      if (h && !h.startsWith('javascript:')) s += ' -> ' + h;
    }
    if ((r === 'textbox' || r === 'searchbox' || r === 'spinbutton' || r === 'slider') && el.value) {
      const v = __baSecret(el) ? '••••' : clean(el.value, 200);
      s += ' value=' + JSON.stringify(v);
      if (rec) rec.value = v;
    }
    if (r === 'combobox' && el.tagName === 'SELECT') {
      const opts = Array.from(el.options, o => (o.selected ? '*' : '') + clean(o.label, 40)).slice(0, 30);
      s += ' options=' + JSON.stringify(opts.join(' | '));
      if (rec && el.selectedIndex >= 0) rec.value = clean(el.options[el.selectedIndex].label, 100);
    }
    return s;
  }
  // walk outlines the children of node. The text of a <label> that names a
  // control is skipped: the control carries it as its name.
  function walk(node, depth) {
    if (truncated) return;
    const kids = node.shadowRoot ? [...node.shadowRoot.childNodes, ...node.childNodes] : node.childNodes;
    const labelled = node.tagName === 'LABEL' && node.control;
    for (let c of kids) {
      if (truncated) return;
      c = safe(c);
      if (c.nodeType === 3) { if (!labelled) text(depth, c.data); continue; }
      if (c.nodeType !== 1 || SKIP.has(c.tagName)) continue;
      if (c.getAttribute('aria-hidden') === 'true' || c.hidden) continue;
      if (c.checkVisibility && !c.checkVisibility({ checkVisibilityCSS: true }) && c.tagName !== 'OPTION') {
        if (getComputedStyle(raw(c)).display !== 'contents') continue;
      }
      if (c.tagName === 'IFRAME' || c.tagName === 'FRAME') {
        if (c.__baFrameKey && lines.length < maxLines)
          lines.push('  '.repeat(depth) + '\0' + c.__baFrameKey + '\0' + clean(c.getAttribute('aria-label') || c.title || c.name, 100));
        continue;
      }
      const r = role(c);
      if (!r || r === 'presentation' || r === 'none' || r === 'generic') { walk(c, depth); continue; }
      if (r === 'heading' && c.querySelector(HAS_CONTROL) && interactive) { walk(c, depth); continue; }
      if (r === 'heading' && c.querySelector(HAS_CONTROL)) {
        // A heading that holds a link (<h2><a>) is a container: the link
        // keeps its ref. With one line inside, it reads on one line.
        const before = lines.length;
        emit(depth, 'heading [level=' + (c.getAttribute('aria-level') || c.tagName.slice(1)) + ']');
        walk(c, depth + 1);
        if (lines.length === before + 2) {
          lines[before] += ': ' + lines[before + 1].slice(2 * (depth + 1) + 2);
          lines.pop();
        }
        continue;
      }
      if (LEAF.has(r) && r !== 'heading' && c.tagName !== 'SELECT' && c.querySelector(HAS_CONTROL)) {
        // A control holding controls (a link around a button, a focusable
        // group of radio buttons): each keeps its ref, inside it.
        const line = describe(c, r);
        if (!interactive || gotRef) emit(depth, line);
        walk(c, interactive ? depth : depth + 1);
        continue;
      }
      if (LEAF.has(r) || c.tagName === 'SELECT') {
        const line = describe(c, r);
        if (!interactive || gotRef || r === 'heading') emit(depth, line);
        continue;
      }
      const before = lines.length;
      const line = describe(c, r);
      if (interactive) {
        if (gotRef) emit(depth, line);
        walk(c, depth);
        continue;
      }
      emit(depth, line);
      walk(c, depth + 1);
      // An empty container with no name says nothing.
      if (lines.length === before + 1 && line === r) { lines.pop(); continue; }
      // A block that only holds text reads better on one line.
      if (lines.length === before + 2 && lines[before + 1].startsWith('  '.repeat(depth + 1) + '- text: ')) {
        lines[before] += ': ' + lines[before + 1].slice(2 * (depth + 1) + 8);
        lines.pop();
      }
    }
  }
  let root = doc.body || doc.documentElement;
  if (rootSelector) {
    root = safe(doc.querySelector(rootSelector));
    if (!root) return { error: 'no element matches ' + rootSelector };
    const r = role(root);
    if (r && LEAF.has(r)) { emit(0, describe(root, r)); root = null; }
  }
  if (root) walk(root, 0);
  return { title: doc.title, url: location.href, lines: lines, refs: count, truncated: truncated, next: st.n, elements: elements };
})
