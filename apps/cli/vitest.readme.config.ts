import { defineConfig } from 'vitest/config';

// The README's commands, run as a user pastes them (test/readme-commands.test.ts): alone, since
// `pnpm start` rebuilds the packages under every other test. `pnpm test:readme` from the root.
export default defineConfig({
  test: {
    name: 'readme',
    root: import.meta.dirname,
    include: ['test/readme-commands.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 120_000,
  },
});
