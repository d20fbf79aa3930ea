/**
 * Runs the shell statements of a markdown file's `sh` blocks as a user pasting them would: each
 * through bash, in a work directory laid out like a clone, with the bins on PATH. How a statement
 * is run (to its end, as a server kept up for the rest of its block, over stdio, or started and
 * then stopped with Ctrl-C) or why it cannot run here comes from a plan of patterns; a statement
 * no pattern names is run to its end and must exit 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';

/** One statement: continuation lines joined, a `for … done` or `f() { … }` kept whole. */
export interface Statement {
  /** The `## ` section it is in: one terminal's life (its servers and variables) in the README's reading. */
  section: number;
  line: number;
  /** The last line it spans. */
  end: number;
  text: string;
}

/** The statements of every ```sh (or bash, shell) fence, in order; unlabelled fences hold output. */
export function shellStatements(markdown: string): Statement[] {
  const statements: Statement[] = [];
  const lines = markdown.split('\n');
  let fence: string | undefined;
  let section = 0;
  let open: Statement | undefined; // a compound statement still missing its end
  let depth = 0;
  for (let n = 0; n < lines.length; n++) {
    const marker = /^\s*```\s*([\w-]*)/.exec(lines[n]!);
    if (marker) {
      fence = fence === undefined ? marker[1]!.toLowerCase() : undefined;
      continue;
    }
    if (fence === undefined && lines[n]!.startsWith('## ')) section++;
    if (fence === undefined || !['sh', 'bash', 'shell'].includes(fence)) continue;
    const start = n;
    let text = lines[n]!;
    while (text.endsWith('\\') && n + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++n]!.trim()}`;
    if (text.trim() === '' || text.trim().startsWith('#')) continue;
    const code = text.replace(/\s#.*$/, '');
    depth += (code.match(/\bdo\b|\{\s*$/g) ?? []).length - (code.match(/\bdone\b|^\s*\}/g) ?? []).length;
    if (open) open.text += `\n${text}`;
    else open = { section, line: start + 1, end: n + 1, text };
    open.end = n + 1;
    if (depth <= 0) {
      statements.push(open);
      open = undefined;
      depth = 0;
    }
  }
  return statements;
}

/** How one statement runs; the first plan entry whose pattern matches the statement decides. */
export type Mode =
  /** Cannot run on a test machine: said why, and counted. */
  | { kind: 'skip'; reason: string }
  /** A foreground server: up once its `--port` (or MCP_DB_PORT) accepts connections, stopped (SIGTERM) when its section ends. */
  | { kind: 'server' }
  /** A stdio MCP server: answers `initialize` on stdin, then exits 0 when stdin closes. */
  | { kind: 'stdio' }
  /** Too long to wait for: passes once its output matches `ready`, then gets Ctrl-C and must stop. */
  | { kind: 'started'; ready: RegExp; fail?: RegExp; why: string }
  /** Run in the repository itself (it works on the clone, not on files of its own). */
  | { kind: 'in-root' }
  /** Run to its end in the work directory: must exit 0 (what a statement no plan names gets). */
  | { kind: 'run' };

export interface PlanEntry {
  match: RegExp;
  mode: Mode;
  /** Files the statement reads that earlier statements do not make: made before it runs. */
  inputs?: () => void;
}

export interface Outcome {
  statement: Statement;
  how: string;
  error?: string;
  /** How long it took to run, be ready, or answer. */
  seconds?: number;
}

export interface RunOptions {
  root: string;
  work: string;
  env: NodeJS.ProcessEnv;
  plan: readonly PlanEntry[];
  /** The README's fixed ports, each replaced by a free one so the test runs beside other servers. */
  ports: Readonly<Record<string, number>>;
  timeoutMs: number;
  /** Told each statement as it starts (the test's progress, on a slow machine). */
  onStart?: (statement: Statement, how: string) => void;
}

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(script: string, cwd: string, env: NodeJS.ProcessEnv, stdin = false): Running {
  // its own process group, so a stop reaches what the statement started (npx, a pipeline, a loop)
  const child = spawn('bash', ['-c', script], {
    cwd,
    env,
    detached: true,
    stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

function signalGroup(running: Running, signal: NodeJS.Signals): void {
  try {
    process.kill(-running.child.pid!, signal);
  } catch {
    // already gone
  }
}

/** Resolves with the exit, or undefined after `ms` (the group then gets SIGKILL). */
async function within(running: Running, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  const result = await Promise.race([running.exited, late]);
  clearTimeout(timer);
  if (result === undefined) {
    signalGroup(running, 'SIGKILL');
    await running.exited;
  }
  return result;
}

async function until(test: () => boolean | Promise<boolean>, running: Running, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  let gone = false;
  void running.exited.then(() => {
    gone = true;
  });
  while (Date.now() < deadline) {
    if (await test()) return true;
    if (gone) return test();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const tail = (output: string) => output.trim().split('\n').slice(-12).join('\n');

/**
 * Runs every statement in order; a statement's failure does not stop the others. Shell state a
 * later statement needs (`export`, `NAME=value`, a function) is carried into it, as in one terminal.
 */
export async function runStatements(statements: readonly Statement[], options: RunOptions): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let section = -1;
  let carried: string[] = [];
  let servers: { statement: Statement; running: Running }[] = [];
  const stopServers = async () => {
    for (const { statement, running } of servers) {
      const outcome = outcomes.find((o) => o.statement === statement)!;
      if (running.child.exitCode !== null || running.child.signalCode !== null)
        outcome.error ??= `the server stopped before its section ended:\n${tail(running.output())}`;
      signalGroup(running, 'SIGTERM');
      if ((await within(running, 10_000)) === undefined) outcome.error ??= 'did not stop within 10 s of SIGTERM';
    }
    servers = [];
  };

  for (const statement of statements) {
    if (statement.section !== section) {
      await stopServers();
      section = statement.section;
      carried = [];
    }
    const entry = options.plan.find((p) => p.match.test(statement.text));
    const mode: Mode = entry?.mode ?? { kind: 'run' };
    if (mode.kind === 'skip') {
      outcomes.push({ statement, how: `skipped: ${mode.reason}` });
      continue;
    }
    let text = statement.text;
    for (const [from, to] of Object.entries(options.ports))
      text = text.replace(new RegExp(`\\b${from}\\b`, 'g'), String(to));
    const script = ['set -e', ...carried, text].join('\n');
    const cwd = mode.kind === 'in-root' ? options.root : options.work;
    const outcome: Outcome = { statement, how: mode.kind };
    outcomes.push(outcome);
    const began = Date.now();
    options.onStart?.(statement, mode.kind);
    if (/^(export |[A-Za-z_]\w*=|[A-Za-z_][\w-]*\(\)\s*\{)/.test(text)) carried.push(text);
    try {
      entry?.inputs?.();
    } catch (error) {
      outcome.error = `its inputs could not be made: ${(error as Error).message}`;
      continue;
    }

    if (mode.kind === 'server') {
      const port = Number(/--port[= ](\d+)/.exec(text)?.[1] ?? options.env.MCP_DB_PORT);
      const running = start(script, cwd, options.env);
      if (!(await until(() => accepts(port), running, options.timeoutMs))) {
        outcome.error = `nothing listened on 127.0.0.1:${port}:\n${tail(running.output())}`;
        signalGroup(running, 'SIGKILL');
        await running.exited;
      } else servers.push({ statement, running });
    } else if (mode.kind === 'stdio') {
      const running = start(script, cwd, options.env, true);
      running.child.stdin!.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'readme-test', version: '0' } } })}\n`,
      );
      const answered = await until(
        () => /"result":\{.*"serverInfo"/.test(running.output()),
        running,
        options.timeoutMs,
      );
      running.child.stdin!.end();
      const exit = await within(running, 10_000);
      if (!answered) outcome.error = `no initialize result on stdout:\n${tail(running.output())}`;
      else if (exit?.code !== 0)
        outcome.error = `exited ${exit?.code ?? 'late'} after stdin closed:\n${tail(running.output())}`;
    } else if (mode.kind === 'started') {
      const running = start(script, cwd, options.env);
      const ready = await until(() => mode.ready.test(running.output()), running, options.timeoutMs);
      signalGroup(running, 'SIGINT');
      const exit = await within(running, 15_000);
      if (!ready) outcome.error = `its output never matched ${mode.ready}:\n${tail(running.output())}`;
      else if (mode.fail?.test(running.output()))
        outcome.error = `its output matched ${mode.fail}:\n${tail(running.output())}`;
      else if (exit === undefined) outcome.error = 'did not stop within 15 s of Ctrl-C';
      else if (exit.code !== 130 && exit.signal !== 'SIGINT')
        outcome.error = `Ctrl-C ended it with ${exit.code ?? exit.signal}, not 130:\n${tail(running.output())}`;
    } else {
      const running = start(script, cwd, options.env);
      const exit = await within(running, options.timeoutMs);
      if (exit === undefined)
        outcome.error = `still running after ${options.timeoutMs / 1000} s:\n${tail(running.output())}`;
      else if (exit.code !== 0) outcome.error = `exited ${exit.code ?? exit.signal}:\n${tail(running.output())}`;
    }
    outcome.seconds = Math.round((Date.now() - began) / 100) / 10;
  }
  await stopServers();
  return outcomes;
}
