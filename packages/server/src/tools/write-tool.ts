import type { ToolAnnotations } from '@modelcontextprotocol/server';

/** Writes change data, so hosts should ask first; none reaches outside the database. */
export const WRITES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
