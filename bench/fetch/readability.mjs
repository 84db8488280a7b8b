// Mozilla Readability on Node, the reference browseragent fetch is timed
// against: fetch the URL, parse it with jsdom, extract, print the text.
import { JSDOM } from 'jsdom';
import { Readability } from '@mozilla/readability';

const url = process.argv[2];
const res = await fetch(url);
const html = await res.text();
const dom = new JSDOM(html, { url });
const article = new Readability(dom.window.document).parse();
process.stdout.write(`${article?.title ?? ''}\n\n${article?.textContent ?? ''}\n`);
