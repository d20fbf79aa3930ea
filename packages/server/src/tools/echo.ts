import { echoSpec } from '@mcp-db-bench/contract';
import { defineTool, READ_ONLY } from './tool.js';

/** Registered only with --echo: the same path as every tool, minus the database. */
export const echo = defineTool(echoSpec, {
  title: 'Echo',
  description: 'Returns message, without the database.',
  annotations: READ_ONLY,
  noDatabase: true,
  async run(args) {
    return { message: args.message ?? '' };
  },
});
