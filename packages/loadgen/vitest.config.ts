import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'loadgen', include: ['test/**/*.test.ts'] } });
