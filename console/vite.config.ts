import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The console is served by hapi at /app (src/api/console/routes.ts); hashed assets under /app/assets. */
export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline module-preload polyfill script: the CSP allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 800
  },
  server: { proxy: { '/api': 'http://localhost:3000' } }
});
