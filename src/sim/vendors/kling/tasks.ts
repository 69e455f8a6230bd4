// The simulated Kling's tasks, in memory. A task advances by being looked at, not by the clock
// (tests drive the gateway with an injected clock): the create answers `submitted`, the first
// query `processing`, every later one `succeed` (or `failed` for a prompt with
// [[sim:job-fail]]). Counts per external_task_id let a test assert that the gateway made
// exactly one task per job (GET /kling/__sim/stats).
import { KlingSimError } from './envelope.js';

export type KlingEndpoint = 'text2video' | 'image2video';

export interface KlingTask {
  readonly id: string;
  readonly endpoint: KlingEndpoint;
  readonly externalTaskId: string | undefined;
  readonly modelName: string;
  readonly mode: 'std' | 'pro';
  readonly seconds: number;
  readonly aspectRatio: '16:9' | '9:16' | '1:1';
  readonly fail: boolean;
  /** Queries by its external_task_id are refused (1103): a look-up by name that cannot succeed. */
  readonly nameQueryRefused: boolean;
  readonly createdAt: number;
  queries: number;
}

export interface KlingTaskStats {
  /** Tasks made: what Kling would bill. */
  readonly created: number;
  /** Tasks made per external_task_id (more than 1 never happens: a name is refused once held). */
  readonly by_external_task_id: Record<string, number>;
  readonly queries: number;
}

/** Kling's task ids are long decimal numbers; these are unique per process. */
let counter = 0;
const base = BigInt(Date.now()) * 1000n;

/** Tasks are forgotten after an hour (a simulator runs for days in demos). */
const retentionMs = 60 * 60 * 1000;

export class KlingTasks {
  private readonly tasks = new Map<string, KlingTask>();
  private readonly byExternal = new Map<string, KlingTask>();
  private readonly createdByExternal = new Map<string, number>();
  private created = 0;
  private queries = 0;

  /** The task, or undefined when its external_task_id is already held (Kling refuses it). */
  create(fields: Omit<KlingTask, 'id' | 'createdAt' | 'queries'>): KlingTask | undefined {
    this.forgetOld();
    if (fields.externalTaskId !== undefined && this.byExternal.has(fields.externalTaskId)) return undefined;
    const task: KlingTask = { ...fields, id: String(base + BigInt(++counter)), createdAt: Date.now(), queries: 0 };
    this.tasks.set(task.id, task);
    if (task.externalTaskId !== undefined) {
      this.byExternal.set(task.externalTaskId, task);
      this.createdByExternal.set(task.externalTaskId, (this.createdByExternal.get(task.externalTaskId) ?? 0) + 1);
    }
    this.created++;
    return task;
  }

  /** The task of `endpoint` whose task_id or external_task_id is `id`, counted as queried once more. */
  query(endpoint: KlingEndpoint, id: string): KlingTask | undefined {
    const byName = this.tasks.has(id) ? undefined : this.byExternal.get(id);
    if (byName?.nameQueryRefused) throw new KlingSimError(1103, 'no permission to query this task');
    const task = this.tasks.get(id) ?? byName;
    if (!task || task.endpoint !== endpoint) return undefined;
    task.queries++;
    this.queries++;
    return task;
  }

  get(id: string): KlingTask | undefined {
    return this.tasks.get(id);
  }

  /** What the task's status is after its queries so far. */
  status(task: KlingTask): 'submitted' | 'processing' | 'succeed' | 'failed' {
    if (task.queries === 0) return 'submitted';
    if (task.queries === 1) return 'processing';
    return task.fail ? 'failed' : 'succeed';
  }

  stats(): KlingTaskStats {
    return { created: this.created, by_external_task_id: Object.fromEntries(this.createdByExternal), queries: this.queries };
  }

  private forgetOld(): void {
    const cutoff = Date.now() - retentionMs;
    for (const [id, task] of this.tasks) {
      if (task.createdAt >= cutoff) break; // insertion order: the rest are newer
      this.tasks.delete(id);
      if (task.externalTaskId !== undefined) this.byExternal.delete(task.externalTaskId);
    }
  }
}
