import { TOOL_SPECS } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import { toolsFor } from '../src/tools/index.js';

describe('the server tools', () => {
  it('serve every tool of the contract, with its schemas', () => {
    const tools = toolsFor({ allowWrites: true, sql: true, echo: true });
    const served = new Map(tools.map((t) => [t.name, t]));
    expect([...served.keys()].sort()).toEqual(TOOL_SPECS.map((s) => s.name).sort());
    for (const spec of TOOL_SPECS) {
      expect(served.get(spec.name)?.input, spec.name).toBe(spec.input);
      expect(served.get(spec.name)?.output, spec.name).toBe(spec.output);
    }
  });
});
