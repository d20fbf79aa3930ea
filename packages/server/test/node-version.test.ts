import { describe, expect, it } from 'vitest';
import { MIN_NODE, nodeVersionProblem } from '../src/node-version.js';

describe('nodeVersionProblem', () => {
  it('refuses a Node.js older than the minimum, naming both', () => {
    expect(nodeVersionProblem('mcp-db-bench', '20.20.2')).toBe(
      `mcp-db-bench needs Node.js ${MIN_NODE} or newer; this is 20.20.2`,
    );
    expect(nodeVersionProblem('mcp-db-server', 'v22.0.0')).toBe(
      `mcp-db-server needs Node.js ${MIN_NODE} or newer; this is 22.0.0`,
    );
    expect(nodeVersionProblem('x', '22.18.9', '22.19.0')).toMatch(/needs/);
    expect(nodeVersionProblem('x', '18.20.8', '22.19.0')).toMatch(/needs/);
  });

  it('accepts the minimum and anything newer, pre-releases of a newer one included', () => {
    expect(nodeVersionProblem('x', MIN_NODE)).toBeUndefined();
    expect(nodeVersionProblem('x', '22.19.0', '22.19.0')).toBeUndefined();
    expect(nodeVersionProblem('x', '22.20.0', '22.19.0')).toBeUndefined();
    expect(nodeVersionProblem('x', '23.0.0', '22.19.0')).toBeUndefined();
    expect(nodeVersionProblem('x', '24.11.1', '22.19.0')).toBeUndefined();
    expect(nodeVersionProblem('x', '26.0.0-pre', '22.19.0')).toBeUndefined();
    expect(nodeVersionProblem('x', '100.0.0', '22.19.0')).toBeUndefined();
  });

  it('matches the engines field of the package', async () => {
    const pkg = (await import('../package.json', { with: { type: 'json' } })).default;
    expect(pkg.engines.node).toBe(`>=${MIN_NODE}`);
  });
});
