import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * D-44: the first-party web app, built into dist/web (the gateway serves it at `/`).
 * Hashed file names under assets/ let the gateway cache them for a year; no
 * inline script or style, so the gateway's Content-Security-Policy needs no
 * 'unsafe-inline'.
 */
export default defineConfig({
  root: here,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    modulePreload: { polyfill: false },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    setupFiles: ['test/setup.ts'],
    pool: 'threads',
    maxWorkers: 1,
    // Generous: the machine that runs them may be busy; a test that passes takes a second or two.
    testTimeout: 20_000,
  },
});
