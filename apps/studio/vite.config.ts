import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** The studio's initial-load budget: the entry chunk and what it imports statically. */
const INITIAL_JS_BUDGET_KB = 250;

/**
 * Prints the gzip size of the JavaScript a first visit downloads (the entry chunk plus its static
 * imports; route chunks load on navigation) and fails the build over the budget.
 */
function initialJsBudget(): Plugin {
  return {
    name: 'waymark-initial-js-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((output) => output.type === 'chunk');
      const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      const initial = new Set<string>();
      const visit = (fileName: string) => {
        if (initial.has(fileName)) return;
        initial.add(fileName);
        for (const imported of byName.get(fileName)?.imports ?? []) visit(imported);
      };
      for (const chunk of chunks) if (chunk.isEntry) visit(chunk.fileName);
      const bytes = [...initial].reduce((sum, fileName) => sum + gzipSync(byName.get(fileName)?.code ?? '').length, 0);
      const kb = bytes / 1024;
      const line = `initial JS: ${kb.toFixed(1)} KB gzip in ${initial.size} file(s) (budget ${INITIAL_JS_BUDGET_KB} KB)`;
      if (kb > INITIAL_JS_BUDGET_KB) this.error(`${line}: over budget; split a route or drop a dependency`);
      console.log(`\n[studio] ${line}`);
    },
  };
}

const apiUrl = process.env.WAYMARK_API_URL ?? 'http://localhost:3002';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/studio/',
  plugins: [react(), initialJsBudget()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 600 },
  // `npm run dev:studio`: hot reload here, API calls proxied to the running api (same origin for cookies)
  server: {
    port: 5173,
    proxy: { '/v1': apiUrl, '/api': apiUrl, '/openapi.json': apiUrl },
  },
});
