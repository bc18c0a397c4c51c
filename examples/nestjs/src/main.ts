// The README's NestJS quick start: main.ts, whole.
// #region main
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks(); // on SIGTERM, Vane closes its stream and timers and removes its file secrets
  await app.listen(process.env.PORT ?? 3000);
  console.log(`listening on ${await app.getUrl()}`);
}
void bootstrap();
// #endregion main
