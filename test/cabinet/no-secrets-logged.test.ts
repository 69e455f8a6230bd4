// Issue 31, security: no password, token or secret appears in a log, in /metrics, in the
// request log or in the audit log. A stranger goes through every way a secret crosses the
// gateway — sign-up (and a refused one with a too-short password), the emailed link, a wrong and
// a right password, a reset, a password change, a key made in the cabinet and used — with the
// log at its most verbose; then every line, row and metric is searched for each secret.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { parse } from 'yaml';
import { testOnBackends } from '../helpers/backends.js';
import { capturedLogger, exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { linkIn, startSmtpServer } from '../helpers/smtp.js';

testOnBackends('secrets stay out of the log, /metrics, the request log and the audit log', async (t, database) => {
  const smtp = await startSmtpServer(t);
  const { logger, lines } = capturedLogger('trace');
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, {
    raw: { ...raw, cabinet: { signup: 'open', signup_bonus: '10.00' }, email: { smtp_url_env: 'TEST_SMTP_URL', from: 'gw@example.com' } },
    env: { TEST_SMTP_URL: smtp.url },
    logger,
  });
  const { url } = gateway;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const email = 'secretive@example.com';
  const secrets: Record<string, string> = {
    tooShort: 'Tiny-9',
    first: 'First-password-4417',
    wrong: 'Wrong-password-8823',
    reset: 'Reset-password-5530',
    changed: 'Changed-password-6641',
    unknownUsers: 'Unknown-user-pass-7712',
  };

  t.is((await post('/cabinet/api/signup', { email, password: secrets.tooShort })).status, 422);
  t.is((await post('/cabinet/api/signup', { email, password: secrets.first, locale: 'en' })).status, 202);
  secrets.verifyToken = linkIn(await smtp.nextTo(email)).token;
  t.is((await post('/cabinet/api/verify-email', { token: secrets.verifyToken })).status, 200);
  t.is((await post('/cabinet/api/login/password', { email, password: secrets.wrong })).status, 401);
  t.is((await post('/cabinet/api/login/password', { email: 'nobody@example.com', password: secrets.unknownUsers })).status, 401);
  t.is((await post('/cabinet/api/password-reset', { email })).status, 202);
  secrets.resetToken = linkIn(await smtp.nextTo(email, 2)).token;
  t.is((await post('/cabinet/api/password-reset/confirm', { token: secrets.resetToken, password: secrets.reset })).status, 204);
  const login = await post('/cabinet/api/login/password', { email, password: secrets.reset });
  t.is(login.status, 200);
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  secrets.cookie = cookie.split('=')[1]!;
  const csrf = ((await login.json()) as any).csrf_token as string;
  secrets.csrf = csrf;
  const session = { cookie, 'x-csrf-token': csrf };
  t.is((await post('/cabinet/api/password', { current: secrets.reset, new: secrets.changed }, session)).status, 200);
  const created = await post('/cabinet/api/keys', { name: 'mine', scopes: ['chat'] }, session);
  t.is(created.status, 201);
  secrets.apiKey = ((await created.json()) as any).key as string;
  const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: secrets.apiKey, maxRetries: 0 });
  await openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 });
  // A wrong key is logged as refused, never as itself.
  secrets.wrongKey = `${secrets.apiKey.slice(0, -6)}zzzzzz`;
  const refused = await post('/v1/chat/completions', { model: 'sim/chat', messages: [{ role: 'user', content: 'x' }] }, { authorization: `Bearer ${secrets.wrongKey}` });
  t.is(refused.status, 401);

  const metrics = await (await fetch(`${url}/metrics`)).text();
  await gateway.stop(); // flushes the request log's batch
  const requestLog = JSON.stringify(await database.db('request_log').select('*'));
  const auditLog = JSON.stringify(await database.db('audit_log').select('*'));
  const log = lines.map((line) => JSON.stringify(line)).join('\n');
  t.true(lines.length > 10, 'the log was written to');
  t.true(requestLog.includes('sim/chat'), 'the request log has the calls');
  t.true(auditLog.includes('user.login_failed'), 'the audit log has the failed login');
  for (const [name, secret] of Object.entries(secrets)) {
    t.false(log.includes(secret), `${name} is not in the log`);
    t.false(metrics.includes(secret), `${name} is not in /metrics`);
    t.false(requestLog.includes(secret), `${name} is not in the request log`);
    t.false(auditLog.includes(secret), `${name} is not in the audit log`);
  }
  t.false(log.includes(smtp.url), 'the SMTP URL is not in the log');
});
