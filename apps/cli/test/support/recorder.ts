import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type TraceLine, type TraceRequest, traceLine } from '@mcp-db-bench/contract';
import { BIN } from './cli.js';

/** `mcp-db-bench record` over HTTP, once it says where the host should point. */
export async function startRecorder(
  args: string[],
): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null>; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'record', '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const at = /point the host at (\S+)/.exec(stderr);
      if (at) resolve(at[1]!);
    });
    void exited.then(() => reject(new Error(`record exited: ${stderr}`)));
  });
  return { child, url, exited, stderr: () => stderr };
}

/** A trace file's lines, each checked against the contract. */
export const readTraceLines = (file: string): TraceLine[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => traceLine.parse(JSON.parse(line)));

export const requestsOf = (lines: TraceLine[]) => lines.filter((l): l is TraceRequest => l.type === 'request');
