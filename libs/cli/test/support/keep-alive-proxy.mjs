// A reverse proxy in its own process, in front of a Vane server, whose keep-alive timeout is
// argv[3] ms: it closes a connection that has been idle that long, as any server does. Each time a
// client connection opens or closes it writes "<accepted> <open>" to the file argv[4], so a test
// whose event loop is blocked can still tell, synchronously, that the proxy has closed every
// connection. Prints "listening on http://127.0.0.1:<port>".
import { writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';

const [target, keepAliveMs, stateFile] = process.argv.slice(2);
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

const server = createServer((req, res) => {
  const upstream = request(
    new URL(req.url, target),
    { method: req.method, headers: req.headers, agent: false },
    (answer) => {
      const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
      res.writeHead(answer.statusCode, headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (error) => res.destroy(error));
  req.pipe(upstream);
});
server.keepAliveTimeout = Number(keepAliveMs);

let accepted = 0;
let open = 0;
const record = () => writeFileSync(stateFile, `${accepted} ${open}`);
server.on('connection', (socket) => {
  accepted += 1;
  open += 1;
  record();
  socket.on('close', () => {
    open -= 1;
    record();
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
