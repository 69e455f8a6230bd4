// A job's status in words, for the cabinet's gallery (a generation made by a job shows its job's
// status until it completes) and the console's jobs page. The API spells statuses as the
// internal model does (src/model/jobs.ts JobStatus); a status this bundle does not know yet is
// shown as the API spells it rather than as a missing-key placeholder.
import type { MessageKey } from './i18n/en.js';

/** Every status the API can return, cancelled included (jobs ls takes the same set as a filter). */
export const jobStatuses = ['queued', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
export type JobStatusName = (typeof jobStatuses)[number];

const known = (status: string): status is JobStatusName => (jobStatuses as readonly string[]).includes(status);

/** The console's word for a status (a column value: «в очереди», «выполняется»…). */
export function consoleJobStatusLabel(status: string, t: (key: MessageKey) => string): string {
  return known(status) ? t(`console.jobs.status.${status}`) : status;
}

/** The gallery's word for a generation's status (it follows «Status:»). */
export function generationStatusLabel(status: string, t: (key: MessageKey) => string): string {
  return known(status) ? t(`gallery.status.${status}`) : status;
}
