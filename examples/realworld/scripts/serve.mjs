// The storefront for the e2e specs: web/ over HTTP on 127.0.0.1 (the port is
// the first argument; Playwright's webServer starts and stops it).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const web = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'web');
const port = Number(process.argv[2] ?? 4173);

http
  .createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/$/, '/index.html');
    const file = path.join(web, path.normalize(name));
    if (!file.startsWith(web) || !fs.existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    fs.createReadStream(file).pipe(res);
  })
  .listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
