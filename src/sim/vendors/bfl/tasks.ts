// The simulated FLUX tasks: what each submit asked for and how far it has got. Kept per
// simulator (keyed by its usage book, an object each simulator has its own of, so the state
// goes when the simulator does) so that tests running side by side see their own counts, and
// bounded so that a long-running simulator does not grow without end.
import { randomUUID } from 'node:crypto';

export type TaskOutcome = 'Ready' | 'Request Moderated' | 'Content Moderated' | 'Error';

export interface BflTask {
  readonly id: string;
  readonly model: string;
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  readonly format: 'png' | 'jpeg';
  readonly seed: number;
  /** Hash of the reference images, so an edit's pattern differs from a generation's. */
  readonly references: string;
  readonly outcome: TaskOutcome;
  /** Polls still answered Pending. */
  pendingPolls: number;
  /** How long the sample URL stays valid once Ready, ms. */
  readonly sampleTtlMs: number;
  /** When the task first answered Ready (the sample URL's clock starts then). */
  readyAt?: number;
}

/** What a simulator's FLUX endpoints served, for tests: submits, polls by answer, samples fetched or refused. */
export interface BflStats {
  submits: number;
  pendingPolls: number;
  readyPolls: number;
  failedPolls: number;
  samples: number;
  expiredSamples: number;
}

const maxTasks = 10_000;
const simulators = new WeakMap<object, { tasks: Map<string, BflTask>; stats: BflStats }>();

/** `simulator`: the simulator's own usage book (VendorSimRequest.usage), which identifies it. */
function stateOf(simulator: object) {
  let state = simulators.get(simulator);
  if (!state) {
    state = { tasks: new Map(), stats: { submits: 0, pendingPolls: 0, readyPolls: 0, failedPolls: 0, samples: 0, expiredSamples: 0 } };
    simulators.set(simulator, state);
  }
  return state;
}

export function addTask(simulator: object, task: Omit<BflTask, 'id'>): BflTask {
  const { tasks, stats } = stateOf(simulator);
  if (tasks.size >= maxTasks) tasks.delete(tasks.keys().next().value!);
  const created = { ...task, id: randomUUID() };
  tasks.set(created.id, created);
  stats.submits++;
  return created;
}

export function taskOf(simulator: object, id: string): BflTask | undefined {
  return stateOf(simulator).tasks.get(id);
}

export function statsOf(simulator: object): BflStats {
  return stateOf(simulator).stats;
}
