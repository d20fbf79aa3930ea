import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  autoBusyPollUs,
  BUSY_POLL_US,
  BusyPoll,
  type CpuTimes,
  cpuTimes,
  HEADROOM_SAMPLE_MS,
  Headroom,
} from '../src/transports/busy-poll.js';
import { sleep } from './support/agents.js';
import { type HttpServer, modernRequest, startHttpServer } from './support/mcp.js';
import { cpuTicks } from './support/probes.js';
import { loadShop } from './support/shop.js';

/** Whether an immediate is queued: a turning BusyPoll keeps one queued. */
const immediateQueued = () => process.getActiveResourcesInfo().includes('Immediate');

describe('BusyPoll', () => {
  it('counts a client as prompt when it came back within twice the window; with no window, never', () => {
    expect(new BusyPoll(0.1).prompt(0.15)).toBe(true);
    expect(new BusyPoll(0.1).prompt(0.25)).toBe(false);
    expect(new BusyPoll(0).prompt(0)).toBe(false);
  });

  it("turns the loop while a prompt client's call runs and for its window after the answer, then stops", async () => {
    const poll = new BusyPoll(2);
    poll.started(true);
    expect(immediateQueued()).toBe(true);
    await sleep(40); // a database slower than ten windows (20 ms): the loop stops turning
    expect(immediateQueued()).toBe(false);
    poll.answered();
    poll.ended();
    expect(immediateQueued()).toBe(true);
    await sleep(10);
    expect(immediateQueued()).toBe(false);
  });

  it('polls by default only where the process has a core to spare', () => {
    expect(autoBusyPollUs(1)).toBe(0);
    expect(autoBusyPollUs(2)).toBe(BUSY_POLL_US);
    expect(autoBusyPollUs(64)).toBe(BUSY_POLL_US);
  });

  it('does not turn for a client that did not come straight back, nor while another call is in flight', () => {
    const poll = new BusyPoll(5);
    poll.started(false);
    expect(immediateQueued()).toBe(false);
    poll.started(true);
    expect(immediateQueued()).toBe(false);
    poll.answered();
    expect(immediateQueued()).toBe(false);
  });
});

describe('Headroom', () => {
  /** A machine whose cores stay idle `idle` cores' worth, while this process uses `own` cores. */
  const machine = () => {
    const times: CpuTimes = { idleMs: 0, ownUs: 0 };
    return {
      sample: () => ({ ...times }),
      run(ms: number, idle: number, own: number) {
        times.idleMs += ms * idle;
        times.ownUs += ms * own * 1000;
      },
    };
  };

  it('lets polling go on while, beside the core it takes, a tenth of a core stays idle', () => {
    const m = machine();
    const headroom = new Headroom(m.sample);
    expect(headroom.spare(0)).toBe(true); // nothing known yet
    m.run(HEADROOM_SAMPLE_MS, 0.5, 1); // polling (a whole core), half a core idle beside it
    expect(headroom.spare(HEADROOM_SAMPLE_MS)).toBe(true);
    m.run(HEADROOM_SAMPLE_MS, 0.02, 1); // the other cores filled up
    expect(headroom.spare(2 * HEADROOM_SAMPLE_MS)).toBe(false);
    m.run(HEADROOM_SAMPLE_MS, 0.6, 0.3); // not polling: 0.6 idle, but polling would take 0.7 more
    expect(headroom.spare(3 * HEADROOM_SAMPLE_MS)).toBe(false);
    m.run(HEADROOM_SAMPLE_MS, 1.2, 0.3); // room for the 0.7 and more
    expect(headroom.spare(4 * HEADROOM_SAMPLE_MS)).toBe(true);
  });

  it('reads the machine once per sample period, and keeps its verdict across a quiet spell', () => {
    const m = machine();
    let reads = 0;
    const headroom = new Headroom(() => {
      reads++;
      return m.sample();
    });
    headroom.spare(0);
    m.run(HEADROOM_SAMPLE_MS, 0, 1);
    expect(headroom.spare(HEADROOM_SAMPLE_MS)).toBe(false);
    expect(headroom.spare(HEADROOM_SAMPLE_MS + 100)).toBe(false);
    expect(reads).toBe(2);
    // an hour later: what the machine did meanwhile says nothing of now; the next period decides
    m.run(3_600_000, 2, 0);
    expect(headroom.spare(3_600_000)).toBe(false);
    m.run(HEADROOM_SAMPLE_MS, 1.5, 0.2);
    expect(headroom.spare(3_600_000 + HEADROOM_SAMPLE_MS)).toBe(true);
  });

  it('stops a turning loop once the machine has no core to spare, and starts none', async () => {
    let spare = true;
    const headroom = { spare: () => spare } as unknown as Headroom;
    const poll = new BusyPoll(50, headroom);
    poll.started(true);
    expect(immediateQueued()).toBe(true);
    spare = false;
    await sleep(5);
    expect(immediateQueued()).toBe(false);
    poll.answered();
    poll.ended();
    expect(immediateQueued()).toBe(false);
  });

  it("reads this machine's idle time and this process's CPU", () => {
    const before = cpuTimes();
    const spinUntil = performance.now() + 50;
    while (performance.now() < spinUntil);
    const after = cpuTimes();
    expect(after.ownUs).toBeGreaterThan(before.ownUs);
    expect(after.idleMs).toBeGreaterThanOrEqual(before.idleMs);
  });
});

/** CPU time of a process so far, in ms. */
const cpuMs = (pid: number): number => cpuTicks(pid) * 10;

describe.skipIf(process.platform !== 'linux')('the server', () => {
  let dir = '';
  let dbUrl = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-busy-poll-'));
    dbUrl = `sqlite:${join(dir, 'shop.db')}`;
    await loadShop(dbUrl);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Calls `get` on one keep-alive connection every `everyMs` for `forMs`: a client that comes straight back. */
  async function callLoop(server: HttpServer, everyMs: number, forMs: number): Promise<number> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const call = modernRequest('tools/call', 1, { name: 'get', arguments: { table: 'orders', key: 1 } });
    const body = call.body;
    const headers = { ...call.headers, 'content-length': Buffer.byteLength(body) };
    let calls = 0;
    const end = performance.now() + forMs;
    try {
      while (performance.now() < end) {
        const status = await new Promise<number>((resolve, reject) => {
          const req = request(server.endpoint, { method: 'POST', agent, headers }, (res) => {
            res.resume().on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject).end(body);
        });
        expect(status).toBe(200);
        calls++;
        await sleep(everyMs);
      }
    } finally {
      agent.destroy();
    }
    return calls;
  }

  /** The server's CPU time while a client calls every 2 ms for 1 s, and in the 600 ms after it stops. */
  async function cpuOf(busyPollUs: number): Promise<{ calling: number; after: number; calls: number }> {
    const server = await startHttpServer(dbUrl, ['--busy-poll', String(busyPollUs)]);
    try {
      const pid = server.process.pid!;
      await callLoop(server, 2, 200); // warm
      const before = cpuMs(pid);
      const calls = await callLoop(server, 2, 1_000);
      const stopped = cpuMs(pid);
      await sleep(600);
      return { calling: stopped - before, after: cpuMs(pid) - stopped, calls };
    } finally {
      await server.stop();
    }
  }

  it('polls while a client comes straight back, and sleeps once it stops', async () => {
    // a window of 5 ms: a client calling every 2 ms is prompt, and the server then never sleeps
    const polling = await cpuOf(5_000);
    const sleeping = await cpuOf(0);
    console.log(
      `busy-poll: server CPU while calling ${polling.calling} ms (${polling.calls} calls), after ${polling.after} ms; with --busy-poll 0: ${sleeping.calling} ms (${sleeping.calls} calls), after ${sleeping.after} ms`,
    );
    // Polling spends well more CPU per call: 3 ms against 0.7 here, 3 against 0.9 beside three
    // busy loops. A ratio per call, as the test shares its cores: on a busy machine a poller gets
    // only its share of a core, and its client makes fewer calls.
    const perCall = (run: { calling: number; calls: number }) => run.calling / run.calls;
    expect(perCall(polling)).toBeGreaterThanOrEqual(2 * perCall(sleeping));
    // Once the client stops, the window runs out: a poller that went on would spend most of the
    // 600 ms (its share of them on a busy machine), where a server that sleeps spends a few ticks.
    expect(polling.after).toBeLessThanOrEqual(100);
    expect(sleeping.after).toBeLessThanOrEqual(100);
  }, 30_000);
});
