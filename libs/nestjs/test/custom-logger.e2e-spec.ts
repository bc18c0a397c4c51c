import { Controller, Get, Logger, type INestApplication } from '@nestjs/common';
import type { VaneLogger } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import request from 'supertest';
import { FeatureFlag, Secret, VaneModule } from '../src/index.js';
import { createApp } from './support/app.js';
import { KEYS, nestSeed } from './support/seed.js';

@Controller()
class LoggedController {
  @FeatureFlag('no-such-flag-typo')
  @Get('typo')
  typo(): string {
    return 'never';
  }
  @FeatureFlag('new-checkout', { ab: true })
  @Get('ab')
  ab(): string {
    return 'in';
  }
  @Get('missing')
  missing(@Secret('no.such.secret') value: string): string {
    return value;
  }
}

/** Every line the app's own logger got, by level. */
class MemoryLogger implements VaneLogger {
  readonly lines: { level: string; message: string }[] = [];
  debug = (message: string): void => void this.lines.push({ level: 'debug', message });
  info = (message: string): void => void this.lines.push({ level: 'info', message });
  warn = (message: string): void => void this.lines.push({ level: 'warn', message });
  error = (message: string): void => void this.lines.push({ level: 'error', message });
  text(level: string): string {
    return this.lines
      .filter((l) => l.level === level)
      .map((l) => l.message)
      .join('\n');
  }
}

describe('a custom logger gets every line of the module (none goes to a Logger of its own)', () => {
  let server: VaneServer;
  let app: INestApplication;
  const logger = new MemoryLogger();
  const nestLines: string[] = [];

  beforeAll(async () => {
    const record = (message: unknown): void => void nestLines.push(String(message));
    jest.spyOn(Logger.prototype, 'log').mockImplementation(record);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(record);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(record);
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    app = await createApp({
      imports: [
        VaneModule.forRoot({
          baseUrl: server.baseUrl('shop'),
          apiKey: KEYS.shopSecret,
          logger,
          abContext: () => {
            throw new Error('the session store is down');
          },
        }),
      ],
      controllers: [LoggedController],
    });
  }, 30_000);
  afterAll(async () => {
    await app.close();
    await server.close();
    jest.restoreAllMocks();
  });

  it('startup check, A/B context failure and @Secret() failure reach the custom logger', async () => {
    expect(logger.text('warn')).toContain('no-such-flag-typo');
    await request(app.getHttpServer()).get('/ab').expect(404);
    expect(logger.text('warn')).toMatch(/abContext failed.*treating the request as anonymous/);
    await request(app.getHttpServer()).get('/missing').expect(500);
    expect(logger.text('error')).toContain('@Secret() failed a request (500): text secret "no.such.secret"');
    // Nest's own lines ("VaneModule dependencies initialized") are not the module's.
    const ours = nestLines.filter((l) => !l.includes('dependencies initialized'));
    expect(ours.filter((line) => /Vane|@Secret|abContext|no-such-flag/.test(line))).toEqual([]);
  });
});
