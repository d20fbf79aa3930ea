import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { serverBin, startServer } from '../src/serving/server-process.js';
import { runCli } from './support/cli.js';

/**
 * deploy/kubernetes and docker/Dockerfile, checked without a cluster or Docker: every manifest
 * against the Kubernetes API schemas twice, since neither checker sees everything: kubernetes-models
 * (its compiled JSON schemas carry the API's enum values) and kubernetes-validate --strict (from
 * PyPI, pinned in ./requirements.txt: an unknown field is an error, as to `kubectl apply
 * --validate=strict`); then what a schema cannot see: that the pieces name each other correctly (labels,
 * ports, Secret keys, volumes), that the commands and flags exist in our CLI and server, that
 * the probe paths answer on the real server, and that the Dockerfile builds on the official
 * Node 24 image and runs as a non-root user.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const K8S = join(ROOT, 'deploy', 'kubernetes');

// biome-ignore lint/suspicious/noExplicitAny: manifests are walked as plain YAML data
type Doc = Record<string, any>;
interface Manifest {
  file: string;
  doc: Doc;
}

const text = (file: string) => readFileSync(join(K8S, file), 'utf8');
const manifests: Manifest[] = readdirSync(K8S)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(text(file)).map((parsed) => {
      if (parsed.errors.length > 0) throw new Error(`${file}: ${parsed.errors[0]!.message}`);
      return { file, doc: parsed.toJS() as Doc };
    }),
  );
const find = (kind: string, name: string): Doc => {
  const found = manifests.find((m) => m.doc.kind === kind && m.doc.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return found.doc;
};
/** The pod spec of a Pod, Deployment or Job. */
const podSpec = (doc: Doc): Doc | undefined => (doc.kind === 'Pod' ? doc.spec : doc.spec?.template?.spec);
const workloads = manifests.filter((m) => podSpec(m.doc));
const containers = workloads.flatMap((m) => (podSpec(m.doc)!.containers as Doc[]).map((c) => ({ ...m, container: c })));

/** Validates one object against its kind's schema; the error names the file, the object and every failing path. */
async function validate(file: string, doc: Doc): Promise<void> {
  const where = `${file}: ${doc.kind ?? '(no kind)'} ${doc.metadata?.name ?? '(no name)'}`;
  if (typeof doc.apiVersion !== 'string' || typeof doc.kind !== 'string')
    throw new Error(`${where}: apiVersion and kind are required`);
  const group = (await import(`kubernetes-models/${doc.apiVersion}`).catch(() => undefined)) as
    | Record<string, new (data: Doc) => { validate(): void }>
    | undefined;
  const Model = group?.[doc.kind];
  if (!Model) throw new Error(`${where}: no schema for ${doc.apiVersion} ${doc.kind}`);
  try {
    new Model(doc).validate();
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`);
  }
}

const VALIDATOR = join(ROOT, '.tools', 'py', 'bin', 'kubernetes-validate');
/** The Kubernetes version whose schemas kubernetes-validate checks against. */
const KUBERNETES = '1.33.0';
if (!existsSync(VALIDATOR)) {
  if (process.env.CI) throw new Error(`CI needs kubernetes-validate: ${VALIDATOR} is missing (see .ci/run)`);
  console.warn(
    `deploy.test.ts: strict schema checks skipped: no ${VALIDATOR}; run .ci/run (or pip install -r apps/cli/test/requirements.txt into .tools/py)`,
  );
}

/** Validates objects strictly (no unknown field); the error names the file, the object and the failing path. */
function validateStrictly(file: string, ...docs: Doc[]): void {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-k8s-'));
  const path = join(dir, file);
  writeFileSync(path, docs.map((d) => JSON.stringify(d)).join('\n---\n'));
  try {
    execFileSync(VALIDATOR, ['--strict', '--quiet', '-k', KUBERNETES, path], { stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`${file}: ${`${e.stdout ?? ''}${e.stderr ?? ''}`.replaceAll(path, file).trim()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('deploy/kubernetes', () => {
  it('holds the server, the Secret example, the results volume and the seed, bench and merge jobs', () => {
    const kinds = manifests.map((m) => `${m.doc.kind}/${m.doc.metadata.name}`).sort();
    expect(kinds).toEqual(
      [
        'Deployment/mcp-db-server',
        'Job/mcp-db-bench-merge',
        'Job/mcp-db-bench-run',
        'Job/mcp-db-bench-seed',
        'PersistentVolumeClaim/mcp-db-bench-results',
        'Pod/mcp-db-bench-results',
        'Secret/mcp-db-bench',
        'Service/mcp-db-server',
      ].sort(),
    );
  });

  it('every manifest passes the Kubernetes schema of its kind', async () => {
    for (const { file, doc } of manifests) await validate(file, doc);
  });

  it('the schema check catches a wrong type, a wrong enum value and an unknown kind', async () => {
    const server = find('Deployment', 'mcp-db-server');
    await expect(validate('server.yaml', { ...server, spec: { ...server.spec, replicas: 'two' } })).rejects.toThrow(
      /server\.yaml: Deployment mcp-db-server: .*replicas must be integer/,
    );
    const job = find('Job', 'mcp-db-bench-run');
    await expect(
      validate('bench-job.yaml', { ...job, spec: { ...job.spec, completionMode: 'Sharded' } }),
    ).rejects.toThrow(/completionMode/);
    await expect(
      validate('x.yaml', { apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'x' } }),
    ).rejects.toThrow(/no schema for apps\/v1 Deploymnet/);
  });

  it.skipIf(!existsSync(VALIDATOR))(
    'every manifest has only fields its kind knows (strict), and a misspelt field is caught',
    () => {
      for (const file of new Set(manifests.map((m) => m.file)))
        validateStrictly(file, ...manifests.filter((m) => m.file === file).map((m) => m.doc));
      const server = find('Deployment', 'mcp-db-server');
      const [container] = server.spec.template.spec.containers as Doc[];
      const pod = {
        ...server.spec.template.spec,
        containers: [{ ...container, readinesProbe: container!.readinessProbe }],
      };
      const misspelt = { ...server, spec: { ...server.spec, template: { ...server.spec.template, spec: pod } } };
      expect(() => validateStrictly('server.yaml', misspelt)).toThrow(
        /server\.yaml did not validate for resource deployment\/mcp-db-server.*'readinesProbe' was unexpected/s,
      );
    },
  );

  it('the Service selects the Deployment, whose selector matches its own pods, on a port the container has', () => {
    const deployment = find('Deployment', 'mcp-db-server');
    const service = find('Service', 'mcp-db-server');
    const labels = deployment.spec.template.metadata.labels as Record<string, string>;
    expect(labels).toMatchObject(deployment.spec.selector.matchLabels);
    expect(labels).toMatchObject(service.spec.selector);
    const ports = (deployment.spec.template.spec.containers[0].ports as Doc[]).map((p) => p.name);
    for (const port of service.spec.ports as Doc[]) expect(ports).toContain(port.targetPort);
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
  });

  it('every Secret key and volume claim used exists, and every pod runs as non-root on a read-only root', () => {
    const secret = find('Secret', 'mcp-db-bench');
    const claims = manifests.filter((m) => m.doc.kind === 'PersistentVolumeClaim').map((m) => m.doc.metadata.name);
    for (const { file, container } of containers) {
      for (const env of (container.env ?? []) as Doc[]) {
        const ref = env.valueFrom?.secretKeyRef;
        if (!ref) continue;
        expect(ref.name, `${file}: ${env.name}`).toBe(secret.metadata.name);
        expect(Object.keys(secret.stringData), `${file}: ${env.name}`).toContain(ref.key);
      }
      expect(container.securityContext, file).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(container.resources?.requests, `${file}: resource requests`).toBeDefined();
      expect(container.resources?.limits?.memory, `${file}: memory limit`).toBeDefined();
    }
    for (const { file, doc } of workloads) {
      expect(podSpec(doc)!.securityContext, file).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      for (const volume of (podSpec(doc)!.volumes ?? []) as Doc[]) {
        if (volume.persistentVolumeClaim) expect(claims, file).toContain(volume.persistentVolumeClaim.claimName);
      }
    }
    expect(find('PersistentVolumeClaim', 'mcp-db-bench-results').spec.accessModes).toEqual(['ReadWriteMany']);
  });

  it('every container runs the image of this version', () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'apps', 'cli', 'package.json'), 'utf8')) as { version: string })
      .version;
    for (const { file, container } of containers) expect(container.image, file).toBe(`mcp-db-bench:${version}`);
  });

  it('the bench job is an Indexed Job whose shard count is said in exactly three places, all alike', () => {
    const job = find('Job', 'mcp-db-bench-run');
    const { completions, parallelism, completionMode } = job.spec;
    expect(completionMode).toBe('Indexed');
    expect(parallelism).toBe(completions);
    const env = job.spec.template.spec.containers[0].env as Doc[];
    expect(env.find((e) => e.name === 'SHARDS')?.value).toBe(String(completions));
    expect(env.find((e) => e.name === 'SHARD_INDEX')?.valueFrom?.fieldRef?.fieldPath).toBe(
      "metadata.annotations['batch.kubernetes.io/job-completion-index']",
    );
    // The README changes the count with sed on the word: it must occur nowhere else outside comments.
    const uncommented = text('bench-job.yaml').replace(/#.*$/gm, '');
    expect(uncommented.match(new RegExp(`\\b${completions}\\b`, 'g'))).toHaveLength(3);
  });

  it('the bench job targets the Service by a host name the server accepts', () => {
    const server = find('Deployment', 'mcp-db-server').spec.template.spec.containers[0];
    const service = find('Service', 'mcp-db-server');
    const args = find('Job', 'mcp-db-bench-run').spec.template.spec.containers[0].args as string[];
    const target = new URL(args[args.indexOf('--target') + 1]!);
    expect(target.hostname).toBe(service.metadata.name);
    expect(Number(target.port)).toBe(service.spec.ports[0].port);
    expect(target.pathname).toBe('/mcp');
    const allowed = (server.args as string[])[(server.args as string[]).indexOf('--allowed-hosts') + 1]!.split(',');
    expect(allowed).toContain(target.hostname);
  });

  it('the server is read-only: no --allow-writes, by flag or variable', () => {
    const server = find('Deployment', 'mcp-db-server').spec.template.spec.containers[0];
    expect(server.args).not.toContain('--allow-writes');
    expect((server.env as Doc[]).map((e) => e.name)).not.toContain('MCP_DB_ALLOW_WRITES');
  });
});

/** `--flags` and `-f` short flags in a list of arguments. */
const flagsOf = (args: readonly string[]) => args.filter((a) => /^--?[a-z]/.test(a)).map((a) => a.split('=')[0]!);

describe('deploy/kubernetes against the real programs', () => {
  let serverHelp: string;
  let dir: string;

  beforeAll(() => {
    // Commander wraps help lines: compared with runs of spaces made one.
    serverHelp = execFileSync(process.execPath, [serverBin(), '--help'], { encoding: 'utf8', timeout: 30_000 }).replace(
      /\s+/g,
      ' ',
    );
    dir = mkdtempSync(join(tmpdir(), 'mcp-deploy-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the server container uses only options and variables mcp-db-server has', () => {
    const server = find('Deployment', 'mcp-db-server').spec.template.spec.containers[0];
    expect(server.command).toEqual(['mcp-db-server']);
    for (const flag of flagsOf(server.args)) expect(serverHelp).toContain(`${flag} `);
    for (const env of server.env as Doc[]) expect(serverHelp, env.name).toContain(`env: ${env.name})`);
  });

  it('every job runs mcp-db-bench commands with flags they have', async () => {
    const commands: string[][] = [];
    for (const { file, doc, container } of containers) {
      if (doc.kind !== 'Job') continue;
      if (container.command?.[0] === 'sh') {
        // A shell line: each `mcp-db-bench ...` in it, split on && (only globs need the shell).
        for (const part of (container.args[0] as string).split('&&')) {
          const words = part.trim().split(/\s+/);
          expect(words[0], file).toBe('mcp-db-bench');
          commands.push(words.slice(1));
        }
      } else {
        expect(container.command, file).toBeUndefined();
        commands.push(container.args);
        // A variable no argument expands must be one the command reads itself.
        for (const env of (container.env ?? []) as Doc[]) {
          if (container.args.some((a: string) => a.includes(`$(${env.name})`))) continue;
          const help = await runCli([container.args[0], '--help'], { timeoutMs: 30_000 });
          expect(help.stdout.replace(/\s+/g, ' '), `${file}: ${env.name}`).toContain(`env: ${env.name})`);
        }
      }
    }
    expect(commands.map((c) => c[0]).sort()).toEqual(['merge', 'run', 'seed']);
    for (const args of commands) {
      const help = await runCli([args[0]!, '--help'], { timeoutMs: 30_000 });
      expect(help.code, `mcp-db-bench ${args[0]} --help: ${help.stderr}`).toBe(0);
      for (const flag of flagsOf(args.slice(1)))
        expect(help.stdout, `mcp-db-bench ${args[0]} ${flag}`).toMatch(new RegExp(`(^|[ ,])${flag}[ ,]`, 'm'));
    }
  });

  it('the probe paths answer 200 on the real server, without a token', async () => {
    const file = join(dir, 'empty.db');
    writeFileSync(file, '');
    const server = await startServer(`sqlite:${file}`, ['--token', 'deploy-test']);
    try {
      const probes = find('Deployment', 'mcp-db-server').spec.template.spec.containers[0];
      for (const probe of [probes.readinessProbe, probes.livenessProbe]) {
        const answer = await fetch(new URL(probe.httpGet.path, server.endpoint));
        expect(answer.status, probe.httpGet.path).toBe(200);
        expect(await answer.json()).toEqual({ status: 'ok' });
      }
      expect((await fetch(server.endpoint, { method: 'POST' })).status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});

/**
 * The jobs' own commands, end to end on this machine: the seed job's, then one shard of the
 * bench job's (its args and variables with the Secret example's token, shard 0 of 1, a short duration) against
 * a server started with server.yaml's token and session key, then the merge job's line.
 */
describe('deploy/kubernetes jobs, run here', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-deploy-jobs-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('seed, one shard of the benchmark and the merge succeed against the server as deployed', async () => {
    const secret = find('Secret', 'mcp-db-bench').stringData as Record<string, string>;
    const url = `sqlite:${join(dir, 'shop.db')}`;
    const seedArgs = find('Job', 'mcp-db-bench-seed').spec.template.spec.containers[0].args as string[];
    const seeded = await runCli([...seedArgs.map((a) => (a === '0.1' ? '0.001' : a)), '--db', url], {
      timeoutMs: 120_000,
    });
    expect(seeded.code, seeded.stderr).toBe(0);

    const server = await startServer(url, ['--token', secret.token!, '--session-key', secret['session-key']!]);
    try {
      const bench = find('Job', 'mcp-db-bench-run').spec.template.spec.containers[0];
      const values: Record<string, string> = { MCP_DB_TOKEN: secret.token!, SHARD_INDEX: '0', SHARDS: '1' };
      const args = (bench.args as string[]).map((a) =>
        a.replace(/\$\((\w+)\)/g, (_, name: string) => values[name]!).replace(/^\/results\//, `${dir}/`),
      );
      const at = (flag: string) => args.indexOf(flag) + 1;
      args[at('--target')] = server.endpoint;
      args[at('--duration')] = '1s';
      args[at('--agents')] = '2';
      // the job's variables reach the command too: run reads MCP_DB_TOKEN itself
      const ran = await runCli([...args, '--warmup', '100ms'], {
        env: { ...process.env, ...values },
        timeoutMs: 120_000,
      });
      expect(ran.code, ran.stderr).toBe(0);
      expect(existsSync(join(dir, 'shard-0.json'))).toBe(true);
    } finally {
      await server.stop();
    }

    const line = find('Job', 'mcp-db-bench-merge').spec.template.spec.containers[0].args[0] as string;
    const shards = readdirSync(dir)
      .filter((f) => /^shard-\d+\.json$/.test(f))
      .map((f) => join(dir, f));
    const words = line
      .replace(/\/results\//g, `${dir}/`)
      .split(/\s+/)
      .slice(1);
    const merged = await runCli(
      words.flatMap((w) => (w.includes('*') ? shards : [w])),
      { timeoutMs: 60_000 },
    );
    expect(merged.code, merged.stderr).toBe(0);
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { steps: unknown[] };
    expect(run.steps.length).toBeGreaterThan(0);
  });
});

describe('docker/Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8');
  // Instructions, with continuation lines joined and comments dropped.
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const instruction = (name: string) => lines.filter((l) => l.startsWith(`${name} `));

  it('builds every stage on the official Node.js 24 image', () => {
    const base = /^ARG NODE_IMAGE=(\S+)$/.exec(instruction('ARG').find((l) => l.startsWith('ARG NODE_IMAGE='))!)?.[1];
    expect(base).toMatch(/^node:24(-[a-z]+)*(-slim)?$/);
    const froms = instruction('FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^FROM \$\{NODE_IMAGE\}( AS \w+)?$/);
  });

  it('runs as the non-root node user, set before the entrypoint', () => {
    const last = lines.slice(lines.lastIndexOf(instruction('FROM').at(-1)!));
    const user = last.findIndex((l) => l.startsWith('USER '));
    expect(last[user]).toBe('USER node');
    expect(user).toBeLessThan(last.findIndex((l) => l.startsWith('ENTRYPOINT ')));
    expect(last.slice(user).filter((l) => l.startsWith('USER '))).toHaveLength(1);
  });

  it('copies only paths that exist, and links both bins to the packages that declare them', () => {
    for (const copy of instruction('COPY').filter((l) => !l.includes('--from='))) {
      const sources = copy.split(/\s+/).slice(1, -1);
      for (const source of sources) expect(existsSync(join(ROOT, source)), source).toBe(true);
    }
    const bins = {
      'mcp-db-bench': ['/app/', join(ROOT, 'apps', 'cli', 'package.json')],
      'mcp-db-server': ['/app/node_modules/@mcp-db-bench/server/', join(ROOT, 'packages', 'server', 'package.json')],
    } as const;
    for (const [name, [prefix, pkg]] of Object.entries(bins)) {
      const declared = (JSON.parse(readFileSync(pkg, 'utf8')) as { bin: Record<string, string> }).bin[name]!;
      expect(dockerfile).toContain(`ln -s ${prefix}${declared.replace(/^\.\//, '')} /usr/local/bin/${name}`);
    }
    expect(instruction('ENTRYPOINT')).toEqual(['ENTRYPOINT ["mcp-db-bench"]']);
    expect(dockerfile).toContain('pnpm install --frozen-lockfile');
  });
});
