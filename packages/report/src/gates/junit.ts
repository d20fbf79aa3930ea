import type { ResultFile } from '@mcp-db-bench/contract';
import { groupSteps, medianGoodput } from '../render/groups.js';
import type { Verdict } from './thresholds.js';

/**
 * The run as JUnit XML, which CI systems (GitHub Actions reporters, GitLab, Jenkins) show as a
 * test report: one suite of the thresholds (a test case per threshold and step it judged) and
 * one of the steps (a test case per workload, agents, target and index set; a write step
 * whose read-back found its state wrong is a failure).
 */
export function junitXml(result: ResultFile, verdicts: readonly Verdict[]): string {
  const thresholds = verdicts.map((v) => {
    const name = v.step ? `${v.threshold.text} ${stepName(v.step)}` : v.threshold.text;
    return testCase(name, 'thresholds', 0, v.ok ? undefined : v.line, v.line);
  });
  const steps = groupSteps(result.steps).map((g) => {
    const seconds = g.steps.reduce((t, s) => t + s.durationMs, 0) / 1000;
    const wrong = g.steps.flatMap((s) => (s.verification && !s.verification.ok ? s.verification.problems : []));
    const errors = g.steps.reduce((n, s) => n + Object.values(s.errors).reduce((a, b) => a + b, 0), 0);
    const out = `${Math.round(medianGoodput(g).median)} calls/s, ${g.steps.reduce((n, s) => n + s.calls, 0)} calls, ${errors} errors`;
    return testCase(
      stepName(g),
      'steps',
      seconds,
      wrong.length ? `write verification failed: ${wrong.join('; ')}` : undefined,
      out,
    );
  });
  // an interrupted run's steps are the ones it finished: said in each suite's properties
  const properties = result.partial
    ? '    <properties><property name="partial" value="true: the run was interrupted"/></properties>\n'
    : '';
  const suite = (name: string, cases: readonly { xml: string; failed: boolean; seconds: number }[]) =>
    `  <testsuite name="${name}" tests="${cases.length}" failures="${cases.filter((c) => c.failed).length}" errors="0" time="${cases.reduce((t, c) => t + c.seconds, 0).toFixed(3)}">\n${properties}${cases.map((c) => c.xml).join('')}  </testsuite>\n`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mcp-db-bench">\n${suite('mcp-db-bench thresholds', thresholds)}${suite('mcp-db-bench steps', steps)}</testsuites>\n`;
}

function stepName(s: { target: string; indexes: string | null; workload: string; agents: number }): string {
  return `${s.workload} @${s.agents} on ${s.target}${s.indexes ? ` (${s.indexes})` : ''}`;
}

function testCase(name: string, classname: string, seconds: number, failure: string | undefined, out: string) {
  const body = `${failure ? `      <failure message="${xmlText(failure)}"/>\n` : ''}      <system-out>${xmlText(out)}</system-out>\n`;
  return {
    xml: `    <testcase name="${xmlText(name)}" classname="mcp-db-bench.${classname}" time="${seconds.toFixed(3)}">\n${body}    </testcase>\n`,
    failed: failure !== undefined,
    seconds,
  };
}

/** Text as XML character data or an attribute value; characters XML 1.0 cannot hold are dropped. */
function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
