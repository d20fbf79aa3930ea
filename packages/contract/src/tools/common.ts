import { z } from 'zod';
import { FILTER_LIMITS } from '../filter/tree.js';

// Names that say what they hold go without a description: hosts send every word of tools/list to the model.
export const tableArg = z.string().min(1).max(256);

export const columnsArg = z.array(z.string().min(1).max(256)).min(1).max(500);

export const filterArg = z
  .union([z.string().max(FILTER_LIMITS.maxExpressionLength), z.record(z.string(), z.unknown())])
  .describe("e.g. status = 'paid' and total > 100 (grammar: see instructions)");

export const orderByArg = z.array(z.string().min(1).max(300)).max(32).describe('e.g. ["placed_at desc", "id"]');

export const limitArg = z.number().int().min(1).max(1_000_000).describe('Default 100.');
