import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * The Prometheus Python client's own text-format parser (prometheus_client, installed by .ci/run
 * into .tools/py from packages/server/test/clients/requirements.txt): the server's /metrics and the CLI's
 * --prometheus files are read by it, not by a parser of ours.
 */

const run = promisify(execFile);
const PYTHON = fileURLToPath(new URL('../../../.tools/py/bin/python', import.meta.url));

/** Whether the parser is installed; under CI a missing one fails the test file that asks. */
export function havePrometheusParser(testFile: string): boolean {
  if (existsSync(PYTHON)) return true;
  if (process.env.CI) throw new Error(`CI needs prometheus_client: ${PYTHON} is missing (see .ci/run)`);
  console.warn(`${testFile} skipped: no venv at ${PYTHON}; run .ci/run`);
  return false;
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
export interface Family {
  name: string;
  type: string;
  documentation: string;
  samples: Sample[];
}

/** The exposition text as prometheus_client's parser reads it (it throws on what is not the format). */
export async function parsePrometheus(text: string): Promise<Family[]> {
  const script =
    'import sys, json\n' +
    'from prometheus_client.parser import text_string_to_metric_families as parse\n' +
    'print(json.dumps([{"name": f.name, "type": f.type, "documentation": f.documentation, "samples": [{"name": ' +
    's.name, "labels": s.labels, "value": s.value} for s in f.samples]} for f in parse(sys.stdin.read())]))\n';
  const child = run(PYTHON, ['-c', script], { maxBuffer: 16 << 20 });
  child.child.stdin!.end(text);
  return JSON.parse((await child).stdout) as Family[];
}
