// Redeeming codes in a test as a customer does: a member of an account, logged in, posting
// POST /cabinet/api/codes/redeem over HTTP (optionally as a client behind a trusted proxy).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ServerServices } from '../../src/services.js';
import { exampleConfigPath } from '../helpers/gateway.js';
import { newMember, userLogin } from '../helpers/users.js';

export interface Customer {
  readonly accountId: string;
  readonly userId: string;
  readonly cookie: string;
  readonly csrf: string;
}

let customers = 0;

/** A new account with a member (role `member`: any member may redeem) logged in. */
export async function newCustomer(services: ServerServices): Promise<Customer> {
  const account = await services.accounts.create(`codes-${process.pid}-${customers++}`);
  const user = await newMember(services, { accountId: account.id, role: 'member' });
  const login = await userLogin(services, { accountId: account.id, userId: user.id });
  return { accountId: account.id, userId: user.id, cookie: login.cookie, csrf: login.csrf };
}

export interface Answer {
  readonly status: number;
  readonly body: any;
  readonly headers: Headers;
}

/** POST /cabinet/api/codes/redeem as the customer; `from`: the client address a trusted proxy forwards. */
export async function redeem(url: string, customer: Customer, body: unknown, from?: string): Promise<Answer> {
  const response = await fetch(`${url}/cabinet/api/codes/redeem`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: customer.cookie, 'x-csrf-token': customer.csrf, ...(from === undefined ? {} : { 'x-forwarded-for': from }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** The shipped example config with cabinet settings and trusted proxies added. */
export function codesConfig(cabinet: Record<string, unknown> = {}, trustedProxies: string[] = []): Record<string, any> {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  return { ...raw, server: { ...raw.server, trusted_proxies: trustedProxies }, cabinet: { ...raw.cabinet, ...cabinet } };
}

export async function balanceOf(services: ServerServices, accountId: string): Promise<bigint> {
  return (await services.ledger.balance(accountId)).balanceUnits;
}

/** The code's row as stored. */
export async function codeRow(services: ServerServices, codeId: string): Promise<{ uses_left: number; disabled_at: unknown }> {
  const row = await services.db('redemption_codes').where({ id: codeId }).first();
  return { uses_left: Number(row.uses_left), disabled_at: row.disabled_at };
}

/** The one code id of a batch. */
export async function onlyCodeId(services: ServerServices, batchId: string): Promise<string> {
  const rows = await services.db('redemption_codes').where({ batch_id: batchId }).select('id');
  if (rows.length !== 1) throw new Error(`batch ${batchId} has ${rows.length} codes`);
  return rows[0].id as string;
}
