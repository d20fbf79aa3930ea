import type { Random } from '@mcp-db-bench/contract';
import {
  BENCH_TABLE_PREFIX,
  type DescribeTableInput,
  type DescribeTableOutput,
  type ListTablesOutput,
  TOOL_NAMES,
} from '@mcp-db-bench/contract';
import { McpCallError, type McpClient, type ToolCallResult } from './clients/client.js';

/** What an agent learned about a table from describe_table (its answer, keyed in camelCase). */
export interface TableKnowledge {
  name: string;
  rows: DescribeTableOutput['rows'];
  columns: DescribeTableOutput['columns'];
  primaryKey: DescribeTableOutput['primary_key'];
  foreignKeys: DescribeTableOutput['foreign_keys'];
  referencedBy: DescribeTableOutput['referenced_by'];
}

/**
 * A simulated agent: it knows only what it discovered over MCP (the tables, their columns and
 * relations, and rows it has already seen) and chooses its next call from that, like a model
 * would, but seeded, so a run is reproducible and the same on every engine.
 */
export class SimAgent {
  readonly tables = new Map<string, TableKnowledge>();
  /** primary key values seen per table, newest last, bounded */
  readonly seen = new Map<string, unknown[]>();
  tableNames: string[] = [];
  /** facts derived from the discovered tables, built on first use after each init (see `derive`) */
  readonly #derived = new Map<string, unknown>();

  constructor(
    readonly client: McpClient,
    readonly random: Random,
  ) {}

  /**
   * The start of every agent session: the handshake or discovery, tools/list, list_tables,
   * then describe_table for the tables it means to use (all of them when none are named).
   */
  async init(wanted?: readonly string[]): Promise<void> {
    this.#derived.clear();
    await this.client.open();
    const tools = await this.client.listTools();
    const names = tools.map((t) => t.name);
    if (!names.includes(TOOL_NAMES.listTables)) {
      // Another server's tools: without a profile mapping ours onto them every call would fail alike.
      throw new McpCallError(
        'protocol',
        `the server has no ${TOOL_NAMES.listTables} tool (it lists ${names.slice(0, 6).join(', ') || 'none'}${names.length > 6 ? ', ...' : ''}): ` +
          'it is not our server; name the profile for it after its --target (--profile dbhub, faucet or sql-tool)',
      );
    }
    const list = expectData<ListTablesOutput>(
      await this.client.callTool(TOOL_NAMES.listTables, {}),
      TOOL_NAMES.listTables,
    );
    // The benchmark's own bookkeeping (the dataset's mark) is not data an agent works on.
    this.tableNames = list.tables
      .filter((t) => t.kind === 'table' && !t.name.startsWith(BENCH_TABLE_PREFIX))
      .map((t) => t.name);
    for (const name of wanted ?? this.tableNames) {
      if (!this.tableNames.includes(name)) continue;
      const args: DescribeTableInput = { table: name };
      const d = expectData<DescribeTableOutput>(
        await this.client.callTool(TOOL_NAMES.describeTable, args),
        TOOL_NAMES.describeTable,
      );
      this.tables.set(name, {
        name,
        rows: d.rows,
        columns: d.columns,
        primaryKey: d.primary_key,
        foreignKeys: d.foreign_keys,
        referencedBy: d.referenced_by,
      });
    }
  }

  /**
   * Remembers keys from rows the agent was shown, to follow them later: the rows' own keys,
   * and the keys of the rows they reference (an order item names a product to look at next).
   */
  observe(table: string, rows: readonly Record<string, unknown>[]): void {
    const links = this.derive(`links:${table}`, () => {
      const t = this.tables.get(table);
      const found: [string, string][] = (t?.foreignKeys ?? [])
        .filter((f) => f.columns.length === 1)
        .map((f) => [f.table, f.columns[0]!]);
      if (t?.primaryKey.length === 1) found.push([table, t.primaryKey[0]!]);
      return found;
    });
    for (const [target, column] of links) {
      const list = this.seen.get(target) ?? [];
      for (const row of rows) if (row[column] !== undefined && row[column] !== null) list.push(row[column]);
      if (list.length > 256) list.splice(0, list.length - 256);
      this.seen.set(target, list);
    }
  }

  /**
   * `build()`'s value, kept under `key` until the next init: workloads choose among the same
   * discovered tables on every call, and the load generator's own CPU per call is measured.
   */
  derive<T>(key: string, build: () => T): T {
    let value = this.#derived.get(key) as T | undefined;
    if (value === undefined) {
      value = build();
      this.#derived.set(key, value);
    }
    return value;
  }

  /** A key of a table: one it has seen, or (at first) one inside the reported row count. */
  someKey(table: string): unknown {
    const seen = this.seen.get(table);
    if (seen?.length && this.random.next() < 0.5) return this.random.pick(seen);
    const rows = this.tables.get(table)?.rows ?? 1;
    return this.random.int(1, Math.max(1, rows));
  }
}

/** The tool's JSON, or an error naming the tool: discovery must work for a session to start. */
export function expectData<T>(result: ToolCallResult, tool: string): T {
  if (result.isError)
    throw new Error(`${tool} failed during session init: ${JSON.stringify(result.data).slice(0, 200)}`);
  return result.data as T;
}
