import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@mcp-db-bench/testing';

/**
 * A database server of our own, started from the installed binaries in a temporary directory
 * on a free port, so a test may stop and restart it without touching the shared servers other
 * tests use. Runs as the engine's system user when the tests run as root (PostgreSQL refuses
 * root), as the current user otherwise.
 */
export interface PrivateServer {
  /** URL of the server's maintenance database (`postgres`; none on MariaDB), as a superuser */
  readonly baseUrl: string;
  /** the daemon's process id while it runs */
  readonly pid: number | undefined;
  /** Stops the server the fast way (active sessions are cut) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same directory and port, once it accepts connections. */
  start(): Promise<void>;
  /** Stops it if it runs and removes its directory. */
  destroy(): Promise<void>;
}

interface Recipe {
  /** system user owning the data when the tests run as root */
  user: string;
  /** the binaries, or what is missing */
  find(): { init: string[]; daemon: string[] } | string;
  initArgs(data: string): string[];
  daemonArgs(dir: string, data: string, port: number): string[];
  /** the line the daemon logs once it accepts connections */
  ready: RegExp;
  /** fast shutdown: cut sessions, then exit */
  stopSignal: NodeJS.Signals;
  /** immediate shutdown, for a test process that exits without cleaning up */
  killSignal: NodeJS.Signals;
  baseUrl(port: number): string;
}

/** The newest installed PostgreSQL's binaries (Debian keeps them out of PATH). */
function postgresBin(name: string): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const candidates = [...versions.map((v) => join(root, v, 'bin', name)), ...onPath(name)];
  return candidates.find((path) => existsSync(path));
}

/** A binary on PATH or in the sbin directories a non-login shell may lack. */
function systemBin(name: string): string | undefined {
  const dirs = ['/usr/local/sbin', '/usr/sbin', '/sbin', '/usr/local/bin', '/usr/bin'];
  return [...onPath(name), ...dirs.map((dir) => join(dir, name))].find((path) => existsSync(path));
}

function onPath(name: string): string[] {
  return (process.env.PATH ?? '')
    .split(':')
    .filter(Boolean)
    .map((dir) => join(dir, name));
}

const RECIPES = {
  postgres: {
    user: 'postgres',
    find() {
      const init = postgresBin('initdb');
      const daemon = postgresBin('postgres');
      return init && daemon ? { init: [init], daemon: [daemon] } : 'initdb and postgres (the postgresql package)';
    },
    // trust: the server listens on loopback only, in a directory no one else uses
    initArgs: (data) => ['-D', data, '-U', 'bench', '--auth=trust', '--no-locale', '-E', 'UTF8', '--no-sync'],
    daemonArgs: (dir, data, port) => [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'shared_buffers=16MB',
    ],
    ready: /database system is ready to accept connections/,
    stopSignal: 'SIGINT', // PostgreSQL's fast shutdown
    killSignal: 'SIGQUIT', // immediate shutdown: the backends go with the postmaster
    baseUrl: (port) => `postgres://bench@127.0.0.1:${port}/postgres`,
  },
  mariadb: {
    user: 'mysql',
    find() {
      const init = systemBin('mariadb-install-db') ?? systemBin('mysql_install_db');
      const daemon = systemBin('mariadbd') ?? systemBin('mysqld');
      return init && daemon
        ? { init: [init], daemon: [daemon] }
        : 'mariadb-install-db and mariadbd (the mariadb-server package)';
    },
    // normal: root@127.0.0.1 without a password, not unix_socket (which would tie it to the OS user)
    initArgs: (data) => [
      '--no-defaults',
      `--datadir=${data}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--innodb-log-file-size=8M',
    ],
    daemonArgs: (dir, data, port) => [
      '--no-defaults',
      `--datadir=${data}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(dir, 'mariadb.sock')}`,
      `--pid-file=${join(dir, 'mariadb.pid')}`,
      '--skip-log-bin',
      '--innodb-buffer-pool-size=16M',
      '--innodb-log-file-size=8M',
    ],
    ready: /ready for connections/,
    stopSignal: 'SIGTERM', // MariaDB's shutdown: sessions are killed, then it exits
    killSignal: 'SIGKILL',
    baseUrl: (port) => `mysql://root@127.0.0.1:${port}/`,
  },
} satisfies Record<string, Recipe>;

export type PrivateEngine = keyof typeof RECIPES;

/** Who the daemon runs as: the engine's system user under root, else ourselves (undefined). */
function daemonIdentity(recipe: Recipe): { uid: number; gid: number } | undefined | string {
  if (process.getuid?.() !== 0) return undefined;
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === recipe.user);
  if (!entry) return `running as root needs the system user ${recipe.user} (created by the engine's package)`;
  return { uid: Number(entry[2]), gid: Number(entry[3]) };
}

/**
 * Why a private server of this engine cannot run here, or undefined when it can. Under CI the
 * reason is an error: CI installs both engines, so a missing binary there is a broken setup.
 */
export function privateServerUnavailable(engine: PrivateEngine): string | undefined {
  const recipe: Recipe = RECIPES[engine];
  const found = recipe.find();
  const identity = daemonIdentity(recipe);
  const reason =
    typeof found === 'string'
      ? `a private ${engine} server needs ${found}`
      : typeof identity === 'string'
        ? identity
        : undefined;
  if (reason && process.env.CI) throw new Error(`CI needs ${reason}`);
  return reason;
}

/** Every daemon still running, with its immediate-shutdown signal, for a test process that exits without cleaning up. */
const running = new Map<ChildProcess, NodeJS.Signals>();
process.once('exit', () => {
  for (const [child, signal] of running) child.kill(signal);
});

export async function startPrivateServer(engine: PrivateEngine): Promise<PrivateServer> {
  const recipe: Recipe = RECIPES[engine];
  const found = recipe.find();
  const identity = daemonIdentity(recipe);
  if (typeof found === 'string' || typeof identity === 'string') throw new Error(privateServerUnavailable(engine));

  const dir = mkdtempSync(join(tmpdir(), `mcp-db-${engine}-`));
  if (identity) chownSync(dir, identity.uid, identity.gid);
  const data = join(dir, 'data');
  const asDaemon = { cwd: dir, ...identity, env: { ...process.env, LC_ALL: 'C' } };
  const init = spawnSync(found.init[0]!, recipe.initArgs(data), { ...asDaemon, encoding: 'utf8', timeout: 60_000 });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${engine}: initialising ${data} failed: ${init.error?.message ?? ''}${init.stderr}${init.stdout}`);
  }
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const daemon = spawn(found.daemon[0]!, recipe.daemonArgs(dir, data, port), {
        ...asDaemon,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = daemon;
      running.set(daemon, recipe.killSignal);
      let log = '';
      const timer = setTimeout(() => {
        daemon.kill(recipe.killSignal);
        reject(new Error(`${engine} did not start within 60 s:\n${log}`));
      }, 60_000);
      const onLog = (chunk: Buffer) => {
        log += chunk;
        if (recipe.ready.test(log)) {
          clearTimeout(timer);
          resolve();
        }
      };
      daemon.stdout!.on('data', onLog);
      daemon.stderr!.on('data', onLog);
      daemon.once('exit', (code, signal) => {
        clearTimeout(timer);
        running.delete(daemon);
        if (child === daemon) child = undefined;
        // a no-op once it was ready
        reject(new Error(`${engine} exited (${code ?? signal}) before it was ready:\n${log}`));
      });
    });

  const stop = async () => {
    const daemon = child;
    if (!daemon) return;
    const exited = new Promise<void>((resolve) => daemon.once('exit', () => resolve()));
    daemon.kill(recipe.stopSignal);
    const timer = setTimeout(() => daemon.kill(recipe.killSignal), 30_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    baseUrl: recipe.baseUrl(port),
    get pid() {
      return child?.pid;
    },
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
