// The port a benchmark's app process prints once it listens (`{"port": n}` on its stdout): what
// every benchmark that starts an app in a process of its own waits for.

/**
 * Resolves with the port `child` prints, rejects if it exits first or takes more than
 * `timeoutMs` (`what` names it in the error).
 */
export function portPrintedBy(child, timeoutMs, what = 'the app') {
  const port = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /\{"port":\s*(\d+)\}/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}`));
    });
  });
  // A rejection after the port resolved (the process killed at the end) is not an error.
  port.catch(() => undefined);
  return port;
}
