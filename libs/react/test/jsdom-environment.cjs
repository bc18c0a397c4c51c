// jest's jsdom environment (a DOM for react-dom: createRoot, hydrateRoot, MutationObserver), with
// Node's own networking and text classes put back: the client under test talks to a real server
// through Node's fetch (undici), which takes Node's AbortSignal, not jsdom's, and the local server
// runs in the same process, on Node's timers (it unref()s them).
const { TestEnvironment } = require('jest-environment-jsdom');

const NODE_GLOBALS = [
  'fetch',
  'Headers',
  'Request',
  'Response',
  'AbortController',
  'AbortSignal',
  'TextDecoder',
  'TextEncoder',
  'ReadableStream',
  'MessageChannel',
  'setImmediate',
  'clearImmediate',
  'structuredClone',
  'performance',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'MessagePort',
  'Blob',
  'File',
  'FormData',
  'WritableStream',
  'TransformStream',
  'ReadableStreamDefaultReader',
  'BroadcastChannel',
];

class JsdomWithNodeFetch extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of NODE_GLOBALS)
      Object.defineProperty(this.global, name, { value: globalThis[name], writable: true, configurable: true });
    // The specs wait on the DOM themselves; React need not ask for act().
    this.global.IS_REACT_ACT_ENVIRONMENT = false;
  }
}

module.exports = JsdomWithNodeFetch;
