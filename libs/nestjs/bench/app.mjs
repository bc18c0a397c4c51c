// The benchmarked app, in its own process: a local Vane server and a NestJS 11
// app on the built @vane/nestjs with three identical routes: GET /open,
// GET /guarded (behind @FeatureFlag('bench-flag')) and GET /noop (behind a
// guard that returns true, for reference). Prints {"port": n} when ready.
// With `--no-pinning`, the module reads live (`consistentReads: false`); with
// `--als-scope`, every request runs in an AsyncLocalStorage scope of the app's own.
// Run with `--expose-gc`, GET /__gc collects garbage. With `--allocation-sampling`, GET
// /__allocations/start starts V8's sampling heap profiler (objects a collection freed
// included) and GET /__allocations/stop answers its profile (pinning-allocations.bench.mjs).
import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Controller, Get, Module, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { startVaneServer } from '@vane/server';
import { FeatureFlag, VaneModule } from '@vane/nestjs';

const KEY = 'svs_bench_nest_secret';
const server = await startVaneServer({
  port: 0,
  seed: { services: { bench: { kind: 'backend', keys: [KEY], flags: { 'bench-flag': { is_enabled: true } } } } },
});

// A guard that does nothing: what any guard costs in Nest, for reference.
class NoopGuard {
  canActivate() {
    return true;
  }
}

// Decorators applied as functions: this file is plain JavaScript, run as is.
class BenchController {
  noop() {
    return 'ok';
  }
  open() {
    return 'ok';
  }
  guarded() {
    return 'ok';
  }
}
const decorate = (decorators, name) => {
  let descriptor = Object.getOwnPropertyDescriptor(BenchController.prototype, name);
  for (const decorator of decorators.reverse())
    descriptor = decorator(BenchController.prototype, name, descriptor) ?? descriptor;
  Object.defineProperty(BenchController.prototype, name, descriptor);
};
decorate([Get('open')], 'open');
decorate([UseGuards(NoopGuard), Get('noop')], 'noop');
decorate([FeatureFlag('bench-flag'), Get('guarded')], 'guarded');
Controller()(BenchController);

class BenchModule {}
Module({
  // `--no-pinning`: every read live (the pinning benchmark's baseline).
  imports: [
    VaneModule.forRoot({
      baseUrl: server.baseUrl('bench'),
      apiKey: KEY,
      consistentReads: !process.argv.includes('--no-pinning'),
    }),
  ],
  controllers: [BenchController],
})(BenchModule);

const app = await NestFactory.create(BenchModule, { logger: ['error', 'warn'] });
if (process.argv.includes('--als-scope')) {
  // What any request-scoped AsyncLocalStorage (OpenTelemetry's context, nestjs-cls) costs on its own:
  // every request runs in a scope of its own, as a pinned request does.
  const storage = new AsyncLocalStorage();
  app.use((req, res, next) => storage.run({ req }, next));
}
if (typeof globalThis.gc === 'function') {
  // Run with --expose-gc (pinning-instructions.bench.mjs): GET /__gc collects garbage before counting.
  app.getHttpAdapter().get('/__gc', (_req, res) => {
    globalThis.gc();
    globalThis.gc();
    res.end('collected');
  });
}
if (process.argv.includes('--allocation-sampling')) {
  // Every allocation sampled, short-lived ones included: what a request allocates, by the function that did.
  const { Session } = await import('node:inspector');
  const session = new Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))));
  app.getHttpAdapter().get('/__allocations/start', async (_req, res) => {
    await post('HeapProfiler.startSampling', {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    res.end('started');
  });
  app.getHttpAdapter().get('/__allocations/stop', async (_req, res) => {
    const { profile } = await post('HeapProfiler.stopSampling');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(profile));
  });
}
app.enableShutdownHooks();
await app.listen(0, '127.0.0.1');
process.on('SIGTERM', () => void app.close().then(() => server.close()));
console.log(JSON.stringify({ port: app.getHttpServer().address().port }));
