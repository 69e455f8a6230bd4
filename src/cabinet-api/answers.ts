// The JSON the cabinet API answers with, as types only: no import but other types, nothing of
// Node or the DOM, so both builds read this one file — the server (tsconfig.json) builds its
// answers with these declarations and the web app (web/tsconfig.json) reads them with the same
// ones, and a field renamed or retyped on one side fails the other's typecheck. The app imports
// it with `import type`, which esbuild erases: nothing of the server enters the bundle.
import type { HistoryItem } from '../billing/history-item.js';

/** GET /cabinet/api/overview (src/cabinet-api/overview.ts). */
export interface Overview {
  balance_rub: string;
  held_rub: string;
  available_rub: string;
  spend: { today_rub: string; days_7_rub: string; days_30_rub: string };
  by_model: { model: string | null; rub: string; requests: number }[];
  by_day: { day: string; rub: string }[];
  /** The period by_model and by_day cover: [since, until) as ISO 8601 UTC. */
  since: string;
  until: string;
}

/** GET /cabinet/api/history (src/cabinet-api/history.ts): the /v1/history item with the key that caused it. */
export interface CabinetHistoryItem extends HistoryItem {
  readonly key_id: string | null;
  readonly key_name: string | null;
}

export interface CabinetHistoryPage {
  object: 'list';
  data: CabinetHistoryItem[];
  has_more: boolean;
  next_cursor: string | null;
}
