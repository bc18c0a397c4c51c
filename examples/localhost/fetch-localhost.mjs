// docs/protocol.md's example: calling a `.localhost` service URL (the local server) from Node's fetch, which
// asks the system resolver, where `shop.localhost` is often ENOTFOUND. Run: VANE_BASE_URL=… VANE_API_KEY=… node fetch-localhost.mjs
import { env } from 'node:process';

const baseUrl = env.VANE_BASE_URL ?? 'http://shop.localhost:4400';
const apiKey = env.VANE_API_KEY ?? 'svs_shop_local_secret';

// #region localhost-fetch
import { lookup as systemLookup } from 'node:dns';
import { Agent, fetch } from 'undici';

// `*.localhost` connects to 127.0.0.1 (RFC 6761); any other name goes to the system resolver as usual.
const loopbackForLocalhost = (hostname, options, callback) => {
  if (hostname !== 'localhost' && !hostname.endsWith('.localhost')) return systemLookup(hostname, options, callback);
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};
const dispatcher = new Agent({ connect: { lookup: loopbackForLocalhost } });

// The URL keeps its name, so the Host header names the service; the key goes in X-Service-API-Key.
const res = await fetch(`${baseUrl}/v1/sync`, { dispatcher, headers: { 'X-Service-API-Key': apiKey } });
console.log(res.status, (await res.json()).revision);
// #endregion localhost-fetch

await dispatcher.close();
