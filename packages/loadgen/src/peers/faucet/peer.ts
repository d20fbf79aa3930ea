/** The peer: Faucet's tools on one service, discovery kept per session, refusals in our shape. */
import type { McpClient, ToolCallResult } from '../../clients/client.js';
import { toolError } from '../profile.js';
import { portableType } from '../sql.js';
import { NUMERIC } from './filter.js';
import type { FaucetTableSchema, FaucetTableSummary, Known, Row } from './shapes.js';

/** A refusal in our shape, thrown from deep inside a handler and answered as it is. */
export class Refusal extends Error {
  constructor(readonly result: ToolCallResult) {
    super('refused');
  }
}

export const refuse = (code: string, message: string): never => {
  throw new Refusal(toolError(code, message));
};

/** A promise made once, made again after it fails (a failed discovery is not remembered). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () => {
    if (!kept) {
      kept = make();
      kept.catch(() => {
        kept = undefined;
      });
    }
    return kept;
  };
}

export const peerText = (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data)).slice(0, 300);

export class FaucetPeer {
  list!: () => Promise<FaucetTableSummary[]>;
  /** every table described once: the reverse foreign keys (referenced_by) need them all */
  known!: () => Promise<Map<string, Known>>;
  /** the service's driver (faucet_list_services), undefined when Faucet does not say: configuration, asked once */
  readonly driver = once(async () => {
    const services = await this.call<{ name: string; driver?: string }[]>('faucet_list_services', {}).catch(() => []);
    return (Array.isArray(services) ? services : []).find((s) => s.name === this.service)?.driver;
  });

  constructor(
    readonly peer: McpClient,
    readonly service: string,
  ) {
    this.forget();
  }

  async call<T>(tool: string, args: Record<string, unknown>): Promise<T> {
    const r = await this.peer.callTool(tool, { service: this.service, ...args });
    if (r.isError) refuse('peer_error', peerText(r.data));
    return r.data as T;
  }

  /** A new session: discover again, as a new agent would. */
  forget(): void {
    this.list = once(() => this.call<FaucetTableSummary[]>('faucet_list_tables', {}));
    this.known = once(async () => {
      const map = new Map<string, Known>();
      for (const summary of await this.list()) {
        if (summary.type !== 'table') continue;
        const schema = await this.call<FaucetTableSchema>('faucet_describe_table', { table: summary.name }).catch(
          (e: unknown) => {
            if (e instanceof Refusal) return undefined; // a table this key may not describe: left out
            throw e;
          },
        );
        if (schema) map.set(summary.name, knownTable(schema, summary));
      }
      return map;
    });
  }

  async table(name: unknown): Promise<Known> {
    return (await this.known()).get(String(name)) ?? refuse('unknown_table', `no table ${String(name)}`);
  }

  async records(args: Record<string, unknown>): Promise<Row[]> {
    const r = await this.call<{ records?: Row[] }>('faucet_query', args);
    return Array.isArray(r?.records)
      ? r.records
      : refuse('peer_error', `faucet_query answered no records: ${peerText(r)}`);
  }
}

function knownTable(schema: FaucetTableSchema, summary: FaucetTableSummary): Known {
  const columns = (schema.columns ?? []).map((c) => c.name);
  const pk = schema.primary_key ?? (schema.columns ?? []).filter((c) => c.is_primary_key).map((c) => c.name);
  const numeric = new Set(
    (schema.columns ?? []).filter((c) => NUMERIC.has(portableType(c.db_type))).map((c) => c.name),
  );
  const rows = schema.row_count ?? summary.row_count ?? null;
  return {
    name: schema.name,
    kind: schema.type === 'view' ? 'view' : 'table',
    rows,
    schema,
    columns,
    names: new Set(columns),
    numeric,
    pk,
  };
}
