import { Flags } from '@oclif/core';
import { readRequestLog, requestStatusHint, requestStatusPattern } from '../../src/admin/request-log.js';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { pagedList } from '../../src/cli/list-output.js';
import { parseDate } from '../../src/cli/period.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { requestSources, type RequestSource } from '../../src/observability/request-source.js';

export default class RequestsList extends GatewayCommand {
  static override description =
    "List the request log, newest first: each request's time, source (api: /v1 traffic, cabinet: the web cabinet's page calls, bot: the Telegram bot's), status, route, model, account, key, latency, charge and, for a failure, the error its client got and the upstream's status — the rows GET /admin/v1/request-log answers";
  static override examples = [
    '<%= config.bin %> requests ls --status 5xx --since 2026-11-28',
    '<%= config.bin %> requests ls --account acme --model gpt-4o-mini --source api --limit 20',
    { description: 'failures of one key in a period, as JSON: {object: "list", data: [rows], has_more, next_cursor}', command: '<%= config.bin %> requests ls --key key_… --status failed --since 2026-11-28T09:00:00Z --until 2026-11-28T10:00:00Z --json' },
    { description: 'the next page: pass next_cursor of the previous page', command: '<%= config.bin %> requests ls --status 4xx --cursor NEXT_CURSOR' },
  ];
  static override flags = {
    status: Flags.string({ description: `only requests with this status: ${requestStatusHint}` }),
    model: Flags.string({ description: 'only requests for this model (its catalog id)' }),
    key: Flags.string({ description: 'only requests made with this key (key_…)' }),
    account: Flags.string({ description: 'only requests of this account (id or name)' }),
    source: Flags.string({ description: "only the API's traffic (api: /v1/…), the web cabinet's page calls (cabinet: /cabinet/api/…) or the Telegram bot's (bot)", options: [...requestSources] }),
    since: Flags.string({ description: 'answered at or after: YYYY-MM-DD (UTC midnight) or an ISO 8601 time with its zone' }),
    until: Flags.string({ description: 'answered before: YYYY-MM-DD (UTC midnight) or an ISO 8601 time with its zone' }),
    limit: Flags.integer({ description: 'rows per page (1–500)', default: 50, min: 1, max: 500 }),
    cursor: Flags.string({ description: 'next_cursor of the previous page' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(RequestsList);
    await this.runWithServices(flags, async ({ accounts, db }) => {
      if (flags.status !== undefined && !requestStatusPattern.test(flags.status)) throw new GatewayError('invalid_argument', `--status "${flags.status}" is not ${requestStatusHint}`);
      if (flags.cursor !== undefined && !/^\d{1,15}$/.test(flags.cursor)) throw new GatewayError('invalid_argument', `--cursor "${flags.cursor}" is not the next_cursor of a previous page`);
      const since = flags.since === undefined ? undefined : parseDate('since', flags.since);
      const until = flags.until === undefined ? undefined : parseDate('until', flags.until);
      if (since !== undefined && until !== undefined && until <= since) throw new GatewayError('invalid_argument', `--until must be after --since (${new Date(since).toISOString()})`);
      const account = flags.account ? await accounts.find(flags.account) : undefined;
      const page = await readRequestLog(db, {
        status: flags.status,
        model: flags.model,
        keyId: flags.key,
        accountId: account?.id,
        source: flags.source as RequestSource | undefined,
        since,
        until,
        limit: flags.limit,
        beforeId: flags.cursor === undefined ? undefined : Number(flags.cursor),
      });
      const rows = page.data.map((row) => ({
        ...row,
        request: `${row.method} ${row.route}`,
        ms: row.duration_ms.toFixed(1),
        error: row.error === null ? null : [row.error.upstream_status && `upstream ${row.error.upstream_status}`, row.error.code].filter(Boolean).join(' '),
      }));
      let text = table(rows, ['created_at', 'request_id', 'source', 'status', 'request', 'model', 'account_id', 'key_id', 'ms', 'charged_rub', 'error']);
      if (page.next_cursor) text += `\n\nmore: --cursor ${page.next_cursor}`;
      return { json: pagedList(page.data, page.next_cursor), text };
    });
  }
}
