// element resolves a snapshot ref to its element, or throws a message the
// model can act on.
(function (ref) {
  const st = window['__browseragent'];
  const w = st && st.refs.get(ref);
  const el = w && w.deref();
  // A ref this document never handed out (a typo, one from another tab)
  // is not a page that changed.
  if (!el && st && +String(ref).replace(/^(f\d+)?e/, '') > st.n)
    throw new Error('ref ' + ref + ' is not in the last snapshot of this page: use a ref it lists, or take a new browser_snapshot');
  if (!el || !el.isConnected)
    throw new Error('ref ' + ref + ' is not on the page any more (the page changed or navigated): take a new browser_snapshot');
  return el;
})
