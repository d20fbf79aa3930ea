import { describe, expect, it } from 'vitest';
import {
  convertNumber,
  FILTER_LIMITS,
  FILTER_OPS,
  type FilterNode,
  lexFilter,
  normalizeFilterTree,
  normalizeOperator,
  parseFilter,
  parseFilterExpression,
  ToolError,
  VALID_OPERATORS_TEXT,
} from '../src/index.js';

/** Runs `fn`, asserts it throws an invalid_filter ToolError, and returns the message. */
function filterErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('invalid_filter');
    return (error as ToolError).message;
  }
  throw new Error('expected an invalid_filter error, but nothing was thrown');
}

const p = (column: string, op: string, value?: unknown) =>
  (value === undefined ? { column, op } : { column, op, value }) as FilterNode;

describe('parseFilterExpression: operators', () => {
  it.each<[string, FilterNode]>([
    ['id = 1', p('id', '=', 1)],
    ['id == 1', p('id', '=', 1)],
    ['id != 1', p('id', '!=', 1)],
    ['id <> 1', p('id', '!=', 1)],
    ['id < 1', p('id', '<', 1)],
    ['id <= 1', p('id', '<=', 1)],
    ['id > 1', p('id', '>', 1)],
    ['id >= 1', p('id', '>=', 1)],
    ['id>=1', p('id', '>=', 1)],
    ['id=-1', p('id', '=', -1)],
    ['id<-1', p('id', '<', -1)],
    ["status in ('paid','shipped')", p('status', 'in', ['paid', 'shipped'])],
    ["status not in ('paid')", p('status', 'not in', ['paid'])],
    ['id in (1, 2.5, true, false)', p('id', 'in', [1, 2.5, true, false])],
    ['total between 10 and 20.5', p('total', 'between', [10, 20.5])],
    [
      "placed_at not between '2024-01-01' and '2024-12-31'",
      p('placed_at', 'not between', ['2024-01-01', '2024-12-31']),
    ],
    ["name like 'Jo%'", p('name', 'like', 'Jo%')],
    ["name not like '%\\_x'", p('name', 'not like', '%\\_x')],
    ['shipped_at is null', p('shipped_at', 'is null')],
    ['shipped_at is not null', p('shipped_at', 'is not null')],
    ['active = true', p('active', '=', true)],
    ['active != false', p('active', '!=', false)],
  ])('%s', (text, tree) => {
    expect(parseFilterExpression(text)).toEqual(tree);
  });

  it('parses the example from the tool description', () => {
    expect(parseFilterExpression("customer_id = 42817 and status in ('paid','shipped')")).toEqual({
      and: [
        { column: 'customer_id', op: '=', value: 42817 },
        { column: 'status', op: 'in', value: ['paid', 'shipped'] },
      ],
    });
  });
});

describe('parseFilterExpression: structure', () => {
  const [a, b, c, d] = [p('a', '=', 1), p('b', '=', 2), p('c', '=', 3), p('d', '=', 4)];
  it.each<[string, FilterNode]>([
    ['a=1 and b=2 and c=3', { and: [a, b, c] }],
    ['a=1 or b=2 or c=3', { or: [a, b, c] }],
    ['a=1 or b=2 and c=3', { or: [a, { and: [b, c] }] }],
    ['a=1 and b=2 or c=3', { or: [{ and: [a, b] }, c] }],
    ['a=1 and b=2 or c=3 and d=4', { or: [{ and: [a, b] }, { and: [c, d] }] }],
    ['(a=1 or b=2) and c=3', { and: [{ or: [a, b] }, c] }],
    ['a=1 and (b=2 and c=3)', { and: [a, b, c] }],
    ['((a=1))', a],
    ['not a=1', { not: a }],
    ['not not a=1', { not: { not: a } }],
    ['not a=1 and b=2', { and: [{ not: a }, b] }],
    ['not (a=1 or b=2)', { not: { or: [a, b] } }],
    ['a=1 and not (b=2 or not c=3)', { and: [a, { not: { or: [b, { not: c }] } }] }],
    ['b between 1 and 5 and a=1', { and: [p('b', 'between', [1, 5]), a] }],
  ])('%s', (text, tree) => {
    expect(parseFilterExpression(text)).toEqual(tree);
  });

  it.each<[string, FilterNode]>([
    ['A=1 AND B=2 Or NOT C=3', { or: [{ and: [p('A', '=', 1), p('B', '=', 2)] }, { not: p('C', '=', 3) }] }],
    ["s NOT IN ('x') aNd t IS NOT NULL", { and: [p('s', 'not in', ['x']), p('t', 'is not null')] }],
    ['n BETWEEN 1 AND 2', p('n', 'between', [1, 2])],
    ["n NoT LiKe 'a'", p('n', 'not like', 'a')],
    ['f = TRUE or f = False', { or: [p('f', '=', true), p('f', '=', false)] }],
    ['  \n\ta\t=\r\n1  ', a],
    ["s in('x','y')", p('s', 'in', ['x', 'y'])],
  ])('keywords are case-insensitive and whitespace is free: %j', (text, tree) => {
    expect(parseFilterExpression(text)).toEqual(tree);
  });
});

describe('parseFilterExpression: identifiers and strings', () => {
  it.each<[string, FilterNode]>([
    ['"order date" = 1', p('order date', '=', 1)],
    ['"say ""hi""" = 1', p('say "hi"', '=', 1)],
    ['"and" = 1', p('and', '=', 1)],
    ['"Prénom" = 1', p('Prénom', '=', 1)],
    ['_private$x1 = 1', p('_private$x1', '=', 1)],
    ["s = 'it''s'", p('s', '=', "it's")],
    ["s = ''''", p('s', '=', "'")],
    ["s = ''", p('s', '=', '')],
    ["s = 'a -- b /* c */ ; d'", p('s', '=', 'a -- b /* c */ ; d')],
    ['s = \'say "hi"\'', p('s', '=', 'say "hi"')],
    ["s = 'line\nbreak'", p('s', '=', 'line\nbreak')],
    ["s = 'ünïcødé ＇ 😀'", p('s', '=', 'ünïcødé ＇ 😀')],
    ["s = 'a\\'", p('s', '=', 'a\\')],
  ])('%s', (text, tree) => {
    expect(parseFilterExpression(text)).toEqual(tree);
  });
});

describe('parseFilterExpression: numbers', () => {
  it.each<[string, number | string]>([
    ['0', 0],
    ['-0', 0],
    ['42817', 42817],
    ['-7', -7],
    ['3.14', 3.14],
    ['-0.5', -0.5],
    ['1.10', 1.1],
    ['0.1', 0.1],
    ['1e3', 1000],
    ['1.5E-7', 1.5e-7],
    ['2e+2', 200],
    ['0.30000000000000004', 0.30000000000000004],
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
    ['9007199254740992', '9007199254740992'],
    ['9007199254740993', '9007199254740993'],
    ['-9007199254740993', '-9007199254740993'],
    ['12345678901234567890', '12345678901234567890'],
    ['12345678901234567890.12', '12345678901234567890.12'],
    ['0.1000000000000000055511151231257827', '0.1000000000000000055511151231257827'],
    ['1e400', '1e400'],
    ['1e-400', '1e-400'],
    ['1e20', '1e20'],
    ['0.000e5', 0],
  ])('%s', (source, value) => {
    expect(convertNumber(source)).toBe(value);
    expect(parseFilterExpression(`n = ${source}`)).toEqual(p('n', '=', value));
  });

  it('keeps big integers exact inside lists and ranges', () => {
    expect(parseFilterExpression('id in (9007199254740993, 1) or id between 1 and 99999999999999999999')).toEqual({
      or: [p('id', 'in', ['9007199254740993', 1]), p('id', 'between', [1, '99999999999999999999'])],
    });
  });
});

describe('parseFilterExpression: hostile and malformed input', () => {
  const deepParens = `${'('.repeat(10_000)}a=1${')'.repeat(10_000)}`;
  const deepFits = `${'('.repeat(3_000)}a=1${')'.repeat(3_000)}`;
  const deepNots = `${'not '.repeat(1_500)}a=1`;
  const megabyte = `s = '${'x'.repeat(1_000_000)}'`;
  const longLiteral = `s = '${'x'.repeat(FILTER_LIMITS.maxLiteralLength + 1)}'`;
  const hugeList = `id in (${Array.from({ length: FILTER_LIMITS.maxListValues + 1 }, () => '1').join(',')})`;
  const manyNodes = Array.from({ length: FILTER_LIMITS.maxNodes + 1 }, () => 'a=1').join(' or ');
  // Each parenthesis adds an or and an and level: 20 parentheses, about 40 levels of groups.
  const deepTree = `${'a=1 or a=1 and ('.repeat(20)}a=1${')'.repeat(20)}`;

  it.each<[string, string, RegExp]>([
    ['empty input', '', /empty/],
    ['whitespace only', '   \n\t', /empty/],
    ['semicolon and a second statement', '1=1; drop table x', /unexpected '1' at position 1; expected a column name/],
    [
      'statement after a predicate',
      'customer_id = 1; drop table x',
      /unexpected ';' at position 16; expected and, or or the end of the filter/,
    ],
    ['line comment', 'id = 1 -- comment', /comments are not allowed \('--' at position 8\)/],
    ['block comment', 'id = 1 /* */', /comments are not allowed \('\/\*' at position 8\)/],
    ['block comment inside operator', 'id =/**/ 1', /comments are not allowed/],
    ['hash comment', 'id = 1 # x', /unexpected '#'.*comments are not allowed/],
    ['tautology', 'id = 1 or 1=1', /unexpected '1' at position 11; expected a column name/],
    ['string tautology', "id = 1 or 'a'='a'", /unexpected string 'a' at position 11; expected a column name/],
    ['function call as value', 'id = sleep(5)', /function calls such as 'sleep\(' are not supported/],
    ['function call as column', 'lower(name) = 1', /function calls such as 'lower\(' are not supported/],
    ['subquery', 'id = (select 1)', /subqueries/],
    ['subquery in list', 'id in (select id from t)', /expected a value .*'select'/],
    [
      'backtick identifier',
      '`id` = 1',
      /unexpected '`' at position 1; expected a column name \(quote column names with double quotes/,
    ],
    ['bracket identifier', '[id] = 1', /unexpected '\['/],
    ['arithmetic in value', 'id = 1 + 1', /unexpected '\+' at position 8.*arithmetic is not supported/],
    ['arithmetic in column', 'id + 1 = 2', /unexpected '\+'.*arithmetic/],
    ['multiplication', 'id = 2 * 3', /unexpected '\*'.*arithmetic/],
    ['qualified name', 'orders.id = 1', /unexpected '\.' at position 7.*qualified names/],
    [
      'unknown operator =~',
      "email =~ 'x'",
      /unknown operator '=~' at position 7; valid operators: = != <> < <= > >= in, not in/,
    ],
    ['unknown operator regexp', "email regexp 'x'", /unknown operator 'regexp' at position 7/],
    ['ilike is not supported', "email ilike 'x'", /unknown operator 'ilike'/],
    ['null-safe equality', 'id <=> 1', /unknown operator '<=>'/],
    ['bang alone', 'id ! 1', /unknown operator '!'/],
    ['unterminated string', "name = 'abc", /unterminated string starting at position 8/],
    ['unbalanced quotes', "name = 'a''", /unterminated string starting at position 8/],
    ['stray quote', "name = 'a' '", /unterminated string starting at position 12/],
    ['unterminated quoted identifier', '"order date = 1', /unterminated quoted identifier starting at position 1/],
    ['empty quoted identifier', '"" = 1', /empty quoted identifier/],
    ['fullwidth quote', 'name = ＇x＇', /unexpected character U\+FF07 '＇' at position 8.*ASCII single quotes/],
    ['smart quotes', 'name = ‘x’', /U\+2018.*ASCII single quotes/],
    ['zero-width space', 'id\u200b= 1', /unexpected character U\+200B at position 3/],
    ['non-breaking space', 'id\u00a0= 1', /unexpected character U\+00A0/],
    ['NUL byte in a string', "name = 'a\u0000b'", /NUL character \(U\+0000\) at position 10/],
    ['NUL byte after a predicate', 'id = 1\u0000 or 1=1', /NUL character/],
    ['trailing garbage', 'id = 1 abc', /unexpected 'abc' at position 8; expected and, or or the end of the filter/],
    ['trailing and', 'id = 1 and', /unexpected end of the filter; expected a column name/],
    ['missing value', 'id =', /unexpected end of the filter; expected a value/],
    ['missing operator', 'id', /after column id; expected an operator/],
    [
      'bare word as value',
      'status = paid',
      /expected a value at position 10 but found 'paid'; write strings in single quotes/,
    ],
    ['column compared with column', 'a = b', /comparing two columns is not supported/],
    ['double-quoted string', 'status = "paid"', /quoted identifier "paid"; write strings in single quotes/],
    ['compare with null', 'id = null', /null at position 6: comparing with null is never true in SQL; use id is null/],
    ['not-equal null', 'id != NULL', /use id is not null/],
    ['null in an in list', "s in ('a', null)", /null in the in list at position 12 never matches; .*use s is null/],
    ['null in between', 'n between null and 5', /use n is null/],
    ['empty in list', 's in ()', /empty in list/],
    ['unclosed in list', "s in ('a', 'b'", /unexpected end of the filter; expected ',' or '\)' to close the in list/],
    ['in without parentheses', "s in 'a'", /expected '\(' to start the in list/],
    ['like with a number', 's like 5', /expected a 'quoted' pattern after like/],
    ['between without and', 'n between 1 5', /expected 'and' between the two values/],
    ['between with or', 'n between 1 or 5', /expected 'and' between the two values/],
    ['is with a value', 'n is 5', /expected null or not null after 'is'/],
    ['is not with a value', 'n is not true', /expected null after 'is not'/],
    ['not before a comparison', 'n not = 1', /expected in, between or like after 'not'/],
    ['keyword as column', 'and = 1', /found the keyword 'and'.*"and"/],
    ['double and', 'a = 1 and and b = 2', /keyword 'and'/],
    ['unclosed parenthesis', '(a = 1', /expected and, or or '\)' to close the '\(' at position 1/],
    ['unmatched closing parenthesis', 'a = 1)', /unmatched '\)' at position 6/],
    ['empty parentheses', '()', /unexpected '\)' at position 2; expected a column name/],
    ['malformed number', 'id = 1abc', /malformed number '1abc' at position 6/],
    ['hex number', 'id = 0x1f', /malformed number '0x1f'/],
    ['number without fraction digits', 'id = 1.', /malformed number '1\.'/],
    ['leading dot number', 'id = .5', /unexpected '\.' at position 6; expected a value/],
    ['dangling minus', 'id = - 5', /unexpected '-' at position 6; expected a value .*arithmetic/],
    ['identifier starting with a digit', '1abc = 1', /malformed number '1abc'/],
    ['question-mark placeholder', 'id = ?', /unexpected '\?'/],
    ['dollar placeholder', 'id = $1', /unexpected '\$'/],
    ['colon placeholder', 'id = :id', /unexpected ':'/],
    ['union', 'id = 1 union select 1', /unexpected 'union' at position 8/],
    ['10,000-deep parentheses', deepParens, /maxExpressionLength/],
    ['3,000-deep parentheses', deepFits, /deeper than the limit \(maxDepth\) of 32/],
    ['1,500 nots', deepNots, /maxDepth/],
    ['deeply nested groups', deepTree, /maxDepth/],
    ['1 MB string', megabyte, /the filter is 1000006 characters long; the limit \(maxExpressionLength\) is 8000/],
    [
      'string over the literal limit',
      longLiteral,
      /string starting at position 5 is 4001 characters long; the limit \(maxLiteralLength\) is 4000/,
    ],
    ['in list over the limit', hugeList, /more than 1000 values \(limit maxListValues\)/],
    ['too many conditions', manyNodes, /the limit \(maxNodes\) is 500/],
    ['overlong column name', `${'c'.repeat(300)} = 1`, /longer than 256 characters/],
  ])('%s', (_name, text, pattern) => {
    const message = filterErrorOf(() => parseFilterExpression(text));
    expect(message).toMatch(/^filter: /);
    expect(message).toMatch(pattern);
  });

  it('never echoes more than about 40 characters of the input', () => {
    const payload = 'A'.repeat(2_000);
    for (const text of [
      `${payload} = 1`,
      `id = ${payload}`,
      `id = 1 ${payload}`,
      `id ${payload} 1`,
      `id ${'='.repeat(2_000)} 1`,
      `id = 1${payload}`,
      `"${payload}" = 1`,
      `id = "${payload.slice(0, 100)}"`,
    ]) {
      const message = filterErrorOf(() => parseFilterExpression(text));
      expect(message).not.toMatch(/A{41}|={41}/);
    }
  });

  it('names every operator in the operator list', () => {
    for (const op of FILTER_OPS) expect(VALID_OPERATORS_TEXT).toContain(op);
  });
});

describe('normalizeFilterTree', () => {
  it.each<[string, unknown, FilterNode]>([
    ['a comparison', { column: 'id', op: '=', value: 1 }, p('id', '=', 1)],
    ['== alias', { column: 'id', op: '==', value: 1 }, p('id', '=', 1)],
    ['<> alias', { column: 'id', op: '<>', value: 'x' }, p('id', '!=', 'x')],
    [
      'every comparison',
      { or: ['<', '<=', '>', '>='].map((op) => ({ column: 'n', op, value: 1.5 })) },
      { or: ['<', '<=', '>', '>='].map((op) => p('n', op, 1.5)) },
    ],
    ['uppercase operator', { column: 's', op: 'NOT  In', value: ['a', 1, true] }, p('s', 'not in', ['a', 1, true])],
    ['in', { column: 's', op: 'in', value: ['a'] }, p('s', 'in', ['a'])],
    [
      'between',
      { column: 'n', op: 'between', value: [1, '99999999999999999999'] },
      p('n', 'between', [1, '99999999999999999999']),
    ],
    ['not between', { column: 'n', op: 'NOT BETWEEN', value: ['a', 'b'] }, p('n', 'not between', ['a', 'b'])],
    ['like', { column: 's', op: 'like', value: 'a%' }, p('s', 'like', 'a%')],
    ['not like', { column: 's', op: 'not like', value: '%a' }, p('s', 'not like', '%a')],
    ['is null without value', { column: 's', op: 'is null' }, p('s', 'is null')],
    ['is not null ignores a value', { column: 's', op: 'IS NOT NULL', value: 3 }, p('s', 'is not null')],
    ['boolean value', { column: 'b', op: '=', value: false }, p('b', '=', false)],
    ['-0 becomes 0', { column: 'b', op: '=', value: -0 }, p('b', '=', 0)],
    ['single-child and', { and: [{ column: 'a', op: '=', value: 1 }] }, p('a', '=', 1)],
    ['single-child or', { or: [{ column: 'a', op: '=', value: 1 }] }, p('a', '=', 1)],
    [
      'nested same-kind groups merge',
      {
        and: [
          {
            and: [
              { column: 'a', op: '=', value: 1 },
              { column: 'b', op: '=', value: 2 },
            ],
          },
          { column: 'c', op: '=', value: 3 },
        ],
      },
      { and: [p('a', '=', 1), p('b', '=', 2), p('c', '=', 3)] },
    ],
    [
      'or of and and not',
      {
        or: [
          {
            and: [
              { column: 'a', op: '=', value: 1 },
              { column: 'b', op: '=', value: 2 },
            ],
          },
          { not: { column: 'c', op: 'is null' } },
        ],
      },
      { or: [{ and: [p('a', '=', 1), p('b', '=', 2)] }, { not: p('c', 'is null') }] },
    ],
  ])('%s', (_name, input, tree) => {
    expect(normalizeFilterTree(input)).toEqual(tree);
  });

  it('gives the same tree as the expression form', () => {
    const json = {
      or: [
        { column: 'a', op: '=', value: 1 },
        {
          and: [
            { column: 'b', op: '=', value: 2 },
            { column: 'c', op: '=', value: 3 },
          ],
        },
      ],
    };
    expect(normalizeFilterTree(json)).toEqual(parseFilterExpression('a=1 or b=2 and c=3'));
  });

  const deep = (levels: number): unknown => {
    let node: unknown = { column: 'a', op: '=', value: 1 };
    for (let i = 0; i < levels; i++) node = i % 2 ? { not: node } : { and: [node, { column: 'b', op: 'is null' }] };
    return node;
  };

  it.each<[string, unknown, RegExp]>([
    ['a string node', 'id = 1', /^filter: expected a condition .* got a string/],
    ['null node', null, /^filter: expected a condition .* got null/],
    ['an array node', [{ column: 'a', op: '=', value: 1 }], /^filter: .* got an array/],
    ['empty object', {}, /^filter: empty object/],
    ['unknown key', { column: 'a', op: '=', value: 1, extra: 1 }, /^filter: unknown key "extra"/],
    ['sql key', { sql: '1=1' }, /^filter: unknown key "sql"/],
    [
      'proto key',
      JSON.parse('{"__proto__": {"x": 1}, "column": "a", "op": "=", "value": 1}'),
      /unknown key "__proto__"/,
    ],
    ['two group keys', { and: [{ column: 'a', op: 'is null' }], or: [] }, /^filter: unexpected key "or" next to "and"/],
    [
      'group and predicate keys',
      { and: [{ column: 'a', op: 'is null' }], column: 'a' },
      /unexpected key "column" next to "and"/,
    ],
    ['empty and', { and: [] }, /^filter\.and: expected a non-empty array .* got an empty array/],
    ['or not an array', { or: { column: 'a' } }, /^filter\.or: expected a non-empty array/],
    [
      'not with an array',
      { not: [{ column: 'a', op: 'is null' }] },
      /^filter\.not: expected a condition .* got an array/,
    ],
    [
      'unknown operator ==~',
      {
        and: [
          { column: 'a', op: 'is null' },
          { column: 'a', op: '=~', value: 1 },
        ],
      },
      /^filter\.and\[1\]\.op: unknown operator '=~'; valid operators: = != <>/,
    ],
    ['ilike', { column: 'a', op: 'ilike', value: 'x' }, /^filter\.op: unknown operator 'ilike'/],
    ['missing op', { column: 'a', value: 1 }, /^filter\.op: expected an operator .* got nothing/],
    ['numeric op', { column: 'a', op: 1, value: 1 }, /^filter\.op: expected an operator .* got a number/],
    ['missing column', { op: '=', value: 1 }, /^filter\.column: expected a column name .* got nothing/],
    ['empty column', { column: '', op: '=', value: 1 }, /^filter\.column: the column name is empty/],
    ['control character in column', { column: 'a\nb', op: '=', value: 1 }, /control character/],
    ['overlong column', { column: 'c'.repeat(300), op: '=', value: 1 }, /longer than 256/],
    ['missing value', { column: 'a', op: '>' }, /^filter\.value: missing; '>' needs a value/],
    [
      'null value',
      { column: 'a', op: '=', value: null },
      /^filter\.value: comparing with null is never true in SQL; use a is null/,
    ],
    ['null value with !=', { column: 'a', op: '<>', value: null }, /use a is not null/],
    ['array for =', { column: 'a', op: '=', value: [1] }, /needs a single value, not an array/],
    [
      'object value',
      { column: 'a', op: '=', value: { raw: '1=1' } },
      /^filter\.value: expected a string, number or boolean; got an object/,
    ],
    ['NaN', { column: 'a', op: '=', value: Number.NaN }, /numbers must be finite/],
    ['Infinity', { column: 'a', op: '=', value: Number.POSITIVE_INFINITY }, /numbers must be finite/],
    ['unsafe integer', { column: 'a', op: '=', value: 2 ** 60 }, /beyond ±\(2\^53-1\).*send it as a string/],
    [
      'in with a scalar',
      { column: 'a', op: 'in', value: 1 },
      /^filter\.value: 'in' needs a non-empty array of values; got a number/,
    ],
    ['empty in list', { column: 'a', op: 'not in', value: [] }, /got an empty array/],
    [
      'null in an in list',
      { column: 'a', op: 'in', value: [1, null] },
      /^filter\.value\[1\]: null in an in list never matches; use a is null/,
    ],
    [
      'nested array in list',
      { column: 'a', op: 'in', value: [[1]] },
      /^filter\.value\[0\]: expected a string, number or boolean/,
    ],
    [
      'between with one value',
      { column: 'a', op: 'between', value: [1] },
      /'between' needs an array of two values \[low, high\]; got an array of 1/,
    ],
    ['between with three values', { column: 'a', op: 'between', value: [1, 2, 3] }, /got an array of 3/],
    [
      'null in between',
      { column: 'a', op: 'between', value: [null, 2] },
      /^filter\.value\[0\]: comparing with null is never true/,
    ],
    ['like with a number', { column: 'a', op: 'like', value: 5 }, /'like' needs a string pattern; got a number/],
    ['long string', { column: 'a', op: '=', value: 'x'.repeat(4_001) }, /maxLiteralLength/],
    ['NUL in string', { column: 'a', op: '=', value: 'a\u0000' }, /NUL/],
    [
      'huge in list',
      { column: 'a', op: 'in', value: Array.from({ length: 1_001 }, (_, i) => i) },
      /1001 values; the limit \(maxListValues\) is 1000/,
    ],
    ['huge and', { and: Array.from({ length: 10_000 }, () => ({ column: 'a', op: 'is null' })) }, /maxNodes/],
    [
      'too many nodes',
      {
        or: Array.from({ length: 400 }, () => ({
          and: [
            { column: 'a', op: 'is null' },
            { column: 'b', op: 'is null' },
          ],
        })),
      },
      /more than 500 .*maxNodes/,
    ],
    ['10,000 nested nots', deep(10_000), /maxDepth/],
    ['33 nested groups', deep(33), /deeper than the limit \(maxDepth\) of 32/],
    [
      'path into a nested group',
      {
        or: [
          { column: 'a', op: 'is null' },
          {
            not: {
              and: [
                { column: 'a', op: 'is null' },
                { column: 'b', op: 'like' },
              ],
            },
          },
        ],
      },
      /^filter\.or\[1\]\.not\.and\[1\]\.value: missing; 'like' needs a string pattern/,
    ],
    ['long unknown op is truncated', { column: 'a', op: '='.repeat(1_000), value: 1 }, /unknown operator '={30}…'/],
  ])('%s', (_name, input, pattern) => {
    expect(filterErrorOf(() => normalizeFilterTree(input))).toMatch(pattern);
  });

  it('accepts 32 nested groups', () => {
    expect(() => normalizeFilterTree(deep(32))).not.toThrow();
  });

  it('normalizes operator spellings', () => {
    expect(normalizeOperator(' Is  Not\tNull ')).toBe('is not null');
    expect(normalizeOperator('<>')).toBe('!=');
    expect(normalizeOperator('==')).toBe('=');
    expect(normalizeOperator('===')).toBeUndefined();
    for (const op of FILTER_OPS) expect(normalizeOperator(op.toUpperCase())).toBe(op);
  });
});

describe('parseFilter', () => {
  it('dispatches on the form', () => {
    expect(parseFilter('a = 1')).toEqual(p('a', '=', 1));
    expect(parseFilter({ column: 'a', op: '=', value: 1 })).toEqual(p('a', '=', 1));
  });

  it.each<[string, unknown, RegExp]>([
    ['empty string', '', /empty/],
    ['whitespace string', '  \t ', /empty/],
    ['number', 5, /expected an expression string or a JSON filter object; got a number/],
    ['null', null, /got null/],
    ['array', [], /got an array/],
  ])('rejects %s', (_name, input, pattern) => {
    expect(filterErrorOf(() => parseFilter(input as string))).toMatch(pattern);
  });
});

describe('lexFilter', () => {
  it('writes each literal as a marker of its kind, and lists the literals in order', () => {
    const lexed = lexFilter("status in ('paid', 'x') and total between -1 and 2.5 and vip = TRUE and note is null");
    expect(lexed.template).toBe(
      'status in (\u0000s, \u0000s) and total between \u0000n and \u0000n and vip = \u0000b and note is null',
    );
    expect(lexed.literals).toEqual(['paid', 'x', -1, 2.5, true]);
  });

  it('keeps the kinds apart, so a template never serves a filter the parser would refuse', () => {
    expect(lexFilter("note like 'a%'").template).not.toBe(lexFilter('note like 5').template);
    expect(lexFilter('id = 5').template).not.toBe(lexFilter("id = '5'").template);
    expect(() => lexFilter('note like 5').parse()).toThrow(/a 'quoted' pattern after like/);
  });

  it('keeps big integers as the parser does', () => {
    expect(lexFilter('id = 9007199254740993').literals).toEqual(['9007199254740993']);
    expect(lexFilter('id = -0 or id = 007').literals).toEqual([0, 7]);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['NUL', 'id = 1\u0000'],
    ['too long', `id = ${'1'.repeat(FILTER_LIMITS.maxExpressionLength)}`],
    ['unterminated', "note = 'open"],
    ['malformed number', 'id = 1abc'],
    ['comment', 'id = 1 -- comment'],
  ])('refuses a filter (%s) as parseFilterExpression does, before any template', (_, text) => {
    expect(filterErrorOf(() => lexFilter(text))).toBe(filterErrorOf(() => parseFilterExpression(text)));
  });
});
