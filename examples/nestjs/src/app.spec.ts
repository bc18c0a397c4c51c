// The README's NestJS test (jest, no network): the controller with fixed values from @vane/nestjs/testing.
// #region app-spec
import { Test } from '@nestjs/testing';
import { VaneTestingBackend, VaneTestingModule } from '@vane/nestjs/testing';
import request from 'supertest';
import { AppController } from './app.module';

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
