// The JSON of redemption codes on the wire, as types only (no import, nothing of Node or the
// DOM), so the server, which builds these answers (src/cli/present-codes.ts), and the web app,
// which reads them (the cabinet's redeem field, the console's codes page, with `import type`),
// check one declaration. Money: RUB as decimal strings with 4 decimals; times: ISO 8601, UTC.

/** A batch as GET /admin/v1/codes lists it and `gateway codes ls --json` prints it. Never a code. */
export interface CodeBatchAnswer {
  id: string;
  /** What one redemption credits. */
  amount_rub: string;
  /** Accounts each code may credit, once each. */
  uses_per_code: number;
  /** Codes in the batch. */
  count: number;
  /** Redemptions of its codes so far. */
  redeemed: number;
  expires_at: string | null;
  disabled_at: string | null;
  /** The operator's note; the customer who redeems a code sees it too. */
  note: string | null;
  created_by: string;
  created_at: string;
}

/** One code of a batch: its last four characters, never the code. */
export interface RedemptionCodeAnswer {
  id: string;
  hint: string;
  uses_left: number;
  disabled_at: string | null;
  /** Accounts that redeemed it so far. */
  redemptions: number;
}

/** GET /admin/v1/codes/:batchId. */
export interface CodeBatchDetailAnswer extends CodeBatchAnswer {
  codes: RedemptionCodeAnswer[];
}

/** POST /admin/v1/codes (201), `gateway codes create --json`: the only time the codes are shown. */
export interface CreatedCodeBatchAnswer {
  batch: CodeBatchAnswer;
  /** Grouped for reading: `ABCD-EFGH-JKLM-NPQR-STUV`. */
  codes: string[];
}

/** POST /cabinet/api/codes/redeem. */
export interface CodeRedemptionAnswer {
  amount_rub: string;
  /** The account's balance after the credit. */
  balance_rub: string;
  /** The ledger row (`txn_…`), a `bonus` in the history. */
  transaction_id: string;
  /** The batch's note, when it has one. */
  batch_note?: string;
}
