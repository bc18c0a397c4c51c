import type { INestMicroservice } from '@nestjs/common';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import type { TestingModule } from '@nestjs/testing';
import type { AddressInfo, Server } from 'node:net';

/** A listening microservice and a client connected to it. */
export interface TcpMicroservice {
  readonly app: INestMicroservice;
  readonly client: ClientProxy;
  /** Closes the client, then the microservice. */
  close(): Promise<void>;
}

/** Starts `module` as a Nest microservice on TCP (loopback, a free port, Nest's logs off) and connects a client to it. */
export async function startTcpMicroservice(module: TestingModule): Promise<TcpMicroservice> {
  const app: INestMicroservice = module.createNestMicroservice({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port: 0 },
  });
  app.useLogger(false);
  await app.listen();
  const { port } = app.unwrap<Server>().address() as AddressInfo;
  const client: ClientProxy = ClientProxyFactory.create({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port },
  });
  try {
    await client.connect();
  } catch (err) {
    await app.close();
    throw err;
  }
  return {
    app,
    client,
    close: async () => {
      await client.close();
      await app.close();
    },
  };
}
