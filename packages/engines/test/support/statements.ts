/**
 * A seeded generator of SQL text for the differential tests of the sql tool's guards: statements
 * that mix every comment, quote and escape form, control bytes and Unicode spaces with markers,
 * code the server shows it ran (a user variable it set, a function it called). The same marker
 * text also lands inside strings and comments, where it must not run; which reading wins is the
 * server's to say, and the guard's reading is compared with it.
 */

/** mulberry32: small, fast, and the same sequence for a seed on every machine. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Case {
  text: string;
  /** the markers in the text, each a number the server shows when it ran that marker */
  markers: number[];
}

/** What an engine's statements are made of. `marker(k)` is code that runs marker k, after an expression. */
export interface Vocabulary {
  /** whitespace, control bytes and Unicode spaces */
  spaces: readonly string[];
  /** what opens a comment (or looks as if it might) */
  openers: readonly string[];
  /** what might close one */
  closers: readonly string[];
  /** quote characters, doubled quotes and escapes */
  quotes: readonly string[];
  /** complete string literals' openings and closings: [open, close] */
  literals: readonly (readonly [string, string])[];
  /** harmless code after an expression: `, 1` */
  items: readonly string[];
  /** code that runs marker k, in several spellings */
  marker: (k: number, pick: <T>(xs: readonly T[]) => T) => string;
  /** the statement every case starts with: one expression */
  start: string;
  /** disagreements found before (the issue's, the suite's own), each given its marker number: run first */
  known: readonly ((k: number) => string)[];
}

/** `count` cases from `seed`: most built as items, separators and literals, the rest a free soup of the same atoms. */
export function* statements(vocabulary: Vocabulary, seed: number, count: number): Generator<Case> {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const { spaces, openers, closers, quotes, literals, items } = vocabulary;
  for (const [i, known] of vocabulary.known.entries()) {
    const k = (seed % 1000) * 10_000_000 + 9_000_000 + i;
    yield { text: known(k), markers: [k] };
  }
  for (let n = 0; n < count; n++) {
    const markers: number[] = [];
    const marker = () => {
      // unique per seed too: a variable one case sets stays on the connection for the next ones
      const k = (seed % 1000) * 10_000_000 + n * 100 + markers.length + 1;
      markers.push(k);
      return vocabulary.marker(k, pick);
    };
    // Quotes weigh most: a disagreement is nearly always a quote or comment that one reader closes and the other not.
    const atom = (): string => {
      const x = r();
      if (x < 0.1) return pick(spaces);
      if (x < 0.25) return pick(openers);
      if (x < 0.35) return pick(closers);
      if (x < 0.65) return pick(quotes);
      if (x < 0.8) return marker();
      if (x < 0.9) return pick(items);
      return pick(['a', 'x', '1', '(', ')', '.', '*', '/', '-', '\\', 'e', '$', ':', '=', '@']);
    };
    const atoms = (max: number) => Array.from({ length: Math.floor(r() * (max + 1)) }, atom).join('');
    let text = vocabulary.start;
    if (r() < 0.6) {
      // items between separators: coarse pieces, so more of them parse under both readings
      const length = 1 + Math.floor(r() * 6);
      for (let i = 0; i < length; i++) {
        const sep = r();
        if (sep < 0.35) text += pick(spaces);
        else if (sep < 0.75) text += pick(openers) + atoms(2) + pick(closers);
        const item = r();
        if (item < 0.35) text += marker();
        else if (item < 0.7) {
          const [open, close] = pick(literals);
          text += `, ${open}${atoms(2)}${close}`;
        } else text += pick(items);
      }
    } else {
      text += atoms(12);
    }
    // A NUL never reaches a guard: the sql tool refuses it first.
    yield { text: text.replaceAll('\u0000', ''), markers };
  }
}

/** Every control byte but NUL (the sql tool refuses it before any guard), DEL included. */
const CONTROLS = [...Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)), '\x7f'];

/** What may follow `--`: every control byte, space, Unicode spaces, a letter, a dash, or nothing at all. */
const DASH_FOLLOWERS = [...CONTROLS, ' ', '\u0085', '\u00a0', '\u2028', '', 'x', '-'];

/** Whitespace as each engine might see it: every control byte, CRLF, and Unicode's spaces. */
const CONTROL_AND_UNICODE_SPACES = [
  ...CONTROLS,
  ' ',
  '\r\n',
  '\u0085',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2007',
  '\u200b',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];

/** MariaDB and MySQL: `--` and its followers, `#`, block and version comments, three quotes, backslashes. */
export const MARIADB: Vocabulary = {
  start: 'select 0',
  known: [
    // a line comment runs to the newline: a carriage return does not end it
    (k) => `select 0 -- \r'\n, @m${k} := ${k} -- '`,
    (k) => `select 0 # \r'\n, @m${k} := ${k} -- '`,
    (k) => `select 0 -- \r'\n, last_insert_id(${k}) -- '`,
    // DEL after -- starts a comment, as every control character does: each of them, and a space
    ...[...CONTROLS, ' '].map((c) => (k: number) => `select 0 --${c}'\n, @m${k} := ${k} -- '`),
    ...[...CONTROLS, ' '].map((c) => (k: number) => `select 0 --${c}@m${k} := ${k}\n, 1`),
    // a number ends where its digits end, before a keyword (INTO stores the row in the variable)
    (k) => `select 1.5into @m${k}`,
    (k) => `select 1e0into @m${k}`,
    (k) => `select .5into @m${k}`,
    (k) => `select 0.e1into @m${k}`,
    // MariaDB 10.11 reads an optimizer hint as a comment
    (k) => `select /*+ , @m${k} := ${k} */ 0`,
  ],
  spaces: CONTROL_AND_UNICODE_SPACES,
  openers: [
    ...DASH_FOLLOWERS.map((f) => `--${f}`),
    '#',
    '/*',
    '/**',
    '/*!',
    '/*!50000',
    '/*!50000 ',
    '/*!999999 ',
    '/*M!',
    '/*M!100000 ',
    '/*M!999999 ',
    '/*+',
    '/*+ ',
  ],
  closers: ['*/', '\n', '\r', '\r\n', '**/'],
  quotes: ["'", '"', '`', "''", '""', '``', '\\', "\\'", '\\"', '\\\\', '\\\n', "\\'\\'"],
  literals: [
    ["'", "'"],
    ['"', '"'],
    ["_utf8mb4'", "'"],
    ["N'", "'"],
    ['`', '`'],
  ],
  items: [
    ', 1',
    ", 'a'",
    ', "b"',
    ", x'41'",
    ', 1--1',
    ', 2-- -1',
    ', 0x41',
    ', 1#',
    ', `c`',
    ', 0b101',
    ", b'101'",
    ', 1.5e3',
    ', .5',
    ', 1.',
    ', 1e5x',
    ', 1.5abc',
  ],
  marker: (k, pick) =>
    pick([
      `, @m${k} := ${k}`,
      `,@m${k}:=${k}`,
      `, @\`m${k}\` := ${k}`,
      `, @'m${k}' := ${k}`,
      `, last_insert_id(${k})`,
      `, \`last_insert_id\`(${k})`,
      `, LAST_INSERT_ID (${k})`,
      `, last_insert_id/**/(${k})`,
    ]),
};

/**
 * PostgreSQL: `--`, nested block comments, standard and E'' strings, U&'' strings and names,
 * dollar quotes tagged and untagged. Markers call mark(k), which the test database defines.
 */
export const POSTGRES: Vocabulary = {
  start: 'select 0',
  known: [
    // standard_conforming_strings off: '\'' is a whole string, and the rest is code
    (k) => `select 0, '\\'', mark(${k}), ' --'\n, 1`,
    (k) => `select 0, '\\'', mark(${k}), E'\\''`,
  ],
  spaces: CONTROL_AND_UNICODE_SPACES,
  openers: [...DASH_FOLLOWERS.map((f) => `--${f}`), "--'", '/*', '/*/*', '/**', '/* /*'],
  closers: ['*/', '*/*/', '\n', '\r', '\r\n'],
  quotes: [
    "'",
    '"',
    "''",
    '""',
    '\\',
    "\\'",
    '\\\\',
    "E'",
    "e'",
    "U&'",
    'U&"',
    " UESCAPE '!'",
    '$$',
    '$a$',
    '$A$',
    '$a$$',
    '$_$',
    '$1',
    "\\'\\'",
    "'\\''",
    "\\''",
    "'\\'",
  ],
  literals: [
    ["'", "'"],
    ["E'", "'"],
    ["U&'", "'"],
    ["U&'", "' UESCAPE '!'"],
    ['$$', '$$'],
    ['$a$', '$a$'],
    ['$q$', '$q$'],
    ['"', '"'],
  ],
  items: [', 1', ", 'a'", ', 1--1', ', 2-- -1', ", E'\\''", ", '\\''", ', $$x$$', ', "c"'],
  marker: (k, pick) =>
    pick([`, mark(${k})`, `,mark(${k})`, `, "mark"(${k})`, `, U&"\\006dark"(${k})`, `, mark /**/ (${k})`]),
};

/**
 * MariaDB's number spellings and near misses: integers, decimals with and without digits on either
 * side of the point, exponents with and without signs, hex and bit literals in both forms, and names
 * that begin with digits (`1e`, `1ex`, `0x`, `0b12`, `1$`), which sql_lex.cc reads as names.
 */
const NUMBERS = [
  '0',
  '1',
  '12',
  '007',
  '.5',
  '1.',
  '1.5',
  '1e5',
  '1E5',
  '1e+5',
  '1e-5',
  '1.e5',
  '.5e5',
  '1.5e5',
  '1.5E-3',
  '0x1F',
  '0x1f',
  '0X1F',
  '0x',
  '0xg',
  '0b101',
  '0b12',
  '0B1',
  '0b',
  "x'1F'",
  "X'1f'",
  "b'101'",
  '1e',
  '1ex',
  '1e+x',
  '1..2',
  '1$',
  '1_2',
  '1\u00e9',
  '9223372036854775808',
  '1.5e',
  '.5e+',
];

/** What may touch a number's last digit: nothing, names, keywords, dots, signs, comments, spaces. */
const AFTER_NUMBER = [
  '',
  'into',
  'x',
  'abc',
  'e',
  'e5',
  'E',
  '.',
  '.5',
  '.x',
  '$',
  '_',
  '\u00e9',
  'in',
  'is',
  'div',
  'and',
  'or',
  'as',
  'from',
  'union',
  'like',
  'mod',
  'xor',
  'limit',
  'e+',
  '+1',
  '-x',
  '#',
  '-- ',
  '/*x*/',
  ' ',
  '\u00a0',
];

/**
 * `select <number><what touches it>`, some ending in `into @m<k>` (the row goes into the variable,
 * which the server shows): where a number ends decides whether INTO is a keyword or part of a name.
 */
export function* numbers(seed: number, count: number): Generator<Case> {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  for (let n = 0; n < count; n++) {
    let text = `select ${pick(NUMBERS)}${pick(AFTER_NUMBER)}${r() < 0.3 ? pick(AFTER_NUMBER) : ''}`;
    const markers: number[] = [];
    if (r() < 0.4) {
      const k = (seed % 1000) * 10_000_000 + 5_000_000 + n;
      markers.push(k);
      text += `${pick(['', ' ', 'into', ' into'])}${pick(['', ' '])}@m${k}`;
    }
    yield { text, markers };
  }
}
