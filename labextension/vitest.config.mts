// The TypeScript unit tests (test/*.test.ts; `npm test`). One worker, test files one after
// another: a handful of small files, where starting workers costs more than it saves.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'threads',
    fileParallelism: false,
    isolate: false
  }
});
