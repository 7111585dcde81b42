// Builds the console into dist/console, which the api serves at / (api/console-host/serve-console.ts).
// No CDN: every script, style and font is bundled and served by our own server.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
