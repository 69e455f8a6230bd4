// `gateway requests ls` through the real binary (issue 30, items 12 and 13): the request log
// filtered by status (a code, a class, failed), model, key, account (id or name), source (the
// API's traffic or the web cabinet's page calls) and time (--since inclusive, --until
// exclusive), paged by --limit and --cursor as `balance history` and `files ls` are; the
// table without --json; bad flags refused with the catalog's invalid_argument. Both databases.
// The rows are written in-process (exact times and sources); the HTTP test
// (test/admin/request-log-source.test.ts) shows the server writing them.
import { Accounts } from '../../src/accounts/accounts.js';
import { testOnBackends } from '../helpers/backends.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';

const at = (iso: string) => Date.parse(iso);

testOnBackends('requests ls: filters by status, model, key, account, source and time; pages with --limit and --cursor; a table without --json', async (t, database) => {
  t.timeout(240_000);
  const env = cliEnv(database);
  const accounts = new Accounts(database.db);
  const acme = await accounts.create('acme');
  const other = await accounts.create('other');
  const row = (requestId: string, fields: Record<string, unknown>) => ({
    request_id: requestId,
    account_id: acme.id,
    key_id: 'key_acme',
    method: 'POST',
    route: '/v1/chat/completions',
    model: 'sim/chat',
    status: 200,
    duration_us: 1500,
    charged_units: 0,
    provider: null,
    error_code: null,
    error_message: null,
    upstream_status: null,
    source: 'api',
    ...fields,
  });
  // Oldest first: the ids rise with the time, as the batched writer appends them.
  await database.db('request_log').insert([
    row('req_1', { created_at: at('2026-11-27T23:00:00Z'), charged_units: 1350, provider: 'sim' }),
    row('req_2', { created_at: at('2026-11-28T09:00:00Z'), status: 502, provider: 'sim', error_code: 'upstream_error', error_message: 'The upstream failed', upstream_status: '500' }),
    row('req_3', { created_at: at('2026-11-28T09:30:00Z'), key_id: 'key_cabinet', method: 'GET', route: '/cabinet/api/overview', model: null, source: 'cabinet' }),
    row('req_4', { created_at: at('2026-11-28T10:00:00Z'), account_id: other.id, key_id: 'key_other', route: '/v1/images/generations', model: 'sim/image', status: 429, error_code: 'rate_limited', error_message: 'Too many requests' }),
    row('req_5', { created_at: at('2026-11-28T10:30:00Z'), account_id: null, key_id: null, method: 'GET', route: '/v1/history', model: null, status: 401, error_code: 'invalid_api_key', error_message: 'Invalid API key' }),
  ]);
  const ids = async (...flags: string[]) => (await runCliJson(['requests', 'ls', ...flags], env)).data.map((entry: { request_id: string }) => entry.request_id);

  const all = await runCliJson(['requests', 'ls'], env);
  t.like(all, { object: 'list', has_more: false, next_cursor: null });
  t.deepEqual(all.data.map((entry: { request_id: string }) => entry.request_id), ['req_5', 'req_4', 'req_3', 'req_2', 'req_1']);
  const [, , cabinetRow, failedRow, okRow] = all.data;
  t.deepEqual(failedRow, {
    id: failedRow.id,
    request_id: 'req_2',
    created_at: '2026-11-28T09:00:00.000Z',
    method: 'POST',
    route: '/v1/chat/completions',
    source: 'api',
    status: 502,
    duration_ms: 1.5,
    model: 'sim/chat',
    account_id: acme.id,
    key_id: 'key_acme',
    provider: 'sim',
    charged_rub: '0.0000',
    error: { code: 'upstream_error', message: 'The upstream failed', upstream_status: '500' },
  });
  t.like(okRow, { source: 'api', charged_rub: '0.1350', error: null });
  t.like(cabinetRow, { source: 'cabinet', route: '/cabinet/api/overview', key_id: 'key_cabinet' });

  t.deepEqual(await ids('--status', '5xx'), ['req_2']);
  t.deepEqual(await ids('--status', 'failed'), ['req_5', 'req_4', 'req_2']);
  t.deepEqual(await ids('--model', 'sim/chat'), ['req_2', 'req_1']);
  t.deepEqual(await ids('--key', 'key_other', '--account', other.id), ['req_4'], 'an account by id');
  t.deepEqual(await ids('--account', 'acme'), ['req_3', 'req_2', 'req_1'], 'an account by name');
  t.deepEqual(await ids('--source', 'cabinet'), ['req_3']);
  t.deepEqual(await ids('--source', 'api', '--status', '4xx'), ['req_5', 'req_4']);
  t.deepEqual(await ids('--since', '2026-11-28'), ['req_5', 'req_4', 'req_3', 'req_2'], 'a date is UTC midnight');
  t.deepEqual(await ids('--since', '2026-11-28T09:30:00Z', '--until', '2026-11-28T10:30:00Z'), ['req_4', 'req_3'], 'since inclusive, until exclusive');
  t.deepEqual(await ids('--until', '2026-11-28T12:30:01+03:00'), ['req_3', 'req_2', 'req_1'], 'a time with its zone (09:30:01 UTC)');
  t.deepEqual(await ids('--account', 'acme', '--source', 'api', '--status', 'ok'), ['req_1'], 'the filters together');

  const page1 = await runCliJson(['requests', 'ls', '--limit', '2'], env);
  t.deepEqual(page1.data.map((entry: { request_id: string }) => entry.request_id), ['req_5', 'req_4']);
  t.like(page1, { has_more: true, next_cursor: String(page1.data[1].id) });
  const page2 = await runCliJson(['requests', 'ls', '--limit', '2', '--cursor', page1.next_cursor], env);
  t.deepEqual(page2.data.map((entry: { request_id: string }) => entry.request_id), ['req_3', 'req_2']);
  const page3 = await runCliJson(['requests', 'ls', '--limit', '2', '--cursor', page2.next_cursor], env);
  t.deepEqual(page3, { object: 'list', data: [okRow], has_more: false, next_cursor: null });

  const text = await runCli(['requests', 'ls', '--account', 'acme', '--limit', '2'], env);
  t.is(text.exitCode, 0);
  const lines = text.stdout.split('\n');
  t.regex(lines[0]!, /^CREATED_AT\s+REQUEST_ID\s+SOURCE\s+STATUS\s+REQUEST\s+MODEL\s+ACCOUNT_ID\s+KEY_ID\s+MS\s+CHARGED_RUB\s+ERROR$/);
  t.regex(lines[1]!, new RegExp(`^2026-11-28T09:30:00.000Z\\s+req_3\\s+cabinet\\s+200\\s+GET /cabinet/api/overview\\s+-\\s+${acme.id}\\s+key_cabinet\\s+1.5\\s+0.0000\\s+-$`));
  t.regex(lines[2]!, new RegExp(`^2026-11-28T09:00:00.000Z\\s+req_2\\s+api\\s+502\\s+POST /v1/chat/completions\\s+sim/chat\\s+${acme.id}\\s+key_acme\\s+1.5\\s+0.0000\\s+upstream 500 upstream_error$`));
  t.is(lines.at(-1), `more: --cursor ${failedRow.id}`, 'the next page starts below the last row shown');

  for (const [flags, message] of [
    [['--status', 'teapot'], /--status "teapot" is not a code \(502\)/],
    [['--since', 'yesterday'], /--since "yesterday" is not a date/],
    [['--since', '2026-11-28', '--until', '2026-11-27'], /--until must be after --since \(2026-11-28T00:00:00.000Z\)/],
    [['--cursor', 'abc'], /--cursor "abc" is not the next_cursor of a previous page/],
  ] as const) {
    const refused = await runCli(['requests', 'ls', ...flags, '--json'], env);
    t.is(refused.exitCode, 1, flags.join(' '));
    t.is(refused.stdout, '');
    const { error } = JSON.parse(refused.stderr);
    t.is(error.code, 'invalid_argument');
    t.regex(error.message, message);
  }
  const unknownSource = await runCli(['requests', 'ls', '--source', 'admin'], env);
  t.is(unknownSource.exitCode, 2, 'oclif refuses a value outside the options');
  t.regex(unknownSource.stderr, /Expected --source=admin to be one of: api, cabinet/);
  const unknownAccount = await runCli(['requests', 'ls', '--account', 'nobody', '--json'], env);
  t.is(unknownAccount.exitCode, 1);
  t.is(JSON.parse(unknownAccount.stderr).error.code, 'not_found');
});
