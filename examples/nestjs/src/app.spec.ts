// The README's NestJS unit test (vitest in a NestJS 12 app, jest in a NestJS 11 one; no network): the
// controller with fixed values from @vane/nestjs/testing. `npm test` runs it here (jest).
// #region app-spec
import { Test } from '@nestjs/testing';
import { VaneTestingBackend, VaneTestingModule } from '@vane/nestjs/testing';
import request from 'supertest';
import { AppController } from './app.module.js';

it('serves /checkout while new-checkout is on, and 404 once it is off', async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [VaneTestingModule.forRoot({ flags: { 'new-checkout': true }, secrets: { 'stripe.api_key': 'sk_test' } })],
    controllers: [AppController],
  }).compile();
  const app = await moduleRef.createNestApplication().init();
  try {
    await request(app.getHttpServer()).get('/checkout').expect(200, { checkout: 'new' });
    await app.get(VaneTestingBackend).setFlag('new-checkout', false);
    await request(app.getHttpServer()).get('/checkout').expect(404);
  } finally {
    await app.close();
  }
});
// #endregion app-spec
