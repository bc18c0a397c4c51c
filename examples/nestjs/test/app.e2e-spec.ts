// The README's NestJS end-to-end test, whole: the `test/app.e2e-spec.ts` that `nest new` generates, with
// Vane's values given by a testing backend. `npm test` runs it here (jest); `npm run test:newcomer` runs
// it in fresh NestJS 12 (vitest) and NestJS 11 (jest) apps.
/* eslint-disable @typescript-eslint/consistent-type-imports -- the imports as `nest new` generates them */
// #region app-e2e-spec
import { Test, TestingModule } from '@nestjs/testing';
import { INestApplication } from '@nestjs/common';
import { VaneTestingBackend } from '@vane/nestjs/testing';
import request from 'supertest';
import { App } from 'supertest/types.js';
import { AppModule } from './../src/app.module.js';

describe('AppModule (e2e)', () => {
  let app: INestApplication<App>;
  let backend: VaneTestingBackend;

  beforeEach(async () => {
    // In place of the Vane service: fixed values, no VANE_BASE_URL needed, no network.
    backend = new VaneTestingBackend({ flags: { 'new-checkout': true }, secrets: { 'stripe.api_key': 'sk_test' } });
    const moduleFixture: TestingModule = await backend
      .override(Test.createTestingModule({ imports: [AppModule] }))
      .compile();

    app = moduleFixture.createNestApplication();
    await app.init();
  });

  it('/checkout (GET), then 404 once the flag is off', async () => {
    await request(app.getHttpServer()).get('/checkout').expect(200).expect({ checkout: 'new' });
    await backend.setFlag('new-checkout', false);
    await request(app.getHttpServer()).get('/checkout').expect(404);
  });

  afterEach(async () => {
    await app.close();
  });
});
// #endregion app-e2e-spec
