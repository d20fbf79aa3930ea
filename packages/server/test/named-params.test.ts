import { ENGINES, type Engine } from '@mcp-db-bench/engines';
import { describe, expect, it } from 'vitest';
import { splitNamedParameters } from '../src/query/named-params.js';

const engine = (name: string): Engine => ENGINES.find((e) => e.name === name)!;
const names = (text: string, name: string) => splitNamedParameters(text, engine(name).lexicon).names;

/** The parameters each engine reads in a text: where its own scanner reads code, and only there. */
const CASES: { text: string; names: Record<string, string[]> }[] = [
  { text: 'select :a, :b_1 from t where x = :a', names: { all: ['a', 'b_1', 'a'] } },
  { text: "select 'x:a', :b", names: { all: ['b'] } },
  { text: 'select 1::int, :b', names: { all: ['b'] } },
  { text: 'select 1 -- :a\n, :b', names: { all: ['b'] } },
  { text: 'select /* :a */ :b', names: { all: ['b'] } },
  // SQLite and SQL Server quote names in brackets; elsewhere a bracket is an array subscript or nothing
  { text: 'select 1 as [:x], :y', names: { sqlite: ['y'], mssql: ['y'], postgres: ['x', 'y'], mysql: ['x', 'y'] } },
  // a backslash escapes a quote in MySQL's strings and PostgreSQL's E'...', nowhere else (there the
  // quote closes, :x is code, and the last quote opens what never closes)
  { text: "select '\\':x', :y", names: { mysql: ['y'], sqlite: ['x'], postgres: ['x'], mssql: ['x'] } },
  { text: "select E'\\':x', :y", names: { postgres: ['y'], mysql: ['y'], sqlite: ['x'], mssql: ['x'] } },
  { text: 'select "\\":x", :y', names: { mysql: ['y'], sqlite: ['x'], postgres: ['x'], mssql: ['x'] } },
  // dollar quotes are PostgreSQL's; a $ inside a word opens none
  { text: 'select $$:x$$, $t1$ :x $t1$, :y', names: { postgres: ['y'], sqlite: ['x', 'x', 'y'] } },
  { text: 'select a$b$ :x, :y', names: { postgres: ['x', 'y'] } },
  // comments nest on PostgreSQL and SQL Server
  {
    text: 'select /* /* :x */ :y */ :z',
    names: { postgres: ['z'], mssql: ['z'], sqlite: ['y', 'z'], mysql: ['y', 'z'] },
  },
  // MySQL: # comments, and -- is one only before a space or control character
  { text: 'select 1 # :x\n, :y', names: { mysql: ['y'], postgres: ['x', 'y'] } },
  { text: 'select 1--:x\n, :y', names: { mysql: ['x', 'y'], sqlite: ['y'], postgres: ['y'] } },
  { text: 'select 1 --\u007f:x\n, :y', names: { mysql: ['y'] } },
  // PostgreSQL ends a line comment at a carriage return too; SQLite and MySQL at a newline only
  { text: 'select 1 --\r:x\n, :y', names: { postgres: ['x', 'y'], sqlite: ['y'], mysql: ['y'] } },
  // what never closes runs to the end: the engine says what is wrong with it
  { text: "select :a, 'open :b", names: { all: ['a'] } },
  { text: 'select :a, [open :b', names: { sqlite: ['a'], mssql: ['a'] } },
];

describe('splitNamedParameters reads :name parameters by each engine lexical rules', () => {
  for (const { text, names: expected } of CASES) {
    const engines = expected.all ? ENGINES.map((e) => e.name) : Object.keys(expected);
    it.each(engines)(`${JSON.stringify(text)} on %s`, (name) => {
      const family = engine(name).family;
      expect(names(text, name)).toEqual(expected.all ?? expected[name] ?? expected[family]);
    });
  }

  it('puts the text back together around each parameter, and drops one trailing ;', () => {
    const split = splitNamedParameters("select [a:b], :x, ':y' from t where c = :z;", engine('sqlite').lexicon);
    expect(split).toEqual({ texts: ['select [a:b], ', ", ':y' from t where c = ", ''], names: ['x', 'z'] });
  });

  it('refuses an empty statement', () => {
    expect(() => splitNamedParameters(' ; ', engine('postgres').lexicon)).toThrow(/empty/);
  });
});
