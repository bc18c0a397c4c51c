import type { NextConfig } from 'next';

const config: NextConfig = {
  // The server's Vane client (Node: undici, its stream) runs from node_modules as it is, not bundled.
  serverExternalPackages: ['@vane/client'],
};
export default config;
