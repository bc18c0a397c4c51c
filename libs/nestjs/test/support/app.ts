import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';

/** Builds and initialises a real Nest app (Express) from module metadata, with Nest's own logs off. */
export async function createApp(metadata: ModuleMetadata): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}
