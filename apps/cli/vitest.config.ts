import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'cli',
    include: ['test/**/*.test.ts'],
    // run alone, after the rest (`pnpm test:readme`): its `pnpm start` rewrites every package's dist/
    // (turbo restores cached outputs), which would break the bins other test files are running
    exclude: ['test/readme-commands.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
