import { describe, expect, it } from 'vitest';
import {
  type FilterNode,
  f,
  lexFilter,
  normalizeFilterTree,
  parseFilter,
  parseFilterExpression,
  Random,
  type Scalar,
  ToolError,
  type Value,
  writeFilter,
  writeName,
  writeValue,
} from '../src/index.js';

/** Strings that break naive quoting: quotes, keywords, comment and statement starts, escapes, odd Unicode. */
const HOSTILE = [
  "O'Brien",
  "''",
  "'; drop table orders; --",
  "' or 1=1 --",
  '"',
  '\\',
  "\\'",
  '/* x */',
  '-- x',
  'and',
  ' or ',
  '%_',
  'line\nbreak\ttab\r',
  '😀 astral',
  '\u202e right-to-left',
  '',
];
const NAMES = ['id', 'status', 'order', 'and', 'Null', 'order date', 'a"b', '"', "o'clock", '$x', 'x$', '_', 'é', 'in'];
const VALUES: Value[] = [
  0,
  7,
  -42,
  3.14,
  -0.5,
  1e-7,
  2 ** 53 - 1,
  true,
  false,
  '12.50',
  '9007199254740993',
  ...HOSTILE,
];

/** A random tree of the builder's shapes, up to `depth` groups deep. */
function tree(r: Random, depth: number): FilterNode {
  const name = r.pick(NAMES);
  const value = () => r.pick(VALUES);
  if (depth > 0 && r.chance(0.4)) {
    const children = Array.from({ length: r.int(1, 3) }, () => tree(r, depth - 1));
    const kind = r.int(0, 2);
    return kind === 0 ? f.and(...children) : kind === 1 ? f.or(...children) : f.not(children[0]!);
  }
  const shapes = [
    () => f.eq(name, value()),
    () => f.ne(name, value()),
    () => f.lt(name, value()),
    () => f.lte(name, value()),
    () => f.gt(name, value()),
    () => f.gte(name, value()),
    () => f.in(name, Array.from({ length: r.int(1, 4) }, value)),
    () => f.notIn(name, [value()]),
    () => f.between(name, value(), value()),
    () => f.notBetween(name, value(), value()),
    () => f.like(name, r.pick(HOSTILE)),
    () => f.notLike(name, `${r.pick(HOSTILE)}%`),
    () => f.isNull(name),
    () => f.isNotNull(name),
  ];
  return r.pick(shapes)();
}

describe('the literal writer', () => {
  it('writes text the parser reads back as the same tree (2,000 random trees of the builder)', () => {
    const r = new Random(31);
    for (let i = 0; i < 2_000; i++) {
      const node = tree(r, 4);
      const text = writeFilter(node);
      expect(parseFilterExpression(text), text).toEqual(node);
    }
  });

  it('agrees with the JSON form: the text and the tree as JSON are the same filter to the server', () => {
    const r = new Random(7);
    for (let i = 0; i < 500; i++) {
      const node = tree(r, 3);
      expect(parseFilter(writeFilter(node))).toEqual(normalizeFilterTree(JSON.parse(JSON.stringify(node))));
    }
  });

  it('keeps hostile strings inside one literal', () => {
    for (const s of HOSTILE) {
      const text = writeFilter(f.eq('memo', s));
      expect(text).toBe(`memo = '${s.replaceAll("'", "''")}'`);
      expect(parseFilterExpression(text)).toEqual({ column: 'memo', op: '=', value: s });
    }
  });

  it('quotes columns that are keywords or not plain names, and leaves plain ones bare', () => {
    expect(writeName('customer_id')).toBe('customer_id');
    expect(writeName('and')).toBe('"and"');
    expect(writeName('NULL')).toBe('"NULL"');
    expect(writeName('order date')).toBe('"order date"');
    expect(writeName('a"b')).toBe('"a""b"');
    expect(writeName('1st')).toBe('"1st"');
  });

  it('writes the shapes the workloads send exactly as they were written by hand', () => {
    expect(writeFilter(f.eq('customer_id', 42))).toBe('customer_id = 42');
    expect(writeFilter(f.eq('sku', "O'Brien"))).toBe("sku = 'O''Brien'");
    expect(writeFilter(f.and(f.eq('customer_id', 5), f.eq('status', 'active')))).toBe(
      "customer_id = 5 and status = 'active'",
    );
    expect(writeFilter(f.and(f.eq('id', 3), f.eq('status', 'active'), f.gte('balance', 12.5)))).toBe(
      "id = 3 and status = 'active' and balance >= 12.5",
    );
    // the transfer's guard was written with cents (12.50): a different text, the same tree on the server
    expect(parseFilterExpression("id = 3 and status = 'active' and balance >= 12.50")).toEqual(
      f.and(f.eq('id', 3), f.eq('status', 'active'), f.gte('balance', 12.5)),
    );
  });

  it('brackets an or inside an and, and a group under not', () => {
    const node = f.and(f.or(f.eq('a', 1), f.eq('b', 2)), f.not(f.and(f.eq('c', 3), f.isNull('d'))));
    expect(writeFilter(node)).toBe('(a = 1 or b = 2) and not (c = 3 and d is null)');
    expect(parseFilterExpression(writeFilter(node))).toEqual(node);
  });

  it('refuses what the language cannot carry instead of writing something else', () => {
    const refused = [
      { column: 'a', op: '=', value: null },
      { column: 'a', op: '=', value: 2 ** 60 },
      { column: 'a', op: '=', value: Number.NaN },
      { column: 'a', op: '=', value: 'nul\u0000' },
      { column: 'a\u0001', op: 'is null' },
      { column: '', op: 'is null' },
      { column: 'a', op: 'in', value: [] },
      { and: [] },
    ] as FilterNode[];
    for (const node of refused) {
      expect(() => writeFilter(node), JSON.stringify(node)).toThrow(ToolError);
    }
    expect(() => f.or()).toThrow(ToolError);
  });

  it('builds canonical groups, as the parser makes them', () => {
    expect(f.and(f.eq('a', 1))).toEqual(f.eq('a', 1));
    expect(f.and(f.and(f.eq('a', 1), f.eq('b', 2)), f.eq('c', 3))).toEqual(
      parseFilterExpression('a = 1 and b = 2 and c = 3'),
    );
  });
});

/** A tree's values in the order the text carries them. */
function valuesOf(node: FilterNode): Scalar[] {
  if ('and' in node) return node.and.flatMap(valuesOf);
  if ('or' in node) return node.or.flatMap(valuesOf);
  if ('not' in node) return valuesOf(node.not);
  return 'value' in node ? [node.value].flat() : [];
}

/** A tree without its values: what must be equal across filters of one template. */
function shapeOf(node: FilterNode): unknown {
  return JSON.parse(JSON.stringify(node, (key, value) => (key === 'value' ? [value].flat().length : value)));
}

describe('lexFilter: filters of one template', () => {
  it('parse to one shape whose values are the literals in order (2,000 random trees, re-valued)', () => {
    const r = new Random(47);
    const fresh: Record<string, () => Scalar> = {
      n: () => r.pick([0, 5, -17, 2.25, 1.5e-7, 9007199254740991]),
      s: () => r.pick(HOSTILE),
      b: () => r.chance(0.5),
    };
    for (let i = 0; i < 2_000; i++) {
      const text = writeFilter(tree(r, 4));
      const lexed = lexFilter(text);
      const node = lexed.parse();
      expect(valuesOf(node), text).toEqual(lexed.literals);

      // the same template with other literals of each marker's kind
      const [head, ...rest] = lexed.template.split('\u0000');
      const literals = rest.map((part) => fresh[part[0]!]!());
      const other = head + rest.map((part, k) => writeValue(literals[k]!) + part.slice(1)).join('');
      const again = lexFilter(other);
      expect(again.template, other).toBe(lexed.template);
      expect(again.literals).toEqual(literals);
      const otherNode = again.parse();
      expect(shapeOf(otherNode), other).toEqual(shapeOf(node));
      expect(valuesOf(otherNode)).toEqual(literals);
    }
  });
});
