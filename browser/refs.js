// element resolves a snapshot ref to its element, or throws a message the
// model can act on.
(function (ref) {
  const st = window['__browseragent'];
  const w = st && st.refs.get(ref);
  const el = w && w.deref();
  if (!el || !el.isConnected)
    throw new Error('ref ' + ref + ' is not on the page any more (the page changed or navigated): take a new browser_snapshot');
  return el;
})
