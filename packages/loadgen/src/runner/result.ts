import type { PlanResult, RunDescription } from '@mcp-db-bench/contract';
import type { RunEvent } from './events.js';

/**
 * A plan's result as its events build it: the runner builds its own this way, and a command
 * that must leave a file when a run is interrupted listens with one of its own. Everything the
 * result holds arrives as an event, so both always agree.
 */
export class PlanResultBuilder {
  /** the run's description, as its start carries it (or as given): the result holds it as it is then */
  #config: RunDescription | undefined;

  /** `config`: the run's description, when the builder must answer before the plan's start is heard */
  constructor(config?: RunDescription) {
    this.#config = config;
  }
  /** `startedAt` is the plan's once its start is heard */
  readonly #result: Omit<PlanResult, 'config'> = {
    startedAt: new Date().toISOString(),
    finishedAt: '',
    sessionInit: [],
    steps: [],
    decomposition: [],
    warnings: [],
    skipped: [],
  };

  add(event: RunEvent): void {
    const r = this.#result;
    if (event.type === 'plan-start') {
      r.startedAt = event.startedAt;
      this.#config = event.config;
    } else if (event.type === 'step-end') r.steps.push(event.step);
    else if (event.type === 'session-init') this.#sessionInit(event);
    else if (event.type === 'decomposition') r.decomposition.push(...event.results);
    else if (event.type === 'skipped')
      r.skipped.push({ target: event.target, workload: event.workload, reason: event.reason });
    else if (event.type === 'warning') r.warnings.push(event.line);
    else if (event.type === 'check') {
      r.tokens = event.tokens;
      if (event.agreement.length) r.agreement = event.agreement;
    } else if (event.type === 'comparisons') r.comparisons = event.comparisons;
    else if (event.type === 'plan-end') r.finishedAt = event.result.finishedAt;
  }

  /** A later measurement goes beside the first of the same target and index set. */
  #sessionInit(event: Extract<RunEvent, { type: 'session-init' }>): void {
    const { cold, warm, full, target, indexes } = event.result;
    const first = event.later && this.#result.sessionInit.find((s) => s.target === target && s.indexes === indexes);
    if (first) first.later = { iteration: event.iteration, cold, warm, ...(full ? { full } : {}) };
    else this.#result.sessionInit.push(event.result);
  }

  /** What the events so far measured, with the run's description; an unfinished plan's `finishedAt` is now. */
  result(): PlanResult {
    if (!this.#config) throw new Error('no plan has started: there is no result yet');
    return { config: this.#config, ...this.#result, finishedAt: this.#result.finishedAt || new Date().toISOString() };
  }

  /** The steps and skips so far, read while the plan runs. */
  get steps(): readonly PlanResult['steps'][number][] {
    return this.#result.steps;
  }

  get skipped(): readonly PlanResult['skipped'][number][] {
    return this.#result.skipped;
  }
}
