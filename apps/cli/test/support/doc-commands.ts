/**
 * The command lines a user would copy from the docs: shell lines in fenced code blocks that start
 * mcp-db-bench or mcp-db-server, as words ready for the programs' parsers. Pure: text in, words out.
 */

/** One simple command: its `VAR=value` prefixes, its words, and what kept it from being literal. */
export interface ShellCommand {
  env: Record<string, string>;
  words: string[];
  /** `$NAME`, `$(…)` or `<name>` with no example value: the words are not what a user would type. */
  placeholders: string[];
  /** A word holds `...` or `…`: the line is an outline, not a command. */
  ellipsis: boolean;
}

const SEPARATORS = ['&&', '||', '|', ';', '&'] as const;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

/**
 * Splits one shell line (continuations already joined) into simple commands, the way sh would for
 * what the docs hold: single and double quotes, backslash escapes, `#` comments, `$NAME`, `${NAME}`
 * and `<name>` replaced from `vars`, `$(…)` kept whole, `VAR=value` prefixes, a new command after
 * `|`, `||`, `&&`, `;` or `&`, and the words after a redirection (`>`, `2>&1`, `<`) dropped.
 * No globbing, no brace expansion, no keywords: a test helper, not a shell.
 */
export function shellCommands(line: string, vars: Readonly<Record<string, string>> = {}): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let command: ShellCommand = { env: {}, words: [], placeholders: [], ellipsis: false };
  let word: string | undefined;
  let quotedStart = false; // a quoted first character: `"A=b" cmd` is a word, not an assignment
  let redirected = false;
  let i = 0;

  const endWord = () => {
    if (word === undefined || redirected) {
      word = undefined;
      return;
    }
    if (/\.\.\.|…/.test(word)) command.ellipsis = true;
    const assignment = ASSIGNMENT.exec(word);
    if (command.words.length === 0 && assignment && !quotedStart) command.env[assignment[1]!] = assignment[2]!;
    else command.words.push(word);
    word = undefined;
  };
  const endCommand = () => {
    endWord();
    if (command.words.length > 0 || Object.keys(command.env).length > 0) commands.push(command);
    command = { env: {}, words: [], placeholders: [], ellipsis: false };
    redirected = false;
  };
  const append = (text: string, quoted = false) => {
    if (word === undefined) quotedStart = quoted;
    word = (word ?? '') + text;
  };
  const unknown = (text: string) => {
    command.placeholders.push(text);
    return text;
  };
  // At a `$`: the variable's example value, or the text itself noted as a placeholder.
  const expand = (): string => {
    const rest = line.slice(i + 1);
    const name = /^\{([A-Za-z_]\w*)\}/.exec(rest) ?? /^([A-Za-z_]\w*)/.exec(rest);
    if (name) {
      i += 1 + name[0].length;
      return vars[name[1]!] ?? unknown(`$${name[1]}`);
    }
    if (rest.startsWith('(')) {
      let depth = 0;
      let j = i + 1;
      for (; j < line.length; j++) {
        if (line[j] === '(') depth++;
        else if (line[j] === ')' && --depth === 0) break;
      }
      const text = line.slice(i, j + 1);
      i = j + 1;
      return unknown(text);
    }
    i += 1;
    return '$';
  };

  while (i < line.length) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      endWord();
      i++;
    } else if (c === '#' && word === undefined) {
      break;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      const stop = end < 0 ? line.length : end;
      append(line.slice(i + 1, stop), true);
      i = stop + 1;
    } else if (c === '"') {
      append('', true);
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && '"\\$`'.includes(line[i + 1] ?? '')) {
          append(line[i + 1]!);
          i += 2;
        } else if (line[i] === '$') append(expand());
        else append(line[i++]!);
      }
      i++;
    } else if (c === '\\') {
      append(line[i + 1] ?? '', true);
      i += 2;
    } else if (c === '$') {
      append(expand());
    } else if (c === '<') {
      const placeholder = /^<[A-Za-z][\w .-]*>/.exec(line.slice(i))?.[0];
      if (placeholder) {
        append(vars[placeholder] ?? unknown(placeholder));
        i += placeholder.length;
      } else {
        endWord();
        redirected = true;
        i++;
      }
    } else if (c === '>') {
      if (word !== undefined && /^\d$/.test(word)) word = undefined; // 2>
      endWord();
      redirected = true;
      while (line[i] === '>') i++;
      if (line[i] === '&') i++; // >&2
    } else {
      const separator = SEPARATORS.find((s) => line.startsWith(s, i));
      if (separator) {
        endCommand();
        i += separator.length;
      } else {
        append(c);
        i++;
      }
    }
  }
  endCommand();
  return commands;
}

export type ProgramName = 'mcp-db-bench' | 'mcp-db-server';

/** The program a command's words start, and its arguments; also after a `--` (`claude mcp add … -- npx …`). */
export function invocation(words: readonly string[]): { program: ProgramName; args: string[] } | undefined {
  const starts = [0, ...words.flatMap((w, i) => (w === '--' ? [i + 1] : []))];
  for (const start of starts) {
    const found = invocationAt(words, start);
    if (found) return found;
  }
  return undefined;
}

const KEYWORDS = new Set(['do', 'then', 'else', 'time', 'exec']);

function invocationAt(words: readonly string[], start: number): { program: ProgramName; args: string[] } | undefined {
  let i = start;
  while (KEYWORDS.has(words[i] ?? '')) i++;
  const at = (program: ProgramName, next: number) => ({ program, args: words.slice(next) });
  const bin = (name: string | undefined): ProgramName | undefined => {
    if (name === 'mcp-db-bench' || name?.startsWith('mcp-db-bench@')) return 'mcp-db-bench';
    if (name === 'mcp-db-server' || name === '@mcp-db-bench/server' || name?.startsWith('@mcp-db-bench/server@'))
      return 'mcp-db-server';
    return undefined;
  };
  const word = words[i];
  if (word === 'mcp-db-bench' || word === 'mcp-db-server') return at(word, i + 1);
  if (word === 'npx') {
    let j = i + 1;
    while (words[j]?.startsWith('-')) j += words[j] === '-p' || words[j] === '--package' ? 2 : 1;
    const program = bin(words[j]);
    return program && at(program, j + 1);
  }
  if (word === 'pnpm') {
    const j = words[i + 1] === 'exec' ? i + 2 : i + 1;
    return words[j] === 'mcp-db-bench' ? at('mcp-db-bench', j + 1) : undefined;
  }
  if (word === 'node') {
    const script = `/${words[i + 1] ?? ''}`;
    if (script.endsWith('/apps/cli/dist/bin.js')) return at('mcp-db-bench', i + 2);
    if (script.endsWith('/packages/server/dist/bin.js')) return at('mcp-db-server', i + 2);
  }
  return undefined;
}

/** A command line found in a doc, with why it cannot be checked when it cannot. */
export interface DocCommand {
  file: string;
  line: number;
  text: string;
  program: ProgramName;
  args: string[];
  env: Record<string, string>;
  skip?: string;
}

const SHELL_FENCES = new Set(['', 'sh', 'bash', 'shell', 'console']);

/**
 * Every invocation of the two programs in a markdown file's shell fences (sh, bash, shell, console
 * or unlabelled), a `--target-cmd` command inside one included; `line` is where it starts.
 */
export function docCommands(file: string, markdown: string, vars: Readonly<Record<string, string>>): DocCommand[] {
  const found: DocCommand[] = [];
  const lines = markdown.split('\n');
  let fence: string | undefined; // the open fence's language
  for (let n = 0; n < lines.length; n++) {
    const open = /^\s*```\s*([\w-]*)/.exec(lines[n]!);
    if (open) {
      fence = fence === undefined ? open[1]!.toLowerCase() : undefined;
      continue;
    }
    if (fence === undefined || !SHELL_FENCES.has(fence)) continue;
    const start = n;
    let text = lines[n]!;
    while (text.endsWith('\\') && n + 1 < lines.length && !/^\s*```/.test(lines[n + 1]!))
      text = `${text.slice(0, -1)}${lines[++n]}`;
    if (fence === 'console') {
      if (!/^\s*\$ /.test(text)) continue; // output, not a command
      text = text.replace(/^\s*\$ /, '');
    }
    for (const command of shellCommands(text, vars)) {
      const call = invocation(command.words);
      if (!call) continue;
      const skip = command.ellipsis
        ? 'an ellipsis'
        : command.placeholders.length > 0
          ? `unknown placeholder ${command.placeholders.join(', ')}`
          : undefined;
      const entry = { file, line: start + 1, text: text.trim().replace(/\s+/g, ' '), ...call, env: command.env };
      found.push(skip ? { ...entry, skip } : entry);
      if (call.program === 'mcp-db-bench' && !skip) found.push(...targetCommands(entry, vars));
    }
  }
  return found;
}

/** `run --target-cmd CMD` and `record --target-cmd CMD` name a command line of their own: ours is checked too. */
function targetCommands(outer: DocCommand, vars: Readonly<Record<string, string>>): DocCommand[] {
  const inner: DocCommand[] = [];
  outer.args.forEach((arg, i) => {
    const value =
      arg === '--target-cmd' ? outer.args[i + 1] : arg.startsWith('--target-cmd=') ? arg.slice(13) : undefined;
    if (value === undefined) return;
    for (const command of shellCommands(value, vars)) {
      const call = invocation(command.words);
      if (call) inner.push({ ...outer, text: value, ...call, env: command.env });
    }
  });
  return inner;
}
