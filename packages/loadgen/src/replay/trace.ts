import {
  type TraceHeader,
  type TraceLine,
  type TraceRequest,
  type TraceSession,
  traceLine,
} from '@mcp-db-bench/contract';
import type { ToolInfo } from '../clients/client.js';

/** A trace that cannot be replayed, or not against this target; `code` says which. */
export class ReplayError extends Error {
  override readonly name = 'ReplayError';
  constructor(
    readonly code: 'invalid_trace' | 'empty_trace' | 'missing_tools' | 'dropped_arguments',
    message: string,
  ) {
    super(message);
  }
}

/** One recorded session: how it started and its requests in the order the host sent them. */
export interface RecordedSession {
  label: string;
  protocolVersion: string | null;
  client: TraceSession['client'];
  requests: TraceRequest[];
}

export interface Trace {
  header: TraceHeader;
  /** the sessions with at least one request, in the order they began */
  sessions: RecordedSession[];
  /** the `GET` streams the hosts opened: not replayed, only counted */
  streams: number;
}

/** A trace file's text (`mcp-db-bench record`), checked line by line; `name` names it in errors. */
export function parseTrace(text: string, name = 'the trace'): Trace {
  const lines: TraceLine[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new ReplayError('invalid_trace', `${name}, line ${i + 1}: not JSON`);
    }
    const parsed = traceLine.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ReplayError(
        'invalid_trace',
        `${name}, line ${i + 1}: not a trace line (${issue?.path.join('.') || 'line'}: ${issue?.message})`,
      );
    }
    lines.push(parsed.data);
  }
  const [header] = lines;
  if (header?.type !== 'trace')
    throw new ReplayError('invalid_trace', `${name}: the first line must be the trace header (type "trace")`);
  const sessions = new Map<string, RecordedSession>();
  for (const line of lines) {
    if (line.type === 'session') {
      sessions.set(line.session, {
        label: line.session,
        protocolVersion: line.protocolVersion,
        client: line.client,
        requests: [],
      });
    } else if (line.type === 'request') {
      const session = sessions.get(line.session);
      if (!session)
        throw new ReplayError('invalid_trace', `${name}: request of session ${line.session} before its session line`);
      session.requests.push(line);
    }
  }
  const replayable = [...sessions.values()].filter((s) => s.requests.length > 0);
  if (replayable.length === 0) throw new ReplayError('empty_trace', `${name} holds no session with a request`);
  return { header, sessions: replayable, streams: lines.filter((l) => l.type === 'stream').length };
}

/** The tools the trace calls, in the order first called. */
export function tracedTools(trace: Trace): string[] {
  const tools = new Set<string>();
  for (const s of trace.sessions) for (const r of s.requests) if (r.tool !== undefined) tools.add(r.tool);
  return [...tools];
}

/**
 * Whether a target can replay the trace: every tool it calls is in the target's tools/list, and a
 * trace recorded with `--values drop` calls only tools that need no argument (nothing is left to
 * send them). Throws a ReplayError naming what is missing.
 */
export function checkReplayable(trace: Trace, tools: readonly ToolInfo[], target: string): void {
  const offered = new Map(tools.map((t) => [t.name, t]));
  const missing = tracedTools(trace).filter((name) => !offered.has(name));
  if (missing.length) {
    throw new ReplayError(
      'missing_tools',
      `${target} does not offer ${missing.length > 1 ? 'these tools' : 'the tool'} the trace calls: ${missing.join(', ')} ` +
        `(it lists ${[...offered.keys()].join(', ') || 'none'})`,
    );
  }
  if (trace.header.values !== 'drop') return;
  const needy = tracedTools(trace).filter((name) => requiredArguments(offered.get(name)!).length > 0);
  if (needy.length) {
    throw new ReplayError(
      'dropped_arguments',
      `the trace was recorded with --values drop: it has no arguments for ${needy
        .map((name) => `${name} (needs ${requiredArguments(offered.get(name)!).join(', ')})`)
        .join(', ')}; record again with --values shape (or keep)`,
    );
  }
}

/** The arguments a tool's input schema requires. */
function requiredArguments(tool: ToolInfo): string[] {
  const required = (tool.inputSchema as { required?: unknown } | undefined)?.required;
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : [];
}
