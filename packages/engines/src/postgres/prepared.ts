import type pg from 'pg';

/** Named statements kept per connection unless the URL says otherwise (`statement_cache_size`). */
export const DEFAULT_STATEMENT_CACHE_SIZE = 256;

/** The URL parameter that sizes the cache; 0 turns it off (PgBouncer in transaction mode before 1.21). */
const URL_PARAMETER = 'statement_cache_size';

/**
 * SQLSTATE classes a named statement can fail with where the same text unnamed would not: its
 * plan was made for an older schema. 0A: a result type changed ("cached plan must not change
 * result type"); 26: the server no longer has the statement (`DISCARD ALL` from elsewhere);
 * 22 and 42: its parameter types were fixed at parse time, and a column's type changed since.
 */
const MAYBE_STALE = new Set(['0A', '26', '22', '42']);

/** The cache size a URL asks for (pg itself ignores parameters it does not know). */
export function statementCacheSize(url: string): number {
  let value: string | null = null;
  try {
    value = new URL(url).searchParams.get(URL_PARAMETER);
  } catch {
    // not a URL pg reads either: connecting reports it
  }
  if (value === null) return DEFAULT_STATEMENT_CACHE_SIZE;
  const size = Number(value);
  if (value.trim() === '' || !Number.isInteger(size) || size < 0) {
    throw new Error(`${URL_PARAMETER} must be a whole number of statements (0 turns the cache off), not "${value}"`);
  }
  return size;
}

/** What pg learns from a statement's row description: its fields, their parsers, an empty row. */
interface RowShape {
  fields: unknown[];
  parsers: unknown;
  empty: unknown;
}

/** The parts of pg's Query and Result a statement with a known row description sets itself (not public API; covered by prepared.test.ts). */
interface QueryInternals {
  name: string;
  portal: string;
  values: unknown[];
  binary: boolean;
  rows: number | undefined;
  _accumulateRows: boolean;
  _result: { fields: unknown[]; _parsers: unknown; _prebuiltEmptyResultObject: unknown };
  hasBeenParsed(connection: unknown): boolean;
  handleError(error: unknown, connection: unknown): void;
  _getRows(connection: unknown, rows: number | undefined): void;
}

/** pg's protocol connection, as far as a statement without Describe writes to it. */
interface Wire {
  bind(options: object): void;
  close(options: object): void;
  sync(): void;
}

type DescribedQuery = new (
  text: string,
  values: unknown[],
  callback: (error: Error | undefined, result: pg.QueryResult) => void,
  shapes: Map<string, RowShape>,
) => pg.Query;

/**
 * pg's Query, minus the Describe of a named statement whose row description this connection
 * already holds. pg describes the portal on every call and rebuilds the row parsers from the
 * answer; the row description of a statement parsed on a connection cannot change under it (a
 * changed result type fails the statement, which MAYBE_STALE handles). Measured in-process with
 * 10 point reads in flight: pg's CPU per read 47 µs against 66.
 */
function describedQuery(Query: typeof pg.Query, prepareValue: (value: unknown) => unknown): DescribedQuery {
  return class extends Query {
    readonly #shapes: Map<string, RowShape>;
    constructor(
      text: string,
      values: unknown[],
      callback: (error: Error | undefined, result: pg.QueryResult) => void,
      shapes: Map<string, RowShape>,
    ) {
      super(text, values, callback);
      this.#shapes = shapes;
    }

    prepare(connection: Wire): void {
      const self = this as unknown as QueryInternals;
      const shape = this.#shapes.get(self.name);
      if (!shape || !self.hasBeenParsed(connection)) {
        (Query.prototype as unknown as { prepare(c: Wire): void }).prepare.call(this, connection);
        return;
      }
      const result = self._result;
      result.fields = shape.fields;
      result._parsers = shape.parsers;
      result._prebuiltEmptyResultObject = shape.empty;
      // pg sets this on the row description, which does not come: a callback collects the rows
      self._accumulateRows = true;
      try {
        connection.bind({
          portal: self.portal,
          statement: self.name,
          values: self.values,
          binary: self.binary,
          valueMapper: prepareValue,
        });
      } catch (error) {
        // as pg does: a value it cannot send ends the exchange and fails the query
        connection.close({ type: 'S', name: self.name });
        connection.sync();
        self.handleError(error, connection);
        return;
      }
      self._getRows(connection, self.rows);
    }

    handleRowDescription(message: unknown): void {
      (Query.prototype as unknown as { handleRowDescription(m: unknown): void }).handleRowDescription.call(
        this,
        message,
      );
      const result = (this as unknown as QueryInternals)._result;
      this.#shapes.set((this as unknown as QueryInternals).name, {
        fields: result.fields,
        parsers: result._parsers,
        empty: result._prebuiltEmptyResultObject,
      });
    }
  } as unknown as DescribedQuery;
}

/**
 * Server-side prepared statements for a pool's connections. pg sends an unnamed statement's
 * text to be parsed and planned on every call; a named one is parsed once per connection, and
 * later calls only bind values (README, Performance, change 12). The read tools compile a few
 * statement shapes with bound values, so a small cache per connection serves nearly every call.
 *
 * Only a statement that runs on its own is named, never one inside a transaction: the write
 * tools' and the caller's `sql` run in transactions, where a failed statement aborts the rest.
 * Alone, a named statement that fails in a way an older plan explains (MAYBE_STALE) has rolled
 * back, so it runs again unnamed and that answer stands; when the retry succeeds, every
 * connection drops its statements before its next one. Bounded: a connection that holds `size`
 * statements drops them all (`DEALLOCATE ALL`) before naming another.
 */
export class PreparedStatements {
  /** raised when statements went stale on any connection, so every connection drops its own */
  #generation = 0;
  readonly #Query: DescribedQuery;

  /**
   * `Query`: pg's query class (`pg.Query`), to hand pg a named statement it need not copy;
   * `prepareValue`: pg's mapping of a value to its text (`pg.utils.prepareValue`), for the Bind.
   */
  constructor(
    readonly size: number,
    Query: typeof pg.Query,
    prepareValue: (value: unknown) => unknown,
  ) {
    this.#Query = describedQuery(Query, prepareValue);
  }

  /** Names the parameterized statements `client` runs on their own from now on (call once, on connect). */
  attach(client: pg.PoolClient): void {
    if (this.size === 0) return;
    // pg's own query, before ours replaces it on this client
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const names = new Map<string, string>();
    // each named statement's row description, once pg has read it on this connection
    const shapes = new Map<string, RowShape>();
    let generation = this.#generation;
    // Names are never reused on a connection: on a pipelined one, a statement of the names
    // dropped may still be answered after they were, and its row description is kept by name.
    let count = 0;

    const named = (text: string): string => {
      if (generation !== this.#generation || (names.size >= this.size && !names.has(text))) {
        names.clear();
        shapes.clear();
        generation = this.#generation;
        // pg remembers which names it has parsed on this connection and would skip their parse.
        forgetParsed(client);
        (query('deallocate all') as Promise<unknown>).catch(() => {});
      }
      let name = names.get(text);
      if (name === undefined) {
        name = `mcp_${++count}`;
        names.set(text, name);
      }
      return name;
    };

    client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
      const alone = client.getTransactionStatus() === 'I';
      if (
        !alone ||
        typeof text !== 'string' ||
        !Array.isArray(values) ||
        values.length === 0 ||
        callback !== undefined
      ) {
        return query(text, values, callback);
      }
      return this.#named(query, named(text), text, values, shapes).catch(async (error: unknown) => {
        const code = (error as { code?: unknown })?.code;
        if (typeof code !== 'string' || !MAYBE_STALE.has(code.slice(0, 2))) throw error;
        const answer = await query(text, values);
        this.#generation++;
        return answer;
      });
    }) as typeof client.query;
  }

  /**
   * Runs `text` as the statement `name`. pg copies a config object property by property
   * (`cloneQueryConfig`, 2% of a point read's CPU) and chains a promise onto it; a Query made
   * from text and values, named afterwards, it takes as it is. `shapes`: the connection's known
   * row descriptions (see describedQuery).
   */
  #named(
    query: (q: pg.Query) => unknown,
    name: string,
    text: string,
    values: unknown[],
    shapes: Map<string, RowShape>,
  ): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      const q = new this.#Query(
        text,
        values,
        (error: Error | undefined, result: pg.QueryResult) => (error ? reject(error) : resolve(result)),
        shapes,
      );
      (q as { name?: string }).name = name;
      query(q);
    });
  }
}

/**
 * Clears pg's record of the statements parsed (and, pipelined, sent to be parsed) on this
 * connection (not public API; covered by prepared.test.ts).
 */
function forgetParsed(client: pg.PoolClient): void {
  const connection = (client as unknown as { connection?: Record<string, Record<string, string> | undefined> })
    .connection;
  if (connection?.parsedStatements) connection.parsedStatements = {};
  if (connection?.submittedNamedStatements) connection.submittedNamedStatements = {};
}
