import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The page's entry (src/boot.ts) loads the app with a dynamic import, so that
 * its first request goes out before the app's code is evaluated; this
 * preloads what that import loads from the page itself, so the browser
 * fetches it beside the entry, not after it.
 */
function preloadApp(): Plugin {
  return {
    name: 'worktrack-preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const { bundle, chunk: entry } = ctx;
        if (!bundle || !entry) return html;
        const files: string[] = [];
        const visit = (name: string): void => {
          const chunk = bundle[name];
          if (chunk?.type !== 'chunk' || name === entry.fileName || files.includes(name)) return;
          files.push(name);
          chunk.imports.forEach(visit);
        };
        entry.dynamicImports.forEach(visit);
        return files.map((file) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}

/**
 * D-44: the first-party web app, built into dist/web (the gateway serves it at `/`).
 * Hashed file names under assets/ let the gateway cache them for a year; no
 * inline script or style, so the gateway's Content-Security-Policy needs no
 * 'unsafe-inline'.
 */
export default defineConfig({
  root: here,
  plugins: [react(), preloadApp()],
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
