// `keys create|update --tpm --max-in-flight` (and `keys update --scopes`) through the binary, on both databases: shown by
// `keys ls/show` (text and --json), cleared with none or 0, audited, a bad value refused naming
// its flag — and the limits set by the CLI hold on a serving gateway over the same database.
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway.js';

testOnBackends('keys create/update --tpm --max-in-flight: shown, cleared, audited, refused when malformed, enforced', async (t, database) => {
  t.timeout(300_000); // a dozen CLI runs: each a process start, slow on a loaded 2-core machine
  const env = cliEnv(database);
  await runCliJson(['accounts', 'create', 'acme'], env);
  await runCliJson(['balance', 'topup', '--account', 'acme', '--amount', '100'], env);

  const created = await runCliJson(['keys', 'create', '--account', 'acme', '--tpm', '5000', '--max-in-flight', '3'], env);
  t.like(created, { tpm: 5000, max_in_flight: 3, rpm: null });
  const plain = await runCliJson(['keys', 'create', '--account', 'acme', '--name', 'plain'], env);
  t.like(plain, { tpm: null, max_in_flight: null });

  t.like(await runCliJson(['keys', 'show', created.id], env), { id: created.id, tpm: 5000, max_in_flight: 3 });
  const shown = await runCli(['keys', 'show', created.id], env);
  t.regex(shown.stdout, /^tpm +5000$/m);
  t.regex(shown.stdout, /^max_in_flight +3$/m);
  const listed = await runCliJson(['keys', 'ls', '--account', 'acme'], env);
  t.deepEqual(
    listed.data.map((key: { id: string; tpm: number | null; max_in_flight: number | null }) => [key.id, key.tpm, key.max_in_flight]),
    [
      [created.id, 5000, 3],
      [plain.id, null, null],
    ],
  );
  const table = (await runCli(['keys', 'ls', '--account', 'acme'], env)).stdout.split('\n');
  const header = table[0]!.split(/\s+/);
  const row = table.find((line) => line.startsWith(created.id))!.split(/\s+/);
  t.is(row[header.indexOf('TPM')], '5000');
  t.is(row[header.indexOf('IN_FLIGHT')], '3');

  const cleared = await runCliJson(['keys', 'update', created.id, '--tpm', 'none', '--max-in-flight', '0'], env);
  t.like(cleared, { tpm: null, max_in_flight: null, changed: ['tpm', 'max_in_flight'] });
  const set = await runCliJson(['keys', 'update', created.id, '--tpm', '1'], env);
  t.like(set, { tpm: 1, max_in_flight: null, changed: ['tpm'] });
  const audit = (await runCliJson(['audit', 'ls', '--account', 'acme'], env)).data as { action: string; target: string; details: Record<string, unknown> }[];
  t.deepEqual(
    audit.filter((entry) => entry.action === 'key.update').map((entry) => [entry.target, entry.details.changes]),
    [
      [created.id, { tpm: { from: null, to: 1 } }],
      [created.id, { tpm: { from: 5000, to: null }, max_in_flight: { from: 3, to: null } }],
    ],
  );
  const creation = audit.find((entry) => entry.action === 'key.create' && entry.target === created.id)!;
  t.like(creation.details, { tpm: 5000, max_in_flight: 3 });
  // --scopes replaces the key's scopes (canonical order), as the admin API's and the cabinet's PATCH do.
  t.like(await runCliJson(['keys', 'update', plain.id, '--scopes', 'images,chat'], env), { scopes: ['chat', 'images'], changed: ['scopes'] });

  for (const [flag, value] of [
    ['--tpm', '12.5'],
    ['--max-in-flight', '100001'],
  ] as const) {
    const refused = await runCli(['keys', 'update', created.id, `${flag}=${value}`, '--json'], env);
    t.is(refused.exitCode, 1, `${flag} ${value}`);
    const { error } = JSON.parse(refused.stderr) as { error: { code: string; message: string } };
    t.is(error.code, 'invalid_argument');
    t.true(error.message.startsWith(`${flag}: "${value}" is not a whole number`), error.message);
  }
  t.is((await runCliJson(['keys', 'show', created.id], env)).tpm, 1, 'a refused update changed nothing');

  // Served: the key's tpm of 1 is reached by its first call's tokens.
  const gateway = await startGateway(t, database);
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: created.key, maxRetries: 0 });
  await openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'hi' }] });
  const refused = await t.throwsAsync(openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'hi' }] }), { instanceOf: OpenAI.RateLimitError });
  t.is(refused!.code, 'tokens_per_minute_exceeded');
});
