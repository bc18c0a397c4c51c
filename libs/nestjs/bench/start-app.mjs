// Starts bench/app.mjs in a process of its own and resolves its port: what every timed or sampled
// benchmark of this folder runs its app with (the callgrind one starts it under valgrind instead).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { portPrintedBy } from '../../../scripts/app-port.mjs';

/**
 * Spawns `node bench/app.mjs <args…>`; `port` resolves with the port it prints once listening
 * (`{"port": n}`), and rejects if it exits first or takes more than 15 s.
 */
export function startApp(args = []) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./app.mjs', import.meta.url)), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { child, port: portPrintedBy(child, 15_000) };
}
