// What GET /v1/history answers with, as types only (no import, nothing Node or DOM): the web
// cabinet type-checks its pages against these same declarations through
// src/cabinet-api/answers.ts, which web/tsconfig.json reads too, and the console's account
// ledger (web/src/console/account-ledger.tsx) extends HistoryItem directly.

export interface HistoryItem {
  id: string;
  object: 'balance.transaction';
  /** Unix seconds, like every `created_at` of the OpenAI-shaped API. */
  created_at: number;
  kind: string;
  amount_rub: string;
  balance_after_rub: string;
  model: string | null;
  description: string | null;
  request_id: string | null;
}

export interface HistoryPage {
  object: 'list';
  data: HistoryItem[];
  has_more: boolean;
  next_cursor: string | null;
}
