import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

// The console is served by the API at /console (src/routes/console.routes.ts); the build goes beside the compiled server.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  // JSX through the bundler's own transform: no Babel/SWC plugin, as fast refresh is not needed for a build.
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: true,
    rolldownOptions: {
      // TanStack Query marks its modules "use client" for React Server Components, which a browser bundle has no use for.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
