// Writes an article page of about SIZE bytes (default 5 MiB) to stdout:
// navigation, a long article with links and emphasis, a sidebar, a footer.
const size = Number(process.argv[2] || 5 * 1024 * 1024);
const words = ('the valley market river bread cheese wine olive farmer winter trade route ' +
  'people history season harvest village mountain road bridge festival story').split(' ');
let seed = 1;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const sentence = () => {
  const n = 8 + rnd(14);
  const w = Array.from({ length: n }, () => words[rnd(words.length)]);
  w[0] = w[0][0].toUpperCase() + w[0].slice(1);
  return w.join(' ') + '.';
};
const out = [];
out.push('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A very long article</title>');
out.push('<script src="/analytics.js"></script><link rel="stylesheet" href="/site.css"></head><body>');
out.push('<nav><ul>' + Array.from({ length: 200 }, (_, i) => `<li><a href="/section/${i}">Section ${i}</a></li>`).join('') + '</ul></nav>');
out.push('<main><article><h1>A very long article</h1><p class="byline">By Ada Writer</p>');
let bytes = out.join('').length;
let i = 0;
while (bytes < size - 20000) {
  const p = `<p>${sentence()} <a href="/ref/${i}">${sentence()}</a> <em>${sentence()}</em> ${sentence()} ${sentence()}</p>\n` +
    (i % 20 === 0 ? `<h2>Part ${i / 20 + 1}</h2>\n` : '');
  out.push(p);
  bytes += p.length;
  i++;
}
out.push('</article><aside class="sidebar">' + Array.from({ length: 50 }, (_, j) => `<div class="ad"><a href="/ad/${j}">Buy now ${j}</a></div>`).join('') + '</aside></main>');
out.push('<footer><p>Copyright, terms, privacy, cookies.</p></footer></body></html>\n');
process.stdout.write(out.join(''));
