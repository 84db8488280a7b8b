// Serves files for the fetch benchmark on 127.0.0.1: GET /NAME/ returns
// ROOT/NAME/source.html from the first root that has it. Prints the port.
const http = require('http');
const fs = require('fs');
const path = require('path');

const roots = process.argv.slice(2).map((r) => path.resolve(r));
const server = http.createServer((req, res) => {
  let rel = decodeURIComponent(req.url.split('?')[0]);
  if (rel.endsWith('/')) rel += 'source.html';
  for (const root of roots) {
    const file = path.join(root, rel);
    if (file.startsWith(root + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile()) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      fs.createReadStream(file).pipe(res);
      return;
    }
  }
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end('not found\n');
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
