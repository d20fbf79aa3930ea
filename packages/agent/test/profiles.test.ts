import { TOOL_NAMES } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import type { McpClient } from '../src/clients/client.js';
import { FakeClock } from '../src/engine/clock.js';
import { nullProbe } from '../src/engine/probe.js';
import { DIALECTS, filterSql, type Profile, ProfileClient, portableType, sqlLiteral } from '../src/profiles/index.js';
import { runPlan } from '../src/runner/run-plan.js';
import { WORKLOADS } from '../src/workloads/index.js';

const columns = new Set(['customer_id', 'status', 'total']);

describe('SQL written by profiles: values as safe literals, identifiers from discovery only', () => {
  it('quotes strings by doubling quotes, so a value cannot end its literal', () => {
    expect(sqlLiteral("O'Brien")).toBe("'O''Brien'");
    expect(sqlLiteral("x' or 1=1 --")).toBe("'x'' or 1=1 --'");
    expect(sqlLiteral(42)).toBe('42');
    expect(sqlLiteral(-1.5)).toBe('-1.5');
  });

  it('refuses what is not a finite number or a string', () => {
    expect(() => sqlLiteral(Number.NaN)).toThrow(/not a finite number/);
    expect(() => sqlLiteral(Number.POSITIVE_INFINITY)).toThrow(/not a finite number/);
    expect(() => sqlLiteral({ a: 1 })).toThrow(/cannot send a object/);
    expect(() => sqlLiteral('a\0b')).toThrow(/NUL/);
  });

  it('translates the comparisons workloads send, per dialect', () => {
    expect(filterSql('customer_id = 42', columns, DIALECTS.sqlite!)).toBe('"customer_id" = 42');
    expect(filterSql("status = 'it''s' and total >= 10.5", columns, DIALECTS.mysql!)).toBe("`status` = 'it''s' and `total` >= 10.5");
    // " and " inside a string is part of the value
    expect(filterSql("status = 'a and b'", columns, DIALECTS.postgres!)).toBe(`"status" = 'a and b'`);
  });

  it('leaves out (undefined) what it cannot translate safely: unknown columns, other syntax', () => {
    expect(filterSql('nope = 1', columns, DIALECTS.sqlite!)).toBeUndefined();
    expect(filterSql('customer_id = 1 or 1 = 1', columns, DIALECTS.sqlite!)).toBeUndefined();
    expect(filterSql('customer_id = (select 1)', columns, DIALECTS.sqlite!)).toBeUndefined();
    expect(filterSql("status = 'unterminated", columns, DIALECTS.sqlite!)).toBeUndefined();
  });

  it('quotes identifiers by doubling their quote character', () => {
    expect(DIALECTS.sqlite!.quote('we"ird')).toBe('"we""ird"');
    expect(DIALECTS.mysql!.quote('we`ird')).toBe('`we``ird`');
  });

  it('maps declared types to portable ones, so workloads pick the same numeric measures', () => {
    expect(['INTEGER', 'bigint', 'DECIMAL(12,2)', 'numeric', 'double precision', 'VARCHAR(20)', 'timestamp with time zone', 'boolean'].map(portableType)).toEqual([
      'integer',
      'integer',
      'decimal',
      'decimal',
      'float',
      'text',
      'timestamp',
      'boolean',
    ]);
  });
});

describe('a profile that cannot do an intent', () => {
  /** A peer with one `lookup` tool; the profile serves discovery and `get` through it, and says it has no aggregate. */
  const profile: Profile = {
    name: 'lookup-only',
    summary: 'a test peer',
    cannot: { aggregate: 'lookup-only: no aggregate tool' },
    translate: (peer) => ({
      tools: {
        list_tables: async () => ({ isError: false, data: { tables: [{ name: 'customers', kind: 'table', rows: 10, summary: '' }] } }),
        describe_table: async () => ({
          isError: false,
          data: { name: 'customers', kind: 'table', rows: 10, columns: [], primary_key: ['id'], foreign_keys: [], referenced_by: [], indexes: [] },
        }),
        get: async (args) => {
          const r = await peer.callTool('lookup', { id: args.key });
          return { isError: false, data: { found: true, row: r.data } };
        },
      },
    }),
  };

  it('lists only the tools it serves, and the runner skips what needs the others with the profile’s reason', async () => {
    const clock = new FakeClock();
    const peerCalls: string[] = [];
    const peer = (): McpClient => ({
      open: async () => ({ era: 'legacy', protocolVersion: 'test' }),
      listTools: async () => [{ name: 'lookup' }],
      async callTool(name, args) {
        peerCalls.push(name);
        await clock.sleep(5);
        return { isError: false, data: { id: args.id } };
      },
      close: async () => {},
    });
    expect((await new ProfileClient(profile, peer()).listTools()).map((t) => t.name)).toEqual([TOOL_NAMES.listTables, TOOL_NAMES.describeTable, TOOL_NAMES.get]);
    const result = await clock.run(
      runPlan(
        {
          targets: [{ label: 'peer', client: () => new ProfileClient(profile, peer()), cannot: profile.cannot }],
          indexes: [],
          workloads: [WORKLOADS['point-read']!, WORKLOADS.analytical!],
          agents: [1],
          iterations: 1,
          warmupMs: 0,
          durationMs: 200,
          seed: 1,
        },
        { clock, probe: nullProbe },
      ),
    );
    expect(result.skipped).toEqual([{ target: 'peer', workload: 'analytical', reason: 'lookup-only: no aggregate tool' }]);
    expect(result.steps.map((s) => [s.workload, s.errors])).toEqual([['point-read', {}]]);
    expect(result.steps[0]!.calls).toBeGreaterThan(0);
    expect(new Set(peerCalls)).toEqual(new Set(['lookup']));
  });

  it('answers a call for what it cannot do as a tool error naming the reason', async () => {
    const peer: McpClient = { open: async () => ({ era: 'legacy', protocolVersion: 't' }), listTools: async () => [], callTool: async () => ({ isError: false, data: {} }), close: async () => {} };
    expect(await new ProfileClient(profile, peer).callTool(TOOL_NAMES.aggregate, {})).toEqual({
      isError: true,
      data: { error: { code: 'unsupported', message: 'lookup-only: no aggregate tool' } },
    });
  });
});
